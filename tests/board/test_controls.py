"""Control arms read as controls: listed apart from the systems on the home page and the track
page (and kept apart by sorting and filtering), marked where they are listed, and a value a
reader would take for a bug said with its reason: full-context reads 0 at a word budget,
because one document of a whole conversation does not fit it."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from memrank import Evaluation
from memrank.board.folder import write
from memrank.board.model import Board
from memrank.board.notes import budget_note
from memrank.budget import Budget
from memrank.measure import Decider, Value
from memrank.measures import (
    EvidenceMeans,
    EvidenceRecall,
    EvidenceTurn,
    RecalledWords,
    SessionRecall,
    evidence_metadata,
)
from memrank.measures.budget import held_to
from tests.board.conftest import (
    Signed,
    browse,
    built,
    files_of,
    notes,
    serve,
    sign_artifacts,
    wheel_run,
)

BOARD_TOML = """
[site]
title = "memrank board"
description = "Signed runs of memory systems."
base_url = "https://example.org/board/"

[tracks.textual]
title = "Textual memory"
description = "Conversation memory."

[[tracks.textual.columns]]
evaluation = "budgeted"
version = "budgeted@v1"
title = "Notes within 10 words"
measure = "evidence-recall@10w"
direction = "higher"
"""

SYSTEMS_TOML = """
[systems.FullContextAdapter]
display_name = "Full context (control)"
organisation = "memrank (control arm)"
description = "Recalls everything the unit was told, as one document."
control = true

[systems.NoContextAdapter]
display_name = "No context (control)"
organisation = "memrank (control arm)"
description = "Recalls nothing: the no-memory floor."
control = true

[systems.WordOverlapAdapter]
display_name = "Word overlap"

[systems.BM25Adapter]
display_name = "BM25"
"""


def budgeted() -> Evaluation:
    """notes held to 10 words: each note is five words, each conversation's five notes 25, so
    full-context's one document never fits and reads 0, though it recalls every note at k."""
    tasks = tuple(
        task.model_copy(
            update={
                "metadata": evidence_metadata(
                    [EvidenceTurn(id=d.id, session=task.group or "", text=d.content)]
                )
            }
        )
        for task in notes().tasks
        for d in task.context
    )
    base = notes().model_copy(
        update={
            "name": "budgeted",
            "version": "budgeted@v1",
            "tasks": tasks,
            "measures": (EvidenceRecall(), SessionRecall(), RecalledWords(), EvidenceMeans()),
        }
    )
    return held_to(base, Budget.words(10))


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Board, dict[str, bytes], Path]:
    evaluation = budgeted()
    runs = [
        Signed(wheel_run(name, evaluation))
        for name in ("full-context", "no-context", "word-overlap", "bm25")
    ]
    folder = tmp_path_factory.mktemp("controls")
    artifacts = sign_artifacts(folder / "artifacts", runs, BOARD_TOML)
    (artifacts / "systems.toml").write_text(SYSTEMS_TOML)
    board, tree = built(artifacts)
    return board, tree, folder


def test_controls_are_listed_apart_and_still_ranked_with_the_systems(
    made: tuple[Board, dict[str, bytes], Path],
) -> None:
    board, tree, _ = made
    (track,) = board.tracks
    assert [r.system for r in track.systems] == ["BM25Adapter", "WordOverlapAdapter"]
    assert [r.system for r in track.controls] == ["FullContextAdapter", "NoContextAdapter"]
    # A rank counts every row significantly better, controls included: the table is ranked
    # as one, and only shown in two groups.
    assert all(row.rank is not None and row.rank.of == 4 for row in track.rows)
    for path in ("textual/index.html", "index.html"):
        page = tree[path].decode()
        systems, _, rest = page.partition('<tbody class="controls">')
        controls = rest.partition("</tbody>")[0]
        assert "Word overlap" in systems and "Full context (control)" not in systems, path
        assert "Full context (control)" in controls and "No context (control)" in controls, path
        assert "Control arms, not systems" in controls, path
        assert controls.count('<span class="badge control">control arm</span>') == 2, path
    assert "Recalls nothing: the no-memory floor." in tree["textual/index.html"].decode()
    data = json.loads(tree["textual/results.json"])
    assert {r["system"]: r["control"] for r in data["rows"]}["NoContextAdapter"] is True
    rows = list(csv.DictReader(io.StringIO(tree["textual/results.csv"].decode())))
    assert {r["system"]: r["control"] for r in rows}["BM25Adapter"] == "no"


