"""The interval of one system's mean, end for end: against Newcombe's (1998) published worked
examples, and against an independent implementation (tests/stats/reference.py) at several
means, cluster counts, intra-cluster correlations and ranges, to 1e-12."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from memrank.stats import mean_interval, mean_intervals
from memrank.stats.bounded import BOUNDED_METHOD, UNBOUNDED_METHOD, Bounds, _wilson_corrected
from tests.stats.reference import bounded_reference, cr2_variance, wilson_corrected

TOLERANCE = 1e-12

NEWCOMBE_METHOD_4 = [
    # r, n, and the 95% interval as Newcombe (1998, Table II) prints it, to four places
    (81, 263, 0.2535, 0.3682),
    (15, 148, 0.0598, 0.1644),
    (0, 20, 0.0000, 0.2005),
    (1, 29, 0.0018, 0.1963),
]


@pytest.mark.parametrize("r,n,low,high", NEWCOMBE_METHOD_4)
def test_the_score_interval_is_newcombes_method_4_in_his_worked_examples(
    r: int, n: int, low: float, high: float
) -> None:
    lower, upper = _wilson_corrected(np.array([r / n]), np.array([float(n)]))
    assert (round(float(lower[0]), 4), round(float(upper[0]), 4)) == (low, high)
    assert (lower[0], upper[0]) == pytest.approx(wilson_corrected(r / n, n), abs=TOLERANCE)


def test_the_score_interval_is_the_root_of_its_definition_for_any_share_and_real_n() -> None:
    # With a real-valued n the share can sit within 1/(2n) of an end of the range, where every
    # proportion on that side qualifies: the end is the range's, not a root that squaring the
    # equation brought in (0.0051 at a share of 0.02 and n of 7.7, against 0 here).
    shares = np.linspace(0.0, 1.0, 101)
    for n in (0.3, 0.7, 1.0, 2.5, 7.7, 25.0, 26.0, 120.0, 2_000.0):
        lower, upper = _wilson_corrected(shares, np.full(len(shares), n))
        for share, low, high in zip(shares, lower, upper, strict=True):
            expected = wilson_corrected(float(share), n)
            assert (low, high) == pytest.approx(expected, abs=TOLERANCE), (share, n)


def _draw(
    seed: int, mean: float, clusters: int, icc: float, binary: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Clusters of 3 to 39 tasks, each cluster's rate drawn around ``mean`` with intra-cluster
    correlation ``icc``: 0/1 values, or the share found of 1 to 3 evidence turns."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 40, clusters)
    if icc:
        spread = 1.0 / icc - 1.0
        rates = rng.beta(mean * spread, (1.0 - mean) * spread, clusters)
    else:
        rates = np.full(clusters, mean)
    per_task = np.repeat(rates, sizes)
    if binary:
        values = (rng.random(len(per_task)) < per_task).astype(float)
    else:
        turns = rng.integers(1, 4, len(per_task))
        values = rng.binomial(turns, per_task) / turns
    return values, np.repeat(np.arange(clusters), sizes)


RANGES: list[Bounds] = [(0.0, 1.0), (1.0, 5.0), (0.0, None), (None, 1.0), (None, None)]
"""A share, a 1-to-5 grade (a range whose width is neither 1 nor 2 and whose low end is not
0), a count bounded below, a number bounded above, and a number bounded nowhere."""


@pytest.mark.parametrize("bounds", RANGES, ids=["share", "grade", "below", "above", "free"])
def test_every_interval_is_the_independent_references_to_1e_12(bounds: Bounds) -> None:
    low, high = bounds
    grid = itertools.product(
        (0.02, 0.2, 0.5, 0.8, 0.98), (2, 3, 5, 10, 30), (0.0, 0.1, 0.3), (True, False)
    )
    for seed, (mean, clusters, icc, binary) in enumerate(grid):
        values, codes = _draw(seed, mean, clusters, icc, binary)
        if low == 1.0:
            values = 1.0 + 4.0 * values
        drawn = mean_interval(values, codes, bounds)
        expected = bounded_reference(values, codes, low, high)
        case = (mean, clusters, icc, binary)
        assert (drawn.mean, drawn.low, drawn.high) == pytest.approx(expected, abs=TOLERANCE), case
        assert drawn.n_clusters == clusters
        assert drawn.method == (BOUNDED_METHOD if None not in bounds else UNBOUNDED_METHOD)


def test_a_column_with_tasks_unvalued_is_read_over_the_valued_ones() -> None:
    values, codes = _draw(7, 0.3, 6, 0.1, binary=True)
    values[:4] = np.nan  # the first cluster's first tasks
    values[codes == 5] = np.nan  # a whole cluster: five clusters remain
    drawn = mean_interval(values, codes, (0.0, 1.0))
    expected = bounded_reference(values, codes, 0.0, 1.0)
    assert (drawn.mean, drawn.low, drawn.high) == pytest.approx(expected, abs=TOLERANCE)
    assert drawn.n_clusters == 5


@pytest.mark.parametrize("value", [0.0, 1.0, 0.5])
def test_a_column_of_one_value_reads_over_every_task_it_holds(value: float) -> None:
    # No spread at all: the effective size is every task, and the interval is the score
    # interval of that many (an end of the range is the end at a mean there).
    codes = np.repeat(np.arange(10), (19, 10, 19, 26, 24, 15, 19, 23, 19, 20))
    values = np.full(len(codes), value)
    drawn = mean_interval(values, codes, (0.0, 1.0))
    assert (drawn.mean, drawn.low, drawn.high) == pytest.approx(
        bounded_reference(values, codes, 0.0, 1.0), abs=TOLERANCE
    )
    assert drawn.low is not None and drawn.high is not None
    assert drawn.low < value < drawn.high or value in (drawn.low, drawn.high)


def test_the_effective_size_is_never_more_than_the_tasks() -> None:
    # Tasks far less spread than 0/1 values (every cluster near 0.5): m(1 - m)/V is above
    # the tasks there are, and the interval is that of the tasks, not of more.
    rng = np.random.default_rng(3)
    codes = np.repeat(np.arange(8), 25)
    values = np.clip(0.5 + rng.normal(0, 0.02, len(codes)), 0, 1)
    mean = values.mean()
    assert mean * (1 - mean) / cr2_variance(values, codes) > len(values)
    drawn = mean_interval(values, codes, (0.0, 1.0))
    assert (drawn.mean, drawn.low, drawn.high) == pytest.approx(
        bounded_reference(values, codes, 0.0, 1.0), abs=TOLERANCE
    )


def test_a_range_of_one_value_keeps_the_cr2_interval_cut_to_it() -> None:
    drawn = mean_interval([2.0, 2.0, 2.0, 2.0], [0, 0, 1, 2], (2.0, 2.0))
    assert (drawn.mean, drawn.low, drawn.high) == (2.0, 2.0, 2.0)
    assert drawn.method == BOUNDED_METHOD  # declared on both sides, drawn as it can be


def test_one_cluster_draws_no_interval_and_no_value_no_mean() -> None:
    single = mean_interval([0.2, 0.4, 0.9], [0, 0, 0], (0.0, 1.0))
    assert single.mean == pytest.approx(0.5) and (single.low, single.high) == (None, None)
    assert single.n_clusters == 1
    rows = mean_intervals(np.array([[np.nan, np.nan], [1.0, 0.0]]), [0, 1], (0.0, 1.0))
    assert (rows[0].mean, rows[0].low, rows[0].high, rows[0].n_clusters) == (None, None, None, 0)
    assert rows[1].mean == 0.5 and rows[1].low is not None and rows[1].n_clusters == 2
