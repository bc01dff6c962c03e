"""What a reader looks for in the tables: categories in natural order, each with its question
count and every "none" with its reason (said once, below the table); each system's history
across versions; and two versions of one system told apart wherever they are listed."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest

from memrank.board.config import load
from memrank.board.model import Board
from memrank.board.text import category_order
from memrank.evaluations.mem_gallery import TYPES
from tests.board.conftest import (
    LABELLED_TOML,
    REPOSITORY,
    Signed,
    built,
    categorised,
    sign_artifacts,
    wheel_run,
)


def test_numbered_categories_sort_as_numbers_not_as_text() -> None:
    names = ["sessions-10", "sessions-2", "sessions-100", "sessions-1", "sessions-15"]
    assert sorted(names, key=category_order) == [
        "sessions-1",
        "sessions-2",
        "sessions-10",
        "sessions-15",
        "sessions-100",
    ]
    assert sorted(["5", "10", "1", "2"], key=category_order) == ["1", "2", "5", "10"]


@pytest.fixture(scope="module")
def board_and_tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Board, dict[str, bytes]]:
    evaluation = categorised()
    runs = [Signed(wheel_run(name, evaluation)) for name in ("word-overlap", "no-context")]
    folder: Path = tmp_path_factory.mktemp("categories")
    return built(sign_artifacts(folder / "artifacts", runs, LABELLED_TOML))


def test_every_per_category_table_says_how_many_questions_each_category_holds(
    board_and_tree: tuple[Board, dict[str, bytes]],
) -> None:
    board, tree = board_and_tree
    page = next(p for p in board.evaluations if p.categories)
    assert page.category_tasks == (10, 10, 10)
    html = tree[page.path].decode()
    for count in page.category_tasks:
        assert f"{count} questions" in html
    run = next(r for r in board.runs if r.categories)
    rows = [(row.tasks, row.of) for row in run.categories]
    assert [of for _, of in rows] == list(page.category_tasks)
    shown = tree[run.path].decode().partition('id="categories-heading"')[2]
    assert len(re.findall(r"<td class=\"number\">\d+ of \d+</td>", shown)) == 3


def test_the_run_page_s_question_counts_are_in_natural_order_with_their_labels(
    board_and_tree: tuple[Board, dict[str, bytes]],
) -> None:
    board, tree = board_and_tree
    run = next(r for r in board.runs if r.categories)
    assert run.questions == (("1", "single fact", 10), ("2", "colour words", 10), ("3", "", 10))
    table = tree[run.path].decode().partition("Questions per category")[2].partition("</table>")[0]
    assert re.findall(r"<bdi>(\d)</bdi>", table) == ["1", "2", "3"]
    assert '<span class="column-note">single fact</span>' in table


def test_every_committed_column_with_categories_names_each_of_them() -> None:
    """The board's own board.toml expands every category code a committed column shows:
    LoCoMo's numbers, Mem-Gallery's question types (the paper's, as memrank's evaluation
    gives them) and MemoryCode's dialogue lengths."""
    config = load(REPOSITORY / "artifacts" / "board.toml")
    columns = {c.evaluation: c for track in config.tracks.values() for c in track.columns}
    assert columns["mem-gallery"].categories == TYPES
    sizes = (1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50, 100)
    assert list(columns["memorycode"].categories) == [f"sessions-{n}" for n in sizes]
    assert columns["memorycode"].categories["sessions-10"] == "dialogues of 10 sessions"
    assert set(columns["locomo"].categories) == {"1", "2", "3", "4", "5"}


def test_a_category_nothing_was_decided_in_says_why(
    committed_board: tuple[Board, dict[str, bytes]],
) -> None:
    """Mem-Gallery's AR questions (answer refusal) name no evidence: every system's AR cell is
    none, with the reason its signed scores give, on the evaluation page and the run pages."""
    board, tree = committed_board
    page = next(p for p in board.evaluations if p.column.evaluation == "mem-gallery")
    at = [name for name, _ in page.categories].index("AR")
    reason = "an abstention task: the material holds no evidence for it"
    for cells in page.by_category:
        cell = cells[at]
        assert cell is not None and cell.value.value is None
        assert cell.value.why == f"none of its 184 task values could be decided: {reason}"
    # said once, below the table: each cell holds "none" and the mark that points at it
    html = tree[page.path].decode()
    assert html.count(reason) == 1
    (mark,) = set(re.findall(r'none <a class="why-mark" href="#categories-why-(\d+)">', html))
    assert f'<li id="categories-why-{mark}"><bdi>none of its 184' in html
    run = next(r for r in board.runs if r.evaluation_path == page.path)
    (ar,) = [row for row in run.categories if row.category == "AR"]
    assert ar.cell is None and ar.why.endswith(reason)
    section = tree[run.path].decode().partition('id="categories-heading"')[2]
    assert section.partition("</section>")[0].count(reason) == 1


def test_a_system_s_history_lists_every_published_run_of_it(
    board_and_tree: tuple[Board, dict[str, bytes]],
) -> None:
    board, tree = board_and_tree
    assert {h.system for h in board.histories} == {"WordOverlapAdapter", "NoContextAdapter"}
    history = next(h for h in board.histories if h.system == "WordOverlapAdapter")
    runs = [r for r in board.runs if r.predicate.system.name == "WordOverlapAdapter"]
    assert [e.link.path for e in history.entries] == [r.path for r in runs]
    page = tree[history.path].decode()
    assert all(f"{e.headline.value.value:.3f}" in page for e in history.entries if e.headline)
    assert 'href="../../systems/' in tree[runs[0].path].decode()


def test_two_versions_of_one_system_are_told_apart_in_every_list_of_them(
    tmp_path: Path,
) -> None:
    """Two versions of BM25 tie on the notes column: the run page's list of ties, the per-category
    table and the compare-two picker each name the other's version, not "BM25" twice."""
    base = wheel_run("bm25", categorised())
    other = base.model_copy(
        update={
            "system": base.system.model_copy(update={"version": "3"}),
            "started": base.started - timedelta(seconds=1),  # another run id
        }
    )
    board, tree = built(sign_artifacts(tmp_path / "artifacts", [Signed(base), Signed(other)]))
    page = next(p for p in board.evaluations if p.column.evaluation == "notes")
    assert sorted(link.version_shown for link in page.rows) == ["2", "3"]
    html = tree[page.path].decode()
    for version in ("2", "3"):
        assert f">BM25Adapter {version}</option>" in html
        assert f'<span class="system-version"><bdi>{version}</bdi></span>' in html
    for run in board.runs:
        (tied,) = run.comparisons
        theirs = "3" if run.predicate.system.version == "2" else "2"
        assert tied.verdict == "tie" and tied.other.version_shown == theirs
        rows = tree[run.path].decode().partition('id="comparisons-heading"')[2]
        assert f'BM25Adapter</bdi></a> <span class="system-version"><bdi>{theirs}</bdi>' in rows