def test_full_context_at_a_budget_reads_zero_with_the_reason(
    made: tuple[Board, dict[str, bytes], Path],
) -> None:
    board, tree, _ = made
    (track,) = board.tracks
    full = next(r for r in track.rows if r.system == "FullContextAdapter")
    cell = full.cells[0]
    assert cell is not None and cell.value.value == 0.0
    assert cell.note.startswith("0 within 10 words, yet evidence-recall@5 is 1.000 on the same run")
    assert "never splits one" in cell.note
    # The floor reads 0 because it recalls nothing: no note, its description says so.
    none = next(r for r in track.rows if r.system == "NoContextAdapter")
    assert none.cells[0] is not None and none.cells[0].note == ""
    assert all(c.note == "" for r in track.systems for c in r.cells if c is not None)
    run = next(r for r in board.runs if r.path == cell.run)
    assert run.headline is not None and run.headline.note == cell.note
    for path in (track.path, run.path, board.evaluations[0].path):
        assert cell.note in tree[path].decode(), path
    assert "A control arm, not a system" in tree[run.path].decode()


def test_the_budget_note_says_only_what_the_run_signed() -> None:
    def mean(name: str, value: float) -> Value:
        return Value(measure=name, decider=Decider.RULE, value=value, why="mean")

    summary = [mean("evidence-recall@5.mean", 1.0), mean("evidence-recall@10.mean", 1.0)]
    assert "evidence-recall@5 is 1.000" in budget_note("evidence-recall@500w", 0.0, summary)
    assert budget_note("evidence-recall@500w", 0.1, summary) == ""  # not 0: nothing to explain
    assert budget_note("evidence-recall@10", 0.0, summary) == ""  # not a budget reading
    empty = [mean("evidence-recall@5.mean", 0.0)]
    assert budget_note("evidence-recall@500w", 0.0, empty) == ""  # it recalls nothing at k
    assert "2000 tokens" in budget_note("evidence-recall@2000t", 0.0, summary)


def test_the_committed_board_explains_full_context_s_zero_on_locomo(
    committed_board: tuple[Board, dict[str, bytes]],
) -> None:
    board, _ = committed_board
    for track in board.tracks:
        assert track.controls and all(
            "(control)" in r.identity.display_name for r in track.controls
        )  # type: ignore[union-attr]
        assert not any(r.control for r in track.systems)
    textual = next(t for t in board.tracks if t.name == "textual")
    full = next(r for r in textual.rows if r.system == "FullContextAdapter")
    cell = full.cells[textual.ranking_index or 0]
    assert cell is not None and cell.value.value == 0.0
    assert cell.note.startswith("0 within 500 words, yet evidence-recall@5 is 1.000")


@pytest.fixture(scope="module")
def site(made: tuple[Board, dict[str, bytes], Path]) -> Iterator[str]:
    _, tree, folder = made
    write(files_of(tree), folder / "served" / "board")
    with serve(folder / "served") as base:
        yield base + "board/"


def test_sorting_and_filtering_keep_the_controls_apart(chromium: Browser, site: str) -> None:
    def names(group: str) -> list[str]:
        return page.locator(f"#board {group} tr:visible .system-name").all_text_contents()

    with browse(chromium) as watched:
        page = watched.page
        page.goto(site + "textual/index.html")
        assert names("tbody:not(.controls)") == ["BM25", "Word overlap"]
        # The floor is the fastest row of all, yet sorting by latency keeps it with the controls.
        page.locator("th[data-key=latency]").get_by_role("button").click()
        every = page.locator("#board tbody tr:visible .system-name").all_text_contents()
        assert set(every[:2]) == {"BM25", "Word overlap"}
        assert set(every[2:]) == {"Full context (control)", "No context (control)"}
        heading = page.locator("#board tr.group-heading")
        assert heading.is_visible()
        page.get_by_label("Search").fill("word")
        assert heading.is_hidden() and names("tbody.controls") == []
        page.get_by_label("Search").fill("context")
        assert heading.is_visible() and len(names("tbody.controls")) == 2
    assert watched.problems == []
