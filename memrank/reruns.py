"""Reruns: two results of one system configuration on one evaluation, and whether they differ.

A paired reading of a run against a rerun of the same configuration should show no gap; when
task scores differ anyway, the system is not deterministic from run to run (a real engine's
approximate index, concurrency or clock), and that must be said beside the reading, since the
gap then measures the system's own variation rather than any change.

Two runs are read as one configuration only on positive evidence. Their system records must
agree whole (name, versions, transport, components: for a system over the wire the endpoint
reached and the configuration sent, and options), and one of these must hold: the running
system reported one version in both (``declared_version``); the system runs inside memrank
and its class declares one version in both; or both results record the same answers to
memrank's fixed probe (memrank.runs.probe; the ``probe`` component). A probe recorded on one
side only is no difference, and no evidence. Records alike without any of these (an endpoint
that names no version, run without a probe) cannot tell one configuration from another
system behind the same address, and the reading says it cannot tell. Runs of one class whose
records differ are two systems, and the reading says so; their probe answers count among the
differences only where neither declares a version (an engine that names its version may answer
the probe differently run to run, as Hindsight does: a rerun that varies).

An endpoint's runs also differ by memrank's integrity checks (memrank.integrity): a guarded run
plants canary facts, with their look-alike turns, among its units' documents, drawn from its
own secret, and those turns compete with the benchmark's for places inside the budget. When one
of the two runs was guarded and the other not, or both were with different secrets, the note
says so, with the canaries each planted, since part of the gap is then the checks'.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memrank._records import EvaluationRecord, SystemRecord
from memrank.measure import Decider

if TYPE_CHECKING:
    from memrank.result import Result

__all__ = [
    "PROBE",
    "ByTask",
    "Checks",
    "by_task",
    "checks_of",
    "differ_note",
    "differing_tasks",
    "is_rerun",
    "note",
    "rerun_note",
    "systems_differ",
    "unsure_note",
]

PROBE = "probe"
"""The component that holds the digest of a system's answers to memrank's fixed probe."""
ByTask = Mapping[str, Mapping[str, float | None]]
"""task id -> measure -> score, memrank's own bookkeeping (latency, words recalled) left out."""
Records = tuple[SystemRecord, EvaluationRecord]


@dataclass(frozen=True)
class Checks:
    """What a result records of the integrity checks its run went through."""

    secret: str
    """The run's secret (hex): one secret plants the same canaries."""
    canaries: int
    """Canary facts planted, one question each (0 for a retry, whose run's canaries stand)."""


def checks_of(result: Result) -> Checks | None:
    """The checks ``result``'s run went through; None for a run that was not guarded."""
    integrity = result.integrity
    return None if integrity is None else Checks(integrity.secret, len(integrity.traces))


def is_rerun(a: Result, b: Result) -> bool:
    """Whether ``a`` and ``b`` ran one configuration, on evidence: system records (name,
    versions, engine version, transport, components, options) and evaluation (name, version,
    slice) alike, and a version declared or the probe answered alike."""
    return _one_configuration((a.system, a.evaluation), (b.system, b.evaluation))


def differing_tasks(a: Result, b: Result) -> tuple[int, int]:
    """How many tasks present in both have a score that differs, out of how many; memrank's
    own bookkeeping (latency, words recalled) is not a score and is left out."""
    return _differing(_scores_of(a), _scores_of(b))


def rerun_note(a: Result, b: Result) -> str | None:
    """The sentence a reading of a rerun carries when the two runs' scores differ; None
    otherwise (and always None for two different systems: see ``systems_differ``)."""
    return note(
        (a.system, a.evaluation, lambda: _scores_of(a)),
        (b.system, b.evaluation, lambda: _scores_of(b)),
        checks=(checks_of(a), checks_of(b)),
    )


def systems_differ(a: Result, b: Result) -> str | None:
    """For runs of one system class whose records differ (another endpoint, engine version
    or configuration), the sentence saying the reading compares two systems; None otherwise."""
    return differ_note((a.system, a.evaluation), (b.system, b.evaluation))


def note(
    a: tuple[SystemRecord, EvaluationRecord, Callable[[], ByTask]],
    b: tuple[SystemRecord, EvaluationRecord, Callable[[], ByTask]],
    *,
    checks: tuple[Checks | None, Checks | None] = (None, None),
) -> str | None:
    """``rerun_note`` from each side's records, scores (however they were read) and integrity
    checks; the scores are asked for only when the two ran one configuration."""
    if not _one_configuration(a[:2], b[:2]):
        return None
    differing, shared = _differing(a[2](), b[2]())
    if not differing:
        return None
    said = (
        f"A and B ran one configuration of {a[0].name} on {a[1].name} "
        f"({_evidence(a[0], b[0])}), yet {differing} of {shared} task(s) have different scores"
    )
    planted = _planted_apart(*checks)
    if planted is None:
        return (
            f"{said}: the system is not deterministic from run to run, so this gap is its own "
            "variation, not a change"
        )
    budget = a[1].budget
    places = (
        f"inside the budget of {budget}" if budget and budget.capped else f"in the top {a[1].k}"
    )
    return (
        f"{said}: memrank's integrity checks planted {planted}, told with their look-alike turns "
        f"among the units' documents, where planted turns compete with the benchmark's for "
        f"places {places}; the gap comes from those checks, and from the system's own "
        "variation if it varies, not from a change"
    )


