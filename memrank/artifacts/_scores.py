"""The scores file: what the board reads of a run, as a pure function of its result file.

A result file holds every trace (a full LoCoMo run is ~11 MB); the board needs only each task's
id, group and category and, per task-scope measure, one column of numbers. ``scores_of`` derives
exactly that, canonically, so that any implementation following docs/artifacts.md ("The scores
file") writes the same bytes; ``read_scores`` reads them back, refusing what ``scores_of``
could not have written.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from memrank.artifacts._canonical import canonical_bytes
from memrank.artifacts._scores_tasks import checked_fields, known_good_fields, remember_tasks
from memrank.errors import NotCanonicalizable, ResultFileError, ScoresMalformed
from memrank.result import PUBLISHED_RESULT_SCHEMA

__all__ = [
    "ABSENT_WHY",
    "SCORES_SCHEMA",
    "ScoreColumn",
    "Scores",
    "ScoredEvaluation",
    "gives_scores",
    "read_scores",
    "scores_of",
    "scores_path",
]

SCORES_SCHEMA: Literal["memrank.scores/v1"] = "memrank.scores/v1"
ABSENT_WHY = "the result file holds no value of this measure for this task"
"""The why of a task the measure produced no value for (absent is not zero)."""
_SHA256 = r"^[0-9a-f]{64}$"
_MAX_SAFE = 2**53 - 1
_READ = ConfigDict(frozen=True, extra="forbid", strict=True)


def scores_path(sha256: str) -> str:
    """Where the scores file of the result file that hashes to ``sha256`` lives."""
    return f"scores/{sha256}.json"


class ScoredEvaluation(BaseModel):
    """Which evaluation the tasks are of."""

    model_config = _READ
    name: str
    """The evaluation's name (``locomo``)."""
    version: str
    """Its version (``locomo10@v1+79fa87e9``): a board column shows one version."""


class ScoreColumn(BaseModel):
    """One task-scope measure over every task, in the tasks' order."""

    model_config = _READ
    decider: str
    """Who decided every value of the measure (memrank, rule, model, system)."""
    values: list[float | None]
    """Per task: the number, or None when it could not be decided or was never produced."""
    why: dict[int, str]
    """Task index -> why its value is None; present exactly where the value is None."""
    count: list[int | None] | None = None
    """Per task, for a share: the count the value is of; None when no value is a share."""
    total: list[int | None] | None = None
    """Per task, for a share: out of how many."""


class Scores(BaseModel):
    """A parsed scores file."""

    model_config = _READ
    result_sha256: str = Field(pattern=_SHA256)
    """The sha256 of the result file these scores are a function of."""
    result_size: int = Field(ge=0)
    """The result file's length in bytes: a store that serves more is refused early."""
    evaluation: ScoredEvaluation
    task_ids: list[str]
    """Every task, in evaluation (trace) order; the columns follow it."""
    groups: list[str | None]
    """Per task, its group: the cluster paired tests respect."""
    categories: list[str | None]
    """Per task, its category."""
    measures: dict[str, ScoreColumn]
    """Per task-scope measure, its column."""

    @model_validator(mode="after")
    def _columns_line_up(self) -> Scores:
        n = len(self.task_ids)
        if len(self.groups) != n or len(self.categories) != n:
            raise ValueError(f"groups and categories must have one entry per task ({n})")
        for name, column in self.measures.items():
            lengths = [len(column.values)]
            lengths += [len(part) for part in (column.count, column.total) if part is not None]
            if set(lengths) != {n}:
                raise ValueError(f"measure {name!r}: a column must have one entry per task ({n})")
            if (column.count is None) != (column.total is None):
                raise ValueError(f"measure {name!r}: count and total come together")
            # The why's keys are exactly the nulls' indices: as many, each at a null (counted
            # in C; the why holds a few indices, the values thousands).
            if len(column.why) != column.values.count(None) or not all(
                0 <= at < n and column.values[at] is None for at in column.why
            ):
                raise ValueError(f"measure {name!r}: a why is kept exactly where a value is null")
        return self


def scores_of(result_bytes: bytes) -> bytes:
    """The canonical scores file of the result file ``result_bytes`` (docs/artifacts.md).

    ResultFileError when the bytes are not a memrank result file, or when its task-scope
    values cannot be laid out as columns (a value of a task with no trace, a task with two
    values of one measure, a measure decided by two deciders).
    """
    return canonical_bytes(_document_of(result_bytes, None), what="the scores file")


