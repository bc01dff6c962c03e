"""The Board: everything the site shows, typed, before any of it becomes HTML.

Templates only lay the Board out; every number, rank, date and path is decided when the Board
is built. Paths are root-relative (see ``memrank.board.urls``) and templates turn them into
links relative to the page they are on.
"""

from __future__ import annotations

from markupsafe import Markup
from pydantic import BaseModel, ConfigDict

from memrank._types import UTCDateTime
from memrank.artifacts import Division, Root, RunPredicate
from memrank.board.config import Column, Overall
from memrank.board.field import FieldPage
from memrank.board.identity import Identity
from memrank.measure import Value
from memrank.provenance import Evidence

__all__ = [
    "Board",
    "Cell",
    "CategoryRow",
    "Change",
    "Comparison",
    "DocPage",
    "EvaluationPage",
    "Identity",
    "Interval",
    "Rank",
    "Row",
    "RunLink",
    "RootVersion",
    "RunPage",
    "Track",
    "Undecided",
    "Words",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class RunLink(BaseModel):
    """A run as other pages point at it."""

    model_config = _FROZEN
    path: str
    """The run page."""
    system: str
    """The system's name, as signed."""
    display: str
    """What pages call it: the systems file's display name, else the signed name."""
    version_shown: str
    """The version as pages write it (see ``Row.version_shown``)."""
    version: str | None
    """The system's version; None when the run did not state one."""
    evaluation: str
    issued_at: UTCDateTime
    note: str = ""
    """Why the run is listed where it is, when that needs saying."""


class Interval(BaseModel):
    """A 95% interval of a mean, clustered: tasks of one group move together."""

    model_config = _FROZEN
    low: float
    high: float
    method: str
    """How it was computed, in words."""
    clusters: int
    """How many independent clusters it rests on."""


class Rank(BaseModel):
    """A tie-aware rank: ``best`` counts the rows significantly better, ``worst`` the rows
    significantly worse from the bottom. Equal when the tests place the row exactly."""

    model_config = _FROZEN
    best: int
    worst: int
    of: int
    """How many rows were ranked together."""

    @property
    def shared(self) -> bool:
        """Whether other rows could hold the same place: the tests do not separate them."""
        return self.best != self.worst

    @property
    def label(self) -> str:
        return str(self.best) if self.best == self.worst else f"{self.best}–{self.worst}"


class Cell(BaseModel):
    """One column's headline for one row: the number, who decided it, and how."""

    model_config = _FROZEN
    value: Value
    """The headline value, with its measure, decider and why."""
    interval: Interval | None = None
    """Its 95% interval; None for a whole-run number or one with fewer than two clusters."""
    bar: float
    """The value's share of the column's largest magnitude, 0 to 1: the score bar's length."""
    run: str | None
    """The run page the value comes from; None for an overall, which combines several."""
    rank: Rank | None = None
    """The row's rank on this column's paired tests."""


class Row(BaseModel):
    """One system at one version, division and evidence class, across a track's columns."""

    model_config = _FROZEN
    key: str
    """Stable within the track; names the row in the page and in results.json."""
    rank: Rank | None
    """Rank on the track's ranking column; None when the row has no value there."""
    system: str
    version: str | None
    """As signed; a built-in system's ``in-process`` is shown as ``built in``, never as a version."""
    version_shown: str
    """The version as pages write it: ``built into memrank X`` for a system that ships inside
    memrank (signed as ``in-process``, which is not a version), ``version not stated`` when
    the run gave none."""
    identity: Identity | None
    """From the systems file, when it names the system."""
    division: Division
    evidence: Evidence
    cells: tuple[Cell | None, ...]
    """One per column, in column order; None where the system has no accepted run."""
    overall: Cell | None
    """Present when the track has an overall column; its value is None, with the reason, when
    a column it combines has no value for this row."""
    published: UTCDateTime
    """When the newest run shown in the row was attested."""
    latency_ms: float | None = None
    """The median retrieve latency (``latency.retrieve.p50``, ms) of the row's run on the
    ranking column (else its first run), as measured on the publisher's machine; None when the
    run records none."""


class Track(BaseModel):
    """One track's table and what it is."""

    model_config = _FROZEN
    name: str
    title: str
    description: str
    path: str
    csv_path: str
    json_path: str
    columns: tuple[Column, ...]
    evaluations: tuple[str | None, ...]
    """Per column, the path of its evaluation page (None when no run has a column of tasks)."""
    notices: tuple[str, ...]
    """Columns that cannot separate much, each said once."""
    overall: Overall | None
    ranking_column: str | None
    """The title of the column the rank comes from."""
    rows: tuple[Row, ...]
    """Best rank first."""

    @property
    def ranking_index(self) -> int | None:
        """The position of the ranking column among ``columns`` (None when nothing ranks)."""
        titles = [column.title for column in self.columns]
        return titles.index(self.ranking_column) if self.ranking_column in titles else None


class Undecided(BaseModel):
    """Tasks of one measure left without a value for one reason (absent is not zero)."""

    model_config = _FROZEN
    measure: str
    why: str
    tasks: int
    """How many tasks this reason covers."""
    examples: tuple[str, ...]
    """The first few of them, by task id."""


class Comparison(BaseModel):
    """This run against another run of the same column, from the all-pairs test."""

    model_config = _FROZEN
    other: RunLink
    other_value: float
    difference: float
    """The other's mean minus this run's, over the tasks both decided."""
    p_value: float | None
    """None where no test is possible (no task both decided)."""
    verdict: str
    """``better`` or ``worse`` (the other, at the 5% level), or ``tie`` (not separated)."""


class CategoryRow(BaseModel):
    """A run's headline on one category's tasks."""

    model_config = _FROZEN
    category: str
    label: str
    cell: Cell | None
    """None where the run decided none of the category's tasks (``why`` says why)."""
    tasks: int = 0
    """The category's tasks the mean is over."""
    of: int = 0
    """The category's tasks in the evaluation."""
    why: str = ""
    """Why there is no value, where there is none."""


class RunPage(BaseModel):
    """Everything one verified artifact says, and where its bytes can be fetched."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)
    artifact_id: str
    path: str
    predicate: RunPredicate
    """The signed statement's predicate: system, evaluation, dataset bundle, pipeline,
    environment, dates and the run-scope summary."""
    key_ids: tuple[str, ...]
    """The release keys whose signatures verified, as the verifier computed them."""
    identity: Identity | None
    version_shown: str
    """The version as pages write it (see ``Row.version_shown``)."""
    headline: Cell | None
    """The value the table shows for this run, with its rank: what a reader clicked."""
    column: str | None
    """The title of the column it is shown in; None when no table shows it."""
    categories: tuple[CategoryRow, ...]
    undecided: tuple[Undecided, ...]
    envelope_path: str
    result_sha256: str
    result_url: str | None
    """The result file in the results store (board.toml's ``results_store``), by digest;
    never copied into the site. None unless the store is on the web and its manifest
    (artifacts/results-store.json) lists the file: no link to a file nobody can fetch."""
    result_in_git: bool = False
    """The result file is kept in the repository's artifacts/results/ (small, or an endpoint
    observation's, compressed)."""
    supersedes: str | None
    """The run page of the artifact this one corrects."""
    superseded_by: str | None
    """The run page of the artifact that corrects this one; a superseded run leaves the table."""
    comparisons: tuple[Comparison, ...]
    """Other runs shown in the same column, best first: the nearest ties, and the nearest runs
    the test separates on each side."""
    more_better: int = 0
    """Runs significantly better than this one that ``comparisons`` leaves out."""
    more_worse: int = 0
    """Runs significantly worse than this one that ``comparisons`` leaves out."""
    more_tied: int = 0
    """Runs tied with this one that ``comparisons`` leaves out (it lists the nearest)."""
    evaluation_path: str | None
    history_path: str = ""
    """The page of every published run of this system."""
    made_from: str
    """sha256 of everything the page is made from (the run's artifact id and key ids, the
    identity, the column reading it is shown in, the results store, what corrects it): two
    builds that give a run page the same digest give it the same content."""


class EvaluationPage(BaseModel):
    """One column of a track on its own page: per category, plots, and compare-two."""

    model_config = _FROZEN
    path: str
    track: str
    column: Column
    rows: tuple[RunLink, ...]
    """The runs ranked on the column, best first."""
    cells: tuple[Cell, ...]
    """Each row's headline cell."""
    categories: tuple[tuple[str, str], ...]
    category_tasks: tuple[int, ...] = ()
    """How many tasks each category holds, in the order of ``categories``."""
    by_category: tuple[tuple[Cell | None, ...], ...]
    """Per row, per category."""
    notice: str | None
    tasks: int
    clusters: int
    forest_path: str
    matrix_path: str
    data_path: str
    """The small JSON the compare-two picker reads: names, means, differences, p values."""
    differences: tuple[tuple[float, ...], ...]
    """[i][j]: row j's mean minus row i's, over the tasks both decided."""
    p_values: tuple[tuple[float | None, ...], ...]
    """[i][j]: the two-sided p of the paired clustered test of rows i and j; None on the
    diagonal and where no test is possible."""


class Change(BaseModel):
    """One line of the board's history."""

    model_config = _FROZEN
    at: UTCDateTime
    what: str
    """``added`` or ``corrected``."""
    text: str
    path: str | None


class Words(BaseModel):
    """Part of a line: memrank's own words, or text copied from a signed artifact."""

    model_config = _FROZEN
    text: str
    signed: bool = False
    """Copied from the artifact (a key id, a track or evaluation name): shown made visible and
    isolated, so it cannot steer the words around it."""


class RootVersion(BaseModel):
    """One version of the trust root, as the verified chain says, and what it changed."""

    model_config = _FROZEN
    version: int
    dated: UTCDateTime
    """The newest key date the chain signs up to this version: the ``valid_from`` of a key it
    adds or the ``valid_until`` of a key it retires. A root carries no date of issue."""
    dated_by: int
    """The version that signs the key date ``dated``: this one, or an earlier one when this
    version adds or retires no key (or only earlier-dated ones)."""
    expires: UTCDateTime
    edits: tuple[tuple[Words, ...], ...]
    """One line per change from the version before (for the first version walked: everything
    it holds)."""

    @property
    def anchor(self) -> str:
        """The fragment naming this version on the changelog page."""
        return f"root-{self.version}"


class DocPage(BaseModel):
    """A page of docs/ rendered from Markdown with raw HTML off."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)
    name: str
    title: str
    """The page's first heading."""
    label: str
    """The title up to its first colon: what the navigation shows."""
    path: str
    html: Markup
    """Rendered by markdown-it-py's safe preset: any HTML in the source arrives escaped."""


class NavLink(BaseModel):
    """A link of the site's navigation."""

    model_config = _FROZEN
    label: str
    path: str


class Frame(BaseModel):
    """What the header and footer of every page show (``base.html`` reads only this, as
    ``site``): the same on every page of a build, so a page kept from an earlier build with the
    same frame and the same content is the page this build would make."""

    model_config = _FROZEN
    title: str
    tracks: tuple[NavLink, ...]
    docs: tuple[NavLink, ...]
    trust_version: int
    field: str | None = None
    """The page of the field's published numbers; None when artifacts/field.toml is absent."""


class HistoryEntry(BaseModel):
    """One published run of a system, as its history lists it."""

    model_config = _FROZEN
    link: RunLink
    column: str | None
    """The column whose table shows it; None when no table does (its note says why)."""
    headline: Cell | None
    """What that table shows for it."""


class SystemHistory(BaseModel):
    """Every published run of one system, every version, oldest first."""

    model_config = _FROZEN
    path: str
    system: str
    display: str
    entries: tuple[HistoryEntry, ...]


class Board(BaseModel):
    """The whole site's content."""

    model_config = _FROZEN
    title: str
    description: str
    base_url: str
    updated: UTCDateTime | None
    """SOURCE_DATE_EPOCH when set, else the newest attestation; None when nothing is accepted."""
    tracks: tuple[Track, ...]
    runs: tuple[RunPage, ...]
    evaluations: tuple[EvaluationPage, ...]
    changes: tuple[Change, ...]
    """Newest first."""
    unlisted: tuple[RunLink, ...]
    """Accepted runs no table shows, each with its note saying why."""
    docs: tuple[DocPage, ...]
    trust: Root
    """The trust root the artifacts were verified against; trust.json publishes it."""
    roots: tuple[RootVersion, ...] = ()
    """The trust root's verified versions, newest first; empty when the build was given no chain."""
    histories: tuple[SystemHistory, ...] = ()
    """One page per signed system name: its runs across versions and evaluations."""
    field: FieldPage | None = None
    """The field's published numbers (artifacts/field.toml), listed beside the board, never
    ranked; None when the file is absent."""

    def frame(self) -> Frame:
        return Frame(
            title=self.title,
            tracks=tuple(NavLink(label=track.title, path=track.path) for track in self.tracks),
            docs=tuple(NavLink(label=doc.label, path=doc.path) for doc in self.docs),
            trust_version=self.trust.version,
            field=self.field.path if self.field else None,
        )
