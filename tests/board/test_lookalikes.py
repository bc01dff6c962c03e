"""Two signed systems whose names read alike (TR39 confusable skeletons) never share a board:
the one published first keeps its row, the look-alike's runs are listed with both names."""

from __future__ import annotations

from pathlib import Path

import pytest

from memrank._unicode_security import skeleton
from memrank.board.text import visible

from .conftest import Signed, built, named, notes, sign_artifacts, wheel_run


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("BM25Adapter", "BM25Ad\u0430pter"),  # Cyrillic a
        ("memory", "rnemory"),
        ("Il1", "lll"),
    ],
)
def test_names_that_read_alike_share_a_skeleton(one: str, other: str) -> None:
    assert skeleton(one) == skeleton(other)


def test_different_names_keep_different_skeletons() -> None:
    assert skeleton("BM25Adapter") != skeleton("BM26Adapter")
    # the board shows a character that draws nothing as ⟨U+034F⟩: that name reads differently
    assert skeleton(visible("BM25\u034fAdapter")) != skeleton("BM25Adapter")
    assert skeleton("WordOverlapAdapter") != skeleton("NoContextAdapter")


def test_a_look_alike_system_is_listed_naming_both_and_the_first_keeps_its_row(
    tmp_path: Path,
) -> None:
    base = wheel_run("bm25", notes())
    runs = [Signed(base), Signed(named(base, "BM25Ad\u0430pter"))]
    board, tree = built(sign_artifacts(tmp_path / "artifacts", runs))
    rows = [row.system for track in board.tracks for row in track.rows]
    assert rows == ["BM25Adapter"]
    (link,) = board.unlisted
    assert link.system == "BM25Ad\u0430pter"
    assert "reads like 'BM25Adapter'" in link.note and "BM25Ad\u0430pter" in link.note
