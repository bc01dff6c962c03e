"""One side of a paired reading: what ``memrank.paired`` reads of a result, and nothing more.

A reading needs each side's system and evaluation records, its refusal, its tasks (with their
groups, the clusters) and its task-scope values (number and why). ``side_of`` takes them from
a Result; ``side_from_file`` reads them straight from a result file, validating only those
parts: a full-LoCoMo result holds some 40,000 recalled documents a reading never looks at.
msgspec decodes the file against the few fields a reading needs and skips the rest without
making Python objects of it, about three times faster than parsing it whole (orjson).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
from pydantic import ValidationError

from memrank._records import RESULT_SCHEMA, EvaluationRecord, SystemRecord, run_file_data
from memrank.errors import PairingRefused, ResultFileError
from memrank.reruns import ByTask, Checks, by_task, checks_of

if TYPE_CHECKING:
    from memrank.measure import Value
    from memrank.result import Result

__all__ = ["Held", "Side", "side_from_file", "side_of"]

Held = tuple[float | None, str]
"""One task-scope value: its number (None: undecided) and its why."""


@dataclass(frozen=True)
class Side:
    """What a paired reading reads of one result."""

    label: str
    """``A`` or ``B``."""
    system: SystemRecord
    evaluation: EvaluationRecord
    refusal: str | None
    tasks: dict[str, str | None]
    """Task id -> its group (its cluster), in the order the result ran them."""
    values: dict[str, dict[str, Held]]
    """Measure -> task id -> value, task-scope values only."""
    bookkeeping: frozenset[str] = frozenset()
    """The task-scope measures memrank decides of its own records (words recalled): not scores,
    so a rerun's differences leave them out."""
    checks: Checks | None = None
    """The integrity checks the run went through (an endpoint's); None for a run not guarded."""

    def by_task(self) -> ByTask:
        return by_task(
            (
                (measure, task, held[0])
                for measure, tasks in self.values.items()
                for task, held in tasks.items()
            ),
            self.bookkeeping,
        )


def side_of(result: Result, label: str) -> Side:
    """The side ``result`` makes."""
    values, bookkeeping = _task_values(result.values, label)
    return Side(
        label=label,
        system=result.system,
        evaluation=result.evaluation,
        refusal=result.refusal,
        tasks={trace.task.id: trace.task.group for trace in result.traces},
        values=values,
        bookkeeping=bookkeeping,
        checks=checks_of(result),
    )


def side_from_file(path: Path, label: str) -> Side:
    """The side the result file at ``path`` makes; ResultFileError (exit 4) when it is not one."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ResultFileError(f"{path}: cannot read the result file ({exc.strerror})") from None
    try:
        read = _DECODER.decode(raw)
    except msgspec.DecodeError as exc:  # not JSON, or a field of the wrong type
        raise _refusal(raw, path, exc) from None
    if read.schema != RESULT_SCHEMA:
        raise _refusal(raw, path, f"schema {read.schema!r}")
    try:
        system = SystemRecord.model_validate_json(bytes(read.system))
        evaluation = EvaluationRecord.model_validate_json(bytes(read.evaluation))
    except ValidationError as exc:
        raise _refusal(raw, path, exc) from None
    values, bookkeeping = _task_values(read.values, label)
    return Side(
        label=label,
        system=system,
        evaluation=evaluation,
        refusal=read.refusal,
        tasks={trace.task.id: trace.task.group for trace in read.traces},
        values=values,
        bookkeeping=bookkeeping,
        checks=None if read.integrity is None else read.integrity.checks(),
    )


def _refusal(raw: bytes, path: Path, problem: object) -> ResultFileError:
    """Why ``raw`` makes no side: what ``Result.load`` says of a file that is not JSON or not a
    run file of this version, else ``problem``."""
    run_file_data(raw, str(path))
    return ResultFileError(f"{path}: not a valid memrank result: {problem}")


class _Task(msgspec.Struct, gc=False):
    id: str
    group: str | None = None


class _Trace(msgspec.Struct, gc=False):
    task: _Task


class _Value(msgspec.Struct, gc=False):
    measure: str
    value: float | None
    why: str
    task_id: str | None = None
    decider: str | None = None


class _Integrity(msgspec.Struct, gc=False):
    secret: str
    traces: list[msgspec.Raw] = []
    """The canary traces, left unparsed: a reading counts them."""

    def checks(self) -> Checks:
        return Checks(self.secret, len(self.traces))


class _RunFile(msgspec.Struct, gc=False):
    """What a reading reads of a run file; every other field is skipped unparsed."""

    schema: object = None
    system: msgspec.Raw = msgspec.Raw(b"null")
    evaluation: msgspec.Raw = msgspec.Raw(b"null")
    refusal: str | None = None
    traces: list[_Trace] = []
    values: list[_Value] = []
    integrity: _Integrity | None = None


_DECODER = msgspec.json.Decoder(_RunFile)


def _task_values(
    values: Iterable[Value | _Value], label: str
) -> tuple[dict[str, dict[str, Held]], frozenset[str]]:
    """Measure -> task id -> value of the task-scope values, and the measures memrank decided
    of its own records (the bookkeeping)."""
    by_measure: dict[str, dict[str, Held]] = {}
    bookkeeping = set()
    for value in values:
        task_id = value.task_id
        if task_id is None:
            continue
        measure = value.measure
        held = by_measure.get(measure)
        if held is None:
            held = by_measure[measure] = {}
        elif task_id in held:
            raise PairingRefused(
                f"result {label} holds more than one {measure!r} value for task "
                f"{task_id!r}; a paired reading pairs one value per task and measure"
            )
        held[task_id] = (value.value, value.why)
        if value.decider == "memrank":
            bookkeeping.add(measure)
    return by_measure, frozenset(bookkeeping)
