"""Benchmark: the cluster paired bootstrap, 10,000 resamples over 2,000 tasks in 200 clusters.

Reported as a ratio to a bare numpy gather of the same shape: drawing the 10,000 x 200 cluster
indices and gathering per-cluster totals with them, which any cluster bootstrap must do. Also
printed, for scale: the gather alone with indices drawn beforehand (the strictest floor), and a
gather over tasks (10,000 x 2,000, what a bootstrap that ignores clusters would touch). All are
timed in this process, interleaved, best of several rounds; peak memory via tracemalloc.
Target: at most 3x the draw-and-gather.  Run: uv run python tests/perf/bench_paired_bootstrap.py
"""

from __future__ import annotations

import sys
import tracemalloc

import numpy as np
from _timing import seconds

from memrank.stats import cluster_bootstrap

RESAMPLES, TASKS, CLUSTERS = 10_000, 2_000, 200


def main(rounds: int) -> None:
    rng = np.random.default_rng(0)
    differences = rng.normal(0.05, 0.3, TASKS)
    groups = [f"g{i % CLUSTERS}" for i in range(TASKS)]
    totals = rng.normal(size=CLUSTERS)
    drawn = rng.integers(0, CLUSTERS, size=(RESAMPLES, CLUSTERS))
    drawn_tasks = rng.integers(0, TASKS, size=(RESAMPLES, TASKS))

    def bootstrap() -> object:
        return cluster_bootstrap(differences, groups, resamples=RESAMPLES, seed=1)

    def draw_and_gather() -> object:
        picks = np.random.default_rng(1).integers(0, CLUSTERS, size=(RESAMPLES, CLUSTERS))
        return totals[picks].sum(axis=1)

    def gather_only() -> object:
        return totals[drawn].sum(axis=1)

    def gather_tasks() -> object:
        return differences[drawn_tasks].sum(axis=1)

    timings: dict[str, list[float]] = {name: [] for name in ("boot", "floor", "gather", "tasks")}
    for _ in range(rounds):  # interleaved, so drift in the machine hits all alike
        timings["boot"].append(seconds(bootstrap))
        timings["floor"].append(seconds(draw_and_gather))
        timings["gather"].append(seconds(gather_only))
        timings["tasks"].append(seconds(gather_tasks))
    boot, floor, gather, tasks = (min(timings[k]) * 1e3 for k in timings)

    tracemalloc.start()
    bootstrap()
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()

    print(
        f"cluster bootstrap: {boot:.1f} ms ({RESAMPLES} resamples, {TASKS} tasks, "
        f"{CLUSTERS} clusters), best of {rounds}; peak {peak:.1f} MB"
    )
    print(f"draw + gather {RESAMPLES}x{CLUSTERS}: {floor:.1f} ms")
    print(f"gather alone, indices drawn beforehand: {gather:.1f} ms")
    print(f"gather over tasks {RESAMPLES}x{TASKS}: {tasks:.1f} ms")
    print(f"bootstrap / draw-and-gather = {boot / floor:.2f}x (target <= 3x)")
    print(f"bootstrap / gather alone = {boot / gather:.2f}x")
    print(f"bootstrap / gather over tasks = {boot / tasks:.2f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
