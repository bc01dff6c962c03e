"""The tests and intervals, as kernels over cluster sums: one pair or twenty thousand at once.

Every kernel takes, per comparison (a row), the per-cluster sum of the paired differences ``S``
and the per-cluster count of paired tasks ``n`` (shape pairs x clusters; a cluster with no paired
task has n = 0). A reading of one pair and a board's matrix of all pairs call the same kernels,
so a rank and the reading behind it cannot disagree.

Which test (docs/methodology.md has the references):

- binary measure, every cluster a single task: McNemar's exact test;
- binary, at most ``EXACT_MAX_CLUSTERS`` clusters: the exact sign-flip (randomisation) test over
  cluster sums; its statistic is Durkalski's clustered McNemar, (sum S)^2 / sum S^2, and its
  reference distribution is every one of the 2^G ways to swap A and B within whole clusters;
- binary, more clusters: Durkalski's clustered McNemar against chi-square(1);
- continuous measure: a t-test of the mean difference with the CR2 (bias-reduced) cluster-robust
  standard error against t(G - 1);
- the 95% interval of the mean difference, for either type: CR2 with t(G - 1).
"""

from __future__ import annotations

import numpy as np

from memrank.errors import UsageError
from memrank.stats._dist import chi2_1_sf, distinct, t_quantile, t_two_sided_p

__all__ = [
    "CLUSTERED_MCNEMAR",
    "CR2_T",
    "EXACT_MAX_CLUSTERS",
    "EXACT_MCNEMAR",
    "SIGN_FLIP",
    "Interval",
    "binary_p",
    "binary_method",
    "cr2",
    "continuous_p",
    "mcnemar_exact",
    "mcnemar_exact_many",
]

EXACT_MAX_CLUSTERS = 16
"""Up to this many clusters the binary test enumerates all 2^G sign patterns (at most 32,768
after the symmetry halving); beyond it the chi-square reference is accurate."""
_ROWS_PER_CHUNK = 16_384
"""Rows the sign-flip test walks its patterns over at a time: a few arrays of one integer per
row, small enough to stay in the processor's cache over all the patterns."""

EXACT_MCNEMAR = "McNemar exact test"
SIGN_FLIP = "exact cluster sign-flip test"
CLUSTERED_MCNEMAR = "clustered McNemar test (Durkalski), chi-square 1 df"
CR2_T = "cluster-robust t-test (CR2, t with G-1 df)"


class Interval:
    """The CR2 reading of the mean difference, per row: mean, standard error, clusters, bounds."""

    def __init__(self, sums: np.ndarray, counts: np.ndarray) -> None:
        sums, counts = np.atleast_2d(sums).astype(float), np.atleast_2d(counts).astype(float)
        total = counts.sum(axis=1)
        self.clusters = (counts > 0).sum(axis=1)
        """Clusters holding at least one paired task."""
        with np.errstate(invalid="ignore", divide="ignore"):
            self.mean = sums.sum(axis=1) / total
            residual = sums - counts * self.mean[:, None]  # sum of residuals in each cluster
            # CR2 for a mean: each cluster's residual sum scaled by (1 - n_g / N)^(-1/2), the
            # inverse square root of its leverage complement (Bell and McCaffrey 2002).
            share = np.where(counts > 0, counts / total[:, None], 0.0)
            variance = (
                np.where(
                    counts > 0, residual**2 / np.where(share < 1, 1.0 - share, np.inf), 0.0
                ).sum(axis=1)
                / total**2
            )
        self.se = np.sqrt(variance)
        self.df = np.maximum(self.clusters - 1, 1)
        quantiles = {df: t_quantile(df) for df in set(self.df.tolist())}
        half = self.se * np.array([quantiles[int(df)] for df in self.df])
        valid = self.clusters >= 2
        self.low = np.where(valid, self.mean - half, np.nan)
        self.high = np.where(valid, self.mean + half, np.nan)


def cr2(sums: np.ndarray, counts: np.ndarray) -> Interval:
    """The CR2 / t(G - 1) reading of each row's mean difference."""
    return Interval(sums, counts)


def continuous_p(interval: Interval) -> np.ndarray:
    """Two-sided p of the mean difference being 0, from the CR2 t statistic; NaN below 2
    clusters. A standard error of 0 (every cluster's mean difference the same) gives p = 1 for
    no difference and 0 otherwise."""
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(interval.se > 0, interval.mean / interval.se, np.inf)
    t = np.where((interval.se == 0) & (interval.mean == 0), 0.0, t)
    p = t_two_sided_p(np.nan_to_num(t, posinf=1e300), interval.df)
    return np.where(interval.clusters >= 2, p, np.nan)


