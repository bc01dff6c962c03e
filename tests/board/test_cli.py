"""memrank build-site through click's runner: build, check, refuse, and stay deterministic."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import memrank
from memrank.artifacts import attest
from memrank.cli import main
from tests.board.conftest import DOCS, TEMPLATES, keys, notes


def build_site(artifacts: Path, out: Path, *options: str) -> Result:
    return CliRunner().invoke(
        main,
        [
            "build-site",
            "--artifacts",
            str(artifacts),
            "--templates",
            str(TEMPLATES),
            "--docs",
            str(DOCS),
            "--out",
            str(out),
            *options,
        ],
    )


def files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


@pytest.fixture
def artifacts(standard: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(standard, tmp_path / "artifacts"))


def test_builds_the_site_and_check_finds_it_up_to_date(artifacts: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    built = build_site(artifacts, out)
    assert built.exit_code == 0, built.output
    assert "6 run page(s), 2 evaluation page(s); 6 run(s) verified, 0 refused" in built.output
    assert (out / "textual" / "index.html").is_file()
    checked = build_site(artifacts, out, "--check")
    assert checked.exit_code == 0, checked.output
    assert "is up to date" in checked.output


def test_check_fails_naming_what_differs(artifacts: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert build_site(artifacts, out).exit_code == 0
    (out / "index.html").write_text("edited by hand")
    (out / "stray.html").write_text("not built")
    shutil.rmtree(out / "coding")
    checked = build_site(artifacts, out, "--check")
    assert checked.exit_code == 1
    assert "missing: coding/index.html" in checked.output
    assert "not built: stray.html" in checked.output
    assert "differs: index.html" in checked.output
    assert "run `memrank build-site` and commit the result" in checked.output
    assert (out / "index.html").read_text() == "edited by hand"  # --check writes nothing


def test_two_builds_are_byte_identical(artifacts: Path, tmp_path: Path) -> None:
    assert build_site(artifacts, tmp_path / "one").exit_code == 0
    assert build_site(artifacts, tmp_path / "two").exit_code == 0
    assert files(tmp_path / "one") == files(tmp_path / "two")


def test_source_date_epoch_dates_the_board(
    artifacts: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    assert build_site(artifacts, tmp_path / "site").exit_code == 0
    assert '<time datetime="2026-01-01T00:00:00Z">' in (tmp_path / "site/index.html").read_text()


def test_a_development_observation_is_refused_and_absent_from_every_file(
    artifacts: Path, tmp_path: Path
) -> None:
    # Run from this checkout, as the tests are: memrank records it as a development observation.
    checkout_run = memrank.run(memrank.system("bm25"), notes())
    signed = attest(checkout_run, "textual", "open-source", keys()[1], artifacts=artifacts)
    assert signed.statement.predicate.evidence.value == "development_observation"
    out = tmp_path / "site"
    built = build_site(artifacts, out)
    assert built.exit_code == 0, built.output
    lines = built.output.splitlines()
    assert lines[0].split() == ["artifact", "reason"]
    assert lines[1].startswith(f"runs/{signed.artifact_id}.json  DevelopmentObservation: ")
    assert "6 run(s) verified, 1 refused" in built.output
    result_digest = signed.result_file.stem
    for path, content in files(out).items():
        assert signed.artifact_id[:16].encode() not in content, path
        assert signed.statement.predicate.run_id.encode() not in content, path
        assert result_digest.encode() not in content, path
    strict = build_site(artifacts, tmp_path / "strict", "--strict")
    assert strict.exit_code == 6
    assert "DevelopmentObservation" in strict.output and "nothing was written" in strict.output
    assert not (tmp_path / "strict").exists()


def test_a_missing_board_toml_says_what_to_pass(artifacts: Path, tmp_path: Path) -> None:
    (artifacts / "board.toml").unlink()
    built = build_site(artifacts, tmp_path / "site")
    assert built.exit_code == 2 and "board.toml" in built.output and "--artifacts" in built.output
