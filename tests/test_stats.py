"""The numeric kernels: exact McNemar against scipy, the cluster bootstrap, tie-aware ranks."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from memrank.errors import UsageError
from memrank.stats import (
    Bootstrap,
    McNemar,
    cluster_bootstrap,
    mcnemar,
    mcnemar_exact,
    paired_test,
    tie_aware_ranks,
)


def _tables(count: int) -> list[tuple[int, int]]:
    """Discordant counts: empty, tiny, moderate and over a thousand, mixed at random."""
    rng = np.random.default_rng(2026)
    tables = [(0, 0), (1, 0), (0, 1), (600, 601)]
    while len(tables) < count:
        n = int(rng.choice([rng.integers(0, 3), rng.integers(1, 40), rng.integers(1001, 2500)]))
        only_a = int(rng.binomial(n, rng.uniform(0.2, 0.8)))
        tables.append((only_a, n - only_a))
    return tables


def test_exact_mcnemar_agrees_with_scipy_binomtest_over_1000_tables() -> None:
    tables = _tables(1000)
    assert any(a + b == 0 for a, b in tables) and any(a + b > 1000 for a, b in tables)
    for only_a, only_b in tables:
        n = only_a + only_b
        p = mcnemar_exact(only_a, only_b)
        if n == 0:
            assert p == 1.0  # no task differs: nothing to explain (scipy refuses n = 0)
            continue
        expected = binomtest(min(only_a, only_b), n, 0.5).pvalue
        assert abs(p - expected) <= 1e-12, (only_a, only_b, p, expected)


def test_exact_mcnemar_by_hand() -> None:
    assert mcnemar_exact(3, 0) == 0.25  # 2 * (1/2)^3
    assert mcnemar_exact(0, 3) == 0.25
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(1, 9) == pytest.approx(2 * 11 / 1024)
    with pytest.raises(UsageError, match="non-negative"):
        mcnemar_exact(-1, 2)


def test_mcnemar_counts_the_2x2_table() -> None:
    a = np.array([1, 1, 1, 0, 0, 1, 0])
    b = np.array([1, 0, 0, 0, 1, 1, 0])
    table = mcnemar(a, b)
    assert (table.both, table.neither, table.only_a, table.only_b) == (2, 2, 2, 1)
    assert table.p == mcnemar_exact(2, 1) == 1.0
    assert table.higher() is None


def _clustered(rng: np.random.Generator, shift: float, clusters: int, size: int) -> np.ndarray:
    """Differences whose tasks share their cluster's offset: strongly correlated within it."""
    offsets = rng.normal(0.0, 1.0, clusters)
    return (shift + np.repeat(offsets, size) + rng.normal(0.0, 0.3, clusters * size)).round(6)


def test_same_seed_same_interval_other_seed_other_interval() -> None:
    rng = np.random.default_rng(1)
    differences = _clustered(rng, 0.2, 30, 4)
    groups = [f"g{i // 4}" for i in range(120)]
    first = cluster_bootstrap(differences, groups, resamples=2000, seed=11)
    again = cluster_bootstrap(differences, groups, resamples=2000, seed=11)
    other = cluster_bootstrap(differences, groups, resamples=2000, seed=12)
    assert first == again
    assert (first.low, first.high) != (other.low, other.high)
    assert (first.clusters, first.resamples, first.seed) == (30, 2000, 11)


def test_the_interval_covers_a_known_shift_in_at_least_90_percent_of_200_trials() -> None:
    rng = np.random.default_rng(7)
    shift, covered = 0.25, 0
    groups = [f"g{i // 5}" for i in range(200)]
    for trial in range(200):
        differences = _clustered(rng, shift, 40, 5)
        interval = cluster_bootstrap(differences, groups, resamples=1000, seed=trial)
        assert interval.low is not None and interval.high is not None
        covered += interval.low <= shift <= interval.high
    assert covered >= 180, f"covered the true shift in {covered} of 200 trials"