def binary_method(counts: np.ndarray) -> np.ndarray:
    """Per row, which binary test applies: 0 exact McNemar, 1 sign-flip, 2 clustered McNemar."""
    counts = np.atleast_2d(counts)
    singletons = counts.max(axis=1, initial=0) <= 1
    clusters = (counts > 0).sum(axis=1)
    return np.where(singletons, 0, np.where(clusters <= EXACT_MAX_CLUSTERS, 1, 2))


def binary_p(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Two-sided p per row for a binary measure, by the test ``binary_method`` picks."""
    sums, counts = np.asarray(np.atleast_2d(sums), dtype=float), np.atleast_2d(counts)
    method = binary_method(counts)
    p = np.ones(len(sums))
    exact = method == 0
    if exact.any():
        # Every cluster of such a row holds at most one paired task, so each sum is one task's
        # difference (-1, 0 or 1): the discordant counts are the negative and positive sums.
        singles = sums[exact]
        p[exact] = mcnemar_exact_many((singles < 0).sum(axis=1), (singles > 0).sum(axis=1))
    flip = method == 1
    if flip.all():  # a board's column, mostly: no copy of every row's sums
        p = _sign_flip_p(sums)
    elif flip.any():
        p[flip] = _sign_flip_p(sums[flip])
    chi = method == 2
    if chi.any():
        squares = (sums[chi] ** 2).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            statistic = np.where(squares > 0, sums[chi].sum(axis=1) ** 2 / squares, 0.0)
        p[chi] = chi2_1_sf(statistic)
    return p


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
    """``mcnemar_exact`` elementwise (a board's pairwise matrix), from one binomial(n, 1/2)
    table per distinct n; the two agree to about 1e-13."""
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


def _sign_flip_p(sums: np.ndarray) -> np.ndarray:
    """The exact randomisation p of |sum S| over all sign swaps of the clusters, per row.

    A cluster whose sum is 0 is the same under either sign, so the patterns are walked over
    as many clusters as a row has non-zero sums at most; fixing the first sign halves them
    (|x| = |-x|). The sums are of 0/+-1 differences, so integers: the patterns are walked in
    Gray-code order, each one step from the last (one cluster's sign swapped), so a pattern
    costs a few passes over one integer per row, not a product with the clusters.
    """
    p = np.ones(len(sums))
    if not len(sums):
        return p
    width = int((sums != 0).sum(axis=1).max())
    if width == 0:
        return p
    if width < sums.shape[1]:
        # move each row's non-zero sums to the front (zeros only pad, they never change a sum)
        order = np.argsort(sums == 0, axis=1, kind="stable")[:, :width]
        sums = np.take_along_axis(sums, order, axis=1)
    # Where a row has fewer non-zero sums than the width, each of its own patterns is walked
    # 2^(zeros) times over: the share of them that reach |sum S| is the same.
    packed = np.rint(sums).astype(np.int64)
    observed = np.abs(packed.sum(axis=1))
    patterns = 2 ** (width - 1)
    # Every total a pattern reaches, and twice any one sum, lie within +-(the row's sum of |S|):
    # int16 holds them below 2^14 (a cluster sum counts tasks, so any evaluation of under 16,384
    # tasks), and halves the bytes each pass walks; int32 holds any total of at most the tasks.
    # A count of patterns fits 16 bits (at most 2^15).
    largest = np.abs(packed).sum(axis=1).max()
    kind = np.int16 if largest < 2**14 else np.int32 if largest < 2**30 else np.int64
    for start in range(0, len(packed), _ROWS_PER_CHUNK):
        rows = slice(start, start + _ROWS_PER_CHUNK)
        doubled = np.ascontiguousarray(2 * packed[rows].T, dtype=kind)
        total = packed[rows].sum(axis=1).astype(kind)  # every sign +
        least = observed[rows].astype(kind)
        at_least = np.zeros(len(total), dtype=np.uint16)
        magnitude, reached = np.empty_like(total), np.empty(len(total), dtype=bool)
        swapped = [False] * width
        for k in range(patterns):
            if k:  # pattern k differs from k - 1 in cluster 1 + (trailing zeros of k) alone
                g = (k & -k).bit_length()
                (np.add if swapped[g] else np.subtract)(total, doubled[g], out=total)
                swapped[g] = not swapped[g]
            np.abs(total, out=magnitude)
            np.greater_equal(magnitude, least, out=reached)
            np.add(at_least, reached, out=at_least, casting="unsafe")
        p[rows] = at_least / patterns
    return p
