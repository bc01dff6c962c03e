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

from memrank._types import FROZEN, UTCDateTime
from memrank.budget import Budget
from memrank.errors import ResultFileError
from memrank.evaluation import Clearing, DatasetBundle
from memrank.measure import Value
from memrank.trace import Trace

__all__ = [
    "ClearingRecord",
    "EnvironmentRecord",
    "EvaluationRecord",
    "Install",
    "PipelineRecord",
    "Provenance",
    "Result",
    "SystemRecord",
    "RESULT_SCHEMA",
]

RESULT_SCHEMA: Literal["memrank.result/v1"] = "memrank.result/v1"


class SystemRecord(BaseModel):
    """The system as it was run."""

    model_config = FROZEN
    name: str
    """The class that ran: what results print and the board shows."""
    declared_name: str | None = None
    """The short name the class gives itself (its ``name`` attribute), when it sets one."""
    kind: str
    """memory, model, retriever or assistant: the class it subclasses."""
    version: str | None = None
    """The version the caller gave; None when it did not say."""
    engine_version: str | None = None
    declared_version: str | None = None
    """The version the running system reported about itself; None when it did not say."""
    transport: str = "in-process"
    components: dict[str, str] = Field(default_factory=dict)


class EvaluationRecord(BaseModel):
    """The evaluation as it was run."""

    model_config = FROZEN
    name: str
    version: str
    task_count: int
    clearing: Clearing
    track: str
    k: int
    measures: tuple[str, ...]
    """The names of the measures applied, in order."""
    slice: str | None = None
    budget: Budget | None = None
    """The context budget the run's recalls were cut to, as the evaluation declared it."""
    binary: tuple[str, ...] | None = None
    """The value names the measures declare binary (0 or 1); a paired reading tests them as
    binary outcomes and every other value as continuous. None: saved before measures declared
    their type (memrank.measures.kinds.declared_binary reads it)."""


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
    """The checkout's commit, for an editable install or a source tree inside git."""
    dirty: bool | None = None
    """Whether that checkout differed from its commit; None when there is no checkout."""


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

        data = self.model_dump(mode="json", by_alias=True)
        _store_parts_once(data)
        return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)

    @classmethod
    def from_bytes(cls, raw: bytes, *, source: str = "<bytes>") -> Result:
        import orjson

        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise ResultFileError(
                f"{source}: not JSON ({exc}); is this a memrank result file?"
            ) from None
        if not isinstance(data, dict) or data.get("schema") != RESULT_SCHEMA:
            found = data.get("schema") if isinstance(data, dict) else type(data).__name__
            raise ResultFileError(
                f"{source}: schema is {found!r}, expected {RESULT_SCHEMA!r}; "
                "save it again with this memrank version"
            )
        try:
            _resolve_parts(data)
            return cls.model_validate(data)
        except (KeyError, TypeError, ValidationError) as exc:
            raise ResultFileError(f"{source}: not a valid memrank result: {exc}") from None

    def save(self, path: str | Path) -> Path:
        """Write the result file; returns the path written."""
        path = Path(path)
        path.write_bytes(self.to_bytes())
        return path

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


def _store_parts_once(data: dict[str, Any]) -> None:
    """Move each recalled document and each ``given`` into a table of its own, referenced from
    the traces by the sha256 of its JSON: the tasks of one unit share one ``given``, and a
    document recalled for many tasks would otherwise be written once per task."""
    documents: dict[str, Any] = {}
    givens: dict[str, Any] = {}
    for trace in data["traces"]:
        if trace.get("given") is not None:
            ref = _ref(trace["given"])
            givens[ref] = trace["given"]
            trace["given"] = ref
        recalled = trace.get("recalled")
        if recalled:
            refs = [_ref(document) for document in recalled["documents"]]
            documents.update(zip(refs, recalled["documents"], strict=True))
            recalled["documents"] = refs
    data["documents"] = documents
    data["givens"] = givens


def _resolve_parts(data: dict[str, Any]) -> None:
    documents = data.pop("documents", {})
    givens = data.pop("givens", {})
    for trace in data.get("traces", []):
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
