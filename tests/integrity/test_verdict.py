"""The canary test against hand computations of its statistic and p-value (docs/integrity.md,
"The verdict"), the rule that a failed task counts 0, and the verdict read from it."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from memrank import Decider, Task, Value
from memrank.integrity.record import VERDICT, CanaryTest, IntegrityRecord
from memrank.integrity.verdict import LEVEL, MARGIN, canary_test, judge, verdict_value
from memrank.trace import Failure, Given, Step, Trace

MEASURE = "evidence-recall@5"
NOON = datetime(2026, 1, 1, 12, tzinfo=UTC)
Cell = float | None | Failure
"""A task's value of MEASURE, or its failure."""


def _side(prefix: str, units: dict[str, list[Cell]]) -> tuple[list[Trace], list[Value]]:
    """Traces and MEASURE values of tasks ``<prefix><unit>-<n>``, one per cell, per unit."""
    traces, values = [], []
    for unit, cells in units.items():
        for n, cell in enumerate(cells):
            task_id = f"{prefix}{unit}-{n}"
            failed = cell if isinstance(cell, Failure) else None
            traces.append(
                Trace(
                    task=Task(id=task_id, prompt="q", group=unit),
                    given=Given(unit=unit, document_ids=()),
                    error=failed,
                    started=NOON,
                    finished=NOON,
                )
            )
            number = None if failed is not None else cell
            values.append(
                Value(
                    measure=MEASURE,
                    decider=Decider.RULE,
                    task_id=task_id,
                    value=number,
                    why="undecided" if number is None else "",
                )
            )
    return traces, values


def _tested(benchmark: dict[str, list[Cell]], canaries: dict[str, list[Cell]]) -> CanaryTest:
    b_traces, b_values = _side("b", benchmark)
    c_traces, c_values = _side("c", canaries)
    unit_of = {t.task.id: t.given.unit for t in (*b_traces, *c_traces) if t.given}
    return canary_test(MEASURE, b_traces, b_values, c_traces, c_values, unit_of)


def _t_upper_tail(t: float, df: int) -> float:
    """P(T >= t), in closed form for the two degrees of freedom these cases have."""
    if df == 1:  # Cauchy
        return 0.5 - math.atan(t) / math.pi
    assert df == 2
    return 0.5 - t / (2 * math.sqrt(2 + t * t))


def test_two_units_whose_clusters_vary_more_than_their_tasks() -> None:
    read = _tested({"A": [1, 1, 1], "B": [1, 0, 0]}, {"A": [0, 0], "B": [1, 0]})
    # B = 4/6, C = 1/4. Per unit, benchmark residuals over n_B minus canary residuals over
    # n_C: A = (1/3 * 3)/6 + (1/4 * 2)/4 = 7/24, B = -7/24; clustered = 2/1 * 2 * (7/24)^2 =
    # 49/144. Tasks independent: (4/3)/5/6 + (3/4)/3/4 = 2/45 + 1/16 = 77/720, smaller.
    statistic = (4 / 6 - 1 / 4 - MARGIN) / math.sqrt(49 / 144)
    assert read.benchmark_mean == pytest.approx(4 / 6)
    assert read.canary_mean == pytest.approx(1 / 4)
    assert (read.benchmark_tasks, read.canary_tasks, read.clusters) == (6, 4, 2)
    assert read.statistic == pytest.approx(statistic)
    assert read.p_value == pytest.approx(_t_upper_tail(statistic, df=1))
    assert "on 1 df" in read.why and "(cluster-robust)" in read.why


def test_two_units_whose_tasks_vary_more_than_their_clusters() -> None:
    read = _tested({"A": [1, 1, 1, 0], "B": [1, 1, 0, 1]}, {"A": [0, 0], "B": [1, 0]})
    # B = 6/8, C = 1/4; every unit's benchmark residuals sum to 0, its canary residuals to
    # -/+ 1/2, so clustered = 2 * 2 * (1/8)^2 = 1/16, below independent: (3/2)/7/8 + 1/16 = 5/56
    statistic = (6 / 8 - 1 / 4 - MARGIN) / math.sqrt(5 / 56)
    assert read.statistic == pytest.approx(statistic)
    assert read.p_value == pytest.approx(_t_upper_tail(statistic, df=1))
    assert "(tasks independent)" in read.why


