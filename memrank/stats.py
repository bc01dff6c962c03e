"""The numeric kernels of paired readings and ranks: exact McNemar, cluster bootstrap, ranks.

``memrank.paired`` and the board both use them, so a rank on the board and the paired reading
behind it can never disagree. numpy only: the exact McNemar p is computed with integers, and
nothing here imports scipy (the tests cross-check against it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Literal

import numpy as np
from pydantic import BaseModel

from memrank._types import FROZEN
from memrank.errors import UsageError

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "MIN_RESAMPLES",
    "Bootstrap",
    "check_draws",
    "McNemar",
    "cluster_bootstrap",
    "is_binary",
    "mcnemar",
    "mcnemar_exact",
    "paired_test",
    "tie_aware_ranks",
]

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 0
MIN_RESAMPLES = 1_000
"""Fewer resamples leave the tails of a 95% percentile interval resting on a handful of draws."""

_LEVEL = 0.05
"""The significance level of ``higher()`` and of ranks; the interval is the matching 95%."""
_DRAWS_PER_CHUNK = 1_000_000
"""Cluster indices drawn at a time, so memory stays bounded however many resamples are asked."""

Side = Literal["A", "B"]


class McNemar(BaseModel):
    """A binary measure read side by side: the 2x2 counts and McNemar's exact test."""

    model_config = FROZEN
    both: int
    """Tasks valued 1 on both sides."""
    neither: int
    """Tasks valued 0 on both sides."""
    only_a: int
    """Tasks valued 1 by A and 0 by B."""
    only_b: int
    """Tasks valued 0 by A and 1 by B."""
    p: float
    """Exact two-sided p: how often a fair coin splits the discordant tasks at least this unevenly."""

    def higher(self) -> Side | None:
        """The side significantly higher at the 5% level, or None."""
        if self.p >= _LEVEL:
            return None
        return "B" if self.only_b > self.only_a else "A"


class Bootstrap(BaseModel):
    """A continuous measure read side by side: a percentile interval of the mean gap (B - A)."""

    model_config = FROZEN
    low: float | None
    """2.5th percentile of the resampled mean gap; None with fewer than two clusters."""
    high: float | None
    """97.5th percentile of the resampled mean gap; None with fewer than two clusters."""
    clusters: int
    """Clusters resampled whole: task groups, and every task without a group on its own."""
    resamples: int
    seed: int
    """The generator seed: the same seed and values give the same interval."""

    def higher(self) -> Side | None:
        """The side significantly higher at the 5% level (the interval excludes 0), or None."""
        if self.low is None or self.high is None:
            return None
        if self.low > 0:
            return "B"
        if self.high < 0:
            return "A"
        return None


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


def mcnemar(a: np.ndarray, b: np.ndarray) -> McNemar:
    """The 2x2 table of two aligned 0/1 columns and its exact McNemar p."""
    a_one, b_one = a == 1, b == 1
    only_a = int(np.sum(a_one & ~b_one))
    only_b = int(np.sum(~a_one & b_one))
    return McNemar(
        both=int(np.sum(a_one & b_one)),
        neither=int(np.sum(~a_one & ~b_one)),
        only_a=only_a,
        only_b=only_b,
        p=mcnemar_exact(only_a, only_b),
    )


def cluster_bootstrap(
    differences: Sequence[float] | np.ndarray,
    clusters: Sequence[str | None],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Bootstrap:
    """A paired bootstrap of the mean difference that resamples clusters whole.

    ``clusters[i]`` is the group of task i (None: the task is its own cluster). Each resample
    draws as many clusters as there are, with replacement, and takes the mean over every task
    they hold; the interval is the 2.5th and 97.5th percentile (numpy's linear rule) of those
    means. Tasks of one group share state, so their differences move together; resampling them
    one by one would pretend they are independent and make the interval too narrow.
    """
    check_draws(resamples, seed)
    values = np.asarray(differences, dtype=float)
    if values.ndim != 1 or len(values) != len(clusters) or len(values) == 0:
        raise UsageError(
            f"cluster_bootstrap needs one cluster per difference and at least one of each; "
            f"got {len(values)} difference(s) and {len(clusters)} cluster(s)"
        )
    codes = _cluster_codes(clusters)
    count = int(codes.max()) + 1
    if count < 2:
        return Bootstrap(low=None, high=None, clusters=count, resamples=resamples, seed=seed)
    sums = np.bincount(codes, weights=values, minlength=count)
    sizes = np.bincount(codes, minlength=count).astype(float)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    rows = max(1, _DRAWS_PER_CHUNK // count)
    for start in range(0, resamples, rows):
        drawn = rng.integers(0, count, size=(min(rows, resamples - start), count))
        means[start : start + len(drawn)] = sums[drawn].sum(axis=1) / sizes[drawn].sum(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return Bootstrap(
        low=float(low), high=float(high), clusters=count, resamples=resamples, seed=seed
    )


def is_binary(values: np.ndarray) -> bool:
    """Every value is 0 or 1."""
    return bool(np.all((values == 0) | (values == 1)))


def paired_test(
    a: np.ndarray,
    b: np.ndarray,
    clusters: Sequence[str | None],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> McNemar | Bootstrap:
    """The paired test two aligned columns call for: McNemar when every value is 0 or 1,
    else the cluster bootstrap of the mean gap (B - A)."""
    if is_binary(a) and is_binary(b):
        return mcnemar(a, b)
    return cluster_bootstrap(b - a, clusters, resamples=resamples, seed=seed)


def tie_aware_ranks(
    rows: Sequence[Mapping[str, float]],
    clusters: Mapping[str, str | None] | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> list[int]:
    """A rank per row: 1 + the number of rows significantly higher at the 5% level.

    ``rows[i]`` maps task id to that row's value of one measure (leave out tasks it could not
    value); ``clusters`` maps task id to its group (absent or None: its own cluster). Each pair
    of rows is compared on the tasks both valued, with ``paired_test``. Rows no test separates
    share a rank, and a row with no task in common with another is not compared with it.
    """
    check_draws(resamples, seed)
    groups = clusters or {}
    above = [0] * len(rows)
    for i, j in combinations(range(len(rows)), 2):
        shared = [task for task in rows[i] if task in rows[j]]
        if not shared:
            continue
        a = np.array([rows[i][task] for task in shared], dtype=float)
        b = np.array([rows[j][task] for task in shared], dtype=float)
        side = paired_test(
            a, b, [groups.get(task) for task in shared], resamples=resamples, seed=seed
        ).higher()
        if side == "A":
            above[j] += 1
        elif side == "B":
            above[i] += 1
    return [1 + count for count in above]


def check_draws(resamples: int, seed: int) -> None:
    """Refuse too few resamples for a 95% percentile interval, or a negative seed."""
    if resamples < MIN_RESAMPLES:
        raise UsageError(
            f"resamples={resamples}: a 95% percentile interval needs at least "
            f"{MIN_RESAMPLES} resamples; the default is {DEFAULT_RESAMPLES}"
        )
    if seed < 0:
        raise UsageError(f"seed={seed}: the seed must be a non-negative integer")


def _cluster_codes(clusters: Sequence[str | None]) -> np.ndarray:
    """0..n-1 per cluster: named groups in sorted order, then each ungrouped task on its own."""
    named = {name: code for code, name in enumerate(sorted({c for c in clusters if c is not None}))}
    codes = np.empty(len(clusters), dtype=np.intp)
    next_code = len(named)
    for i, cluster in enumerate(clusters):
        if cluster is None:
            codes[i] = next_code
            next_code += 1
        else:
            codes[i] = named[cluster]
    return codes
