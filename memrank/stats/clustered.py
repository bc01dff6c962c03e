"""Paired readings, intervals and the pairwise p matrix, on columns of numbers with clusters.

Columnar and numpy only: a column is one value per task (NaN where the task has no value), and
``clusters`` gives each task its cluster index (tasks that share state share a cluster; a task
without one is its own, see ``cluster_codes``). The test is chosen by the measure's declared type
(``binary``), never guessed from the values; ``kernels`` says which test applies when.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

from memrank._basics import FROZEN
from memrank.errors import UsageError
from memrank.stats import kernels
from memrank.stats.bounded import BOUNDED_METHOD, UNBOUNDED_METHOD, Bounds, bounded_interval
from memrank.stats.kernels import CR2_T, binary_method, binary_p, continuous_p, cr2

__all__ = [
    "FEW_CLUSTERS",
    "LEVEL",
    "ClusteredReading",
    "MeanInterval",
    "check_binary",
    "checked_codes",
    "cluster_codes",
    "clusters_side_by_side",
    "mean_interval",
    "mean_intervals",
    "paired_reading",
]

LEVEL = 0.05
"""The significance level of ranks; the intervals are the matching 95%."""
FEW_CLUSTERS = 30
"""Below this many clusters a reading carries a caution: the evidence is that many units."""
_BINARY_NAMES = (kernels.EXACT_MCNEMAR, kernels.SIGN_FLIP, kernels.CLUSTERED_MCNEMAR)


class ClusteredReading(BaseModel):
    """One measure of two systems read side by side over the tasks both valued."""

    model_config = FROZEN
    method: str
    """The test that gave ``p_value``, by name (the interval is always CR2 with t(G-1))."""
    n_tasks: int
    """Tasks both sides valued."""
    n_clusters: int
    """Clusters holding at least one of them: the independent units the test rests on."""
    mean_a: float | None
    """A's mean over the paired tasks; None when none paired."""
    mean_b: float | None
    difference: float | None
    """mean B minus mean A."""
    low: float | None
    """Lower end of the 95% interval of the difference (CR2, t(G-1)); None below 2 clusters."""
    high: float | None
    p_value: float | None
    """Two-sided p of no difference; None when it cannot be computed (continuous, < 2 clusters)."""
    caution: str | None = None
    """Why to lean on this reading less: few clusters, or none to compare."""


class MeanInterval(BaseModel):
    """One system's mean of one measure, with a 95% interval that respects the clusters."""

    model_config = FROZEN
    mean: float | None
    """The mean over the tasks with a value; None when none has one."""
    low: float | None
    """Lower end of the 95% interval, inside the measure's range; None below 2 clusters."""
    high: float | None
    method: str
    """How the interval was drawn (memrank.stats.bounded), in words."""
    n_clusters: int


def cluster_codes(groups: Sequence[str | None]) -> np.ndarray:
    """0..G-1 per task: named groups in sorted order, then each ungrouped task on its own."""
    named = {name: code for code, name in enumerate(sorted({g for g in groups if g is not None}))}
    codes = np.empty(len(groups), dtype=np.intp)
    next_code = len(named)
    for i, group in enumerate(groups):
        if group is None:
            codes[i] = next_code
            next_code += 1
        else:
            codes[i] = named[group]
    return codes


def paired_reading(
    a: np.ndarray | Sequence[float],
    b: np.ndarray | Sequence[float],
    clusters: np.ndarray | Sequence[int],
    *,
    binary: bool,
    seed: int = 0,
) -> ClusteredReading:
    """Read column ``b`` against column ``a`` (aligned by task) with the cluster-aware test.

    Tasks with NaN on either side are left out. ``seed`` is accepted for callers written
    against drawing methods; every method here is exact or closed-form, so nothing is drawn
    and the reading does not depend on it.
    """
    del seed  # deterministic methods: see the docstring
    x, y, codes = _aligned(a, b, clusters, binary=binary)
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y, codes = x[keep], y[keep], codes[keep]
    if not len(x):
        return ClusteredReading(
            method=_method_name(binary, np.zeros((1, 0))),
            n_tasks=0,
            n_clusters=0,
            mean_a=None,
            mean_b=None,
            difference=None,
            low=None,
            high=None,
            p_value=None,
            caution="no task was valued by both sides, so there is nothing to compare",
        )
    difference = y - x
    groups = int(codes.max()) + 1
    sums = np.bincount(codes, weights=difference, minlength=groups)[None, :]
    counts = np.bincount(codes, minlength=groups)[None, :]
    interval = cr2(sums, counts)
    p = binary_p(sums, counts) if binary else continuous_p(interval)
    n_clusters = int(interval.clusters[0])
    return ClusteredReading(
        method=_method_name(binary, counts),
        n_tasks=len(x),
        n_clusters=n_clusters,
        mean_a=float(x.mean()),
        mean_b=float(y.mean()),
        difference=float(interval.mean[0]),
        low=_number(interval.low[0]),
        high=_number(interval.high[0]),
        p_value=_number(p[0]),
        caution=_caution(n_clusters, int(counts.max()), len(x), binary),
    )


def mean_interval(
    x: np.ndarray | Sequence[float],
    clusters: np.ndarray | Sequence[int],
    bounds: Bounds = (None, None),
) -> MeanInterval:
    """One column's mean (NaN left out) with its 95% interval, inside ``bounds`` (the measure's
    declared range): a score interval on the clustered effective sample size where the range
    is bounded on both sides, else CR2 / t(G-1) cut at the bound there is."""
    values, _, codes = _aligned(x, x, clusters, binary=False)
    return mean_intervals(values[None, :], codes, bounds)[0]