def _planted_apart(a: Checks | None, b: Checks | None) -> str | None:
    """What the integrity checks planted in each run, as the note says it ("100 canary facts
    in A's run and none in B's"); None when the two planted alike: none in either, or the
    same canaries from one secret."""
    planted_a, planted_b = (0 if c is None else c.canaries for c in (a, b))
    if not planted_a and not planted_b:
        return None
    if planted_a and planted_b:
        assert a is not None and b is not None
        if a.secret == b.secret and planted_a == planted_b:
            return None
        return (
            f"{planted_a} canary facts in A's run and {planted_b} others in B's (each from "
            "its run's own secret)"
        )
    if planted_a:
        return f"{planted_a} canary facts in A's run and none in B's"
    return f"{planted_b} canary facts in B's run and none in A's"


def unsure_note(a: Records, b: Records) -> str | None:
    """For runs whose records are alike with nothing to show they ran one configuration, the
    sentence saying the reading cannot tell; None otherwise."""
    (system_a, evaluation_a), (system_b, evaluation_b) = a, b
    if (
        not _same_evaluation(evaluation_a, evaluation_b)
        or not _alike(system_a, system_b)
        or _evidence(system_a, system_b) is not None
    ):
        return None
    where = system_a.components.get("endpoint")
    return (
        f"A and B both ran {system_a.name}{f' at {where}' if where else ''}, but it "
        "declares no version and the two results record no common answers to memrank's "
        "fixed probe: memrank cannot tell whether they ran one configuration (another system "
        "behind the same address looks the same), so this gap may be a change or the "
        "system's own variation"
    )


def differ_note(a: Records, b: Records) -> str | None:
    """``systems_differ`` from each side's records."""
    (system_a, evaluation_a), (system_b, evaluation_b) = a, b
    if (
        system_a.name != system_b.name
        or _alike(system_a, system_b)
        or not _same_evaluation(evaluation_a, evaluation_b)
    ):
        return None
    return (
        f"A and B both ran {system_a.name}, but the systems differ ("
        + "; ".join(_differences(system_a, system_b))
        + "): this gap compares two systems, not a rerun"
    )


def by_task(
    values: Iterable[tuple[str, str | None, float | None]], bookkeeping: Container[str] = ()
) -> ByTask:
    """(measure, task id, value) triples as task id -> measure -> score, leaving out the
    measures named in ``bookkeeping`` (those memrank decides of its own records)."""
    tasks: dict[str, dict[str, float | None]] = {}
    for measure, task_id, value in values:
        if task_id is not None and measure not in bookkeeping:
            tasks.setdefault(task_id, {})[measure] = value
    return tasks


def _scores_of(result: Result) -> ByTask:
    return by_task(
        (v.measure, v.task_id, v.value) for v in result.values if v.decider is not Decider.MEMRANK
    )


def _one_configuration(a: Records, b: Records) -> bool:
    return _same_evaluation(a[1], b[1]) and _alike(a[0], b[0]) and _evidence(a[0], b[0]) is not None


def _alike(a: SystemRecord, b: SystemRecord) -> bool:
    """Records that agree whole (a probe recorded on one side only set aside)."""
    one, other = _comparable(a, b)
    return one == other


def _comparable(a: SystemRecord, b: SystemRecord) -> tuple[SystemRecord, SystemRecord]:
    """The two records as compared: with the probe only where it is the evidence, both having
    recorded one and neither declaring a version. An engine that names its version may answer
    the probe differently run to run (Hindsight does), and is then a rerun that varies."""
    probed = PROBE in a.components and PROBE in b.components
    if probed and a.declared_version is None and b.declared_version is None:
        return a, b
    return _unprobed(a), _unprobed(b)


def _unprobed(record: SystemRecord) -> SystemRecord:
    components = {k: v for k, v in record.components.items() if k != PROBE}
    return record.model_copy(update={"components": components})


def _evidence(a: SystemRecord, b: SystemRecord) -> str | None:
    """What shows that two runs with alike records ran one configuration; None if nothing."""
    if a.declared_version is not None:
        return f"both report version {a.declared_version!r}"
    if a.transport == "in-process" and a.version is not None:
        return f"both ran it inside memrank at version {a.version!r}"
    if a.components.get(PROBE) is not None and a.components.get(PROBE) == b.components.get(PROBE):
        return "both answered memrank's fixed probe alike"
    return None


def _same_evaluation(a: EvaluationRecord, b: EvaluationRecord) -> bool:
    return (a.name, a.version, a.slice) == (b.name, b.version, b.slice)


def _differences(a: SystemRecord, b: SystemRecord) -> list[str]:
    a, b = _comparable(a, b)
    mine, theirs = a.model_dump(), b.model_dump()
    found = []
    for field in mine:
        if field == "components":
            continue
        if mine[field] != theirs[field]:
            found.append(f"{field}: {mine[field]!r} vs {theirs[field]!r}")
    for name in sorted(a.components.keys() | b.components.keys()):
        one, other = a.components.get(name), b.components.get(name)
        if name == PROBE and one != other:
            found.append(f"{PROBE}: memrank's fixed probe was answered differently")
        elif one != other:
            found.append(f"{name}: {one!r} vs {other!r}")
    return found


def _differing(mine: ByTask, theirs: ByTask) -> tuple[int, int]:
    shared = mine.keys() & theirs.keys()
    return sum(1 for task in shared if mine[task] != theirs[task]), len(shared)
