"""Benchmark: the scores file of a full LoCoMo run, against its result file.

Runs a system (default bm25) on full LoCoMo in this process and derives the scores file. Prints
the scores file's size against the target (300 KB) and as a share of the result file's, and the
time of ``scores_of`` and ``read_scores`` as ratios to the baseline measured in the same run:
parsing the result file once with orjson (scores_of must parse it; everything else it does
should cost less than that parse). Growth: the scores file of the first 1, 2, 5 and 10
conversations, whose size must grow linearly in the tasks (exponent ~1).

Run: MEMRANK_LOCOMO_FILE=.../locomo10.json uv run python tests/perf/bench_scores.py [system]
"""

from __future__ import annotations

import math
import sys

import orjson

import memrank
from memrank.artifacts import read_scores, run_files, scores_of
from tests.perf._timing import seconds

TARGET_BYTES = 300_000


def main(system_name: str = "bm25") -> None:
    evaluation = memrank.evaluation("locomo")
    result = memrank.run(memrank.system(system_name), evaluation)
    raw = run_files(result.to_bytes()).result  # the published result file
    scores = scores_of(raw)
    print(
        f"{system_name} on full LoCoMo: result file {len(raw):,} B, scores file {len(scores):,} B"
    )
    print(f"  scores / target {len(scores) / TARGET_BYTES:.2f} (target <= 1), "
          f"scores / result {len(scores) / len(raw):.4f}")  # fmt: skip
    parse = min(seconds(lambda: orjson.loads(raw)) for _ in range(3))
    derive = min(seconds(lambda: scores_of(raw)) for _ in range(3))
    read = min(seconds(lambda: read_scores(scores, source="bench")) for _ in range(3))
    print(f"  baseline: orjson parse of the result file {parse * 1000:.1f} ms")
    print(f"  scores_of   {derive / parse:.2f}x the baseline")
    print(f"  read_scores {read / parse:.2f}x the baseline")

    groups = list(dict.fromkeys(task.group for task in evaluation.tasks))
    sizes = []
    for count in (1, 2, 5, 10):
        kept = set(groups[:count])
        tasks = [t for t in result.traces if t.task.group in kept]
        ids = {t.task.id for t in tasks}
        values = [v for v in result.values if v.task_id is None or v.task_id in ids]
        part = result.model_copy(update={"traces": tuple(tasks), "values": tuple(values)})
        sizes.append((len(ids), len(run_files(part.to_bytes()).scores)))
    for (n0, s0), (n1, s1) in zip(sizes, sizes[1:], strict=False):
        exponent = math.log(s1 / s0) / math.log(n1 / n0)
        print(f"  growth {n0} -> {n1} tasks: {s0:,} -> {s1:,} B, exponent {exponent:.2f}")


if __name__ == "__main__":
    main(*sys.argv[1:])
