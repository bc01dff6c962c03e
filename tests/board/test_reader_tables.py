"""What a reader looks for in the tables: categories in natural order, each with its question
count and every "none" with its reason; and each system's history across versions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memrank.board.model import Board
from memrank.board.reading import _order
from tests.board.conftest import (
    LABELLED_TOML,
    Signed,
    built,
    categorised,
    sign_artifacts,
    wheel_run,
)


def test_numbered_categories_sort_as_numbers_not_as_text() -> None:
    names = ["sessions-10", "sessions-2", "sessions-100", "sessions-1", "sessions-15"]
    assert sorted(names, key=_order) == [
        "sessions-1",
        "sessions-2",
        "sessions-10",
        "sessions-15",
        "sessions-100",
    ]
    assert sorted(["5", "10", "1", "2"], key=_order) == ["1", "2", "5", "10"]


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
