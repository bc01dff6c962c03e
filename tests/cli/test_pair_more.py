"""memrank pair: --json, and a slice never pairs with a run in full."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

import memrank
from memrank.cli import main


def _saved(path: Path, system: str, evaluation: memrank.Evaluation) -> Path:
    return memrank.run(memrank.system(system), evaluation).save(path)


def test_pair_json_is_the_reading(tmp_path: Path) -> None:
    demo = memrank.evaluation("demo")
    a = _saved(tmp_path / "a.json", "word-overlap", demo)
    b = _saved(tmp_path / "b.json", "no-context", demo)
    outcome = CliRunner().invoke(main, ["pair", str(a), str(b), "--json"])
    assert outcome.exit_code == 0, outcome.output
    shown = json.loads(outcome.output)
    expected = memrank.paired(memrank.Result.load(a), memrank.Result.load(b))
    assert shown == json.loads(expected.model_dump_json())
    assert shown["evaluation"] == "demo"


def test_a_slice_is_refused_against_a_run_in_full(tmp_path: Path) -> None:
    demo = memrank.evaluation("demo")
    sliced = demo.model_copy(update={"slice": "smoke"})
    a = _saved(tmp_path / "full.json", "word-overlap", demo)
    b = _saved(tmp_path / "slice.json", "no-context", sliced)
    outcome = CliRunner().invoke(main, ["pair", str(a), str(b)])
    assert outcome.exit_code == 3, outcome.output
    assert "result A is of demo in full and result B slice 'smoke'" in outcome.output
