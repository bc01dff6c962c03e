"""From a submitted run to the board: submit, watch, runs ls, runs show, review, approve,
build-site, with memrank installed from its wheel as a maintainer runs it; and every refusal
approve makes before it writes anything."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memrank.runs.registry import all_records, find
from tests.runs.conftest import memrank_here, slow

REPOSITORY = Path(__file__).parents[2]
BOARD = """
[site]
title = "test board"
description = "A board of one approved run."
base_url = "https://example.org/"

[tracks.textual]
title = "Textual memory"
description = "Conversation memory."

[[tracks.textual.columns]]
evaluation = "demo"
version = "memrank-demo@v1+def0"
title = "Demo"
measure = "word-match"
direction = "higher"
"""


def _call(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def wheel_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh virtualenv with memrank installed from its wheel."""
    uv = os.environ.get("UV") or shutil.which("uv")
    assert uv, "building the wheel needs uv on PATH (the README's setup installs it)"
    work = tmp_path_factory.mktemp("wheel")
    for step in (
        (uv, "build", "--wheel", "--out-dir", work / "dist", REPOSITORY),
        (uv, "venv", "--python", sys.executable, work / "venv"),
    ):
        done = _call(*step, cwd=work)
        assert done.returncode == 0, done.stderr
    (wheel,) = (work / "dist").glob("memrank-*.whl")
    python = work / "venv" / "bin" / "python"
    done = _call(uv, "pip", "install", "--python", python, wheel, cwd=work)
    assert done.returncode == 0, done.stderr
    return python


def _keys_and_root(tmp_path: Path, pinned: Path) -> tuple[Path, Path]:
    keys, artifacts = tmp_path / "keys", tmp_path / "artifacts"
    for name in ("root", "release"):
        assert memrank_here("keys", "generate", "--out", str(keys), "--name", name).returncode == 0
    root = str(artifacts / "root.json")
    done = memrank_here(
        "trust", "init", "--root", root, "--root-key", str(keys / "root.pub.pem"),
        "--release-key", str(keys / "release.pub.pem"), "--sign", str(keys / "root.pem"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = memrank_here(
        "trust", "update", "--root", root, "--pin", "textual", str(pinned),
        "--sign", str(keys / "root.pem"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (artifacts / "board.toml").write_text(BOARD)
    return keys, artifacts


@slow
def test_submit_to_the_board(wheel_python: Path, home: Path, tmp_path: Path) -> None:
    def wheel_memrank(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(wheel_python), "-m", "memrank", *args],
            capture_output=True, text=True, timeout=120, cwd=tmp_path, env=dict(os.environ),
        )  # fmt: skip

    submitted = wheel_memrank("submit", "word-overlap", "demo")
    assert submitted.returncode == 0, submitted.stderr
    run_id = re.match(r"run (\S+)", submitted.stdout)[1]  # type: ignore[index]
    watched = wheel_memrank("watch", run_id, "--interval", "0.1")
    assert watched.returncode == 0, watched.stderr
    assert run_id in memrank_here("runs", "ls").stdout
    assert "state:      done" in memrank_here("runs", "show", run_id).stdout

    result_file = home / "runs" / run_id / "result.json"
    keys, artifacts = _keys_and_root(tmp_path, result_file)
    reviewed = memrank_here("review", "--artifacts", str(artifacts))
    assert f"{run_id}  word-overlap × demo  track textual: publishable" in reviewed.stdout

    approved = memrank_here(
        "approve", run_id, "--track", "textual", "--division", "open-source",
        "--key", str(keys / "release.pem"), "--artifacts", str(artifacts),
    )  # fmt: skip
    assert approved.returncode == 0, approved.stderr
    artifact_id = re.search(r"approved:\s+\S+ as (\w+)", approved.stdout)[1]  # type: ignore[index]
    record = find(run_id)
    assert record.approved == artifact_id
    assert record.approval and record.approval.startswith("textual/open-source at ")
    shown = memrank_here("runs", "show", run_id).stdout
    assert f"artifact:   {artifact_id}" in shown
    assert memrank_here("review", "--artifacts", str(artifacts)).stdout.startswith("no finished")

    site = tmp_path / "site"
    built = memrank_here(
        "build-site", "--artifacts", str(artifacts), "--docs", str(REPOSITORY / "docs"),
        "--out", str(site), "--strict",
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    assert "1 run(s) verified, 0 refused" in built.stdout
    assert (site / "runs" / artifact_id[:16] / "index.html").is_file()
    assert "WordOverlapAdapter" in (site / "textual" / "index.html").read_text()

    again = memrank_here(
        "approve", run_id, "--track", "textual", "--division", "open-source",
        "--key", str(keys / "release.pem"), "--artifacts", str(artifacts),
    )  # fmt: skip
    assert again.returncode == 2 and "already approved" in again.stderr

    corrected = memrank_here(
        "supersede", run_id, "--track", "textual", "--division", "commercial",
        "--key", str(keys / "release.pem"), "--artifacts", str(artifacts),
    )  # fmt: skip
    assert corrected.returncode == 0, corrected.stderr
    correction = find(run_id).approved
    assert correction not in (None, artifact_id)
    verified = memrank_here("verify", str(artifacts))
    assert verified.returncode == 0 and "2 verified, 0 refused" in verified.stdout, verified.stdout

    withdrawn = memrank_here("withdraw", run_id, "--reason", "test", "--artifacts", str(artifacts))
    assert withdrawn.returncode == 0, withdrawn.stderr
    assert not (artifacts / "runs" / f"{correction}.json").exists()
    assert find(run_id).approved is None


def test_approve_refuses_a_checkout_run_before_writing(home: Path, tmp_path: Path) -> None:
    done = memrank_here("run", "word-overlap", "demo")
    assert done.returncode == 0, done.stderr
    (record,) = all_records()
    keys, artifacts = _keys_and_root(tmp_path, home / "runs" / record.id / "result.json")
    before = sorted(p.name for p in artifacts.rglob("*"))
    refused = memrank_here(
        "approve", record.id, "--track", "textual", "--division", "open-source",
        "--key", str(keys / "release.pem"), "--artifacts", str(artifacts),
    )  # fmt: skip
    assert refused.returncode == 3
    assert "a development observation" in refused.stderr
    wrong_key = memrank_here(
        "approve", record.id, "--track", "textual", "--division", "open-source",
        "--key", str(keys / "root.pem"), "--artifacts", str(artifacts),
    )  # fmt: skip
    assert wrong_key.returncode == 3 and "it is a root key" in wrong_key.stderr
    assert sorted(p.name for p in artifacts.rglob("*")) == before
