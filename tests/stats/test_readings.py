"""A paired reading's cautions, word for word, at each boundary where one starts or stops; the
errors for columns that cannot be read; and per-cluster sums however the tasks are ordered."""

from __future__ import annotations

import numpy as np
import pytest

from memrank.errors import UsageError
from memrank.stats import FEW_CLUSTERS, LEVEL, mean_interval, mean_intervals, paired_reading
from memrank.stats.clustered import checked_codes
from tests.stats.reference import bounded_reference


def _one_sided(clusters: int, tasks_each: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """B is 1 and A is 0 on the first task of every cluster (the rest tie at 0): the most
    lopsided split ``clusters`` clusters can show."""
    codes = np.repeat(np.arange(clusters), tasks_each)
    a = np.zeros(len(codes))
    b = np.zeros(len(codes))
    b[::tasks_each] = 1.0
    return a, b, codes


def _units(clusters: int, tasks: int) -> str:
    return (
        f"only {clusters} clusters: tasks in a cluster move together, so this rests on "
        f"{clusters} independent units, not {tasks} tasks"
    )


@pytest.mark.parametrize("clusters", [2, 3, 4, 5])
def test_up_to_five_binary_clusters_say_no_split_can_reach_the_level(clusters: int) -> None:
    a, b, codes = _one_sided(clusters)
    reading = paired_reading(a, b, codes, binary=True)
    assert reading.p_value == 2 / 2**clusters >= LEVEL  # the caution is true: even this split
    assert reading.caution == (
        _units(clusters, 2 * clusters) + f"; with {clusters} clusters no split can reach p < 0.05"
    )


def test_six_binary_clusters_can_reach_it_and_say_only_how_few_they_are() -> None:
    a, b, codes = _one_sided(6)
    reading = paired_reading(a, b, codes, binary=True)
    assert reading.p_value == 2 / 64 < LEVEL
    assert reading.caution == _units(6, 12)


def test_a_continuous_reading_of_few_clusters_says_how_few_never_the_split() -> None:
    a, b, codes = _one_sided(3)
    assert paired_reading(a, b, codes, binary=False).caution == _units(3, 6)


def test_the_caution_stops_at_thirty_clusters() -> None:
    assert FEW_CLUSTERS == 30
    below = paired_reading(*_one_sided(29), binary=True)
    assert below.caution == _units(29, 58) and below.method.startswith("clustered McNemar")
    assert paired_reading(*_one_sided(30), binary=True).caution is None


def test_one_task_per_cluster_needs_no_caution_however_few() -> None:
    a, b, codes = _one_sided(4, tasks_each=1)
    reading = paired_reading(a, b, codes, binary=True)
    assert reading.method == "McNemar exact test" and reading.caution is None


def test_the_largest_cluster_decides_whether_tasks_move_together() -> None:
    # clusters of 1, 3 and 3 tasks: the tasks of the larger ones move together
    a, b = np.zeros(7), np.array([1.0, 0, 1, 0, 1, 0, 0])
    reading = paired_reading(a, b, [0, 1, 1, 1, 2, 2, 2], binary=False)
    assert reading.caution == _units(3, 7)


@pytest.mark.parametrize("clusters", [1, 2])
def test_one_cluster_says_no_gap_can_be_told_from_chance(clusters: int) -> None:
    reading = paired_reading(*_one_sided(clusters), binary=True)
    lone = (
        "only 1 cluster: a test needs at least 2 independent clusters, so no gap here can be "
        "told from chance"
    )
    assert (reading.caution == lone) is (clusters == 1)
    assert reading.p_value is not None  # the exact test reads even one cluster (p = 1 there)
    assert (reading.low is None) is (clusters == 1)


@pytest.mark.parametrize("binary", [True, False])
def test_nothing_paired_is_an_empty_reading_that_says_so(binary: bool) -> None:
    reading = paired_reading([np.nan, 1.0], [1.0, np.nan], [0, 1], binary=binary)
    assert (reading.n_tasks, reading.n_clusters, reading.mean_a, reading.difference) == (
        0,
        0,
        None,
        None,
    )
    assert reading.caution == "no task was valued by both sides, so there is nothing to compare"
    assert reading.method == (
        "McNemar exact test" if binary else "cluster-robust t-test (CR2, t with G-1 df)"
    )


def test_a_reading_names_its_test_by_the_clusters_it_has() -> None:
    names = {
        clusters: paired_reading(*_one_sided(clusters), binary=True).method for clusters in (16, 17)
    }
    assert names == {
        16: "exact cluster sign-flip test",
        17: "clustered McNemar test (Durkalski), chi-square 1 df",
    }


@pytest.mark.parametrize(
    "a,b,clusters",
    [([0.0, 1.0, 1.0], [1.0, 0.0], [0, 1, 2]), ([[0.0, 1.0]], [[1.0, 0.0]], [0, 1])],
    ids=["different-lengths", "not-columns"],
)
def test_columns_that_do_not_line_up_are_refused(
    a: list[float], b: list[float], clusters: list[int]
) -> None:
    with pytest.raises(UsageError, match=r"a paired reading needs two aligned columns; got shapes"):
        paired_reading(a, b, clusters, binary=False)


@pytest.mark.parametrize(
    "clusters,tasks,match",
    [
        ([0, 1], 3, "one integer cluster index per task"),
        ([0.0, 1.0], 2, "one integer cluster index per task"),
        ([1, -1, 0], 3, "non-negative"),
        ([-1, 0], 2, "non-negative"),
    ],
)
def test_cluster_indices_must_be_one_non_negative_integer_per_task(
    clusters: list[float], tasks: int, match: str
) -> None:
    with pytest.raises(UsageError, match=match):
        checked_codes(clusters, tasks)


def test_a_column_of_no_tasks_reads_no_mean() -> None:
    assert checked_codes([], 0).tolist() == []  # an empty list is floats to numpy: still no task
    (row,) = mean_intervals(np.zeros((1, 0)), [], (0.0, 1.0))
    assert (row.mean, row.low, row.high, row.n_clusters) == (None, None, None, 0)
    with pytest.raises(UsageError, match="runs x tasks matrix; got shape"):
        mean_intervals(np.zeros(3), [0, 1, 2])


def test_clusters_listed_out_of_order_are_summed_as_if_in_order() -> None:
    # An evaluation may list its tasks in any order: each cluster's tasks are summed together
    # wherever they stand (codes 0 1 0 1 2 2 3 3, and the same tasks listed cluster by cluster).
    codes = np.array([0, 1, 0, 1, 2, 2, 3, 3])
    values = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    order = np.argsort(codes, kind="stable")
    interleaved = mean_interval(values, codes, (0.0, 1.0))
    listed = mean_interval(values[order], codes[order], (0.0, 1.0))
    expected = bounded_reference(values, codes, 0.0, 1.0)
    for reading in (interleaved, listed):
        assert (reading.mean, reading.low, reading.high) == pytest.approx(expected, abs=1e-12)
    b = np.array([0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0])
    paired = paired_reading(values, b, codes, binary=True)
    in_order = paired_reading(values[order], b[order], codes[order], binary=True)
    assert (paired.low, paired.high, paired.p_value) == (
        in_order.low,
        in_order.high,
        in_order.p_value,
    )
