"""build-site run where there is no docs/ folder builds the board and says it has no docs pages."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from memrank.cli import main
from tests.board.conftest import TEMPLATES, standard  # noqa: F401 - standard is a fixture


def test_a_missing_default_docs_folder_is_warned_of(
    standard: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    artifacts = Path(shutil.copytree(standard, tmp_path / "artifacts"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMRANK_CACHE_DIR", str(tmp_path / "cache"))
    outcome = CliRunner().invoke(
        main,
        ["build-site", "--artifacts", str(artifacts), "--templates", str(TEMPLATES),
         "--out", str(tmp_path / "site")],
    )  # fmt: skip
    assert outcome.exit_code == 0, outcome.output
    assert "warning: no docs/ folder here, so the board has no documentation pages" in (
        outcome.stderr
    )
    assert (tmp_path / "site" / "index.html").is_file()
