"""The ablation from the InvMem-style recipe to the hybrid, one change at a time.

Each row is one run of an evaluation (default: full LoCoMo) with the constructor arguments
shown; printed as evidence-recall@5/@10/@20 overall and evidence-hit@10. The embedding cache
makes every row after the first cheap.

The material is read as ``memrank run`` reads it (MEMRANK_LOCOMO_FILE, MEMRANK_DATA_DIR ...).
Run: uv run python tests/perf/ablate_hybrid.py [evaluation]
"""

from __future__ import annotations

import sys
from typing import Any

import memrank

ROWS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("hybrid-invmem", "the InvMem-style recipe (rrf 60, weights 1 / 0.5, 20 seeds)", {}),
    ("hybrid-invmem", "... with stemmed BM25", {"stem": True}),
    ("hybrid-invmem", "... stemmed, no neighbour expansion", {"stem": True, "window": 0}),
    (
        "hybrid-invmem",
        "... stemmed, no expansion, equal rrf weights",
        {"stem": True, "window": 0, "bm25_weight": 1.0},
    ),
    (
        "hybrid",
        "score fusion 0.5 / 0.5, no expansion (untuned)",
        {"dense_weight": 0.5, "neighbour_weight": 0.0},
    ),
    ("hybrid", "score fusion 0.6 / 0.4, no expansion", {"neighbour_weight": 0.0}),
    ("hybrid", "score fusion 0.6 / 0.4, neighbours inherit 0.8 (the hybrid)", {}),
    (
        "hybrid",
        "dense alone (dense_weight 1, no expansion)",
        {"dense_weight": 1.0, "neighbour_weight": 0.0},
    ),
    (
        "hybrid",
        "stemmed BM25 alone through the hybrid (dense_weight 0, no expansion)",
        {"dense_weight": 0.0, "neighbour_weight": 0.0},
    ),
)


def main(name: str) -> None:
    evaluation = memrank.evaluation(name)
    print("| system | arguments | what | @5 | @10 | @20 | hit@10 |")
    print("|---|---|---|---:|---:|---:|---:|")
    for system, what, options in ROWS:
        result = memrank.run(memrank.system(system, **options), evaluation)
        means = {v.measure: v.value for v in result.values if v.task_id is None}
        cells = [means[f"evidence-recall@{k}.mean"] for k in (5, 10, 20)] + [
            means["evidence-hit@10.mean"]
        ]
        shown = ", ".join(f"{k}={v}" for k, v in options.items()) or "defaults"
        print(
            f"| `{system}` | {shown} | {what} | " + " | ".join(f"{c:.3f}" for c in cells) + " |",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "locomo")
