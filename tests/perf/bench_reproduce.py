"""Benchmark: `memrank reproduce` of the committed bm25 LoCoMo run, as a ratio to a plain run.

The baseline is what any rerun must cost: `memrank run bm25 locomo --save FILE` (this
checkout's memrank: the same code as the recorded build). `memrank reproduce` adds verifying
the envelope, finding the recorded build's environment in its cache, running there, splitting
the rerun's file and comparing digests. Both are timed as a user runs them, each a fresh process, interleaved,
best of three. The first reproduce (not timed) makes the environment. Target: at most 3x.
Run: MEMRANK_DATA_DIR=../shared/data uv run python tests/perf/bench_reproduce.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from tests.committed_runs import committed_run
from tests.perf._timing import seconds

REPOSITORY = Path(__file__).resolve().parents[2]
ROUNDS = 3


def main() -> None:
    artifact = committed_run("bm25", "locomo")[0].stem
    memrank = Path(sys.executable).with_name("memrank")
    reproduce = [str(memrank), "reproduce", artifact, "--no-progress"]
    first = subprocess.run(reproduce, capture_output=True, text=True, cwd=REPOSITORY)
    if first.returncode != 0:  # made the environment, or said why it could not
        sys.exit(f"reproduce failed: {first.stdout}{first.stderr}")
    with tempfile.TemporaryDirectory() as folder:
        plain = [str(memrank), "run", "bm25", "locomo", "--no-progress", "--save",
                 str(Path(folder) / "run.json")]  # fmt: skip

        def quiet(command: list[str]) -> None:
            subprocess.run(command, check=True, capture_output=True, cwd=REPOSITORY)

        timed_plain, timed_reproduce = [], []
        for _ in range(ROUNDS):
            timed_plain.append(seconds(lambda: quiet(plain)))
            timed_reproduce.append(seconds(lambda: quiet(reproduce)))
    base, measured = min(timed_plain), min(timed_reproduce)
    print(f"memrank run bm25 locomo --save:        {base:.2f} s (best of {ROUNDS})")
    print(f"memrank reproduce, environment cached: {measured:.2f} s (best of {ROUNDS})")
    print(f"  reproduce {measured / base:.2f}x a plain run (target: at most 3x)")


if __name__ == "__main__":
    main()