def gives_scores(result_bytes: bytes, parsed: Any, scores: bytes) -> bool:
    """Whether ``scores_of(result_bytes) == scores``, for a scores file ``read_scores``
    accepted (so canonical); ``parsed`` is what ``orjson.loads(result_bytes)`` gave (read, not
    changed). ResultFileError as ``scores_of``.

    The document derived holds only what JSON parsed to (no NaN, no infinity), so when orjson
    writes it as the canonical ``scores`` exactly, that is its canonical form too: its
    numbers need not be asked again."""
    document = _document_of(result_bytes, parsed)
    if orjson.dumps(document, option=orjson.OPT_SORT_KEYS) == scores:
        return True
    try:
        return canonical_bytes(document, what="the scores file") == scores
    except NotCanonicalizable as exc:  # a number no scores file can carry, signed anyway
        raise ResultFileError(f"cannot derive scores: {exc.message}") from None


def _document_of(result_bytes: bytes, parsed: Any) -> dict[str, Any]:
    """The scores file of ``result_bytes`` (parsed to ``parsed``, or None when not yet) as
    JSON, before it is written."""
    try:
        result = orjson.loads(result_bytes) if parsed is None else parsed
        if not isinstance(result, dict) or result.get("schema") != PUBLISHED_RESULT_SCHEMA:
            raise TypeError(
                f"its schema is not {PUBLISHED_RESULT_SCHEMA!r} (a run file gives its result "
                "file by memrank.artifacts.run_files)"
            )
        document = _scores_document(result)
    except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError) as exc:
        raise ResultFileError(f"cannot derive scores: not a memrank result file ({exc})") from None
    document["result_sha256"] = hashlib.sha256(result_bytes).hexdigest()
    document["result_size"] = len(result_bytes)
    return document


def _scores_document(result: dict[str, Any]) -> dict[str, Any]:
    position: dict[str, int] = {}
    tasks: dict[str, list[Any]] = {"id": [], "group": [], "category": []}
    for trace in result["traces"]:
        task = trace["task"]
        if task["id"] in position:
            continue  # a later attempt of a task already placed
        position[task["id"]] = len(position)
        tasks["id"].append(task["id"])
        tasks["group"].append(task["group"])
        tasks["category"].append(task["category"])
    columns: dict[str, dict[str, Any]] = {}
    for value in result["values"]:
        if value["task_id"] is None:
            continue
        name, task_id = value["measure"], value["task_id"]
        if task_id not in position:
            raise TypeError(f"a value of {name!r} names task {task_id!r}, which has no trace")
        if name not in columns:
            columns[name] = _empty_column(value["decider"], len(position))
        column = columns[name]
        at = position[task_id]
        if column["decider"] != value["decider"]:
            raise TypeError(
                f"measure {name!r} is decided by both {column['decider']} and {value['decider']}"
            )
        if at in column["_seen"]:
            raise TypeError(f"task {task_id!r} has two values of {name!r}")
        column["_seen"].add(at)
        column["values"][at] = value["value"]
        column["_why"][at] = value["why"] if value["value"] is None else None
        column["count"][at] = value["count"]
        column["total"][at] = value["total"]
    return {
        "schema": SCORES_SCHEMA,
        "evaluation": {
            "name": result["evaluation"]["name"],
            "version": result["evaluation"]["version"],
        },
        "tasks": tasks,
        "measures": {name: _finished(column) for name, column in columns.items()},
    }


def _empty_column(decider: str, n: int) -> dict[str, Any]:
    return {
        "decider": decider,
        "values": [None] * n,
        "_why": [ABSENT_WHY] * n,
        "_seen": set(),
        "count": [None] * n,
        "total": [None] * n,
    }


def _finished(column: dict[str, Any]) -> dict[str, Any]:
    """The column as written: reasons grouped, counts only for a share."""
    grouped: dict[str, list[int]] = {}
    for at, why in enumerate(column["_why"]):
        if why is not None:
            grouped.setdefault(why, []).append(at)
    share = any(count is not None for count in column["count"])
    return {
        "decider": column["decider"],
        # 1.0 as the integer 1: the same canonical text, and the encoder's fast path takes it.
        "values": [_integral(value) for value in column["values"]],
        # Each distinct reason once, with the tasks it explains: a reason repeats by the
        # hundred in a real run, and spelled out per task it would dwarf the numbers.
        "why": [[why, indices] for why, indices in grouped.items()],
        "count": column["count"] if share else None,
        "total": column["total"] if share else None,
    }


