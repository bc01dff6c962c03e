"""The integrity verdict of an endpoint run: the canary test and the foreign count, read together.

The canary test asks one question: is the run's recall on the benchmark's questions higher than
its recall on the canaries by more than honest retrieval explains? Both are read with
``evidence-recall@5`` (else the evaluation's headline, else ``evidence-recall@10``), over the
tasks it values; a task
that failed counts 0 on either side, so a server cannot dodge canaries by failing them. With
``B`` and ``C`` the two means over ``n_B`` and ``n_C`` tasks, the statistic is

    t = (B - C - MARGIN) / sqrt(V)

one-sided, where ``V`` is the larger of the cluster-robust variance of ``B - C`` (the units are
the clusters: ``G/(G-1)`` times the sum over units of the squared difference of each unit's
residual sums, benchmark residuals over ``n_B`` minus canary residuals over ``n_C``) and the
variance with every task independent (``s_B^2/n_B + s_C^2/n_C``). The p-value is the upper tail
of Student's t with ``G - 1`` degrees of freedom for ``G >= 2`` units holding both kinds, else
``n_C - 1``. The run is suspect when ``p < LEVEL``. ``MARGIN`` is how much easier the
benchmark may be than the canaries for an honest system; it and ``LEVEL`` were set from
simulated honest runs (docs/integrity.md, tests/perf/integrity_calibration.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from memrank.integrity.record import VERDICT, CanaryTest, ForeignCount, IntegrityRecord
from memrank.measure import Decider, Value
from memrank.result import Result
from memrank.stats._dist import t_two_sided_p
from memrank.trace import Trace

__all__ = [
    "LEVEL",
    "MARGIN",
    "VERDICT",
    "canary_test",
    "disagreement",
    "rejudged",
    "with_verdict",
    "judge",
    "measure_read",
    "verdict_value",
]

LEVEL = 0.01
"""A run is suspect when the canary test's one-sided p-value is below this."""
MARGIN = 0.10
"""How far benchmark recall may exceed canary recall before the test counts it as evidence."""
FALLBACK_MEASURE = "evidence-recall@10"

TESTED_FIRST = "evidence-recall@5"


def measure_read(headline: str | None, names: set[str]) -> str | None:
    """The value name the canary test compares: evidence-recall@5 when canaries are scored by
    it (the tightest cut, where looking answers up gains most over retrieving them), else the
    headline, else evidence-recall@10, else None (no test)."""
    for name in (TESTED_FIRST, headline, FALLBACK_MEASURE):
        if name is not None and name in names:
            return name
    return None


def canary_test(
    measure: str,
    benchmark: Sequence[Trace],
    benchmark_values: Sequence[Value],
    canaries: Sequence[Trace],
    canary_values: Sequence[Value],
    unit_of: dict[str, str],
) -> CanaryTest:
    """Compare the two recalls; ``unit_of`` maps each task id to its isolation unit."""
    b_ids, b = _column(measure, benchmark, benchmark_values)
    c_ids, c = _column(measure, canaries, canary_values)
    if len(b) < 2 or len(c) < 2:
        return CanaryTest(
            measure=measure,
            benchmark_tasks=len(b),
            canary_tasks=len(c),
            benchmark_mean=float(b.mean()) if len(b) else None,
            canary_mean=float(c.mean()) if len(c) else None,
            margin=MARGIN,
            level=LEVEL,
            why="fewer than 2 valued tasks on one side: not tested",
        )
    difference = float(b.mean() - c.mean())
    independent = float(b.var(ddof=1) / len(b) + c.var(ddof=1) / len(c))
    units = sorted({unit_of[i] for i in b_ids} & {unit_of[i] for i in c_ids})
    clustered = _clustered_variance(b_ids, b, c_ids, c, unit_of, units)
    variance = max(independent, clustered)
    df = len(units) - 1 if len(units) >= 2 else len(c) - 1
    statistic = (difference - MARGIN) / math.sqrt(variance) if variance > 0 else _sign(difference)
    two_sided = float(t_two_sided_p(np.array([abs(statistic)]), np.array([df]))[0])
    p_value = two_sided / 2 if statistic > 0 else 1 - two_sided / 2
    return CanaryTest(
        measure=measure,
        benchmark_tasks=len(b),
        canary_tasks=len(c),
        benchmark_mean=float(b.mean()),
        canary_mean=float(c.mean()),
        margin=MARGIN,
        level=LEVEL,
        clusters=len(units),
        statistic=statistic if math.isfinite(statistic) else None,
        p_value=p_value,
        why=(
            f"t = {statistic:.2f} on {df} df, from {len(units)} unit(s) holding both kinds"
            + (" (cluster-robust)" if clustered >= independent else " (tasks independent)")
        ),
    )


def _column(
    measure: str, traces: Sequence[Trace], values: Sequence[Value]
) -> tuple[list[str], np.ndarray]:
    """Task ids and values of ``measure``: a failed task counts 0, an undecided one is left out."""
    by_task = {v.task_id: v.value for v in values if v.measure == measure}
    ids, numbers = [], []
    for trace in traces:
        value = 0.0 if trace.error is not None else by_task.get(trace.task.id)
        if value is not None:
            ids.append(trace.task.id)
            numbers.append(value)
    return ids, np.asarray(numbers, dtype=float)


