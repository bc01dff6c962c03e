"""Reruns: two results of one system configuration on one evaluation, and whether they differ.

A paired reading of a run against a rerun of the same configuration should show no gap; when
task values differ anyway, the system is not deterministic from run to run (a real engine's
approximate index, concurrency or clock), and that must be said beside the reading, since the
gap then measures the system's own variation rather than any change.
"""

from __future__ import annotations

from memrank.measure import Value
from memrank.result import Result

__all__ = ["differing_tasks", "is_rerun", "rerun_note"]


def is_rerun(a: Result, b: Result) -> bool:
    """Whether ``a`` and ``b`` ran one configuration: system record (name, version, engine,
    transport, components) and evaluation (name, version, slice) alike."""
    same_system = a.system.model_dump(exclude={"declared_version"}) == b.system.model_dump(
        exclude={"declared_version"}
    )
    same_evaluation = (a.evaluation.name, a.evaluation.version, a.evaluation.slice) == (
        b.evaluation.name,
        b.evaluation.version,
        b.evaluation.slice,
    )
    return same_system and same_evaluation


def differing_tasks(a: Result, b: Result) -> tuple[int, int]:
    """How many tasks present in both have a task-scope value that differs, out of how many."""
    mine = _by_task(a.values)
    theirs = _by_task(b.values)
    shared = mine.keys() & theirs.keys()
    return sum(1 for task in shared if mine[task] != theirs[task]), len(shared)


def rerun_note(a: Result, b: Result) -> str | None:
    """The sentence a reading of a rerun carries when the two runs differ; None otherwise."""
    if not is_rerun(a, b):
        return None
    differing, shared = differing_tasks(a, b)
    if not differing:
        return None
    return (
        f"A and B ran one configuration of {a.system.name} on {a.evaluation.name}, yet {differing} "
        f"of {shared} task(s) have different values: the system is not deterministic from run to "
        "run, so this gap is its own variation, not a change"
    )


def _by_task(values: tuple[Value, ...]) -> dict[str, dict[str, float | None]]:
    tasks: dict[str, dict[str, float | None]] = {}
    for value in values:
        if value.task_id is not None and not value.measure.startswith("latency"):
            tasks.setdefault(value.task_id, {})[value.measure] = value.value
    return tasks
