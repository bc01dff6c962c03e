"""The rerun's files: made by the rebuilt memrank, told on its standard output, and written
(atomically) by this one. Here the "rebuilt" memrank is this environment's python."""

from __future__ import annotations

import sys
from pathlib import Path

import memrank
from memrank.artifacts import run_files
from memrank.runs.reproduce import _files_inside
from memrank.systems import WordOverlap


def test_the_rerun_files_are_the_rebuilt_memranks_byte_for_byte(tmp_path: Path) -> None:
    run_file = tmp_path / "rerun.json"
    memrank.run(WordOverlap(), memrank.evaluation("demo")).save(run_file)
    work = tmp_path / "work"
    files = _files_inside(Path(sys.executable), run_file, work)
    assert files == run_files(run_file.read_bytes())
    for name in ("result", "timings", "scores"):
        assert (work / f"{name}.json").read_bytes() == getattr(files, name)
    assert sorted(p.name for p in work.iterdir()) == ["result.json", "scores.json", "timings.json"]
