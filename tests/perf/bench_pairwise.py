"""Benchmark: every pairwise test for 200 runs x 1,986 tasks x 10 clusters (a board's column).

Target: at most 5 s for the binary and the continuous matrix each. Reported beside a baseline
measured in the same run: the same tests one pair at a time through ``paired_reading`` (timed
on 200 pairs, scaled to all 19,900), and the growth exponent of the matrix time in the number of
runs (50, 100, 200; pairs grow as runs^2, so about 2 is expected).
Run: uv run python tests/perf/bench_pairwise.py
"""

from __future__ import annotations

import math

import numpy as np
from _timing import seconds

from memrank.stats import paired_reading, pairwise_p_values

RUNS, TASKS, CLUSTERS = 200, 1_986, 10


def _matrix(runs: int, binary: bool) -> np.ndarray:
    rng = np.random.default_rng(runs)
    rates = rng.uniform(0.2, 0.8, (runs, 1))
    values = rng.random((runs, TASKS))
    matrix = (values < rates).astype(float) if binary else values * rates
    matrix[rng.random((runs, TASKS)) < 0.01] = np.nan  # a few undecided tasks, as on a board
    return matrix


def _best(matrix: np.ndarray, codes: np.ndarray, binary: bool) -> float:
    return min(seconds(lambda: pairwise_p_values(matrix, codes, binary=binary)) for _ in range(2))


def _pair_by_pair(matrix: np.ndarray, codes: np.ndarray, binary: bool) -> float:
    """paired_reading over 200 pairs, scaled to every pair of RUNS rows."""
    sample = [(i, (i * 7 + 3) % RUNS) for i in range(RUNS) if i != (i * 7 + 3) % RUNS]
    taken = seconds(
        lambda: [paired_reading(matrix[i], matrix[j], codes, binary=binary) for i, j in sample]
    )
    return taken * (RUNS * (RUNS - 1) / 2) / len(sample)


def _best(matrix: np.ndarray, codes: np.ndarray, binary: bool) -> float:
    return min(seconds(lambda: pairwise_p_values(matrix, codes, binary=binary)) for _ in range(2))


def _pair_by_pair(matrix: np.ndarray, codes: np.ndarray, binary: bool) -> float:
    """paired_reading over 200 pairs, scaled to every pair of RUNS rows."""
    sample = [(i, (i * 7 + 3) % RUNS) for i in range(RUNS) if i != (i * 7 + 3) % RUNS]
    taken = seconds(
        lambda: [paired_reading(matrix[i], matrix[j], codes, binary=binary) for i, j in sample]
    )
    return taken * (RUNS * (RUNS - 1) / 2) / len(sample)


def main() -> None:
    codes = np.repeat(np.arange(CLUSTERS), math.ceil(TASKS / CLUSTERS))[:TASKS]
    for binary in (True, False):
        kind = "binary" if binary else "continuous"
        timed = {runs: _best(_matrix(runs, binary), codes, binary) for runs in (50, 100, RUNS)}
        one_by_one = _pair_by_pair(_matrix(RUNS, binary), codes, binary)
        exponent = math.log(timed[RUNS] / timed[50]) / math.log(RUNS / 50)
        print(
            f"{kind:>10}: {RUNS} runs x {TASKS} tasks x {CLUSTERS} clusters: "
            f"{timed[RUNS]:.2f} s (target <= 5 s; {'met' if timed[RUNS] <= 5 else 'MISSED'}); "
            f"pair by pair ~{one_by_one:.1f} s, ratio {timed[RUNS] / one_by_one:.3f}; "
            f"growth exponent in runs {exponent:.2f} "
            f"(50: {timed[50]:.2f} s, 100: {timed[100]:.2f} s)"
        )


if __name__ == "__main__":
    main()
