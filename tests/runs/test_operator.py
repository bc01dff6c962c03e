"""The operator surface end to end, as a user types it: submit returns at once, watch follows
the run to its end, runs ls and runs show read the registry, kill stops a running submission."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from memrank.result import Result
from memrank.runs.registry import RunState, find
from tests.runs.conftest import Gate, memrank_cli, memrank_here


def _submitted(*args: str, ignoring_sigint: bool = False) -> str:
    done = memrank_cli("submit", *args, timeout=60, ignoring_sigint=ignoring_sigint)
    assert done.returncode == 0, done.stderr
    match = re.fullmatch(r"run (\S+)  \((.+)\)\ntrack: memrank watch \1\n", done.stdout)
    assert match, done.stdout
    return match[1]


def test_submit_watch_ls_show(home: Path, tmp_path: Path) -> None:
    saved = tmp_path / "run.json"
    run_id = _submitted("word-overlap", "demo", "--save", str(saved))

    watched = memrank_here("watch", run_id, "--interval", "0.1")
    assert watched.returncode == 0, watched.stderr
    assert "demo-score" in watched.stdout and "0.800" in watched.stdout
    assert f"{run_id}  done  100%" in watched.stderr

    listed = memrank_here("runs", "ls")
    header, row = listed.stdout.splitlines()
    assert header.split() == ["ID", "TARGET", "EVAL", "PLACE", "STATE", "AGE", "DONE", "SCORE"]
    cells = row.split()
    assert cells[:5] == [run_id, "word-overlap", "demo", "local", "done"]
    assert cells[6:] == ["100%", "0.8000"]

    shown = memrank_here("runs", "show", run_id[:20])  # a unique prefix names it
    assert shown.returncode == 0, shown.stderr
    fields = dict(re.findall(r"^([a-z ]+):\s+(.*)$", shown.stdout, re.M))
    assert fields["state"] == "done" and fields["exit code"] == "0"
    assert fields["place"] == "local" and fields["saved"] == str(saved)
    assert fields["result"] == str(home / "runs" / run_id / "result.json")
    assert fields["headline"] == "word-match 0.8000"  # the demo's board column
    assert saved.is_file()
    again = memrank_here("runs", "show", run_id, "--result")
    assert again.stdout.endswith(str(Result.load(saved)) + "\n")


def test_kill_stops_a_running_submission(home: Path, gate: Gate, locomo_file: Path) -> None:
    # submitted as a script's background job is, with SIGINT ignored: kill still interrupts
    # the run (its journal kept, its stop said in its log), never only SIGKILLs it
    run_id = _submitted("bm25", "locomo", ignoring_sigint=True)
    journal = home / "runs" / run_id / "journal.jsonl"
    deadline = time.monotonic() + 120
    while not (journal.is_file() and b'\n{"trace":' in journal.read_bytes()):
        assert time.monotonic() < deadline, "the run never started"
        assert find(run_id).state is RunState.RUNNING, (
            home / "runs" / run_id / "log.txt"
        ).read_text()
        time.sleep(0.02)
    killed = memrank_here("kill", run_id)
    assert killed.returncode == 0, killed.stderr
    assert f"resume with: memrank run bm25 locomo --resume {run_id}" in killed.stdout
    record = find(run_id)
    assert record.state is RunState.KILLED
    assert not (home / "runs" / run_id / "result.json").exists()
    log = (home / "runs" / run_id / "log.txt").read_text()
    assert f"interrupted: run {run_id} kept" in log, log
    again = memrank_here("kill", run_id)
    assert again.returncode == 2 and "killed, not running" in again.stderr


def test_watch_and_show_refuse_an_unknown_id() -> None:
    for command in (("watch", "nope"), ("runs", "show", "nope"), ("kill", "nope")):
        done = memrank_here(*command)
        assert done.returncode == 2 and "no run 'nope'" in done.stderr, done.stderr


def test_targets_show_marks_each_variable_it_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_API_URL", "http://127.0.0.1:9")
    monkeypatch.delenv("HINDSIGHT_API_KEY", raising=False)
    shown = memrank_here("targets", "show", "hindsight")
    assert shown.returncode == 0, shown.stderr
    assert "✔ set      HINDSIGHT_API_URL" in shown.stdout
    assert "✘ not set  HINDSIGHT_API_KEY" in shown.stdout
    listed = memrank_here("targets", "ls")
    assert re.search(r"^bm25\s+memory; Okapi BM25", listed.stdout, re.M)
    evals = memrank_here("evals", "ls")
    assert re.search(r"^locomo\s+LoCoMo", evals.stdout, re.M)
    unknown = memrank_here("targets", "show", "nope")
    assert unknown.returncode == 2 and "no target named 'nope'" in unknown.stderr


def test_on_none_is_for_a_system_already_running() -> None:
    done = memrank_here("run", "word-overlap", "demo", "--on", "none")
    assert done.returncode == 2
    assert "--on none: word-overlap runs inside memrank" in done.stderr


def test_a_registry_that_cannot_be_written_is_refused_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("in the way")
    monkeypatch.setenv("MEMRANK_HOME", str(blocked / "home"))
    done = memrank_here("run", "word-overlap", "demo")
    assert done.returncode == 2
    assert "the run registry (move it with MEMRANK_HOME)" in done.stderr


def test_resume_refuses_what_it_cannot_resume(home: Path) -> None:
    nothing = memrank_here("run", "word-overlap", "demo", "--resume")
    assert nothing.returncode == 2
    assert "no stopped run of word-overlap on demo to resume" in nothing.stderr
    done = memrank_here("run", "word-overlap", "demo")
    run_id = re.search(r"run:\s+(\S+)", done.stderr)[1]  # type: ignore[index]
    again = memrank_here("run", "word-overlap", "demo", "--resume", run_id)
    assert again.returncode == 2 and f"run {run_id} is done" in again.stderr
    other = memrank_here("run", "no-context", "demo", "--resume", run_id)
    assert other.returncode == 2
    assert f"resume it with: memrank run word-overlap demo --resume {run_id}" in other.stderr
