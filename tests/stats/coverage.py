"""One system's mean under the null, at LoCoMo's cluster sizes: how often its 95% interval
covers the true mean, for 0/1 values (a hit) and for shares of 1 to 3 (a recall of a question's
evidence turns), with memrank's bounded interval (memrank.stats.bounded) beside the symmetric
CR2 / t(G-1) interval it replaced.

Each of the 10 conversations (sized as LoCoMo's: 105 to 260 questions) draws its own rate from
a beta distribution of the cell's mean and intra-cluster correlation (ICC, 1 / (a + b + 1));
each question is then a Bernoulli draw at that rate (binary) or the share found of 1 to 3
evidence turns, each found at that rate (continuous). The true mean is the cell's mean.

    uv run python -m tests.stats.coverage        # the full grid, 10,000 replications a cell
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from memrank.stats import mean_intervals

__all__ = ["LOCOMO_SIZES", "CoverageCell", "coverage", "coverage_grid"]

LOCOMO_SIZES = (199, 105, 193, 260, 242, 158, 190, 239, 196, 204)
"""Questions per LoCoMo conversation, as in locomo10.json."""
MEANS = (0.2, 0.5, 0.8)
ICCS = (0.0, 0.05, 0.1, 0.2)
SHARE = (0.0, 1.0)


@dataclass(frozen=True)
class CoverageCell:
    """One cell: the share of replications whose interval holds the true mean."""

    binary: bool
    mean: float
    icc: float
    bounded: float
    """memrank's interval (bounded to [0, 1])."""
    symmetric: float
    """CR2 / t(G-1), unbounded: what the board drew before."""
    inside: bool
    """Whether every bounded interval lay within [0, 1]."""


def _draw(rng: np.random.Generator, binary: bool, mean: float, icc: float, n: int) -> np.ndarray:
    sizes = np.array(LOCOMO_SIZES)
    if icc > 0:
        spread = 1.0 / icc - 1.0
        rates = rng.beta(mean * spread, (1.0 - mean) * spread, (n, len(sizes)))
    else:
        rates = np.full((n, len(sizes)), mean)
    per_task = np.repeat(rates, sizes, axis=1)
    if binary:
        return (rng.random(per_task.shape) < per_task).astype(float)
    turns = rng.integers(1, 4, per_task.shape)
    found: np.ndarray = rng.binomial(turns, per_task) / turns
    return found


def coverage(binary: bool, mean: float, icc: float, replications: int, seed: int) -> CoverageCell:
    """One cell of ``replications`` draws (seeded by the cell, so cells do not share draws)."""
    rng = np.random.default_rng([seed, int(binary), int(mean * 100), int(icc * 100)])
    codes = np.repeat(np.arange(len(LOCOMO_SIZES)), LOCOMO_SIZES)
    matrix = _draw(rng, binary, mean, icc, replications)
    bounded = mean_intervals(matrix, codes, SHARE)
    symmetric = mean_intervals(matrix, codes)
    low, high = np.array([[getattr(i, e) for i in bounded] for e in ("low", "high")])
    old_low, old_high = np.array([[getattr(i, e) for i in symmetric] for e in ("low", "high")])
    return CoverageCell(
        binary=binary,
        mean=mean,
        icc=icc,
        bounded=float(np.mean((low <= mean) & (mean <= high))),
        symmetric=float(np.mean((old_low <= mean) & (mean <= old_high))),
        inside=bool(np.all((low >= 0.0) & (high <= 1.0))),
    )


def coverage_grid(replications: int, seed: int = 2026) -> list[CoverageCell]:
    """Every cell: binary then continuous, by mean, then ICC."""
    return [
        coverage(binary, mean, icc, replications, seed)
        for binary in (True, False)
        for mean in MEANS
        for icc in ICCS
    ]


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    print(f"coverage of a 95% interval of one mean, {count} replications a cell, 10 clusters")
    print(f"{'values':>10} {'mean':>5} {'ICC':>5} | {'bounded':>8} {'CR2 t(G-1)':>10}")
    for cell in coverage_grid(count):
        kind = "0/1" if cell.binary else "recall"
        print(
            f"{kind:>10} {cell.mean:5.2f} {cell.icc:5.2f} | {cell.bounded:8.4f} "
            f"{cell.symmetric:10.4f}"
        )
