"""Benchmark: loading mem-gallery and memorycode and running bm25 on each, target 2 minutes each.

For each evaluation: the seconds to load it (read, check every file's sha256, build the tasks)
and to run bm25 on it with memrank.run (ingest, retrieve, every measure), printed against the
2-minute target and as a ratio to LoCoMo's load + bm25 run measured in the same process. Then
the growth of a bm25 run with MemoryCode's history length: seconds on the 10-, 20-, 50- and
100-session slices, and the exponent of seconds against sessions told (1 is linear).

The material is read as the tests read it: MEMRANK_DATA_DIR, else shared/data beside the
repository.  Run: uv run python tests/perf/bench_tracks.py
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from pathlib import Path

import memrank
from memrank import Evaluation

TARGET_S = 120.0


def _shared() -> Path | None:
    if os.environ.get("MEMRANK_DATA_DIR"):
        return None
    return Path(__file__).resolve().parents[3] / "shared" / "data"


def _timed(make: Callable[[], Evaluation]) -> tuple[Evaluation, float, float]:
    start = time.perf_counter()
    evaluation = make()
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    result = memrank.run(memrank.system("bm25"), evaluation)
    ran = time.perf_counter() - start
    assert not result.failed, f"bm25 failed on {evaluation.name}"
    return evaluation, loaded, ran


def main() -> None:
    from memrank.evaluations import locomo, mem_gallery, memorycode

    shared = _shared()

    def under(name: str) -> Path | None:
        return None if shared is None else shared / name

    _, base_load, base_run = _timed(lambda: locomo(path=under("locomo")))
    base = base_load + base_run
    print(f"baseline locomo: load {base_load:.2f} s + bm25 {base_run:.2f} s = {base:.2f} s")
    verdicts = []
    for name, make in (
        ("mem-gallery", lambda: mem_gallery(path=under("mem-gallery"))),
        ("memorycode", lambda: memorycode(path=under("memorycode"))),
    ):
        evaluation, loaded, ran = _timed(make)
        total = loaded + ran
        verdict = "ok" if total <= TARGET_S else "OVER TARGET"
        verdicts.append(verdict)
        print(
            f"{name}: {len(evaluation.tasks)} tasks; load {loaded:.2f} s + bm25 {ran:.2f} s = "
            f"{total:.2f} s (target {TARGET_S:.0f} s: {verdict}); {total / base:.2f}x locomo"
        )
    points = []
    for length in (10, 20, 50, 100):
        evaluation = memorycode(f"sessions-{length}", path=under("memorycode"))
        told = sum(len(unit.documents) for unit in evaluation.units())
        start = time.perf_counter()
        memrank.run(memrank.system("bm25"), evaluation)
        points.append((told, len(evaluation.tasks), time.perf_counter() - start))
        print(
            f"memorycode sessions-{length}: {told} sessions told, "
            f"{len(evaluation.tasks)} tasks, bm25 {points[-1][2]:.2f} s"
        )
    (small_told, small_tasks, small_s), (big_told, big_tasks, big_s) = points[0], points[-1]
    work = math.log((big_told * big_tasks) / (small_told * small_tasks))
    print(
        f"growth: exponent {math.log(big_s / small_s) / math.log(big_told / small_told):.2f} "
        f"in sessions told, {math.log(big_s / small_s) / work:.2f} in sessions x tasks"
    )
    print("result:", "ok" if all(v == "ok" for v in verdicts) else "OVER TARGET")


if __name__ == "__main__":
    main()
