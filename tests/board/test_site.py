"""The site as a tree: identical across builds, swapped in whole, compared file by file."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memrank import _forked
from memrank.board import reading, render, site
from memrank.board.files import data_files
from memrank.board.memo import Memo
from memrank.board.model import Board
from memrank.board.site import assemble, differences, write
from memrank.errors import BoardError, OutputUnwritable
from tests.board.conftest import TEMPLATES, built


def test_two_builds_of_the_same_artifacts_are_byte_identical(standard: Path) -> None:
    assert built(standard)[1] == built(standard)[1]


def test_write_replaces_the_whole_previous_site(tmp_path: Path, tree: dict[str, bytes]) -> None:
    out = tmp_path / "site"
    write({"manifest.json": b"{}", "stale/index.html": b"old"}, out)
    write(tree, out)
    assert differences(tree, out) == []
    assert not (out / "stale").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_write_refuses_a_folder_it_did_not_build(tmp_path: Path, tree: dict[str, bytes]) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(BoardError, match="not a built board"):
        write(tree, tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_differences_name_missing_extra_and_changed_files(tmp_path: Path) -> None:
    out = tmp_path / "site"
    write({"manifest.json": b"{}", "a.html": b"a", "b.html": b"b"}, out)
    (out / "c.html").write_text("extra")
    tree = {"manifest.json": b"{}", "a.html": b"A", "d.html": b"d"}
    assert differences(tree, out) == [
        "missing: d.html",
        "not built: b.html",
        "not built: c.html",
        "differs: a.html",
    ]


def test_two_parts_wanting_one_path_is_an_error(board: Board) -> None:
    with pytest.raises(BoardError, match="both want 'static/board.css'"):
        assemble(board, TEMPLATES, {"static/board.css": b"x"})


def test_pages_rendered_in_forked_shares_are_the_pages_one_process_renders(
    standard: Path, tree: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The pages handed out a page at a time to three processes, two of them forked, as a big
    # board's are: what comes back must be byte for byte what one process renders.
    monkeypatch.setattr(render, "PAGES_LEAST", 1)
    monkeypatch.setattr(render, "PAGES_BATCH", 1)
    monkeypatch.setattr(_forked, "cores", lambda: 3)
    shares = _splits_counted(monkeypatch, _forked)
    assert built(standard)[1] == tree
    assert shares == [3]


def test_pair_tests_made_in_a_forked_worker_build_the_site_one_process_builds(
    standard: Path, tree: dict[str, bytes], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The textual track's two columns: the first one's pair tests in a forked worker, the
    # second's here, as a big board's are. The site must be byte for byte one process's.
    monkeypatch.setattr(reading, "PAIRS_APART_LEAST", 1)
    monkeypatch.setattr(_forked, "cores", lambda: 2)
    made_by = tmp_path / "made-by"
    tested = reading._tested

    def recorded(table: Any, kept: Any, memo: Memo) -> tuple[np.ndarray, np.ndarray]:
        with made_by.open("a") as pids:  # a worker's memory does not come back; a file does
            pids.write(f"{table.column.evaluation} {os.getpid()}\n")
        return tested(table, kept, memo)

    monkeypatch.setattr(reading, "_tested", recorded)
    board, again = built(standard)
    assert again == tree
    assert all(page.rows for page in board.evaluations)
    by = dict(line.split() for line in made_by.read_text().splitlines())
    assert len(by) == len({*by.values()}) == 2 and str(os.getpid()) in by.values()


def test_data_files_made_in_a_forked_worker_build_the_site_one_process_builds(
    standard: Path, tree: dict[str, bytes], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The data files made in a forked worker while this process renders the pages, as a big
    # board's are: the site must be byte for byte one process's.
    _apart(monkeypatch, site, "DATA_APART_LEAST")
    made_by = tmp_path / "made-by"

    def recorded(board: Board, memo: Memo) -> dict[str, bytes]:
        made_by.write_text(str(os.getpid()))  # a worker's memory does not come back; a file does
        return data_files(board, memo)

    monkeypatch.setattr(site, "data_files", recorded)
    assert built(standard)[1] == tree
    assert int(made_by.read_text()) != os.getpid()


def test_a_first_build_written_in_forked_shares_is_the_whole_tree(
    tmp_path: Path, tree: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A big board's first build writes its files in two processes: every file, each whole.
    shares = _apart(monkeypatch, site, "WRITE_LEAST")
    write(tree, tmp_path / "site")
    assert shares == [2]
    assert differences(tree, tmp_path / "site") == []


def test_a_share_that_cannot_be_written_fails_the_whole_first_build(
    tmp_path: Path, tree: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The name too long sorts last, so the forked worker's share is the one that fails.
    _apart(monkeypatch, site, "WRITE_LEAST")
    broken = {**tree, "zz/" + "x" * 300: b"x"}
    with pytest.raises(OutputUnwritable, match="File name too long"):
        write(broken, tmp_path / "site")
    assert list(tmp_path.iterdir()) == []


def test_a_rebuild_rewrites_what_changed_in_shares_and_removes_what_it_emptied(
    tmp_path: Path, tree: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    write(tree, out)
    run = next(path for path in tree if path.startswith("runs/") and path.endswith("index.html"))
    folder = run.rpartition("/")[0]
    again = {path: content for path, content in tree.items() if not path.startswith(folder)}
    changed = next(path for path in again if path.endswith(".html") and path != run)
    again[changed] = b"<p>changed</p>"
    again["new/folder/page.html"] = b"<p>new</p>"
    kept = next(path for path in again if path not in (changed, "manifest.json"))
    before = (out / kept).stat().st_mtime_ns
    (out / "left-empty").mkdir()
    shares = _apart(monkeypatch, site, "WRITE_LEAST")
    write(again, out)
    assert differences(again, out) == []
    assert shares == [2]  # the changed page and the new one, a process each
    assert not (out / folder).exists() and not (out / "left-empty").exists()
    assert (out / kept).stat().st_mtime_ns == before  # an unchanged file is left alone


def _apart(monkeypatch: pytest.MonkeyPatch, module: object, least: str) -> list[int]:
    """Two cores, and ``module``'s fewest items per process (``least``) set to 1: whatever it
    can split goes in part to a forked worker. The shares each of its ``split`` calls made."""
    monkeypatch.setattr(module, least, 1)
    monkeypatch.setattr(_forked, "cores", lambda: 2)
    return _splits_counted(monkeypatch, module)


def _splits_counted(monkeypatch: pytest.MonkeyPatch, module: object) -> list[int]:
    """How many shares each call of ``split``, as ``module`` calls it, made (in order)."""
    shares: list[int] = []
    split = _forked.split

    def counted(items: Sequence[object], least: int) -> list[Sequence[object]]:
        made = split(items, least)
        shares.append(len(made))
        return made

    monkeypatch.setattr(module, "split", counted)
    return shares
