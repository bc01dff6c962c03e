"""The site: verified runs made into a Board in memory, then its files made and written, or
compared with a folder, as they are made (``memrank.board.folder``).

The Board is made whole before any file is: a build whose artifacts, board.toml or docs fail
writes nothing. The files are then made in parts, heaviest first, in as many processes as
the board is worth, each process writing what it makes; a part that fails (a theme's template
in error, a full disk) leaves the previous site as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from memrank._collector import collector_paused
from memrank._forked import meanwhile
from memrank._skeleton import skeleton
from memrank.artifacts import Refusal
from memrank.board.build import build_board, source_date
from memrank.board.docs import render_docs
from memrank.board.files import data_parts, manifest
from memrank.board.folder import Files, Part
from memrank.board.load import load
from memrank.board.memo import NO_MEMO, Memo
from memrank.board.model import Board, DocPage
from memrank.board.pages import downloads
from memrank.board.render import DEFAULT_TEMPLATES, compile_theme, page_parts, static_files

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
    """Verify the artifacts and build the Board of those that verify, its site's files to be
    made with ``templates`` (None: the default theme inside the package). With a ``memo``,
    what an earlier build made of the same verified inputs is taken from it
    (``memrank.board.memo``); the site is byte for byte the one a build without it makes.

    The parsed result files are dropped on return: the Board keeps only what it shows.
    """
    from memrank.board._compiled import COMPILED_IN_THIS_PROCESS

    templates = templates or DEFAULT_TEMPLATES
    with collector_paused():
        # The docs pages and the theme's compiled templates need no artifact: a worker forked
        # now makes them once the verifying leaves it a core, when this process's share is
        # done and the other shares are still sent back (a quarter of a second of one core,
        # which, taken while every core verifies, slowed the verifying by more).
        with meanwhile(partial(_ahead, docs, templates, memo), held=True) as ahead:
            loaded = load(artifacts, memo, spare=partial(_spared, ahead.start))
            docs_pages, compiled = ahead()
        COMPILED_IN_THIS_PROCESS.keep(compiled)
        runs = loaded.verification.runs
        board = build_board(
            loaded.config,
            runs,
            loaded.trust,
            docs_pages,
            source_date(),
            loaded.identities,
            memo,
            roots=loaded.roots,
            stored=loaded.stored,
            field=loaded.field,
        )
    files = site_files(board, templates, downloads(runs), memo)
    return Made(board, files, len(runs), loaded.verification.refusals)


def _spared(start_ahead: Callable[[], None]) -> None:
    """The work the verifying's idle core takes: the docs and theme worker, and here the table
    of confusable characters that the look-alike check reads first (30-40 ms at its first use,
    which was in the Board's making, with the other core idle until the pair tests start)."""
    start_ahead()
    skeleton("")


def _ahead(docs: Path, templates: Path, memo: Memo) -> tuple[tuple[DocPage, ...], dict[str, bytes]]:
    """The docs pages, and the theme compiled (``compile_theme``)."""
    return render_docs(docs, memo), compile_theme(templates, memo)


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
