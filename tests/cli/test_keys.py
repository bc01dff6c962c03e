"""`memrank keys generate`: the pair is written inside --out, under a plain file stem."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from memrank.cli import main


@pytest.mark.parametrize("name", ["../../escaped", "", "a/b", ".hidden", "..", "x\\y", "a b"])
def test_a_name_that_is_not_a_plain_file_stem_is_refused_and_nothing_is_written(
    tmp_path: Path, name: str
) -> None:
    out = tmp_path / "deep" / "keysdir"
    outcome = CliRunner().invoke(main, ["keys", "generate", "--out", str(out), "--name", name])
    assert outcome.exit_code == 2, outcome.output
    assert outcome.stderr.startswith("Error: --name ") and len(outcome.stderr.splitlines()) == 1
    assert "Traceback" not in outcome.output
    assert not list(tmp_path.rglob("*.pem"))


def test_a_plain_name_writes_the_pair_inside_out(tmp_path: Path) -> None:
    outcome = CliRunner().invoke(
        main, ["keys", "generate", "--out", str(tmp_path), "--name", "release-2026_a.v1"]
    )
    assert outcome.exit_code == 0, outcome.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "release-2026_a.v1.pem",
        "release-2026_a.v1.pub.pem",
    ]
