"""Reruns: two results of one system configuration on one evaluation, and whether they differ.

A paired reading of a run against a rerun of the same configuration should show no gap; when
task values differ anyway, the system is not deterministic from run to run (a real engine's
approximate index, concurrency or clock), and that must be said beside the reading, since the
gap then measures the system's own variation rather than any change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from memrank.measure import Value
from memrank.result import EvaluationRecord, Result, SystemRecord

__all__ = ["ByTask", "by_task", "differing_tasks", "is_rerun", "note", "rerun_note"]

ByTask = Mapping[str, Mapping[str, float | None]]
"""task id -> measure -> value, memrank's clock (latency) left out."""


def is_rerun(a: Result, b: Result) -> bool:
    """Whether ``a`` and ``b`` ran one configuration: system record (name, version, engine,
    transport, components) and evaluation (name, version, slice) alike."""
    return _one_configuration(a.system, a.evaluation, b.system, b.evaluation)


def differing_tasks(a: Result, b: Result) -> tuple[int, int]:
    """How many tasks present in both have a task-scope value that differs, out of how many."""
    return _differing(by_task(_triples(a.values)), by_task(_triples(b.values)))


def rerun_note(a: Result, b: Result) -> str | None:
    """The sentence a reading of a rerun carries when the two runs differ; None otherwise."""
    return note(
        (a.system, a.evaluation, lambda: by_task(_triples(a.values))),
        (b.system, b.evaluation, lambda: by_task(_triples(b.values))),
    )


def note(
    a: tuple[SystemRecord, EvaluationRecord, Callable[[], ByTask]],
    b: tuple[SystemRecord, EvaluationRecord, Callable[[], ByTask]],
) -> str | None:
    """``rerun_note`` from each side's records and task values (however they were read); the
    values are asked for only when the two ran one configuration."""
    if not _one_configuration(a[0], a[1], b[0], b[1]):
        return None
    differing, shared = _differing(a[2](), b[2]())
    if not differing:
        return None
    return (
        f"A and B ran one configuration of {a[0].name} on {a[1].name}, yet {differing} "
        f"of {shared} task(s) have different values: the system is not deterministic from run to "
        "run, so this gap is its own variation, not a change"
    )


def by_task(values: Iterable[tuple[str, str | None, float | None]]) -> ByTask:
    """(measure, task id, value) triples as task id -> measure -> value, latency left out."""
    tasks: dict[str, dict[str, float | None]] = {}
    for measure, task_id, value in values:
        if task_id is not None and not measure.startswith("latency"):
            tasks.setdefault(task_id, {})[measure] = value
    return tasks


def _triples(values: tuple[Value, ...]) -> Iterable[tuple[str, str | None, float | None]]:
    return ((v.measure, v.task_id, v.value) for v in values)


def _one_configuration(
    system_a: SystemRecord, evaluation_a: EvaluationRecord, system_b: SystemRecord,
    evaluation_b: EvaluationRecord,
) -> bool:  # fmt: skip
    same_system = system_a.model_dump(exclude={"declared_version"}) == system_b.model_dump(
        exclude={"declared_version"}
    )
    return same_system and (evaluation_a.name, evaluation_a.version, evaluation_a.slice) == (
        evaluation_b.name,
        evaluation_b.version,
        evaluation_b.slice,
    )


def _differing(mine: ByTask, theirs: ByTask) -> tuple[int, int]:
    shared = mine.keys() & theirs.keys()
    return sum(1 for task in shared if mine[task] != theirs[task]), len(shared)
