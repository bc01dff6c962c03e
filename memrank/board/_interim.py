"""INTERIM: stand-ins for interfaces other modules are adding (``VerifiedRun.scores``, and
the columnar clustered statistics of memrank.stats). Same names and shapes; deleted when those
land, with the imports in ``memrank.board.reading`` and ``pages`` pointed at them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memrank.artifacts import Scores, VerifiedRun, read_scores, scores_of

__all__ = [
    "MeanInterval",
    "RankRange",
    "mean_interval",
    "pairwise_p_values",
    "scores_of_run",
    "tie_aware_ranks",
]


def scores_of_run(run: VerifiedRun) -> Scores:
    """The run's scores: ``VerifiedRun.scores`` once the verifier reads scores files."""
    found = getattr(run, "scores", None)
    if isinstance(found, Scores):
        return found
    return read_scores(scores_of(run.result_bytes), source=str(run.result_path))


@dataclass(frozen=True)
class MeanInterval:
    mean: float
    low: float | None
    high: float | None
    method: str
    n_clusters: int


@dataclass(frozen=True)
class RankRange:
    best: int
    worst: int


_Z = 1.959963984540054


def _robust_se(residual_sums: np.ndarray, n: int) -> float | None:
    g = residual_sums.shape[-1]
    if g < 2:
        return None
    return math.sqrt(float(np.sum(residual_sums**2)) * g / (g - 1)) / n


def mean_interval(x: np.ndarray, clusters: np.ndarray) -> MeanInterval:
    keep = ~np.isnan(x)
    x, clusters = x[keep], clusters[keep]
    mean = float(x.mean())
    codes = np.unique(clusters, return_inverse=True)[1]
    sums = np.bincount(codes, weights=x - mean)
    se = _robust_se(sums, len(x))
    if se is None:
        return MeanInterval(mean, None, None, "cluster-robust normal", len(sums))
    return MeanInterval(mean, mean - _Z * se, mean + _Z * se, "cluster-robust normal", len(sums))


def pairwise_p_values(matrix: np.ndarray, clusters: np.ndarray, *, binary: bool) -> np.ndarray:
    del binary
    n = matrix.shape[0]
    p = np.ones((n, n))
    codes = np.unique(clusters, return_inverse=True)[1]
    for i in range(n):
        for j in range(i + 1, n):
            d = matrix[j] - matrix[i]
            keep = ~np.isnan(d)
            if not keep.any():
                continue
            dd = d[keep]
            m = dd.mean()
            sums = np.bincount(codes[keep], weights=dd - m)
            se = _robust_se(sums, len(dd))
            if se is None or se == 0:
                p[i, j] = p[j, i] = 1.0 if m == 0 else 0.0
                continue
            p[i, j] = p[j, i] = math.erfc(abs(m / se) / math.sqrt(2))
    return p


def tie_aware_ranks(
    means: Sequence[float], p_values: np.ndarray, higher_is_better: bool = True
) -> list[RankRange]:
    sign = 1.0 if higher_is_better else -1.0
    out = []
    for i, mine in enumerate(means):
        better = sum(
            1 for j, m in enumerate(means) if j != i and sign * (m - mine) > 0 and p_values[i, j] < 0.05
        )
        worse = sum(
            1 for j, m in enumerate(means) if j != i and sign * (m - mine) < 0 and p_values[i, j] < 0.05
        )
        out.append(RankRange(best=1 + better, worst=len(means) - worse))
    return out
