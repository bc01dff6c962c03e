"""How the hybrid's constants were chosen: a grid over LoCoMo's smoke slice and BEAM, never full LoCoMo.

For every dense weight (0, 0.1, ... 1) and neighbour weight (0, 0.5, 0.7, 0.8, 0.9) the hybrid
runs ``locomo:smoke`` (conversation conv-26, 199 questions) and ``beam`` (one conversation, 20
probing questions); the table prints evidence-recall@5/@10/@20 on each. The rule, fixed before
the grid was run: take the pair with the highest mean of the six numbers (each evaluation's mean
over @5/@10/@20, the two evaluations weighted equally). Full LoCoMo is held out: this script
never loads it. The embedding cache makes every run after the first cheap.

The material is read from MEMRANK_DATA_DIR, else shared/data beside the repository.
Run: uv run python tests/perf/tune_hybrid.py
"""

from __future__ import annotations

import os
from pathlib import Path

import memrank
from memrank.systems.hybrid import Hybrid

DENSE = [round(0.1 * i, 1) for i in range(11)]
NEIGHBOUR = [0.0, 0.5, 0.7, 0.8, 0.9]
CUTS = (5, 10, 20)


def recalls(result: memrank.Result) -> list[float]:
    means = {v.measure: v.value for v in result.values if v.task_id is None}
    return [means[f"evidence-recall@{k}.mean"] or 0.0 for k in CUTS]


def main() -> None:
    if not os.environ.get("MEMRANK_DATA_DIR"):
        os.environ["MEMRANK_DATA_DIR"] = str(
            Path(__file__).resolve().parents[3] / "shared" / "data"
        )
    held = {name: memrank.evaluation(name) for name in ("locomo:smoke", "beam")}
    print("dense  neighbour | smoke @5 @10 @20 | beam @5 @10 @20")
    best: tuple[float, float, float] = (-1.0, 0.0, 0.0)
    for neighbour in NEIGHBOUR:
        for dense in DENSE:
            hybrid = Hybrid(dense_weight=dense, neighbour_weight=neighbour)
            rows = [recalls(memrank.run(hybrid, evaluation)) for evaluation in held.values()]
            cells = " | ".join(" ".join(f"{r:.3f}" for r in row) for row in rows)
            print(f"{dense:5.1f}  {neighbour:9.1f} | {cells}", flush=True)
            best = max(
                best, (sum(sum(row) / len(row) for row in rows) / len(rows), dense, neighbour)
            )
    print(f"chosen: dense_weight={best[1]}, neighbour_weight={best[2]} (score {best[0]:.4f})")


if __name__ == "__main__":
    main()
