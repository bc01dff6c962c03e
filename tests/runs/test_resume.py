"""A LoCoMo run stopped part way (Ctrl-C, or killed outright) resumes to the very result an
uninterrupted run gives."""

from __future__ import annotations

import re
import signal
import time
from pathlib import Path

import pytest

from memrank.result import Result
from memrank.runs.registry import RunState, all_records
from tests.runs.conftest import Gate, memrank_cli, memrank_here, memrank_process, slow


def _measured(result: Result) -> list[tuple[str, str | None, float | None]]:
    """Every value but memrank's clock (which differs between any two runs)."""
    return [
        (v.measure, v.task_id or v.group, v.value)
        for v in result.values
        if not v.measure.startswith("latency.")
    ]


def _recalled(result: Result) -> list[tuple[str, tuple[str, ...]]]:
    return [
        (t.task.id, tuple(d.id for d in t.recalled.documents) if t.recalled else ())
        for t in result.traces
    ]


def _stop_part_way(home: Path, gate: Gate, how: signal.Signals, saved: Path) -> tuple[int, str]:
    """Start `memrank run bm25 locomo`, wait for its first unit to be journaled (the gate holds
    the second), send ``how``."""
    process = memrank_process("run", "bm25", "locomo", "--save", str(saved))
    deadline = time.monotonic() + 120
    journal = None
    while time.monotonic() < deadline:
        found = list(home.glob("runs/*/journal.jsonl"))
        if found and b'\n{"unit"' in found[0].read_bytes():
            journal = found[0]
            break
        assert process.poll() is None, process.communicate()
        time.sleep(0.01)
    assert journal is not None, "no unit was journaled in time"
    process.send_signal(how)
    gate.open()
    _, stderr = process.communicate(timeout=60)
    units = journal.read_bytes().count(b'\n{"unit"')
    assert 1 <= units < 10, f"stopped after {units} of 10 units: not part way"
    assert not saved.exists()
    return process.returncode, stderr


@pytest.fixture(scope="module")
def uninterrupted(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Result:
    """The same command run to its end, uninterrupted (the command line adds what the API
    does not, such as LoCoMo's "not judged" value, so the two are compared like for like)."""
    folder = tmp_path_factory.mktemp("uninterrupted")
    saved = folder / "whole.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MEMRANK_HOME", str(folder / "home"))
        patch.setenv("MEMRANK_LOCOMO_FILE", str(shared_data / "locomo" / "locomo10.json"))
        done = memrank_cli("run", "bm25", "locomo", "--save", str(saved))
    assert done.returncode == 0, done.stderr
    return Result.load(saved)


def test_ctrl_c_exits_130_says_how_to_resume_and_resumes_to_the_same_result(
    home: Path, gate: Gate, locomo_file: Path, tmp_path: Path, uninterrupted: Result
) -> None:
    saved = tmp_path / "resumed.json"
    code, stderr = _stop_part_way(home, gate, signal.SIGINT, saved)
    assert code == 130, stderr
    [record] = all_records()
    assert record.state is RunState.INTERRUPTED
    assert f"resume with: memrank run bm25 locomo --save {saved} --resume {record.id}" in stderr
    assert re.search(r"kept \d+ of 1986 task\(s\) in its journal", stderr), stderr
    assert "Traceback" not in stderr

    resumed = memrank_cli("run", "bm25", "locomo", "--resume", record.id, "--save", str(saved))
    assert resumed.returncode == 0, resumed.stderr
    result = Result.load(saved)
    assert _measured(result) == _measured(uninterrupted)
    assert _recalled(result) == _recalled(uninterrupted)
    assert result.clearing == uninterrupted.clearing
    [record] = all_records()
    assert record.state is RunState.DONE and record.exit_code == 0


def test_sigterm_stops_like_ctrl_c_and_the_resume_keeps_save(
    home: Path, gate: Gate, locomo_file: Path, tmp_path: Path, uninterrupted: Result
) -> None:
    """What CI cancellation and `docker stop` send: the journal kept, the record stopped, the
    resume command printed; resumed without repeating --save, the result lands at --save."""
    saved = tmp_path / "resumed.json"
    code, stderr = _stop_part_way(home, gate, signal.SIGTERM, saved)
    assert code == 143, stderr
    [record] = all_records()
    assert record.state is RunState.INTERRUPTED and record.exit_code == 143
    assert f"resume with: memrank run bm25 locomo --save {saved} --resume {record.id}" in stderr
    kept = re.search(r"SIGTERM: run \S+ kept (\d+) of 1986 task\(s\)", stderr)
    assert kept, stderr
    assert "Traceback" not in stderr
    shown = memrank_here("runs", "show", record.id).stdout  # one count of what was kept
    assert f"done:       {kept[1]} of 1986 task(s)" in shown

    resumed = memrank_cli("run", "bm25", "locomo", "--resume", record.id)
    assert resumed.returncode == 0, resumed.stderr
    result = Result.load(saved)
    assert _measured(result) == _measured(uninterrupted)
    assert _recalled(result) == _recalled(uninterrupted)
    [record] = all_records()
    assert record.state is RunState.DONE and record.saved == str(saved)


@slow
def test_a_killed_run_is_lost_and_resumes_as_the_latest_stopped_run(
    home: Path, gate: Gate, locomo_file: Path, tmp_path: Path, uninterrupted: Result
) -> None:
    saved = tmp_path / "resumed.json"
    code, _ = _stop_part_way(home, gate, signal.SIGKILL, saved)
    assert code == -signal.SIGKILL
    [record] = all_records()
    assert record.state is RunState.LOST  # recorded as running; its process is gone

    resumed = memrank_cli("run", "bm25", "locomo", "--resume", "--save", str(saved))
    assert resumed.returncode == 0, resumed.stderr
    result = Result.load(saved)
    assert _measured(result) == _measured(uninterrupted)
    assert _recalled(result) == _recalled(uninterrupted)
    assert result.started == Result.load(home / "runs" / record.id / "result.json").started
