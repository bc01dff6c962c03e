"""build-site as named stages, each a function of the value the one before returns:

    load        artifacts/ -> Inputs           board.toml, the trust root, systems, store, field
    verify      Inputs -> Verification         every envelope verified; the refused kept aside
    place       Verification -> Placed         which row and column shows each run, and why not
    read        Placed -> columns              each column's cells, comparisons, evaluation page
    assemble    columns -> Board               rows, tracks, run pages, history (+ docs pages)
    render      Board -> Files                 every file of the site, still to be made
    write       Files -> site/                 by the command line (memrank.board.folder)

The Board is made whole before any file is: a build whose artifacts, board.toml or docs fail
writes nothing. The files are then made in parts, heaviest first, in as many processes as the
board is worth, each process writing what it makes; a part that fails (a theme's template in
error, a full disk) leaves the previous site as it was. A memo (``memrank.board.memo``) gives
back what an earlier build made of the same verified bytes: verified scores files, column
readings, pages; the site is byte for byte the one a build without it makes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from memrank._collector import collector_paused
from memrank.artifacts import Refusal
from memrank.board.build import assemble, source_date
from memrank.board.columns import columns_of
from memrank.board.docs import render_docs
from memrank.board.files import data_parts, manifest
from memrank.board.folder import Files, Part
from memrank.board.load import load
from memrank.board.memo import NO_MEMO, Memo
from memrank.board.model import Board
from memrank.board.pages import downloads
from memrank.board.render import DEFAULT_TEMPLATES, page_parts, static_files
from memrank.board.rows import place
from memrank.board.verify import verify_runs

__all__ = ["Made", "make", "site_files"]


@dataclass(frozen=True)
class Made:
    """A build in memory: the Board, every file of its site still to make, and what was
    refused."""

    board: Board
    files: Files
    verified: int
    """How many artifacts verified."""
    refusals: tuple[Refusal, ...]
    """Every artifact the verifier refused, with its reason; none of them is in ``files``."""


def make(artifacts: Path, templates: Path | None, docs: Path, memo: Memo = NO_MEMO) -> Made:
    """The stages from ``artifacts`` to the site's files, made with ``templates`` (None: the
    default theme inside the package) and the Markdown pages in ``docs``.

    The parsed result files are dropped on return: the Board keeps only what it shows.
    """
    # Everything a build reads stays alive to its end: the cyclic collector would walk it
    # again and again for nothing.
    with collector_paused():
        inputs = load(artifacts)
        verification = verify_runs(artifacts, inputs, memo)
        placed = place(inputs, verification.runs)
        columns = columns_of(placed, memo)
        board = assemble(inputs, placed, columns, render_docs(docs, memo), source_date())
    files = site_files(board, templates or DEFAULT_TEMPLATES, downloads(placed.runs), memo)
    return Made(board, files, len(placed.runs) + len(placed.refused), verification.refusals)


def site_files(
    board: Board, templates: Path, downloads: Mapping[str, Path], memo: Memo = NO_MEMO
) -> Files:
    """Every file of the site: pages, data files, the downloads (each a copy of its file, by
    its path on the site), static assets, and last the manifest of all of them."""
    # Each evaluation's data and the pages that see the whole board (a tenth of a second
    # each at 1,000 runs) first, so that no process is left with one of them at the end.
    parts: list[Part] = [
        *data_parts(board, memo),
        *page_parts(board, templates, memo),
        *(partial(_copied, path, source) for path, source in downloads.items()),
        partial(static_files, templates),
    ]
    return Files(parts, partial(manifest, board))


def _copied(path: str, source: Path) -> dict[str, bytes]:
    return {path: source.read_bytes()}
