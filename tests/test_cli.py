"""The command line, driven through click's runner."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

import memrank
from memrank.cli import main


def test_version() -> None:
    outcome = CliRunner().invoke(main, ["--version"])
    assert outcome.exit_code == 0 and memrank.__version__ in outcome.output


def test_run_prints_and_saves(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    outcome = CliRunner().invoke(main, ["run", "word-overlap", "demo", "--save", str(path)])
    assert outcome.exit_code == 0, outcome.output
    assert "headline:   word-match 0.800" in outcome.output
    assert re.search(r"\n  demo-score +0\.800\n", outcome.output)  # a key value, on one screen
    assert memrank.Result.load(path).values_of("demo-score")[0].value == 0.8
    every = CliRunner().invoke(main, ["run", "word-overlap", "demo", "--values"])
    assert "  demo-score               0.800      1         0  rule     group" in every.output


def test_a_near_miss_name_gets_a_suggestion() -> None:
    outcome = CliRunner().invoke(main, ["run", "word-overlp", "demo"])
    assert outcome.exit_code == 2
    assert "no system named 'word-overlp'; did you mean 'word-overlap'?" in outcome.output
    outcome = CliRunner().invoke(main, ["run", "bm25", "locmo:smoke"])
    assert "no evaluation named 'locmo'; did you mean 'locomo'?" in outcome.output


def test_unknown_names_exit_2_with_the_known_ones() -> None:
    outcome = CliRunner().invoke(main, ["run", "nope", "demo"])
    assert outcome.exit_code == 2
    assert "no system named 'nope'" in outcome.output and "word-overlap" in outcome.output


def test_catalog() -> None:
    outcome = CliRunner().invoke(main, ["catalog"])
    assert outcome.exit_code == 0 and "evaluations:" in outcome.output
