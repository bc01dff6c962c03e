"""INTERIM: stand-ins for interfaces other modules are adding (the scores file of
memrank.artifacts, the columnar clustered statistics of memrank.stats). Same names and shapes;
deleted when those land, with the imports in ``memrank.board.columns`` pointed at them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from memrank.artifacts import VerifiedRun

__all__ = [
    "MeanInterval",
    "RankRange",
    "ScoreColumn",
    "Scores",
    "mean_interval",
    "pairwise_p_values",
    "scores_of_run",
    "tie_aware_ranks",
]


@dataclass(frozen=True)
class ScoreColumn:
    decider: str
    values: list[float | None]
    why: dict[int, str]
    count: list[int | None] | None = None
    total: list[int | None] | None = None


@dataclass(frozen=True)
class Scores:
    result_sha256: str
    evaluation_name: str
    evaluation_version: str
    task_ids: list[str]
    groups: list[str | None]
    categories: list[str | None]
    measures: dict[str, ScoreColumn] = field(default_factory=dict)


def scores_of_run(run: VerifiedRun) -> Scores:
    result = run.result
    ids = list(dict.fromkeys(trace.task.id for trace in result.traces))
    task = {trace.task.id: trace.task for trace in result.traces}
    at = {task_id: i for i, task_id in enumerate(ids)}
    columns: dict[str, dict[str, object]] = {}
    for value in result.values:
        if value.task_id is None or value.task_id not in at:
            continue
        column = columns.setdefault(
            value.measure,
            {"decider": value.decider.value, "values": [None] * len(ids), "why": {}},
        )
        column["values"][at[value.task_id]] = value.value  # type: ignore[index]
        if value.value is None:
            column["why"][at[value.task_id]] = value.why  # type: ignore[index]
    for column in columns.values():
        for i, v in enumerate(column["values"]):  # type: ignore[arg-type]
            if v is None and i not in column["why"]:  # type: ignore[operator]
                column["why"][i] = "no value"  # type: ignore[index]
    return Scores(
        result_sha256=run.statement.subject[0].digest.sha256,
        evaluation_name=run.predicate.evaluation.name,
        evaluation_version=run.predicate.evaluation.version,
        task_ids=ids,
        groups=[task[i].group for i in ids],
        categories=[task[i].category for i in ids],
        measures={name: ScoreColumn(**c) for name, c in columns.items()},  # type: ignore[arg-type]
    )


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