def test_clusters_are_resampled_whole() -> None:
    rng = np.random.default_rng(3)
    differences = _clustered(rng, 0.0, 20, 10)
    grouped = cluster_bootstrap(differences, [f"g{i // 10}" for i in range(200)], resamples=4000)
    one_by_one = cluster_bootstrap(differences, [None] * 200, resamples=4000)
    assert grouped.clusters == 20 and one_by_one.clusters == 200
    assert grouped.low is not None and grouped.high is not None
    assert one_by_one.low is not None and one_by_one.high is not None
    # Tasks of a cluster move together: resampling them one by one pretends otherwise and the
    # interval comes out several times too narrow.
    assert grouped.high - grouped.low > 2.5 * (one_by_one.high - one_by_one.low)


def test_whole_clusters_make_only_cluster_level_means() -> None:
    # Two equal clusters, constant inside: every resample is 0, 0.5 or 1, never in between.
    differences = [0.0] * 5 + [1.0] * 5
    interval = cluster_bootstrap(differences, ["x"] * 5 + ["y"] * 5, resamples=1000, seed=5)
    assert (interval.low, interval.high) == (0.0, 1.0)
    # A task without a group is its own cluster, never lumped with other ungrouped tasks.
    assert cluster_bootstrap(differences, [None] * 10, resamples=1000).clusters == 10


def test_one_cluster_gives_no_interval() -> None:
    interval = cluster_bootstrap([0.1, 0.5, 0.2], ["only"] * 3, resamples=1000)
    assert interval == Bootstrap(low=None, high=None, clusters=1, resamples=1000, seed=0)
    assert interval.higher() is None


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"resamples": 999}, "resamples=999"),
        ({"seed": -1}, "seed=-1"),
    ],
)
def test_bad_draw_arguments_are_refused(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        cluster_bootstrap([0.1, 0.2], [None, None], **kwargs)


def test_differences_and_clusters_must_line_up() -> None:
    with pytest.raises(UsageError, match="2 difference"):
        cluster_bootstrap([0.1, 0.2], ["g"], resamples=1000)
    with pytest.raises(UsageError, match="0 difference"):
        cluster_bootstrap([], [], resamples=1000)


def test_paired_test_picks_mcnemar_for_binary_and_the_bootstrap_otherwise() -> None:
    a, b = np.array([1.0, 0.0, 1.0]), np.array([0.0, 0.0, 1.0])
    assert isinstance(paired_test(a, b, [None] * 3), McNemar)
    continuous = paired_test(a, b + 0.5, [None] * 3, resamples=1000)
    assert isinstance(continuous, Bootstrap) and continuous.clusters == 3


def _binary_row(rng: np.random.Generator, rate: float, tasks: int = 300) -> dict[str, float]:
    return {f"t{i}": float(rng.random() < rate) for i in range(tasks)}


def test_ranks_count_the_rows_significantly_higher() -> None:
    rng = np.random.default_rng(0)
    strong = _binary_row(rng, 0.9)
    middle = _binary_row(rng, 0.5)
    # Two rows that differ on only three tasks: no test can separate them, so they share a rank.
    twin = dict(middle)
    for task in ("t0", "t1", "t2"):
        twin[task] = 1.0 - twin[task]
    weak = _binary_row(rng, 0.1)
    assert tie_aware_ranks([middle, strong, weak, twin]) == [2, 1, 4, 2]


def test_ranks_of_continuous_rows_use_clusters_and_are_deterministic() -> None:
    rng = np.random.default_rng(4)
    base = rng.uniform(0.2, 0.6, 120)
    clusters = {f"t{i}": f"g{i // 6}" for i in range(120)}
    rows = [
        {f"t{i}": float(v) for i, v in enumerate(base)},
        {f"t{i}": float(v + 0.3) for i, v in enumerate(base)},
        {f"t{i}": float(v + 0.001 * (i % 2 * 2 - 1)) for i, v in enumerate(base)},
    ]
    ranks = tie_aware_ranks(rows, clusters, resamples=2000, seed=9)
    assert ranks == [2, 1, 2]
    assert tie_aware_ranks(rows, clusters, resamples=2000, seed=9) == ranks


def test_rows_without_common_tasks_are_not_compared() -> None:
    high = {f"a{i}": 1.0 for i in range(50)}
    low = {f"b{i}": 0.0 for i in range(50)}
    assert tie_aware_ranks([high, low]) == [1, 1]
    assert tie_aware_ranks([]) == []
