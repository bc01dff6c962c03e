"""Benchmark: merging the 10 shards of a full LoCoMo run against loading them.

bm25 runs full LoCoMo as 10 shards (in this process), each saved; then, best of several
interleaved rounds: loading the 10 result files alone, and `memrank merge`'s work (loading the
10 files, the checks, and every measure applied again to the merged traces). Target: the merge
takes at most 2x loading. Needs the LoCoMo file: MEMRANK_LOCOMO_FILE (or MEMRANK_DATA_DIR).
Run: uv run python tests/perf/bench_merge.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _timing import seconds  # noqa: E402

import memrank  # noqa: E402
from memrank.result import Result  # noqa: E402
from memrank.runs.merge import merge  # noqa: E402
from memrank.runs.shards import Shard, shard_of  # noqa: E402

SHARDS = 10
ROUNDS = 5


def main() -> None:
    if "MEMRANK_LOCOMO_FILE" not in os.environ:
        shared = Path(
            os.environ.get("MEMRANK_DATA_DIR", Path(__file__).parents[3] / "shared" / "data")
        )
        os.environ["MEMRANK_LOCOMO_FILE"] = str(shared / "locomo" / "locomo10.json")
    whole = memrank.evaluation("locomo")
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for index in range(1, SHARDS + 1):
            path = Path(folder) / f"shard-{index}.json"
            memrank.run(memrank.system("bm25"), shard_of(whole, Shard(index, SHARDS))).save(path)
            paths.append(path)
        sources = [str(path) for path in paths]
        size = sum(path.stat().st_size for path in paths)

        def load() -> list[Result]:
            return [Result.load(path) for path in paths]

        def load_and_merge() -> Result:
            return merge(load(), whole, sources)

        loading, merging = [], []
        for _ in range(ROUNDS):
            loading.append(seconds(load))
            merging.append(seconds(load_and_merge))
    best_load, best_merge = min(loading), min(merging)
    print(f"{SHARDS} LoCoMo shards, {size / 1e6:.1f} MB of result files, best of {ROUNDS}")
    print(f"  load:          {best_load:.3f} s")
    print(f"  load + merge:  {best_merge:.3f} s")
    ratio = best_merge / best_load
    print(f"  merge / load:  {ratio:.2f}x (target <= 2x) {'ok' if ratio <= 2 else 'MISSED'}")


if __name__ == "__main__":
    main()
