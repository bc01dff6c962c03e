"""A run of your own evaluation file: --save never overwrites it, its record names the file by
its absolute path (the resume command works from any folder), and every summary shows the
headline the file format declares."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from memrank.runs.registry import RunState, all_records, save_record
from tests.runs.conftest import memrank_here

EXAMPLE = Path(__file__).parents[2] / "examples" / "own-evaluation" / "my-eval.jsonl"


@pytest.fixture
def own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example evaluation file, copied into a folder the test works in."""
    folder = tmp_path / "work"
    (folder / "sub").mkdir(parents=True)
    path = Path(shutil.copy(EXAMPLE, folder / "own.jsonl"))
    monkeypatch.chdir(folder)
    return path


@pytest.mark.parametrize("save", ["./own.jsonl", "sub/../own.jsonl", "own.jsonl"])
def test_save_naming_the_evaluation_file_is_refused_and_the_file_is_kept(
    own: Path, save: str
) -> None:
    before = own.read_bytes()
    outcome = memrank_here("run", "bm25", "./own.jsonl", "--save", save)
    assert outcome.returncode == 2, outcome.stdout
    assert outcome.stderr.startswith("Error: --save ")
    assert ": is the evaluation file this run reads; give another path" in outcome.stderr
    assert len(outcome.stderr.splitlines()) == 1
    assert own.read_bytes() == before and all_records() == []


def test_the_record_names_the_file_absolutely_and_resumes_from_another_folder(
    own: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert memrank_here("run", "bm25", "./own.jsonl", "--limit", "2").returncode == 0
    [record] = all_records()
    assert record.evaluation == str(own.resolve())
    # stopped as Ctrl-C would have stopped it, then resumed from somewhere else entirely
    save_record(record.model_copy(update={"state": RunState.INTERRUPTED}))
    shown = memrank_here("runs", "show", record.id).stdout
    resume = next(line for line in shown.splitlines() if line.startswith("resume:"))
    monkeypatch.chdir(own.parent / "sub")
    again = memrank_here(*shlex.split(resume.removeprefix("resume:").strip())[1:])
    assert again.returncode == 0, again.stderr
    [done] = all_records()
    assert done.id == record.id and done.state is RunState.DONE and done.tasks == 2


@pytest.mark.parametrize("name", ["own.jsonl", "locomo.jsonl"])
def test_run_runs_ls_and_view_show_one_headline_for_an_own_file_run(
    own: Path, tmp_path: Path, name: str
) -> None:
    """The format's headline, evidence-recall@10, whatever the file is called (a file named
    like a shipped evaluation is still a file)."""
    own.rename(own.with_name(name))
    saved = own.parent / "run.json"
    outcome = memrank_here("run", "bm25", name, "--save", str(saved), "--json")
    assert json.loads(outcome.stdout)["headline"]["measure"] == "evidence-recall@10"
    listed = json.loads(memrank_here("runs", "ls", "--json").stdout)
    assert [row["headline"]["measure"] for row in listed] == ["evidence-recall@10"]
    for source in (str(saved), listed[0]["id"]):
        out = tmp_path / "view" / str(len(source))
        assert memrank_here("view", source, "--out", str(out)).returncode == 0
        shown = re.search(r'id="headline">(?:<bdi>)?([^<\s]+)', (out / "index.html").read_text())
        assert shown and shown[1] == "evidence-recall@10", source
