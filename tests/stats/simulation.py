"""Clustered paired data under the null: how often each method cries wolf, and how often its
interval covers the true difference (0), for 10 and 50 clusters and intra-cluster correlation
0.0, 0.2 and 0.5, with the methods memrank used before (McNemar over tasks as if independent, a
percentile cluster bootstrap) beside the ones it uses now.

The full grid (2,000 replications a cell, seeded) prints with:

    uv run python -m tests.stats.simulation

tests/stats/test_simulation.py runs a smaller grid in the suite. The data: cluster sizes like
LoCoMo's (10 clusters of 100 to 260 questions; 50 of 10 to 60). Binary: each task's outcome on
A and B is a threshold of a latent score sharing the cluster's and the task's difficulty, plus
a per-cluster lean towards B (or A) with mean 0 and variance set by the ICC of the latent
difference, tau^2 / (tau^2 + 2). Continuous: a difference per task, a per-cluster shift of mean
0 plus noise, with ICC tau^2 / (tau^2 + 1). In both the mean difference is 0 in expectation,
so every rejection is a false positive and the true difference for coverage is 0.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from memrank.stats.kernels import binary_p, continuous_p, cr2, mcnemar_exact_many

__all__ = ["Cell", "grid", "simulate"]

CLUSTERS = (10, 50)
ICCS = (0.0, 0.2, 0.5)
LEVEL = 0.05


@dataclass(frozen=True)
class Cell:
    """One cell of the grid: rejection rates at 5% and interval coverage."""

    clusters: int
    icc: float
    binary_fpr: float
    """memrank's binary test (sign-flip / clustered McNemar): share of p < 0.05."""
    old_mcnemar_fpr: float
    """McNemar's exact test over tasks, as if independent."""
    coverage: float
    """CR2 / t(G-1) 95% interval of a continuous mean difference: share covering 0."""
    old_percentile_coverage: float
    """Percentile cluster bootstrap interval: share covering 0."""


def _sizes(rng: np.random.Generator, clusters: int) -> np.ndarray:
    low, high = (100, 260) if clusters <= 10 else (10, 60)
    return rng.integers(low, high + 1, clusters)


def _binary(rng: np.random.Generator, sizes: np.ndarray, icc: float) -> tuple[np.ndarray, ...]:
    """Per-cluster sums of B - A, per-cluster counts, and the discordant counts, for one draw."""
    clusters = len(sizes)
    tau = np.sqrt(2.0 * icc / (1.0 - icc))
    cluster_of = np.repeat(np.arange(clusters), sizes)
    shared = np.repeat(rng.normal(0.0, 1.0, clusters), sizes) + rng.normal(
        0.0, 1.0, len(cluster_of)
    )
    lean = np.repeat(rng.normal(0.0, tau, clusters), sizes)
    a = (shared - lean / 2 + rng.normal(size=len(cluster_of)) > 0).astype(float)
    b = (shared + lean / 2 + rng.normal(size=len(cluster_of)) > 0).astype(float)
    difference = b - a
    sums = np.bincount(cluster_of, weights=difference, minlength=clusters)
    return sums, sizes, np.array((difference < 0).sum()), np.array((difference > 0).sum())


def _continuous(rng: np.random.Generator, sizes: np.ndarray, icc: float) -> np.ndarray:
    tau = np.sqrt(icc / (1.0 - icc))
    shift = np.repeat(rng.normal(0.0, tau, len(sizes)), sizes)
    return shift + rng.normal(0.0, 1.0, int(sizes.sum()))


def _percentile_covers(
    rng: np.random.Generator, sums: np.ndarray, sizes: np.ndarray, resamples: int
) -> bool:
    """The old method: resample clusters whole, 2.5th and 97.5th percentile of the means."""
    drawn = rng.integers(0, len(sums), size=(resamples, len(sums)))
    means = sums[drawn].sum(axis=1) / sizes[drawn].sum(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return bool(low <= 0.0 <= high)


def simulate(clusters: int, icc: float, replications: int, *, resamples: int, seed: int) -> Cell:
    """One cell: ``replications`` null datasets, each read by the new and the old methods."""
    rng = np.random.default_rng([seed, clusters, int(icc * 100)])
    sizes = _sizes(rng, clusters)
    binary = [_binary(rng, sizes, icc) for _ in range(replications)]
    sums = np.vstack([draw[0] for draw in binary])
    counts = np.tile(sizes, (replications, 1))
    only_a = np.array([draw[2] for draw in binary])
    only_b = np.array([draw[3] for draw in binary])
    new_p = binary_p(sums, counts)
    old_p = mcnemar_exact_many(only_a, only_b)
    cluster_of = np.repeat(np.arange(clusters), sizes)
    continuous_sums = np.vstack(
        [
            np.bincount(cluster_of, weights=_continuous(rng, sizes, icc), minlength=clusters)
            for _ in range(replications)
        ]
    )
    interval = cr2(continuous_sums, counts)
    covered = (interval.low <= 0.0) & (interval.high >= 0.0)
    assert np.array_equal(
        covered, ~(continuous_p(interval) < LEVEL)
    )  # the test and the interval agree
    old_covered = [
        _percentile_covers(rng, row, sizes.astype(float), resamples) for row in continuous_sums
    ]
    return Cell(
        clusters=clusters,
        icc=icc,
        binary_fpr=float(np.mean(new_p < LEVEL)),
        old_mcnemar_fpr=float(np.mean(old_p < LEVEL)),
        coverage=float(np.mean(covered)),
        old_percentile_coverage=float(np.mean(old_covered)),
    )


def grid(replications: int, *, resamples: int, seed: int = 2026) -> list[Cell]:
    """Every cell of the grid, in order: clusters, then ICC."""
    return [
        simulate(clusters, icc, replications, resamples=resamples, seed=seed)
        for clusters in CLUSTERS
        for icc in ICCS
    ]


def table(cells: list[Cell], replications: int) -> str:
    """The grid as printed."""
    lines = [
        f"null simulation, {replications} replications a cell; target: binary false positives "
        "<= 6% at 5%, continuous coverage >= 93%",
        f"{'clusters':>8} {'ICC':>4} | {'binary FPR':>10} {'old McNemar':>11} | "
        f"{'coverage':>8} {'old percentile':>14}",
    ]
    lines += [
        f"{c.clusters:>8} {c.icc:>4.1f} | {c.binary_fpr:>10.3f} {c.old_mcnemar_fpr:>11.3f} | "
        f"{c.coverage:>8.3f} {c.old_percentile_coverage:>14.3f}"
        for c in cells
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    replications = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print(table(grid(replications, resamples=2000), replications))