def test_one_unit_reads_its_tasks_as_independent_on_canaries_minus_one_df() -> None:
    read = _tested({"A": [1, 1, 1, 0]}, {"A": [1, 0, 0]})
    # B = 3/4, C = 1/3; V = (3/4)/3/4 + (2/3)/2/3 = 1/16 + 1/9 = 25/144; df = 3 - 1
    statistic = (3 / 4 - 1 / 3 - MARGIN) / (5 / 12)
    assert read.clusters == 1
    assert read.statistic == pytest.approx(statistic)
    assert read.p_value == pytest.approx(_t_upper_tail(statistic, df=2))
    assert "on 2 df" in read.why


def test_a_benchmark_below_its_canaries_is_nowhere_near_suspect() -> None:
    read = _tested({"A": [0, 1, 0, 0], "B": [0, 0, 1, 0]}, {"A": [1, 1], "B": [1, 0]})
    assert read.statistic is not None and read.statistic < 0
    assert read.p_value is not None and read.p_value > 0.5


def test_a_failed_task_counts_0_and_an_undecided_one_is_left_out() -> None:
    broken = Failure(step=Step.RETRIEVE, message="HTTP 500", type="EndpointError")
    read = _tested({"A": [1, 1, None, 1], "B": [1, 1, 1, 0]}, {"A": [broken, 1], "B": [broken, 1]})
    assert (read.benchmark_tasks, read.canary_tasks) == (7, 4)
    assert read.benchmark_mean == pytest.approx(6 / 7)
    assert read.canary_mean == pytest.approx(2 / 4)  # the failed canaries count 0, not absent


def test_fewer_than_two_valued_tasks_on_a_side_is_not_tested() -> None:
    read = _tested({"A": [1, 1, 1]}, {"A": [0, None]})
    assert read.p_value is None and read.statistic is None
    assert (read.canary_tasks, read.canary_mean) == (1, 0.0)
    assert read.why.startswith("fewer than 2 valued tasks")


def _judged(benchmark: dict[str, list[Cell]], canaries: dict[str, list[Cell]]) -> IntegrityRecord:
    b_traces, b_values = _side("b", benchmark)
    c_traces, c_values = _side("c", canaries)
    return judge(bytes(16), None, b_traces, b_values, c_traces, c_values)


def test_the_verdict_is_suspect_below_the_level_and_says_why() -> None:
    units = [f"u{n}" for n in range(8)]
    looked_up = _judged({u: [1] * 6 for u in units}, {u: [0, 1, 0] for u in units})
    assert looked_up.test is not None and looked_up.test.p_value is not None
    assert looked_up.test.p_value < LEVEL and looked_up.verdict == "suspect"
    (reason,) = looked_up.reasons
    assert "recall on the benchmark's questions (1.000)" in reason
    assert "recall on the canaries (0.333)" in reason
    assert looked_up.line == f"integrity: suspect — {reason}"
    value = verdict_value(looked_up)
    assert (value.measure, value.value, value.decider) == (VERDICT, 1.0, Decider.MEMRANK)
    assert value.why.startswith(looked_up.line)

    honest = _judged({u: [1, 0, 1, 0, 1, 0] for u in units}, {u: [0, 1, 1] for u in units})
    assert honest.verdict == "clean" and honest.reasons == () and honest.line == "integrity: clean"
    assert verdict_value(honest).value == 0.0
    assert honest.secret == "00" * 16


def test_a_run_without_canaries_has_no_test_and_no_suspicion() -> None:
    b_traces, b_values = _side("b", {"A": [1, 1]})
    record = judge(bytes(16), None, b_traces, b_values, [], [])
    assert record.test is None and record.verdict == "clean"
    assert "no canary test" in verdict_value(record).why


def test_a_run_that_fails_every_canary_is_suspect() -> None:
    broken = Failure(step=Step.RETRIEVE, message="HTTP 500", type="EndpointError")
    units = [f"u{n}" for n in range(8)]
    record = _judged({u: [1] * 6 for u in units}, {u: [broken] * 3 for u in units})
    assert record.test is not None and record.test.canary_mean == 0.0
    assert record.verdict == "suspect"
