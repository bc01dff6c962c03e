"""Registry housekeeping: runs ls filters and --json, a corrupt record listed as corrupt, long
names cut in the table, runs rm and runs prune."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from memrank._basics import now_utc
from memrank.runs.registry import RunRecord, RunState, all_records, run_folder, save_record
from tests.runs.conftest import memrank_cli, memrank_here


def _record(name: str, state: RunState, *, days_old: int = 0, target: str = "bm25") -> RunRecord:
    return save_record(
        RunRecord(
            id=f"2026010{days_old}-000000__{name}__000000",
            target=target,
            evaluation=name,
            state=state,
            created=now_utc() - timedelta(days=days_old),
        )
    )


def test_ls_filters_prints_json_lists_corrupt_records_and_cuts_long_names(home: Path) -> None:
    _record("demo", RunState.DONE)
    _record("locomo", RunState.INTERRUPTED, target="x" * 100_000)
    broken = run_folder("20260103-000000__demo__badbad")
    broken.mkdir(parents=True)
    (broken / "record.json").write_text("{not json")

    table = memrank_here("runs", "ls")
    assert table.returncode == 0
    assert max(len(line) for line in table.stdout.splitlines()) < 200
    assert "x" * 31 + "…" in table.stdout
    assert "20260103-000000__demo__badbad" in table.stdout and "corrupt" in table.stdout

    done = json.loads(memrank_here("runs", "ls", "--state", "done", "--json").stdout)
    assert [r["evaluation"] for r in done] == ["demo"]
    assert done[0]["headline"] == {"measure": None, "mean": None}
    by_system = json.loads(memrank_here("runs", "ls", "--system", "bm25", "--json").stdout)
    assert [r["evaluation"] for r in by_system] == ["demo"]
    corrupt = json.loads(memrank_here("runs", "ls", "--state", "corrupt", "--json").stdout)
    assert [r["id"] for r in corrupt] == ["20260103-000000__demo__badbad"]


def test_rm_and_prune_remove_what_they_name_and_never_a_running_run(home: Path) -> None:
    old = _record("demo", RunState.DONE, days_old=9)
    stopped = _record("locomo", RunState.INTERRUPTED, days_old=8)
    young = _record("beam", RunState.DONE)
    running = _record("memorycode", RunState.RUNNING, days_old=7)

    dry = memrank_here("runs", "prune", "--older-than", "2d", "--dry-run")
    assert dry.stdout.splitlines() == [f"would remove {stopped.id}", f"would remove {old.id}"]
    assert len(all_records()) == 4

    pruned = memrank_here("runs", "prune", "--older-than", "2d", "--state", "done")
    assert pruned.stdout.strip() == f"removed {old.id}"
    assert not run_folder(old.id).exists()

    refused = memrank_here("runs", "rm", running.id)
    assert refused.returncode == 2 and "kill" in refused.stderr
    removed = memrank_here("runs", "rm", stopped.id, young.id)
    assert removed.returncode == 0, removed.stderr
    assert [r.id for r in all_records()] == [running.id]
    assert memrank_here("runs", "prune").returncode == 2
    assert memrank_here("runs", "prune", "--older-than", "soon").returncode == 2


@pytest.mark.parametrize("age", ["1000000000d", "999999999d", "99999999999999999999999999m"])
def test_prune_refuses_an_age_beyond_the_calendar_in_one_line(home: Path, age: str) -> None:
    kept = _record("demo", RunState.DONE, days_old=9)
    outcome = memrank_cli("runs", "prune", "--older-than", age)
    assert outcome.returncode == 2, outcome.stderr
    assert outcome.stderr.startswith(f"Error: --older-than {age!r}")
    assert len(outcome.stderr.splitlines()) == 1 and "Traceback" not in outcome.stderr
    assert [r.id for r in all_records()] == [kept.id]


def test_a_damaged_record_and_a_folder_without_one_are_listed_and_removed(home: Path) -> None:
    kept = _record("demo", RunState.DONE)
    damaged = run_folder("20260104-000000__demo__badbad")
    damaged.mkdir(parents=True)
    (damaged / "record.json").write_text('{"id": "20260104-000000__demo__badbad", "state": "runn')
    bare = run_folder("20260105-000000__locomo__0a0a0a")
    bare.mkdir(parents=True)
    (bare / "journal.jsonl").write_text("")

    listed = json.loads(memrank_here("runs", "ls", "--state", "corrupt", "--json").stdout)
    assert [(r["id"], r["state"]) for r in listed] == [
        (damaged.name, "corrupt"),
        (bare.name, "corrupt"),
    ]
    assert "no record.json" in listed[1]["error"]
    table = memrank_here("runs", "ls").stdout
    assert damaged.name in table and bare.name in table

    shown = memrank_here("runs", "show", damaged.name)
    assert shown.returncode == 2 and f"memrank runs rm {damaged.name}" in shown.stderr
    removed = memrank_here("runs", "rm", damaged.name, "20260105")
    assert removed.returncode == 0, removed.stderr
    assert removed.stdout.splitlines() == [f"removed {damaged.name}", f"removed {bare.name}"]
    assert not damaged.exists() and not bare.exists()
    assert [r.id for r in all_records()] == [kept.id]


def test_a_run_recorded_running_with_no_process_can_be_killed_then_removed(home: Path) -> None:
    """What a run set left behind before its pairs were checked first: running, no process."""
    stuck = _record("demo", RunState.RUNNING)
    assert memrank_here("runs", "rm", stuck.id).returncode == 2  # as far as anyone knows, running
    killed = memrank_here("kill", stuck.id)
    assert killed.returncode == 0, killed.stderr
    assert all_records()[0].state is RunState.KILLED
    assert memrank_here("runs", "rm", stuck.id).returncode == 0 and all_records() == []