def _clustered_variance(
    b_ids: list[str],
    b: np.ndarray,
    c_ids: list[str],
    c: np.ndarray,
    unit_of: dict[str, str],
    units: list[str],
) -> float:
    if len(units) < 2:
        return 0.0
    index = {unit: i for i, unit in enumerate(units)}
    sums = np.zeros(len(units))
    for ids, column, sign in ((b_ids, b, 1.0), (c_ids, c, -1.0)):
        residuals = (column - column.mean()) * sign / len(column)
        for task, residual in zip(ids, residuals, strict=True):
            at = index.get(unit_of[task])
            if at is not None:
                sums[at] += residual
    g = len(units)
    return float(g / (g - 1) * np.sum(sums**2))


def _sign(difference: float) -> float:
    return math.inf if difference > MARGIN else -math.inf


def judge(
    secret: bytes,
    headline: str | None,
    benchmark: Sequence[Trace],
    benchmark_values: Sequence[Value],
    canaries: Sequence[Trace],
    canary_values: Sequence[Value],
) -> IntegrityRecord:
    """The integrity record of an endpoint run, from its two sets of traces and values."""
    unit_of = {t.task.id: t.given.unit if t.given else t.task.id for t in (*benchmark, *canaries)}
    names = {v.measure for v in canary_values}  # undecided too: failing every canary counts
    measure = measure_read(headline, names)
    test = (
        None
        if measure is None
        else canary_test(measure, benchmark, benchmark_values, canaries, canary_values, unit_of)
    )
    every = (*benchmark, *canaries)
    foreign = ForeignCount(
        documents=sum(len(t.foreign) for t in every),
        tasks=sum(bool(t.foreign) for t in every),
        recalled=sum(len(t.recalled.documents) for t in every if t.recalled is not None),
    )
    reasons = []
    if test is not None and test.p_value is not None and test.p_value < LEVEL:
        reasons.append(
            f"recall on the benchmark's questions ({test.benchmark_mean:.3f}) is above recall on "
            f"the canaries ({test.canary_mean:.3f}) by more than honest retrieval explains "
            f"(margin {MARGIN}, one-sided p = {_p_text(test.p_value)})"
        )
    return IntegrityRecord(
        secret=secret.hex(),
        verdict="suspect" if reasons else "clean",
        reasons=tuple(reasons),
        test=test,
        foreign=foreign,
        traces=tuple(canaries),
        values=tuple(canary_values),
    )


def _p_text(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def verdict_value(record: IntegrityRecord) -> Value:
    """The verdict as a run-scope value, its why the verdict line and what it rests on."""
    test = record.test
    rests_on = (
        "no canary test (no measure scores canaries)"
        if test is None
        else f"canary test on {test.measure}: benchmark {_mean(test.benchmark_mean)} over "
        f"{test.benchmark_tasks} task(s), canaries {_mean(test.canary_mean)} over "
        f"{test.canary_tasks}, p = {_p_text(test.p_value) if test.p_value is not None else 'none'}"
    )
    foreign = record.foreign
    return Value(
        measure=VERDICT,
        decider=Decider.MEMRANK,
        value=float(record.verdict == "suspect"),
        why=(
            f"{record.line}; {rests_on}; {foreign.documents} of {foreign.recalled} recalled "
            "document(s) never told to their unit"
        ),
    )


def _mean(mean: float | None) -> str:
    return "none" if mean is None else f"{mean:.3f}"


def disagreement(result: Result) -> str | None:
    """Why ``result``'s recorded verdict is not what its own traces and values give, or None:
    a valid signature proves who signed, not that the verdict was computed from the run."""
    record = result.integrity
    if record is None:
        return None
    stated = next((v.value for v in result.values if v.measure == VERDICT), None)
    if stated != float(record.verdict == "suspect"):
        return f"its {VERDICT} value is {stated}, but its integrity record says {record.verdict}"
    if record.test is None:
        return None
    unit_of = {
        t.task.id: t.given.unit if t.given else t.task.id for t in (*result.traces, *record.traces)
    }
    again = canary_test(
        record.test.measure, result.traces, result.values, record.traces, record.values, unit_of
    )
    suspect = again.p_value is not None and again.p_value < LEVEL
    if suspect != (record.verdict == "suspect") or again.p_value != record.test.p_value:
        return (
            f"its canary values give p = {again.p_value} ({'suspect' if suspect else 'clean'}), "
            f"but it records p = {record.test.p_value} ({record.verdict})"
        )
    return None


def with_verdict(values: Sequence[Value], record: IntegrityRecord) -> tuple[Value, ...]:
    """``values`` (any earlier verdict value dropped) with the record's verdict value before
    the clock's run-scope values, which stay last: a result file splits them off to its timings
    file, and joining puts them back at the end."""
    kept = [v for v in values if v.measure != VERDICT]
    clock = next(
        (
            at
            for at, v in enumerate(kept)
            if v.task_id is None and v.group is None and v.measure.split(".")[0] == "latency"
        ),
        len(kept),
    )
    return (*kept[:clock], verdict_value(record), *kept[clock:])


def rejudged(result: Result) -> Result:
    """``result`` with its verdict read again from its traces and values as they now stand
    (its failed tasks run again and merged in), against the canaries it recorded."""
    record = result.integrity
    if record is None:
        return result
    again = judge(
        bytes.fromhex(record.secret),
        None if record.test is None else record.test.measure,
        result.traces,
        [v for v in result.values if v.measure != VERDICT],
        record.traces,
        record.values,
    )
    return result.model_copy(
        update={"integrity": again, "values": with_verdict(result.values, again)}
    )
