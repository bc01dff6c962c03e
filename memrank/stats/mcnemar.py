"""McNemar's exact test: the right test when every task is its own cluster.

Exact in integers for one table (a reading), and by a per-n binomial table for many (the
pairwise matrix of a board). The two agree to about 1e-13.
"""

from __future__ import annotations

import numpy as np

from memrank.errors import UsageError
from memrank.stats._dist import distinct

__all__ = ["mcnemar_exact", "mcnemar_exact_many"]


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """McNemar's exact two-sided p for a 2x2 table's discordant counts; 1.0 when none differ.

    The discordant tasks split as Binomial(n = only_a + only_b, 1/2) under chance; p is
    2 * P(X <= min(only_a, only_b)), at most 1. Summed over exact integers, then divided once,
    so it holds to the last bit for any n (never the chi-square approximation).
    """
    if only_a < 0 or only_b < 0:
        raise UsageError(f"discordant counts must be non-negative; got {only_a} and {only_b}")
    n, k = only_a + only_b, min(only_a, only_b)
    if 2 * k >= n:  # an even split (or none at all): nothing is less likely than it
        return 1.0
    term, tail = 1, 0
    for i in range(k + 1):
        tail += term
        term = term * (n - i) // (i + 1)  # C(n, i + 1), exact
    return min(1.0, 2 * tail / (1 << n))


def mcnemar_exact_many(only_a: np.ndarray, only_b: np.ndarray) -> np.ndarray:
    """``mcnemar_exact`` elementwise, from one binomial(n, 1/2) table per distinct n."""
    only_a, only_b = np.asarray(only_a, dtype=np.int64), np.asarray(only_b, dtype=np.int64)
    n, k = only_a + only_b, np.minimum(only_a, only_b)
    p = np.ones(n.shape)
    for size in distinct(n[2 * k < n]):
        i = np.arange(size + 1)
        # log C(size, i) by cumulative sums of log((size - j) / (j + 1)): no overflow for any n
        log_choose = np.concatenate(([0.0], np.cumsum(np.log((size - i[:-1]) / (i[:-1] + 1)))))
        # normalised by the sum (2^n) computed alongside, so rounding in the logs cancels out
        weights = np.exp(log_choose - log_choose.max())
        tail = np.cumsum(weights) / weights.sum()
        where = (n == size) & (2 * k < n)
        p[where] = np.minimum(1.0, 2.0 * tail[k[where]])
    return p