def mean_intervals(
    matrix: np.ndarray,
    clusters: np.ndarray | Sequence[int],
    bounds: Bounds = (None, None),
) -> list[MeanInterval]:
    """``mean_interval`` of every row of a runs x tasks matrix (NaN = no value), at once: a
    board reads a few hundred rows per column and per category."""
    values = np.asarray(matrix, dtype=float)
    if values.ndim != 2:
        raise UsageError(f"mean_intervals needs a runs x tasks matrix; got shape {values.shape}")
    filled, valid, codes, starts = clusters_side_by_side(
        values, checked_codes(clusters, values.shape[1])
    )
    interval = cr2(*_cluster_sums(filled, valid, codes, starts))
    with np.errstate(invalid="ignore"):
        low, high = bounded_interval(
            interval.mean, interval.se**2, valid.sum(axis=1), interval.df, bounds
        )
    drawn = interval.clusters >= 2
    low, high = np.where(drawn, low, np.nan), np.where(drawn, high, np.nan)
    both_ends = bounds[0] is not None and bounds[1] is not None
    method = BOUNDED_METHOD if both_ends else UNBOUNDED_METHOD
    # as Python numbers at once: a board asks for some 18,000 rows
    rows = zip(
        np.asarray(valid.any(axis=1)).tolist(),
        interval.mean.tolist(),
        low.tolist(),
        high.tolist(),
        interval.clusters.astype(int).tolist(),
        strict=True,
    )
    return [
        MeanInterval(
            mean=mean if valued else None,
            low=_number(lowest) if valued else None,
            high=_number(highest) if valued else None,
            method=method,
            n_clusters=n_clusters,
        )
        for valued, mean, lowest, highest, n_clusters in rows
    ]


def clusters_side_by_side(
    values: np.ndarray, codes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A runs x tasks matrix with each cluster's tasks side by side, in task order within each
    (a stable sort by code, skipped where they already are): the values with 0 where there is
    none, which tasks have one, the sorted codes, and where each cluster starts.

    Per-cluster sums are then numpy's ``reduceat`` over each cluster's span, in the same order
    on every machine. A product with a task-to-cluster indicator would go through BLAS, whose
    order of summation, and so the last bit of a sum, depends on the processor: a board built on
    another machine would then publish other bytes."""
    if np.any(codes[1:] < codes[:-1]):  # evaluations mostly list their tasks cluster by cluster
        order = np.argsort(codes, kind="stable")
        values, codes = values[:, order], codes[order]
    valid = ~np.isnan(values)
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if len(codes) else codes
    return np.where(valid, values, 0.0), valid, codes, starts


def _cluster_sums(
    filled: np.ndarray, valid: np.ndarray, codes: np.ndarray, starts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``[row, code]``: each row's sum and count of values over each cluster's tasks (laid out
    by ``clusters_side_by_side``); 0 for a code no task holds."""
    width = int(codes.max()) + 1 if len(codes) else 0
    sums, counts = np.zeros((len(filled), width)), np.zeros((len(filled), width))
    if len(codes):
        sums[:, codes[starts]] = np.add.reduceat(filled, starts, axis=1)
        counts[:, codes[starts]] = np.add.reduceat(valid.astype(float), starts, axis=1)
    return sums, counts


def _aligned(
    a: np.ndarray | Sequence[float],
    b: np.ndarray | Sequence[float],
    clusters: np.ndarray | Sequence[int],
    *,
    binary: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise UsageError(
            f"a paired reading needs two aligned columns; got shapes {x.shape} and {y.shape}"
        )
    codes = checked_codes(clusters, len(x))
    if binary:
        check_binary(np.concatenate([x, y]))
    return x, y, codes


def checked_codes(clusters: np.ndarray | Sequence[int], tasks: int) -> np.ndarray:
    """``clusters`` as an index array, one non-negative cluster index per task, or UsageError."""
    codes = np.asarray(clusters)
    if codes.shape != (tasks,) or (tasks and not np.issubdtype(codes.dtype, np.integer)):
        raise UsageError(
            f"clusters must be one integer cluster index per task ({tasks}); got "
            f"{codes.dtype} of shape {codes.shape} (cluster_codes turns group names into them)"
        )
    if tasks and codes.min() < 0:
        raise UsageError("clusters must be non-negative cluster indices")
    return codes.astype(np.intp)


def check_binary(values: np.ndarray) -> None:
    """UsageError unless every value present is 0 or 1."""
    held = values[~np.isnan(values)]
    odd = held[(held != 0) & (held != 1)]
    if len(odd):
        raise UsageError(
            f"the measure is declared binary but holds {float(odd[0])}; a binary measure's values "
            "are 0 or 1 (read it with binary=False)"
        )


def _method_name(binary: bool, counts: np.ndarray) -> str:
    if not binary:
        return CR2_T
    return _BINARY_NAMES[int(binary_method(counts)[0])]


def _caution(clusters: int, largest: int, tasks: int, binary: bool) -> str | None:
    if clusters < 2:
        return (
            f"only {clusters} cluster: a test needs at least 2 independent clusters, so no "
            "gap here can be told from chance"
        )
    if largest <= 1 or clusters >= FEW_CLUSTERS:
        return None
    note = (
        f"only {clusters} clusters: tasks in a cluster move together, so this rests on "
        f"{clusters} independent units, not {tasks} tasks"
    )
    if binary and clusters <= kernels.EXACT_MAX_CLUSTERS and 2.0 / 2**clusters >= LEVEL:
        note += f"; with {clusters} clusters no split can reach p < {LEVEL}"
    return note


def _number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)
