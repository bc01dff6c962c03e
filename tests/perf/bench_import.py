"""Benchmark: the cost of `import memrank`, as a ratio to `import click, pydantic`.

Both are timed as whole fresh interpreters, interleaved, in the same run; the interpreter's own
start-up is measured too and subtracted so the ratio compares the imports themselves.
Target: at most 1.5x.  Run: uv run python tests/perf/bench_import.py [rounds]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

STATEMENTS = {
    "bare": "pass",
    "baseline": "import click, pydantic",
    "memrank": "import memrank",
    # What a first run needs: the vocabulary, which is pydantic models (BaseModel alone costs
    # about 1.4x the baseline). Reported so the lazy `import memrank` does not hide it.
    "vocabulary": "from memrank import run, Memory, Evaluation, Result",
    "pydantic": "from pydantic import BaseModel",
}


def once(statement: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", statement], check=True)
    return time.perf_counter() - start


def main(rounds: int) -> None:
    samples: dict[str, list[float]] = {name: [] for name in STATEMENTS}
    for statement in STATEMENTS.values():
        once(statement)  # warm the file cache
    for _ in range(rounds):
        for name, statement in STATEMENTS.items():
            samples[name].append(once(statement))
    median = {name: statistics.median(times) for name, times in samples.items()}
    for name, value in median.items():
        print(f"{name:<9} median {value * 1000:7.1f} ms over {rounds} rounds ({STATEMENTS[name]})")
    baseline = median["baseline"] - median["bare"]
    ours = median["memrank"] - median["bare"]
    print(f"import memrank / import click, pydantic = {ours / baseline:.2f}x (target <= 1.5x)")
    for name in ("vocabulary", "pydantic"):
        ratio = (median[name] - median["bare"]) / baseline
        print(f"{STATEMENTS[name]} / import click, pydantic = {ratio:.2f}x (reported, no target)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
