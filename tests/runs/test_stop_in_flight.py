"""A run with three units in flight against a slow endpoint stops on SIGTERM or Ctrl-C within
seconds, keeps every task that finished, and its resume runs only the rest, to the values an
uninterrupted run gives."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path

import pytest

import memrank
from memrank.result import Result
from memrank.runs.registry import RunState, all_records
from memrank.systems import WordOverlap
from memrank.systems.http import AmlMemory
from memrank.wire._service import ContractService
from tests.loopback import Canned, Logged, _Handler, _Loopback
from tests.runs.conftest import memrank_cli, memrank_process

_GROUPS, _ASKED = 4, 8
_TASKS = _GROUPS * _ASKED
_ANSWERED = 9
"""Questions the slow endpoint answers before it holds every further one."""


class Stalling(_Loopback):
    """A real ContractService that answers the first ``answered`` of the evaluation's
    questions and holds every later one until ``release`` (then drops it unanswered): an
    endpoint too slow to wait for. The canaries memrank plants among them (questions without
    a ticket, as many as the run's secret draws) are always answered."""

    def __init__(self, answered: int) -> None:
        super().__init__()
        self.service = ContractService(WordOverlap)
        self.answered = answered
        self.questions = 0
        self.held = 0
        self.release = threading.Event()
        self.asked: list[str] = []
        """The query of every search answered, in order."""

    def answer(self, handler: _Handler, body: bytes) -> None:
        if handler.command == "GET":
            handler.reply(Canned(200, b'{"status":"ok"}'))
            return
        self.record(Logged(handler.command, handler.path, handler.lowered_headers(), body))
        if handler.path == "/search" and b"(ticket " in body:
            with self.lock:
                self.questions += 1
                held = self.questions > self.answered
                self.held += held
            if held:
                self.release.wait(60)
                handler.reset()
                return
        call = self.service.add if handler.path == "/add" else self.service.search
        answer = call(body, handler.lowered_headers())
        if handler.path == "/search":
            with self.lock:
                self.asked.append(json.loads(body)["query"])
        handler.reply(Canned(answer.status, answer.body))


def _evaluation(folder: Path) -> Path:
    """Four conversations of twelve turns, eight questions each: four isolation units."""
    lines = []
    for group in range(_GROUPS):
        turns = [
            {"id": f"g{group}d{n}", "text": f"Speaker {group}: my item {n} is colour{group}x{n}"}
            for n in range(12)
        ]
        for asked in range(_ASKED):
            task = {
                "id": f"g{group}q{asked}",
                "question": f"What colour is item {asked} of speaker {group}? (ticket g{group}q{asked})",
                "group": f"g{group}",
                "evidence": [f"g{group}d{asked}"],
                "answers": [f"colour{group}x{asked}"],
                "spans": [f"colour{group}x{asked}"],
            }
            if asked == 0:
                task["documents"] = turns
            lines.append(json.dumps(task))
    path = folder / "four-units.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _task_values(result: Result) -> list[tuple[str, str | None, float | None]]:
    """Every task's values (a whole run's are made of them, or of memrank's clock)."""
    return [(v.measure, v.task_id, v.value) for v in result.values if v.task_id is not None]


def _recalled(result: Result) -> list[tuple[str, tuple[str, ...]]]:
    """What each task recalled, by text (the ids of the endpoint's items name their run)."""
    return [
        (t.task.id, tuple(d.text for d in t.recalled.documents) if t.recalled else ())
        for t in result.traces
    ]


def _as_uninterrupted(saved: Path, evaluation: Path, server: Stalling) -> None:
    """The resumed result gives what the same run made uninterrupted gives, against the same
    endpoint under the same secret (the canaries an endpoint run plants, and so what it can
    recall, are drawn from the run's secret)."""
    resumed = Result.load(saved)
    assert resumed.integrity is not None
    memory = AmlMemory(server.url)
    whole = memrank.run(
        memory,
        memrank.evaluation(str(evaluation)),
        secret=bytes.fromhex(resumed.integrity.secret),
    )
    memory.close()
    assert [t.task.id for t in resumed.traces] == [t.task.id for t in whole.traces]
    assert _task_values(resumed) == _task_values(whole)
    assert _recalled(resumed) == _recalled(whole)
    assert resumed.clearing == whole.clearing


def _asked_once(before: list[str], after: list[str]) -> None:
    """Every question of the evaluation was answered once in all: the resume asked none the
    stopped run had answered (the canaries memrank plants among an endpoint's questions, whose
    text may repeat from unit to unit, are left out of the count)."""
    asked = [query for query in before + after if "(ticket " in query]
    assert len(asked) == len(set(asked)) == _TASKS, sorted(asked)


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_three_units_in_flight_at_once_and_the_resume_runs_only_the_rest(
    how: signal.Signals,
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    evaluation = _evaluation(tmp_path)
    saved = tmp_path / "resumed.json"
    with Stalling(answered=_ANSWERED) as server:
        monkeypatch.setenv("AML_BASE_URL", server.url)
        process = memrank_process(
            "run", "aml", str(evaluation), "--concurrency", "3", "--save", str(saved)
        )
        deadline = time.monotonic() + 60
        while server.held < 3:  # every unit in flight waits on a search the endpoint holds
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "three units never waited at once"
            time.sleep(0.01)
        signalled = time.monotonic()
        process.send_signal(how)
        _, stderr = process.communicate(timeout=60)
        took = time.monotonic() - signalled
        server.release.set()
        assert took < 10, f"the run took {took:.1f} s to stop"
        assert process.returncode == 128 + how, stderr
        assert "Traceback" not in stderr
        [record] = all_records()
        assert record.state is RunState.INTERRUPTED
        # every question the endpoint answered made a task that finished, and each one is kept
        assert f"kept {_ANSWERED} of {_TASKS} task(s) in its journal" in stderr, stderr

        before, server.asked, server.answered = server.asked, [], 10**6
        resumed = memrank_cli("run", "aml", str(evaluation), "--resume", record.id)
        assert resumed.returncode == 0, resumed.stderr
        _asked_once(before, server.asked)
        _as_uninterrupted(saved, evaluation, server)


def test_the_resume_keeps_what_a_unit_stopped_part_way_had_and_tells_its_documents_again(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One unit at a time: the unit in flight had finished some of its tasks; the resume
    tells that unit's documents again (a fresh user) and asks only its other questions."""
    evaluation = _evaluation(tmp_path)
    with Stalling(answered=_ASKED + 3) as server:
        monkeypatch.setenv("AML_BASE_URL", server.url)
        process = memrank_process("run", "aml", str(evaluation), "--concurrency", "1")
        deadline = time.monotonic() + 60
        while server.held < 1:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the second unit never waited"
            time.sleep(0.01)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
        server.release.set()
        assert process.returncode == 143, stderr
        assert f"kept {_ASKED + 3} of {_TASKS} task(s)" in stderr, stderr
        [record] = all_records()
        journal = (home / "runs" / record.id / "journal.jsonl").read_bytes()
        assert journal.count(b'\n{"unit"') == 1  # one unit complete, one stopped part way

        before, server.asked, server.answered = server.asked, [], 10**6
        adds = len(server.logged("/add"))
        saved = tmp_path / "resumed.json"
        resumed = memrank_cli(
            "run", "aml", str(evaluation), "--resume", record.id, "--save", str(saved)
        )
        assert resumed.returncode == 0, resumed.stderr
        _asked_once(before, server.asked)
        told_again = {  # the evaluation's units (not the probe's, memrank.runs.probe)
            json.loads(entry.body)["user_id"]
            for entry in server.logged("/add")[adds:]
            if b"my item" in entry.body
        }
        assert len(told_again) == _GROUPS - 1  # the part-done unit and the two not begun
        _as_uninterrupted(saved, evaluation, server)
