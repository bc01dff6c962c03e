"""The Board: everything the site shows, typed, before any of it becomes HTML.

Templates only lay the Board out; every number, rank, date and path is decided when the Board
is built. Paths are root-relative (see ``memrank.board.urls``) and templates turn them into
links relative to the page they are on.
"""

from __future__ import annotations

import numpy as np
from markupsafe import Markup
from pydantic import BaseModel, ConfigDict, SkipValidation

from memrank._basics import UTCDateTime
from memrank.artifacts import Division, Root, RunPredicate
from memrank.board.cells import (
    CategoryRow,
    Cell,
    Comparison,
    Interval,
    Overall,
    Rank,
    RunLink,
    Shown,
    Undecided,
)
from memrank.board.config import Column
from memrank.board.field import FieldPage
from memrank.board.identity import Identity
from memrank.board.record import Change, RootVersion
from memrank.provenance import Evidence

__all__ = [
    "Shown",
    "Board",
    "Cell",
    "CategoryRow",
    "Change",
    "Comparison",
    "DocPage",
    "EvaluationPage",
    "Identity",
    "Interval",
    "Overall",
    "Rank",
    "RefusedRun",
    "Row",
    "RunLink",
    "RootVersion",
    "RunPage",
    "Track",
    "Undecided",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class RefusedRun(BaseModel):
    """A verified run the board refuses: its system's name or version reads like another's,
    or mixes scripts. It has no page of its own, so the home page lists it as text."""

    model_config = _FROZEN
    system: str
    """The system's name, as signed."""
    version_shown: str
    evaluation: str
    issued_at: UTCDateTime
    why: str
    """Why it is refused, naming what it reads like."""


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
    """Present when the track has an Overall column (``Track.overall``); its value is None,
    with the reason, when the row has no value on a ranking column (it is not ranked overall)."""
    control: bool = False
    """A control arm (systems.toml's ``control``): memrank's reference arms, such as the floor
    that recalls nothing, shown apart from the systems."""
    published: UTCDateTime
    """When the newest run shown in the row was attested."""
    latency_ms: float | None = None
    """The median retrieve latency (``latency.retrieve.p50``, ms) of the row's run on the
    ranking column (else its first run), as measured on the publisher's machine; None when the
    run records none."""
    tokens: float | None = None
    """The tokens in and out of that run's answer-model and judge calls (``usage.tokens``);
    None when it called no model."""
    cost_usd: float | None = None
    """What those calls cost at the models' listed prices, in US dollars (``usage.cost-usd``);
    None when it called no model or a price is not listed."""


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
    overall: Overall
    """The track's Overall column over its ranking columns, or why it has none."""
    ranking_column: str | None
    """The title of the column the rank comes from."""
    rows: tuple[Row, ...]
    """Best rank first."""
    usage: bool
    """Whether any row's run called an answer model or a judge (tokens or cost recorded):
    only then does the table show those columns. A field, not worked out from ``rows``:
    every row of the table asks it."""

    @property
    def ranking_index(self) -> int | None:
        """The position of the ranking column among ``columns`` (None when nothing ranks)."""
        titles = [column.title for column in self.columns]
        return titles.index(self.ranking_column) if self.ranking_column in titles else None

    @property
    def systems(self) -> tuple[Row, ...]:
        """The rows that are not control arms, best rank first."""
        return tuple(row for row in self.rows if not row.control)

    @property
    def controls(self) -> tuple[Row, ...]:
        """The control arms' rows, shown apart from the systems, best rank first."""
        return tuple(row for row in self.rows if row.control)


class RunPage(BaseModel):
    """Everything one verified artifact says, and where its bytes can be fetched."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)
    artifact_id: str
    path: str
    predicate: SkipValidation[RunPredicate]
    """The signed statement's predicate: system, evaluation, dataset bundle, pipeline,
    environment, dates and the run-scope summary. Taken as verification made it: pydantic
    runs a record's own checks again each time it is placed in another model."""
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
    questions: tuple[tuple[str, str, int], ...] = ()
    """The dataset bundle's questions per category, in natural order (sessions-2 before
    sessions-10): the category, its label where the column gives one, and the count."""
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
    comparisons: SkipValidation[tuple[Comparison, ...]]
    """Other runs shown in the same column, best first: the nearest ties, and the nearest runs
    the test separates on each side. Taken as made (see ``Comparison``)."""
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

    # The pair matrices are raw float64 bytes (base64 in JSON): a column of 1,000 runs has a
    # million pairs, too many to hold, validate and serialise one Python float at a time.
    model_config = ConfigDict(
        frozen=True, extra="forbid", ser_json_bytes="base64", val_json_bytes="base64"
    )
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
    forest_narrow_path: str
    """The forest plot drawn for a phone (``svg.NARROW`` pixels wide)."""
    matrix_narrow_path: str
    """The significance matrix drawn for a phone."""
    data_path: str
    """The small JSON the compare-two picker reads: names, means, differences, p values."""
    pair_differences: bytes
    """``differences`` as float64 bytes, row by row."""
    pair_p_values: bytes
    """``p_values`` as float64 bytes, row by row."""
    made_from: str
    """sha256 of everything the page is made from (the column's reading, by its digest, and
    the runs in the page's order): two builds that give an evaluation page the same digest
    give it the same content, so the page and its data files are known by it, not by a dump
    of its 16 MB of pair matrices."""

    @property
    def differences(self) -> np.ndarray:
        """[i, j]: row j's mean minus row i's, over the tasks both decided."""
        return _square(self.pair_differences, len(self.rows))

    @property
    def p_values(self) -> np.ndarray:
        """[i, j]: the two-sided p of the paired clustered test of rows i and j; NaN on the
        diagonal and where no test is possible."""
        return _square(self.pair_p_values, len(self.rows))


def _square(raw: bytes, n: int) -> np.ndarray:
    return np.frombuffer(raw, dtype=np.float64).reshape(n, n)


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
    refused: tuple[RefusedRun, ...] = ()
    """Verified runs the board refuses to show at all, oldest first."""
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
