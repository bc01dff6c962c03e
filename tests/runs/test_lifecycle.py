"""approve -> supersede -> withdraw -> build-site, with the board checked at each step: a
withdrawal takes every envelope of the run off the board, the approval and each correction,
and `runs show` lists every envelope while there are any."""

from __future__ import annotations

import re
from pathlib import Path

from memrank.result import Result
from memrank.runs.registry import RESULT, all_records, find, run_folder
from tests.artifacts.conftest import as_installed
from tests.runs.conftest import memrank_here
from tests.runs.test_publish import REPOSITORY, _keys_and_root


def _board(artifacts: Path, site: Path) -> str:
    built = memrank_here(
        "build-site", "--no-cache", "--strict", "--artifacts", str(artifacts),
        "--docs", str(REPOSITORY / "docs"), "--out", str(site),
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    return built.stdout


def test_approve_supersede_withdraw_leaves_nothing_of_the_run_on_the_board(
    home: Path, tmp_path: Path
) -> None:
    assert memrank_here("run", "word-overlap", "demo").returncode == 0
    (record,) = all_records()
    result_file = run_folder(record.id) / RESULT
    # As the installed wheel would have recorded it (test_publish.py runs the wheel for real).
    as_installed(Result.load(result_file)).save(result_file)
    keys, artifacts = _keys_and_root(tmp_path, result_file)
    sign = ("--key", str(keys / "release.pem"), "--artifacts", str(artifacts))
    site = tmp_path / "site"

    approved = memrank_here(
        "approve", record.id, "--track", "textual", "--division", "open-source", *sign
    )
    assert approved.returncode == 0, approved.stderr
    first = re.search(r"as (\w+)", approved.stdout)[1]  # type: ignore[index]
    assert "1 run(s) verified" in _board(artifacts, site)
    assert (site / "runs" / first[:16] / "index.html").is_file()

    corrected = memrank_here(
        "supersede", record.id, "--track", "textual", "--division", "commercial", *sign
    )
    assert corrected.returncode == 0, corrected.stderr
    second = find(record.id).approved
    assert second is not None and second != first
    assert find(record.id).envelopes == (first, second)
    shown = memrank_here("runs", "show", record.id).stdout
    assert f"envelopes:  {first} {second}" in shown
    assert "2 run(s) verified" in _board(artifacts, site)
    assert "commercial" in (site / "textual" / "index.html").read_text()

    withdrawn = memrank_here("withdraw", record.id, "--reason", "test", "--artifacts",
                             str(artifacts))  # fmt: skip
    assert withdrawn.returncode == 0, withdrawn.stderr
    assert first in withdrawn.stdout and second in withdrawn.stdout
    assert not list((artifacts / "runs").glob("*.json"))
    assert "0 run(s) verified" in _board(artifacts, site)
    assert "WordOverlapAdapter" not in (site / "textual" / "index.html").read_text()
    assert not (site / "runs" / first[:16]).exists()
    shown = memrank_here("runs", "show", record.id).stdout
    assert "artifact:   -" in shown and "envelopes:  -" in shown
    approval = next(line for line in shown.splitlines() if line.startswith("approval:"))
    assert "withdrew" in approval and first in approval and second in approval

    again = memrank_here("withdraw", record.id, "--reason", "twice", "--artifacts",
                         str(artifacts))  # fmt: skip
    assert again.returncode == 2 and "nothing to withdraw" in again.stderr


def test_withdraw_finds_a_correction_its_record_does_not_list(home: Path, tmp_path: Path) -> None:
    """A record from before envelopes were listed names only its latest artifact: the earlier
    one is found by the run id it signs."""
    assert memrank_here("run", "word-overlap", "demo").returncode == 0
    (record,) = all_records()
    result_file = run_folder(record.id) / RESULT
    as_installed(Result.load(result_file)).save(result_file)
    keys, artifacts = _keys_and_root(tmp_path, result_file)
    sign = ("--key", str(keys / "release.pem"), "--artifacts", str(artifacts))
    memrank_here("approve", record.id, "--track", "textual", "--division", "open-source", *sign)
    memrank_here("supersede", record.id, "--track", "textual", "--division", "commercial", *sign)
    from memrank.runs.registry import save_record

    save_record(find(record.id).model_copy(update={"envelopes": ()}))
    withdrawn = memrank_here("withdraw", record.id, "--reason", "t", "--artifacts", str(artifacts))
    assert withdrawn.returncode == 0, withdrawn.stderr
    assert not list((artifacts / "runs").glob("*.json"))
