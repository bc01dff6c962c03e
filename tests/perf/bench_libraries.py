"""Benchmark: each library system's full LoCoMo run (1,986 questions, 10 conversations), its
wall time and peak memory, side by side with bm25 measured in the same session.

Each run is `memrank run NAME locomo` in a fresh process, as a user runs it; its peak resident
memory is the child's ``ru_maxrss``. Embeddings come from memrank's embedding cache, warmed by
one untimed run of the first dense system, so the dense rows time the library, not the
embedder (the cold embedding cost is bench_embedding.py's). Printed: seconds and MiB per
system, and each as a ratio to bm25's. docs/systems.md (Libraries) states the numbers.
Run: MEMRANK_DATA_DIR=../shared/data uv run --all-extras python tests/perf/bench_libraries.py
[NAME ...]
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
BASELINE = "bm25"
SYSTEMS = ("chroma", "lancedb-hybrid", "langgraph-store", "llamaindex-bm25", "mem0-verbatim")


def main() -> None:
    memrank = Path(sys.executable).with_name("memrank")
    systems = tuple(sys.argv[1:]) or SYSTEMS
    warm = [str(memrank), "run", "langgraph-store", "locomo:smoke", "--no-progress"]
    subprocess.run(warm, check=True, capture_output=True, cwd=REPOSITORY)
    rows = {}
    for system in (BASELINE, *systems):
        rows[system] = _child(memrank, system)
    base_s, base_mib = rows[BASELINE]
    print(f"{'system':18} {'seconds':>9} {'x bm25':>7} {'peak MiB':>9} {'x bm25':>7}")
    for system, (took, peak) in rows.items():
        print(f"{system:18} {took:9.1f} {took / base_s:7.1f} {peak:9.0f} {peak / base_mib:7.1f}")


def _child(memrank: Path, system: str) -> tuple[float, float]:
    """Run one measurement in a fresh interpreter, so peak memory is that run's alone."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "began = time.perf_counter()\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "took = time.perf_counter() - began\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
        "print(done.returncode, f'{took:.2f}', f'{peak:.1f}')\n"
    )
    command = [str(memrank), "run", system, "locomo", "--no-progress"]
    printed = subprocess.run(
        [sys.executable, "-c", probe, *command],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPOSITORY,
    ).stdout.split()
    if printed[0] != "0":
        sys.exit(f"memrank run {system} locomo exited {printed[0]}")
    return float(printed[1]), float(printed[2])


if __name__ == "__main__":
    main()
