"""The result of a run: what was run, one trace per task, and the values measured from them.

Printing a result is the whole of the read: ``str(result)`` lays it out. ``save``/``load``
round-trip it through a typed, versioned file; the bytes ``save`` writes are exactly the
result file an artifact names by its sha256.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from memrank._basics import FROZEN, UTCDateTime
from memrank._collector import collector_paused
from memrank._records import (
    PUBLISHED_RESULT_SCHEMA,
    RESULT_SCHEMA,
    EvaluationRecord,
    SystemRecord,
    run_file_data,
)
from memrank.errors import ResultFileError
from memrank.evaluation import DatasetBundle
from memrank.integrity.record import IntegrityRecord
from memrank.measure import Value
from memrank.system import Document
from memrank.task import Clearing
from memrank.trace import Given, Trace

__all__ = [
    "ClearingRecord",
    "EnvironmentRecord",
    "EvaluationRecord",
    "Install",
    "PipelineRecord",
    "Provenance",
    "Result",
    "SystemRecord",
    "PUBLISHED_RESULT_SCHEMA",
    "RESULT_SCHEMA",
]


class ClearingRecord(BaseModel):
    """The clearing rule in force and whether the system could be observed to clear."""

    model_config = FROZEN
    rule: Clearing
    units: int
    """How many isolation units the rule made."""
    observed: bool | None
    """True when every cleanup left the state fingerprint the system started from; None when
    the system declares no fingerprint, so clearing could not be observed."""
    why: str


class Install(StrEnum):
    """How the memrank that ran was installed."""

    WHEEL = "wheel"
    """Files installed from a built wheel: an immutable copy of one build."""
    EDITABLE = "editable"
    """An editable install: the files run are a checkout that can change under it."""
    SOURCE = "source"
    """A source tree memrank was imported from without being installed."""


class PipelineRecord(BaseModel):
    """The memrank that produced the measurements."""

    model_config = FROZEN
    memrank_version: str
    """The installed version (``0.0.0+unknown`` for a tree that was never installed)."""
    code_sha256: str
    """sha256 over the sorted relative paths and contents of the package's sources and data."""
    install: Install
    """How memrank was installed (PEP 610 ``direct_url.json``)."""
    git_commit: str | None = None
    """The source commit: the one the wheel was built from (recorded in it at build time), or
    the checkout's for an editable install or a source tree; None when nothing says."""
    dirty: bool | None = None
    """Whether that tree had uncommitted changes (untracked files included) when the wheel was
    built, or the checkout now; None when there is no tree. A dirty build is not publishable."""
    wheel_sha256: str | None = None
    """sha256 of the wheel file memrank was installed from, as its installation records it;
    None for an install that does not say (and for editable and source trees)."""
    python: str | None = None
    """The interpreter's version (``3.11.7``): a rerun recreates the build with it."""
    platform: str | None = None
    """The platform tag distributions were resolved for (``linux-x86_64``)."""
    distributions: tuple[str, ...] = ()
    """Every installed distribution as ``name==version`` (names normalised, sorted), memrank
    included: the resolved environment a rerun installs, pinned."""


class EnvironmentRecord(BaseModel):
    """Where the run happened: recorded for the reader, never compared or pinned."""

    model_config = FROZEN
    python: str
    platform: str
    cpus: int | None
    """Logical CPUs the machine reports; None when it does not say."""


class Provenance(BaseModel):
    """Facts captured when the run happened, from which its evidence class is derived."""

    model_config = FROZEN
    pipeline: PipelineRecord
    dataset_bundle: DatasetBundle
    """The evaluation's material, pinned: digest, files and question counts."""
    environment: EnvironmentRecord


class Result(BaseModel):
    """A run: the system and evaluation records, the traces, and every value measured."""

    model_config = {**FROZEN, "populate_by_name": True}
    schema_: Literal["memrank.result/v1"] = Field(default=RESULT_SCHEMA, alias="schema")
    system: SystemRecord
    evaluation: EvaluationRecord
    refusal: str | None = None
    """Why memrank refused to run; when set there are no traces and no values."""
    clearing: ClearingRecord | None = None
    traces: tuple[Trace, ...] = ()
    values: tuple[Value, ...] = ()
    started: UTCDateTime
    finished: UTCDateTime
    provenance: Provenance | None = None
    """What ran and on what material; None only in results saved before it was recorded."""
    integrity: IntegrityRecord | None = None
    """An endpoint run's secret, canaries and verdict (memrank.integrity); None for a system
    that ran in-process, and left out of the result file then."""

    # -- reading -------------------------------------------------------------------------------

    def values_of(self, measure: str) -> list[Value]:
        """Values named ``measure``, or under it (``latency`` gives every ``latency.*``)."""
        return [
            v for v in self.values if v.measure == measure or v.measure.startswith(measure + ".")
        ]

    def traces_of(self, task_id: str) -> list[Trace]:
        """Every trace of one task (one per attempt)."""
        return [t for t in self.traces if t.task.id == task_id]

    @property
    def failed(self) -> list[Trace]:
        return [t for t in self.traces if t.error is not None]

    def __str__(self) -> str:
        return _layout(self)

    # -- files ---------------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """The result file: sorted-key JSON, each recalled document stored once and referenced."""
        import orjson

        with collector_paused():
            data = self.model_dump(
                mode="json", by_alias=True, exclude={"traces": True, "integrity": {"traces"}}
            )
            rows, data["documents"], data["givens"] = _traces_with_parts_once(
                (self.traces, () if self.integrity is None else self.integrity.traces)
            )
            data["traces"] = rows[0]
            if self.integrity is None:
                del data["integrity"]
            else:
                data["integrity"]["traces"] = rows[1]
            return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)

    @classmethod
    def from_bytes(cls, raw: bytes, *, source: str = "<bytes>") -> Result:
        with collector_paused():
            return cls._from_bytes(raw, source)

    @classmethod
    def _from_bytes(cls, raw: bytes, source: str) -> Result:
        data = run_file_data(raw, source)
        try:
            _resolve_parts(data)
            return cls.model_validate(data)
        except (KeyError, TypeError, ValidationError) as exc:
            raise ResultFileError(f"{source}: not a valid memrank result: {exc}") from None

    def save(self, path: str | Path) -> Path:
        """Write the result file; returns the path written."""
        from memrank._files import write_atomic

        return write_atomic(Path(path), self.to_bytes())

    @classmethod
    def load(cls, path: str | Path) -> Result:
        path = Path(path)
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise ResultFileError(f"{path}: cannot read the result file ({exc.strerror})") from None
        return cls.from_bytes(raw, source=str(path))


