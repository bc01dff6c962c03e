"""``--limit N`` and ``--tasks ID,...``: a run of part of an evaluation, recorded as a slice.

The part keeps evaluation order, and each task the documents it is told before it. It is
recorded as a slice (``limit 10``, ``tasks q1,q2``; after the evaluation's own slice when it has
one), so, like any slice, it is never publishable and pairs only with the same part.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Sequence

from memrank.errors import UsageError
from memrank.evaluation import Evaluation
from memrank.task import Task

__all__ = ["limited", "parse_task_ids", "with_tasks"]

_NAMED_IN_FULL = 5
"""A slice names up to this many task ids; more are named by their count and digest."""


def parse_task_ids(text: str) -> tuple[str, ...]:
    """``q1,q2`` as task ids; a one-line UsageError for an empty list."""
    ids = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not ids:
        raise UsageError(f"--tasks {text!r}: give task ids separated by commas, e.g. --tasks q1,q2")
    return ids


def limited(evaluation: Evaluation, limit: int) -> Evaluation:
    """The first ``limit`` tasks of ``evaluation``, in its order."""
    if limit < 1:
        raise UsageError(f"--limit {limit}: give 1 or more tasks")
    return _part(evaluation, evaluation.tasks[:limit], f"limit {limit}")


def with_tasks(
    evaluation: Evaluation, ids: Sequence[str], *, option: str = "--tasks"
) -> Evaluation:
    """Only the tasks ``ids`` names, in evaluation order; every id must name a task."""
    known = {task.id for task in evaluation.tasks}
    unknown = [task_id for task_id in ids if task_id not in known]
    if unknown:
        close = difflib.get_close_matches(unknown[0], known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UsageError(
            f"{option}: {evaluation.name} has no task {unknown[0]!r}"
            f"{f' (and {len(unknown) - 1} more unknown)' if len(unknown) > 1 else ''}{hint}"
        )
    wanted = set(ids)
    kept = tuple(task for task in evaluation.tasks if task.id in wanted)
    return _part(evaluation, kept, f"tasks {_named(ids)}")


def _named(ids: Sequence[str]) -> str:
    if len(ids) <= _NAMED_IN_FULL:
        return ",".join(sorted(ids))
    digest = hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()[:12]
    return f"{len(ids)} named, sha256 {digest}"


def _part(evaluation: Evaluation, tasks: Sequence[Task], label: str) -> Evaluation:
    return evaluation.model_copy(
        update={
            "tasks": tuple(tasks),
            "slice": f"{evaluation.slice}, {label}" if evaluation.slice else label,
            "dataset": evaluation.dataset_bundle(),
        }
    )
