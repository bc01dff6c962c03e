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
from memrank.measure import Value
from memrank.paired import Paired
from memrank.provenance import Evidence

__all__ = [
    "Board",
    "Cell",
    "DocPage",
    "PairPage",
    "Row",
    "RunLink",
    "RunPage",
    "TaskRow",
    "Track",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class RunLink(BaseModel):
    """A run as other pages point at it."""

    model_config = _FROZEN
    path: str
    """Where the link goes: the run page, or, in a run page's list of pairs, the pair page."""
    system: str
    """The system's name."""
    version: str | None
    """The system's version; None when the run did not state one."""
    evaluation: str
    issued_at: UTCDateTime
    note: str = ""
    """Why the run is listed where it is, when that needs saying."""


class Cell(BaseModel):
    """One column's headline for one row: the number, who decided it, and how."""

    model_config = _FROZEN
    value: Value
    """The headline value, with its measure, decider and why."""
    bar: float
    """The value's share of the column's largest magnitude, 0 to 1: the score bar's length."""
    run: str | None
    """The run page the value comes from; None for an overall, which combines several."""


class Row(BaseModel):
    """One system at one version, division and evidence class, across a track's columns."""

    model_config = _FROZEN
    key: str
    """Stable within the track; names the row in the page and in results.json."""
    rank: int | None
    """Rank on the track's ranking column; None when the row has no value there."""
    system: str
    version: str | None
    division: Division
    evidence: Evidence
    cells: tuple[Cell | None, ...]
    """One per column, in column order; None where the system has no accepted run."""
    overall: Cell | None
    """Present when the track has an overall column; its value is None, with the reason, when
    a column it combines has no value for this row."""
    published: UTCDateTime
    """When the newest run shown in the row was attested."""


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
    overall: Overall | None
    ranking_column: str | None
    """The title of the column the rank comes from."""
    rows: tuple[Row, ...]
    """Best rank first."""


class TaskRow(BaseModel):
    """One task's values on a run page, one entry per task-scope measure."""

    model_config = _FROZEN
    task_id: str
    values: tuple[Value | None, ...]


class RunPage(BaseModel):
    """Everything one verified artifact says, and where its bytes can be downloaded."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)
    artifact_id: str
    path: str
    predicate: RunPredicate
    """The signed statement's predicate: system, evaluation, dataset bundle, pipeline,
    environment, dates and the run-scope summary."""
    key_ids: tuple[str, ...]
    """The release keys whose signatures verified, as the verifier computed them."""
    values: tuple[Value, ...]
    """Every run- and group-scope value in the result file."""
    task_measures: tuple[str, ...]
    """The task-scope measures, the columns of ``tasks``."""
    tasks: tuple[TaskRow, ...]
    envelope_path: str
    result_path: str
    supersedes: str | None
    """The run page of the artifact this one corrects."""
    superseded_by: str | None
    """The run page of the artifact that corrects this one; a superseded run leaves the table."""
    pairs: tuple[RunLink, ...]
    """Pair pages with every other run of the same evaluation and version."""


class PairPage(BaseModel):
    """Two runs of the same evaluation and version, read side by side."""

    model_config = _FROZEN
    path: str
    track: str
    a: RunLink
    b: RunLink
    reading: Paired
    """``memrank.paired`` of the two result files, closing line included."""


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
    pairs: tuple[PairPage, ...]
    unlisted: tuple[RunLink, ...]
    """Accepted runs no table shows, each with its note saying why."""
    docs: tuple[DocPage, ...]
    trust: Root
    """The trust root the artifacts were verified against; trust.json publishes it."""
