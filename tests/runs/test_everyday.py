"""The everyday loop of `memrank run`: the board's headline in every summary, a part of an
evaluation (--limit, --tasks), stopping early (--max-failures) and retrying only the failed
tasks (--retry-failed) against a loopback service that failed them."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import orjson
import pytest

from memrank.artifacts import run_files
from memrank.integrity.record import VERDICT
from memrank.integrity.verdict import disagreement
from memrank.result import Result
from memrank.runs.registry import RunState, all_records
from memrank.systems import WordOverlap
from memrank.wire._service import ContractService
from tests.loopback import Canned, Logged, _Handler, _Loopback
from tests.runs.conftest import memrank_here

_FAILING = ("Alex's job", "favourite animal", "diet does Alex")
"""The demo questions the flaky service fails (3 of its 5 tasks)."""


class Flaky(_Loopback):
    """A real ContractService whose /search answers 400 for three questions until healed."""

    def __init__(self) -> None:
        super().__init__()
        self.service = ContractService(WordOverlap)
        self.healed = threading.Event()

    def answer(self, handler: _Handler, body: bytes) -> None:
        self.record(Logged(handler.command, handler.path, handler.lowered_headers(), body))
        if handler.command == "GET":
            handler.reply(Canned(200, b'{"status":"ok"}'))
            return
        if handler.path == "/search":
            query = json.loads(body).get("query", "")
            if not self.healed.is_set() and any(part in str(query) for part in _FAILING):
                handler.reply(Canned(400, b'{"detail":{"reason":"index is rebuilding"}}'))
                return
        call = self.service.add if handler.path == "/add" else self.service.search
        answer = call(body, handler.lowered_headers())
        handler.reply(Canned(answer.status, answer.body))


def _task_values(result: Result) -> list[tuple[str, str | None, float | None]]:
    return [(v.measure, v.task_id, v.value) for v in result.values if v.task_id is not None]


def test_locomo_smoke_json_headline_is_the_scores_files_budget_recall_mean(
    locomo_file: Path, tmp_path: Path
) -> None:
    saved = tmp_path / "smoke.json"
    outcome = memrank_here("run", "bm25", "locomo:smoke", "--save", str(saved), "--json")
    assert outcome.returncode == 0, outcome.stderr
    shown = json.loads(outcome.stdout)
    scores = orjson.loads(run_files(saved.read_bytes()).scores)
    decided = [v for v in scores["measures"]["evidence-recall@500w"]["values"] if v is not None]
    assert shown["headline"]["measure"] == "evidence-recall@500w"
    assert shown["headline"]["mean"] == pytest.approx(sum(decided) / len(decided))
    [record] = all_records()
    assert record.headline == pytest.approx(shown["headline"]["mean"])
    listed = memrank_here("runs", "ls")
    assert f"{shown['headline']['mean']:.4f}" in listed.stdout
    shown_record = memrank_here("runs", "show", record.id).stdout
    assert f"done:       {shown['tasks']} of {shown['tasks']} task(s)" in shown_record
    assert f"headline:   evidence-recall@500w {record.headline:.4f}" in shown_record


def test_a_locomo_run_fits_one_screen_and_says_each_stage_after_the_last_unit(
    locomo_file: Path, tmp_path: Path
) -> None:
    from memrank.runs.summary import measure_rows
    from tests.runs.conftest import memrank_cli

    saved = tmp_path / "run.json"
    outcome = memrank_cli("run", "bm25", "locomo:smoke", "--save", str(saved))
    assert outcome.returncode == 0, outcome.stderr
    shown = outcome.stdout.splitlines()
    assert len(shown) + len(outcome.stderr.splitlines()) <= 24, outcome.stdout + outcome.stderr
    [record] = all_records()
    assert shown[3].startswith("headline:   evidence-recall@500w 0.")  # after the slice line
    assert "judge" in outcome.stdout and "not judged: no judge configured" in outcome.stdout
    assert f"saved:      {saved}" in shown and f"next:       memrank view {record.id}" in shown[-1]
    stages = [line.split(":")[0] for line in outcome.stderr.splitlines()]
    assert stages == ["run", "loading", "loading", "running", "measuring", "saving"]
    every = memrank_here("run", "bm25", "locomo:smoke", "--values").stdout
    rows = measure_rows(Result.load(saved))
    assert len(rows) > 40 and all(f"\n  {row['measure']} " in every for row in rows)


def test_every_board_column_reads_its_evaluations_declared_headline() -> None:
    import tomllib

    from memrank.catalog import headline_of

    board = tomllib.loads(Path("artifacts/board.toml").read_text())
    columns = [c for track in board["tracks"].values() for c in track.get("columns", [])]
    assert columns
    for column in columns:
        assert headline_of(column["evaluation"]) == column["measure"], column["evaluation"]


def test_limit_runs_the_first_tasks_as_a_slice_that_is_not_publishable(tmp_path: Path) -> None:
    saved = tmp_path / "part.json"
    outcome = memrank_here("run", "word-overlap", "demo", "--limit", "3", "--save", str(saved))
    assert outcome.returncode == 0, outcome.stderr
    result = Result.load(saved)
    assert [t.task.id for t in result.traces] == ["q_job", "q_animal", "q_visit"]
    assert result.evaluation.slice == "limit 3"
    from memrank.runs.review import review

    [record] = all_records()
    reasons = review(record, None, tmp_path / "root.json", None).reasons
    assert "a slice (limit 3) is not a measurement" in reasons


def test_a_sliced_run_is_marked_wherever_it_is_shown() -> None:
    single = memrank_here("run", "word-overlap", "demo", "--limit", "2", "--json")
    assert json.loads(single.stdout)["slice"] == "limit 2"
    whole = memrank_here("run", "word-overlap", "demo", "--json")
    assert json.loads(whole.stdout)["slice"] is None
    by_slice = {record.slice: record for record in all_records()}  # one second: either order
    sliced, full = by_slice["limit 2"], by_slice[None]
    table = memrank_here("runs", "ls").stdout.splitlines()
    columns = {line.split()[0]: line.split()[2:4] for line in table[1:]}
    assert columns == {sliced.id: ["demo", "[limit"], full.id: ["demo", "local"]}
    listed = json.loads(memrank_here("runs", "ls", "--json").stdout)
    assert {row["id"]: row["slice"] for row in listed} == {sliced.id: "limit 2", full.id: None}
    shown = memrank_here("runs", "show", sliced.id).stdout
    assert "slice:      limit 2 (a slice is not a measurement)" in shown
    assert "slice:      -" in memrank_here("runs", "show", full.id).stdout
    pairs = memrank_here("run", "word-overlap,bm25", "demo", "--tasks", "q_job")
    assert pairs.stdout.count("demo [tasks q_job]") == 2, pairs.stdout
    pairs_json = memrank_here("run", "word-overlap,bm25", "demo", "--limit", "1", "--json")
    assert [r["slice"] for r in json.loads(pairs_json.stdout)["runs"]] == ["limit 1"] * 2


def test_tasks_runs_the_tasks_named_and_suggests_a_near_miss(tmp_path: Path) -> None:
    saved = tmp_path / "two.json"
    outcome = memrank_here(
        "run", "word-overlap", "demo", "--tasks", "q_diet,q_job", "--save", str(saved)
    )
    assert outcome.returncode == 0, outcome.stderr
    result = Result.load(saved)
    assert [t.task.id for t in result.traces] == ["q_job", "q_diet"]
    assert result.evaluation.slice == "tasks q_diet,q_job"
    typo = memrank_here("run", "word-overlap", "demo", "--tasks", "q_jobs")
    assert typo.returncode == 2
    assert "no task 'q_jobs'; did you mean 'q_job'?" in typo.stderr


def test_max_failures_stops_early_with_exit_7_and_keeps_the_journal(tmp_path: Path) -> None:
    with Flaky() as server:
        outcome = memrank_here(
            "run",
            "aml",
            "demo",
            "--option",
            f"base_url={server.url}",
            "--option",
            "attempts=1",
            "--max-failures",
            "1",
        )
    assert outcome.returncode == 7, outcome.stderr
    assert "more than --max-failures 1 allows (1)" in outcome.stderr
    assert "--max-failures 1 --resume" in outcome.stderr
    [record] = all_records()
    assert record.state is RunState.FAILED and record.exit_code == 7


def test_retry_failed_reruns_only_the_failed_tasks_into_a_complete_result(
    tmp_path: Path, home: Path
) -> None:
    first, retried = tmp_path / "first.json", tmp_path / "retried.json"
    with Flaky() as server:
        base = (
            "run",
            "aml",
            "demo",
            "--option",
            f"base_url={server.url}",
            "--option",
            "attempts=1",
        )
        failing = memrank_here(*base, "--save", str(first))
        assert failing.returncode == 7, failing.stderr
        assert len(Result.load(first).failed) == 3
        [record] = all_records()
        server.healed.set()
        searched = len(server.logged("/search"))
        read = home / "runs" / record.id / "result.json"  # what the retry reads: never written
        kept = read.read_bytes()
        refused = memrank_here(*base, "--retry-failed", record.id, "--save", str(read))
        assert refused.returncode == 2 and f"is the result of run {record.id}" in refused.stderr
        assert read.read_bytes() == kept and len(server.logged("/search")) == searched
        again = memrank_here(*base, "--retry-failed", record.id, "--save", str(retried))
        assert again.returncode == 0, again.stderr
        # only the failed tasks asked: the first run's canaries stand for the retry
        assert len(server.logged("/search")) - searched == 3
        with Flaky() as clean_server:
            clean_server.healed.set()
            clean = tmp_path / "clean.json"
            whole = ("run", "aml", "demo", "--option", f"base_url={clean_server.url}")
            assert memrank_here(*whole, "--save", str(clean)).returncode == 0
    result = Result.load(retried)
    assert not result.failed and len(result.traces) == 5
    assert result.evaluation.slice is None
    assert _task_values(result) == _task_values(Result.load(clean))
    failure_rate = [v.value for v in result.values if v.measure == "failure-rate"]
    assert failure_rate == [0.0]
    # the verdict is read again over the merged run, against the first run's canaries and secret
    earlier = Result.load(first).integrity
    assert result.integrity is not None and earlier is not None
    assert result.integrity.secret == earlier.secret
    assert result.integrity.traces == earlier.traces
    assert [v.value for v in result.values if v.measure == VERDICT] == [0.0]
    assert disagreement(result) is None


@pytest.mark.parametrize(
    "args",
    [
        ("word-overlap", "demo", "--option", "bogus=1"),
        ("aml", "demo", "--on", "local"),
        ("word-overlap", "nodemo"),
        ("word-overlp", "demo"),
    ],
)
def test_submit_refuses_what_run_refuses_and_usage_errors_leave_no_record(
    args: tuple[str, ...],
) -> None:
    submitted = memrank_here("submit", *args)
    assert submitted.returncode == 2, submitted.stdout
    assert memrank_here("run", *args).returncode == 2
    assert memrank_here("run", "word-overlap", "demo", "--tasks", "nope").returncode == 2
    assert all_records() == []


def test_a_second_run_saving_to_the_path_a_running_run_saves_to_is_refused(
    tmp_path: Path,
) -> None:
    import os

    from memrank.runs.registry import save_record
    from memrank.runs.request import Request, new_record

    saved = tmp_path / "shared.json"
    running = new_record(Request("bm25", "locomo")).model_copy(
        update={"pid": os.getpid(), "saved": str(saved)}
    )
    save_record(running)
    outcome = memrank_here("run", "word-overlap", "demo", "--save", str(saved))
    assert outcome.returncode == 2
    assert f"run {running.id} (still running) saves its result there" in outcome.stderr
    assert not saved.exists() and [r.id for r in all_records()] == [running.id]


def test_a_save_path_spelled_another_way_is_still_the_path_a_running_run_saves_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from memrank.runs.registry import save_record
    from memrank.runs.request import Request, new_record

    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    running = new_record(Request("bm25", "locomo")).model_copy(
        update={"pid": os.getpid(), "saved": str((tmp_path / "same.json").resolve())}
    )
    save_record(running)
    outcome = memrank_here("run", "word-overlap", "demo", "--save", "./sub/../same.json")
    assert outcome.returncode == 2, outcome.stdout
    assert f"run {running.id} (still running) saves its result there" in outcome.stderr
    assert [r.id for r in all_records()] == [running.id]


class Slow(Flaky):
    """The service, healed, answering each search a little late (so a signal lands mid-run)."""

    def __init__(self) -> None:
        super().__init__()
        self.healed.set()

    def answer(self, handler: _Handler, body: bytes) -> None:
        if handler.path == "/search":
            import time

            time.sleep(0.3)
        super().answer(handler, body)


def test_sighup_stops_a_run_as_ctrl_c_does_and_says_how_to_resume() -> None:
    import signal
    import time

    from tests.runs.conftest import memrank_process

    with Slow() as server:
        process = memrank_process(
            "run", "aml", "demo", "--option", f"base_url={server.url}", "--limit", "5"
        )
        deadline = time.monotonic() + 60
        while not server.logged("/search"):
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.01)
        process.send_signal(signal.SIGHUP)
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == 129, stderr
    [record] = all_records()
    assert record.state is RunState.INTERRUPTED and record.exit_code == 129
    kept = re.search(rf"SIGHUP: run {record.id} kept (\d+) of 5 task\(s\) in its journal", stderr)
    assert kept, stderr  # each task whose search was answered before the signal, and no more
    assert int(kept[1]) <= len(server.logged("/search"))
    assert f"--limit 5 --resume {record.id}" in stderr and "Traceback" not in stderr