def _integral(value: float | None) -> float | int | None:
    if value is not None and value.is_integer() and abs(value) <= _MAX_SAFE:
        return int(value)
    return value


def read_scores(raw: bytes, *, source: str, known_good: bool = False) -> Scores:
    """Parse a scores file, refusing bytes that are not exactly what ``scores_of`` writes.

    ``known_good``: these very bytes (by sha256) passed every check here before, so they are
    parsed and laid out without checking them again (the checks are a function of the bytes)."""
    if known_good:
        return _laid_out(known_good_fields(raw))
    data = checked_fields(raw, source)
    try:
        if not isinstance(data, dict) or data.get("schema") != SCORES_SCHEMA:
            raise TypeError(f"its schema is not {SCORES_SCHEMA!r}")
        if set(data) != {
            "schema",
            "result_sha256",
            "result_size",
            "evaluation",
            "tasks",
            "measures",
        }:
            raise TypeError(f"unexpected fields {sorted(data)}")
        tasks = data["tasks"]
        if not isinstance(tasks, dict) or set(tasks) != {"id", "group", "category"}:
            raise TypeError("tasks must hold exactly id, group and category")
        measures = {name: _column_of(column) for name, column in data["measures"].items()}
        checked = Scores.model_validate(
            {
                "result_sha256": data["result_sha256"],
                "result_size": data["result_size"],
                "evaluation": data["evaluation"],
                "task_ids": tasks["id"],
                "groups": tasks["group"],
                "categories": tasks["category"],
                "measures": measures,
            }
        )
        remember_tasks(raw, tasks)
        # Validating a list makes a copy of it; keep the shared lists it checked (strict
        # validation changes no item): 3,000 runs' copies were 140 MB, and 56% of the runs a
        # verifying worker sends back pickled.
        return checked.model_copy(
            update={
                "task_ids": tasks["id"],
                "groups": tasks["group"],
                "categories": tasks["category"],
            }
        )
    except (AttributeError, KeyError, TypeError, ValueError, ValidationError) as exc:
        reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        raise ScoresMalformed(
            f"{source}: not a memrank scores file ({reason}); derive it with `memrank attest`"
        ) from None


def _floats(raw: list[Any]) -> list[Any]:
    """Integers as floats (the file writes 1.0 as 1); anything else as it is, for the checks."""
    return [float(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in raw]


def _laid_out(data: dict[str, Any]) -> Scores:
    """Scores of a file known to pass ``read_scores``' checks, built without validating."""
    tasks = data["tasks"]
    return Scores.model_construct(
        result_sha256=data["result_sha256"],
        result_size=data["result_size"],
        evaluation=ScoredEvaluation.model_construct(**data["evaluation"]),
        task_ids=tasks["id"],
        groups=tasks["group"],
        categories=tasks["category"],
        measures={
            name: ScoreColumn.model_construct(**_column_of(column))
            for name, column in data["measures"].items()
        },
    )


def _column_of(column: dict[str, Any]) -> dict[str, Any]:
    """A written column as ScoreColumn's fields: grouped reasons back to index -> why."""
    if set(column) != {"decider", "values", "why", "count", "total"}:
        raise TypeError(f"a measure holds {sorted(column)}, not decider, values, why, count, total")
    why: dict[int, str] = {}
    last = -1
    for reason, indices in column["why"]:
        if not indices or indices[0] <= last or indices != sorted(set(indices)):
            raise TypeError("why groups are ordered by their first task, indices ascending")
        last = indices[0]
        for at in indices:
            if at in why:
                raise TypeError(f"task {at} has two reasons")
            why[at] = reason
    if len({reason for reason, _ in column["why"]}) != len(column["why"]):
        raise TypeError("a reason is listed twice")
    raw = column["values"]
    if set(map(type, raw)) <= _NUMBERS_OR_NULL:  # bool is its own type
        # Each distinct number made a float once and shared: a column repeats a few numbers
        # (0 and 1, a recall's shares) over thousands of tasks, and a board holds thousands
        # of columns. Converted at C speed.
        as_float = {v: None if v is None else float(v) for v in set(raw)}
        values = list(map(as_float.__getitem__, raw))
    else:
        values = _floats(raw)
    return {**column, "values": values, "why": why}


_NUMBERS_OR_NULL = frozenset({int, float, type(None)})
