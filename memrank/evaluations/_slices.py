"""Slices: documented subsets of an evaluation, for debugging plumbing cheaply.

A slice is not a measurement: the first conversations are not a fair sample of a benchmark,
so a sliced evaluation carries its slice name into every result, and is never publishable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memrank.errors import UsageError
from memrank.task import Task

__all__ = ["first_groups", "first_per_category", "check_slice"]


def check_slice(evaluation: str, slice: str | None, known: Mapping[str, str]) -> None:
    """Refuse a slice name the evaluation does not document."""
    if slice is not None and slice not in known:
        listed = "; ".join(f"{name}: {what}" for name, what in known.items())
        raise UsageError(
            f"evaluation {evaluation!r} has no slice {slice!r}; its slices are {listed}"
        )


def first_groups(tasks: Sequence[Task], count: int) -> tuple[Task, ...]:
    """The tasks of the first ``count`` groups, in order."""
    groups: list[str | None] = []
    kept = []
    for task in tasks:
        if task.group not in groups:
            if len(groups) == count:
                continue
            groups.append(task.group)
        kept.append(task)
    return tuple(kept)


def first_per_category(tasks: Sequence[Task], count: int) -> tuple[Task, ...]:
    """The first ``count`` tasks of each category, in their order: a stratified slice."""
    seen: dict[str | None, int] = {}
    kept = []
    for task in tasks:
        if seen.get(task.category, 0) < count:
            seen[task.category] = seen.get(task.category, 0) + 1
            kept.append(task)
    return tuple(kept)
