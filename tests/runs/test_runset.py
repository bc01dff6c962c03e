"""A run set: two systems × two evaluations in one command, stopped by Ctrl-C part way and
resumed to the end, each pair a tracked run and one table at the end."""

from __future__ import annotations

import json
import re
import signal
import time
from pathlib import Path

import pytest

from memrank.runs.registry import RunState, all_records
from tests.runs.conftest import Gate, memrank_cli, memrank_here, memrank_process


def _journaled_unit(home: Path, evaluation: str) -> bool:
    for journal in home.glob(f"runs/*__{evaluation}__*/journal.jsonl"):
        if b'\n{"unit"' in journal.read_bytes():
            return True
    return False


def test_a_two_by_two_run_set_resumes_after_ctrl_c(
    home: Path, gate: Gate, locomo_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMRANK_TEST_GATE_AFTER", "2")  # held before locomo:mini's second unit
    process = memrank_process("run", "bm25,word-overlap", "demo,locomo:mini", "--json")
    deadline = time.monotonic() + 120
    while not _journaled_unit(home, "locomo-mini"):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the second pair never journaled a unit"
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    gate.open()
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    match = re.search(r"resume the run set with: (memrank run .* --resume (set-\S+))", stderr)
    assert match, stderr
    assert match[1] == f"memrank run bm25,word-overlap demo,locomo:mini --resume {match[2]}"
    stopped = {r.id: r.state for r in all_records()}
    assert sorted(stopped.values()) == [RunState.DONE, RunState.INTERRUPTED]

    resumed = memrank_cli(
        "run", "bm25,word-overlap", "demo,locomo:mini", "--resume", match[2], "--json"
    )
    assert resumed.returncode == 0, resumed.stderr
    shown = json.loads(resumed.stdout)
    assert [(r["system"], r["evaluation"]) for r in shown["runs"]] == [
        ("bm25", "demo"),
        ("bm25", "locomo:mini"),
        ("word-overlap", "demo"),
        ("word-overlap", "locomo:mini"),
    ]
    assert all(r["state"] == "done" and r["failed"] == 0 for r in shown["runs"])
    assert shown["runs"][1]["headline"]["measure"] == "evidence-recall@500w"
    # the pairs already begun kept their runs: the done one was not run again
    assert {r["run_id"] for r in shown["runs"][:2]} == set(stopped)
    assert len(all_records()) == 4


def test_a_run_set_refuses_save_naming_the_option(tmp_path: Path) -> None:
    outcome = memrank_here("run", "bm25,word-overlap", "demo", "--save", str(tmp_path / "x.json"))
    assert outcome.returncode == 2
    assert "--save names one run's result" in outcome.stderr
    assert all_records() == []


@pytest.mark.parametrize(
    ("systems", "evaluations", "said"),
    [
        ("bm25,nosuch", "demo", "no system named 'nosuch'"),
        ("bm25", "demo,nosuch", "no evaluation named 'nosuch'"),
        ("bm25", "demo,./missing.jsonl", "missing.jsonl: no such file"),
    ],
)
def test_a_run_set_naming_something_unknown_runs_nothing_and_records_nothing(
    home: Path, systems: str, evaluations: str, said: str
) -> None:
    outcome = memrank_here("run", systems, evaluations)
    assert outcome.returncode == 2, outcome.stdout
    assert said in outcome.stderr and len(outcome.stderr.splitlines()) == 1, outcome.stderr
    assert outcome.stdout == ""
    assert list(home.glob("runs/*")) == [] and list(home.glob("sets/*")) == []
