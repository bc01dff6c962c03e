"""The significance matrix draws at most MATRIX_MOST systems, so its size does not grow with the
square of the board's; every pair stays in the pairs files."""

from __future__ import annotations

import re

import pytest

from memrank.board import svg
from memrank.board.model import Board


def test_a_board_larger_than_the_cap_draws_its_first_systems_and_says_so(
    committed_board: tuple[Board, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    board, _ = committed_board
    page = max(board.evaluations, key=lambda e: len(e.rows))
    total = len(page.rows)
    assert total > 6
    whole = svg.matrix(page)
    monkeypatch.setattr(svg, "MATRIX_MOST", 5)
    wide, narrow = svg.matrix(page), svg.matrix(page, narrow=True)
    for drawn in (wide, narrow):
        text = drawn.decode()
        assert f"systems 1 to 5 of {total}" in text.lower()
        rows = {float(y) for y in re.findall(r"M[0-9.]+ ([0-9.]+)h", text)}
        assert len(rows) == 5  # one row of cells per system drawn
    labels = re.findall(r'text-anchor="end">([^<]+)<', wide.decode())
    assert labels == [f"{i + 1}. " + labels[i].split(". ", 1)[1] for i in range(5)]
    assert len(wide) < len(whole)
