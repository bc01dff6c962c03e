"""Reruns: two results of one system configuration on one evaluation, and whether they differ.

A paired reading of a run against a rerun of the same configuration should show no gap; when
task scores differ anyway, the system is not deterministic from run to run (a real engine's
approximate index, concurrency or clock), and that must be said beside the reading, since the
gap then measures the system's own variation rather than any change. Two runs are one
configuration only when their system records agree whole: name, versions (the engine's own
included), transport and components (for a system over the wire: the endpoint reached and the
configuration sent). Runs of one class whose records differ are two systems, and the reading
says so instead.
"""

from __future__ import annotations

from memrank.measure import Decider, Value
from memrank.result import Result, SystemRecord

__all__ = ["differing_tasks", "is_rerun", "rerun_note", "systems_differ"]


def is_rerun(a: Result, b: Result) -> bool:
    """Whether ``a`` and ``b`` ran one configuration: system records (name, versions, engine
    version, transport, components) and evaluation (name, version, slice) alike."""
    return a.system == b.system and _same_evaluation(a, b)


def differing_tasks(a: Result, b: Result) -> tuple[int, int]:
    """How many tasks present in both have a score that differs, out of how many; memrank's
    own bookkeeping (latency, words recalled) is not a score and is left out."""
    mine = _by_task(a.values)
    theirs = _by_task(b.values)
    shared = mine.keys() & theirs.keys()
    return sum(1 for task in shared if mine[task] != theirs[task]), len(shared)


def rerun_note(a: Result, b: Result) -> str | None:
    """The sentence a reading of a rerun carries when the two runs' scores differ; None
    otherwise (and always None for two different systems: see ``systems_differ``)."""
    if not is_rerun(a, b):
        return None
    differing, shared = differing_tasks(a, b)
    if not differing:
        return None
    return (
        f"A and B ran one configuration of {a.system.name} on {a.evaluation.name}, yet {differing} "
        f"of {shared} task(s) have different scores: the system is not deterministic from run "
        "to run, so this gap is its own variation, not a change"
    )


def systems_differ(a: Result, b: Result) -> str | None:
    """For runs of one system class whose records differ (another endpoint, engine version
    or configuration), the sentence saying the reading compares two systems; None otherwise."""
    if a.system.name != b.system.name or a.system == b.system or not _same_evaluation(a, b):
        return None
    return (
        f"A and B both ran {a.system.name}, but the systems differ ("
        + "; ".join(_differences(a.system, b.system))
        + "): this gap compares two systems, not a rerun"
    )


def _differences(a: SystemRecord, b: SystemRecord) -> list[str]:
    mine, theirs = a.model_dump(), b.model_dump()
    found = []
    for field in mine:
        if field == "components":
            continue
        if mine[field] != theirs[field]:
            found.append(f"{field}: {mine[field]!r} vs {theirs[field]!r}")
    for name in sorted(a.components.keys() | b.components.keys()):
        one, other = a.components.get(name), b.components.get(name)
        if one != other:
            found.append(f"{name}: {one!r} vs {other!r}")
    return found


def _same_evaluation(a: Result, b: Result) -> bool:
    return (a.evaluation.name, a.evaluation.version, a.evaluation.slice) == (
        b.evaluation.name,
        b.evaluation.version,
        b.evaluation.slice,
    )


def _by_task(values: tuple[Value, ...]) -> dict[str, dict[str, float | None]]:
    tasks: dict[str, dict[str, float | None]] = {}
    for value in values:
        if value.task_id is not None and value.decider is not Decider.MEMRANK:
            tasks.setdefault(value.task_id, {})[value.measure] = value.value
    return tasks
