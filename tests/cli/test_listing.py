"""memrank targets ls and show: every target listed once, and what one needs marked set or not."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from memrank.catalog import SYSTEMS
from memrank.cli import main


def test_ls_lists_every_target_in_catalog_order() -> None:
    outcome = CliRunner().invoke(main, ["targets", "ls"])
    assert outcome.exit_code == 0
    assert [line.split()[0] for line in outcome.output.splitlines()] == [s.name for s in SYSTEMS]


def test_show_marks_each_variable_the_target_reads_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM0_HTTP_URL", "http://127.0.0.1:9")
    monkeypatch.delenv("MEM0_API_KEY", raising=False)
    outcome = CliRunner().invoke(main, ["targets", "show", "mem0"])
    assert outcome.exit_code == 0
    marked = [line for line in outcome.output.splitlines() if line.startswith("  ")]
    assert marked == ["  ✔ set      MEM0_HTTP_URL", "  ✘ not set  MEM0_API_KEY"]


def test_show_refuses_an_unknown_target_naming_the_known() -> None:
    outcome = CliRunner().invoke(main, ["targets", "show", "nope"])
    assert outcome.exit_code == 2
    assert "no target named 'nope'; known: " in outcome.output and "mem0" in outcome.output
