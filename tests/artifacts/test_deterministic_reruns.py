"""Two runs of a deterministic system from one build give byte-identical published files: the
result file and the scores file (docs/artifacts.md). Only the timings file differs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import memrank
from memrank.artifacts import run_files
from memrank.evaluations import locomo

HYBRID_ON_SMOKE = """
import sys
import memrank
from memrank.artifacts import run_files
files = run_files(memrank.run(memrank.system("hybrid"), memrank.evaluation("locomo:smoke")).to_bytes())
sys.stdout.write(files.result_sha256 + " " + files.scores_sha256)
"""


def test_bm25_on_locomo_twice_gives_the_same_result_and_scores_bytes(shared_data: Path) -> None:
    evaluation = locomo(path=shared_data / "locomo")
    first = run_files(memrank.run(memrank.system("bm25"), evaluation).to_bytes())
    second = run_files(memrank.run(memrank.system("bm25"), evaluation).to_bytes())
    assert first.result == second.result
    assert first.scores == second.scores
    assert first.timings != second.timings  # the clock did differ: it is all kept apart
    assert len(first.result) > 10_000_000  # every trace of all 1,986 tasks


@pytest.mark.skipif(shutil.which("taskset") is None, reason="needs taskset (util-linux)")
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to compare with one")
def test_hybrid_gives_the_same_files_on_one_cpu_and_on_two(
    shared_data: Path, tmp_path: Path
) -> None:
    """The dense embedder runs as many threads as the process has CPUs; the published files
    must not depend on that. Each run has an embedding cache of its own, so both embed."""
    digests = []
    for cpus in ("0", "0-1"):
        env = {
            **os.environ,
            "MEMRANK_DATA_DIR": str(shared_data),
            "MEMRANK_CACHE_DIR": str(tmp_path / f"cache-{cpus}"),
        }
        done = subprocess.run(
            ["taskset", "-c", cpus, sys.executable, "-c", HYBRID_ON_SMOKE],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        digests.append(done.stdout)
    assert digests[0] == digests[1]