def _ref(part: Any) -> str:
    import orjson

    return hashlib.sha256(orjson.dumps(part, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _traces_with_parts_once(
    lists: Iterable[Iterable[Trace]],
) -> tuple[list[list[dict[str, Any]]], dict[str, Any], dict[str, Any]]:
    """Each list of traces as JSON with each recalled document and each ``given`` moved into a
    table of
    its own, referenced from the traces by the sha256 of its JSON: the tasks of one unit share
    one ``given``, and a document recalled for many tasks would otherwise be written once per
    task. Each distinct object is dumped and digested once (a system recalls the very same
    Document objects for many tasks)."""
    documents: dict[str, Any] = {}
    givens: dict[str, Any] = {}
    seen: dict[int, str] = {}  # id() of a Document or Given already dumped -> its ref

    def ref_of(part: Document | Given, table: dict[str, Any]) -> str:
        ref = seen.get(id(part))
        if ref is None:
            dumped = part.model_dump(mode="json")
            ref = _ref(dumped)
            table[ref] = dumped
            seen[id(part)] = ref
        return ref

    lists_of_rows = []
    for traces in lists:
        rows = []
        for trace in traces:
            row = trace.model_dump(mode="json", exclude={"given": True, "recalled": {"documents"}})
            row["given"] = None if trace.given is None else ref_of(trace.given, givens)
            if trace.recalled is not None:
                row["recalled"]["documents"] = [
                    ref_of(d, documents) for d in trace.recalled.documents
                ]
            rows.append(row)
        lists_of_rows.append(rows)
    return lists_of_rows, documents, givens


def _resolve_parts(data: dict[str, Any]) -> None:
    """Put the tables' parts back into the traces, each validated once and shared by every
    trace that references it (a LoCoMo run holds ~5,000 distinct documents, ~40,000 uses)."""
    documents = {
        ref: Document.model_validate(part) for ref, part in data.pop("documents", {}).items()
    }
    givens = {ref: Given.model_validate(part) for ref, part in data.pop("givens", {}).items()}
    integrity = data.get("integrity")
    canaries = integrity.get("traces", []) if isinstance(integrity, dict) else []
    for trace in (*data.get("traces", []), *canaries):
        if isinstance(trace.get("given"), str):
            trace["given"] = givens[trace["given"]]
        recalled = trace.get("recalled")
        if recalled:
            recalled["documents"] = [documents[ref] for ref in recalled["documents"]]


# -- the printed layout ----------------------------------------------------------------------


def _layout(result: Result) -> str:
    system, evaluation = result.system, result.evaluation
    lines = [
        f"system:     {system.name} ({system.kind}), version {system.version or 'not stated'}",
        f"evaluation: {evaluation.name} at {evaluation.version}, {evaluation.task_count} task(s), "
        f"cleared {evaluation.clearing.value}",
    ]
    if evaluation.slice:
        lines.append(f"slice:      {evaluation.slice} -- a slice is not a measurement")
    lines.append("")
    if result.refusal is not None:
        lines.append(f"refused:    {result.refusal}")
        lines.append("traces:     none -- the system was never touched")
        return "\n".join(lines)
    lines.extend(_value_lines(result.values))
    lines.append("")
    if result.integrity is not None:
        lines.append(result.integrity.line)
    failed = len(result.failed)
    lines.append(
        f"traces:     {len(result.traces)} recorded, {failed} with errors "
        "-- one per task per attempt, always"
    )
    return "\n".join(lines)


def _value_lines(values: Iterable[Value]) -> list[str]:
    lines = []
    for value in values:
        number = "None" if value.value is None else f"{value.value:.3f}"
        lines.append(
            f"  {value.measure:<22} {number:>5}  decided by {value.decider.value:<7} "
            f"[{value.scope_label}]"
        )
        if value.why:
            lines.append(f"    {value.why}")
    return lines
