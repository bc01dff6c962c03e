"""One side of a paired reading: what ``memrank.paired`` reads of a result, and nothing more.

A reading needs each side's system and evaluation records, its refusal, its tasks (with their
groups, the clusters) and its task-scope values (number and why). ``side_of`` takes them from
a Result; ``side_from_file`` reads them straight from a result file, validating only those
parts: a full-LoCoMo result holds some 40,000 recalled documents a reading never looks at, and
making them all into models is most of what loading costs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memrank._records import RESULT_SCHEMA, EvaluationRecord, SystemRecord
from memrank.errors import PairingRefused, ResultFileError
from memrank.reruns import ByTask, by_task

if TYPE_CHECKING:
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
    values, bookkeeping = _task_values(
        ((v.measure, v.task_id, v.value, v.why, v.decider) for v in result.values), label
    )
    return Side(
        label=label,
        system=result.system,
        evaluation=result.evaluation,
        refusal=result.refusal,
        tasks={trace.task.id: trace.task.group for trace in result.traces},
        values=values,
        bookkeeping=bookkeeping,
    )


def side_from_file(path: Path, label: str) -> Side:
    """The side the result file at ``path`` makes; ResultFileError (exit 4) when it is not one."""
    import orjson

    try:
        data = orjson.loads(path.read_bytes())
    except OSError as exc:
        raise ResultFileError(f"{path}: cannot read the result file ({exc.strerror})") from None
    except orjson.JSONDecodeError as exc:
        raise ResultFileError(f"{path}: not JSON ({exc}); is this a memrank result file?") from None
    if not isinstance(data, dict) or data.get("schema") != RESULT_SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise ResultFileError(
            f"{path}: schema is {found!r}, expected {RESULT_SCHEMA!r}; "
            "save it again with this memrank version"
        )
    try:
        values, bookkeeping = _task_values(
            (
                (v["measure"], v["task_id"], v["value"], v["why"], v.get("decider"))
                for v in data.get("values", ())
                if v.get("task_id") is not None
            ),
            label,
        )
        return Side(
            label=label,
            system=SystemRecord.model_validate(data["system"]),
            evaluation=EvaluationRecord.model_validate(data["evaluation"]),
            refusal=data.get("refusal"),
            tasks={t["task"]["id"]: t["task"].get("group") for t in data.get("traces", ())},
            values=values,
            bookkeeping=bookkeeping,
        )
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise ResultFileError(f"{path}: not a valid memrank result: {exc!r}") from None


def _task_values(
    values: Iterable[tuple[str, str | None, float | None, str, str | None]], label: str
) -> tuple[dict[str, dict[str, Held]], frozenset[str]]:
    """Measure -> task id -> value of the task-scope values (measure, task id, value, why,
    decider), and the measures memrank decided of its own records (the bookkeeping)."""
    by_measure: dict[str, dict[str, Held]] = {}
    bookkeeping = set()
    for measure, task_id, value, why, decider in values:
        if task_id is None:
            continue
        held = by_measure.get(measure)
        if held is None:
            held = by_measure[measure] = {}
        elif task_id in held:
            raise PairingRefused(
                f"result {label} holds more than one {measure!r} value for task "
                f"{task_id!r}; a paired reading pairs one value per task and measure"
            )
        held[task_id] = (value, why)
        if decider == "memrank":
            bookkeeping.add(measure)
    return by_measure, frozenset(bookkeeping)
