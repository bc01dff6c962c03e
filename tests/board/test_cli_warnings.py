"""build-site says so when an input it was given is missing or fills nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from memrank.cli import main
from tests.board.conftest import DOCS, TEMPLATES


@pytest.fixture
def artifacts(standard: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(standard, tmp_path / "artifacts"))


def _build(artifacts: Path, out: Path, docs: Path = DOCS) -> tuple[int, str, str]:
    outcome = CliRunner().invoke(
        main,
        ["build-site", "--artifacts", str(artifacts), "--templates", str(TEMPLATES),
         "--docs", str(docs), "--out", str(out)],
    )  # fmt: skip
    return outcome.exit_code, outcome.stdout, outcome.stderr


def test_docs_that_are_not_there_are_refused(artifacts: Path, tmp_path: Path) -> None:
    code, out, err = _build(artifacts, tmp_path / "site", docs=tmp_path / "nonexistent")
    assert code == 2
    assert f"--docs {tmp_path / 'nonexistent'}: no such folder" in err
    assert not (tmp_path / "site").exists()


def test_a_column_no_run_fills_is_warned_of(artifacts: Path, tmp_path: Path) -> None:
    config = artifacts / "board.toml"
    config.write_text(config.read_text().replace('evaluation = "notes"', 'evaluation = "nots"'))
    config.write_text(config.read_text().replace('rank_by = "notes"', 'rank_by = "nots"'))
    code, out, err = _build(artifacts, tmp_path / "site")
    assert code == 0, out + err
    assert "warning: board.toml column 'nots' of track 'textual' has no verified run" in err
    assert "'demo'" not in err
