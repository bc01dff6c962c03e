"""The Board: everything the site shows, typed, before any of it becomes HTML.

Templates only lay the Board out; every number, rank, date and path is decided when the Board
is built. Paths are root-relative (see ``memrank.board.urls``) and templates turn them into
links relative to the page they are on.
"""

from __future__ import annotations

from enum import StrEnum

from markupsafe import Markup
from pydantic import BaseModel, ConfigDict

from memrank._types import UTCDateTime
from memrank.board.config import Column, Overall
from memrank.measure import Value
from memrank.paired import Paired

__all__ = [
    "Board",
    "Cell",
    "DatasetFacts",
    "DocPage",
    "Division",
    "Evidence",
    "PairPage",
    "PipelineFacts",
    "Refusal",
    "Row",
    "RunLink",
    "RunPage",
    "TaskRow",
    "Track",
    "TrustFacts",
    "TrustKey",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Division(StrEnum):
    """Where a system's result is listed: whether its code is open."""

    OPEN_SOURCE = "open-source"
    COMMERCIAL = "commercial"


class Evidence(StrEnum):
    """What a run is evidence of, derived from how memrank and the system were reached."""

    REPRODUCIBLE = "reproducible_evidence"
    """memrank from an installed wheel, the system in-process or pinned: it can be re-run."""
    ENDPOINT = "endpoint_observation"
    """A system reached over the network with only a declared version."""


class RunLink(BaseModel):
    """A run as other pages point at it."""

    model_config = _FROZEN
    path: str
    """The run page."""
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


class PipelineFacts(BaseModel):
    """The memrank that made a run."""

    model_config = _FROZEN
    memrank_version: str
    code_sha256: str
    install: str
    git_commit: str | None
    dirty: bool | None


class DatasetFacts(BaseModel):
    """The evaluation's material the run read, pinned by digest."""

    model_config = _FROZEN
    sha256: str
    files: tuple[tuple[str, str, int], ...]
    """Name, sha256 and size of each file."""
    question_counts: dict[str, int]


class TaskRow(BaseModel):
    """One task's values on a run page, one entry per task-scope measure."""

    model_config = _FROZEN
    task_id: str
    values: tuple[Value | None, ...]


class RunPage(BaseModel):
    """Everything one verified artifact says, and where its bytes can be downloaded."""

    model_config = _FROZEN
    artifact_id: str
    path: str
    track: str
    division: Division
    evidence: Evidence
    system: str
    system_kind: str
    version: str | None
    transport: str
    components: dict[str, str]
    evaluation: str
    evaluation_version: str
    task_count: int
    clearing: str
    dataset: DatasetFacts
    pipeline: PipelineFacts
    environment: dict[str, str]
    started_at: UTCDateTime
    finished_at: UTCDateTime
    issued_at: UTCDateTime
    key_id: str
    """The key that signed the envelope, as the verifier computed it."""
    summary: tuple[Value, ...]
    """The run-scope values the statement carries."""
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
    path: str
    html: Markup
    """Rendered by markdown-it-py's safe preset: any HTML in the source arrives escaped."""


class Refusal(BaseModel):
    """An artifact the verifier refused, and why."""

    model_config = _FROZEN
    artifact: str
    """The file, relative to the artifacts folder."""
    reason: str


class TrustKey(BaseModel):
    """A key the trust root names."""

    model_config = _FROZEN
    key_id: str
    roles: tuple[str, ...]
    status: str
    valid_from: UTCDateTime
    valid_until: UTCDateTime | None


class TrustFacts(BaseModel):
    """The trust root the artifacts were verified against."""

    model_config = _FROZEN
    version: int
    expires: UTCDateTime
    keys: tuple[TrustKey, ...]
    tracks: dict[str, dict[str, object]]
    """Each track's accepted pipelines, dataset bundles and evidence classes, as signed."""


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
    trust: TrustFacts
