"""Tie-aware ranks from the pairwise p matrix: ranges where tests do not separate rows; and
wins, the rows each row is significantly better than (a tie is no win)."""

from __future__ import annotations

import numpy as np

from memrank.stats import LEVEL, RankRange, pairwise_p_values, tie_aware_ranks, wins


def test_ranks_count_the_rows_significantly_better_and_worse() -> None:
    rng = np.random.default_rng(0)
    codes = np.arange(300)  # every task its own cluster: exact McNemar
    strong = (rng.random(300) < 0.9).astype(float)
    middle = (rng.random(300) < 0.5).astype(float)
    twin = middle.copy()
    twin[:3] = 1 - twin[:3]  # differs on three tasks only: no test separates it from middle
    weak = (rng.random(300) < 0.1).astype(float)
    matrix = np.vstack([middle, strong, weak, twin])
    p = pairwise_p_values(matrix, codes, binary=True)
    ranks = tie_aware_ranks(matrix.mean(axis=1), p)
    assert [r.best for r in ranks] == [2, 1, 4, 2]
    assert [r.label for r in ranks] == ["2-3", "1", "4", "2-3"]
    lower = tie_aware_ranks(-matrix.mean(axis=1), p, higher_is_better=False)
    assert lower == ranks
    # middle and its twin tie: neither wins against the other; both beat weak
    beaten = wins(matrix.mean(axis=1), p)
    assert beaten.tolist() == [1, 3, 0, 1]
    assert beaten.tolist() == [len(ranks) - r.worst for r in ranks]
    assert wins(-matrix.mean(axis=1), p, higher_is_better=False).tolist() == beaten.tolist()


def test_few_clusters_that_disagree_share_a_range() -> None:
    codes = np.repeat(np.arange(10), 10)
    a = np.zeros(100)
    b = a.copy()
    b[:60] = 1.0  # B wins in six clusters, A and B tie in four: p = 1/32 < 0.05
    c = a.copy()
    c[:30] = 1.0
    matrix = np.vstack([a, b, c])
    p = pairwise_p_values(matrix, codes, binary=True)
    assert p[0, 1] == 2 / 64
    assert p[0, 2] == 2 / 8  # three clusters differ: 2 of 2^3 sign patterns reach it
    ranks = tie_aware_ranks(matrix.mean(axis=1), p)
    assert ranks == [
        RankRange(best=2, worst=3),
        RankRange(best=1, worst=2),
        RankRange(best=1, worst=3),
    ]


def test_nan_separates_nothing() -> None:
    p = np.array([[np.nan, np.nan], [np.nan, np.nan]])
    assert [r.label for r in tie_aware_ranks([1.0, 0.0], p)] == ["1-2", "1-2"]
    assert wins([1.0, 0.0], p).tolist() == [0, 0]
    assert tie_aware_ranks([], np.zeros((0, 0))) == []


def test_a_pair_is_separated_strictly_below_the_level_and_tied_at_or_above_it() -> None:
    # Row 0 leads; each other row's p against it sits just below, at, or just above 0.05
    # (0.052: a board at 0.055 would separate it).
    assert LEVEL == 0.05
    p = np.full((5, 5), np.nan)
    for row, against_first in enumerate((0.0499, 0.05, 0.0501, 0.052), start=1):
        p[0, row] = p[row, 0] = against_first
    means = [0.9, 0.1, 0.2, 0.3, 0.4]
    ranks = tie_aware_ranks(means, p)
    assert [r.label for r in ranks] == ["1-4", "2-5", "1-5", "1-5", "1-5"]
    assert wins(means, p).tolist() == [1, 0, 0, 0, 0]
