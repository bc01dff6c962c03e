"""The site as a tree of files: made from verified runs in memory, then written, or
compared with a folder.

The whole tree is made before anything is written, so a build that fails leaves the previous
site as it was. A first build writes a sibling folder (a large one in shares, one per core) and
renames it into place. A rebuild rewrites only the files whose bytes changed, each written
beside itself and renamed over the old one (a reader never sees half a file), deletes what the
new tree no longer holds, and writes manifest.json last: if it is stopped midway, the manifest
still names the old files and ``memrank build-site --check`` reports the difference until the
next build. It only ever touches a folder that is empty or that a previous build made (it
holds manifest.json).
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from memrank._collector import collector_paused
from memrank._files import write_atomic
from memrank._forked import in_shares, split
from memrank.artifacts import Refusal
from memrank.board import urls
from memrank.board.build import build_board, source_date
from memrank.board.docs import render_docs
from memrank.board.files import data_files, manifest
from memrank.board.load import load
from memrank.board.memo import NO_MEMO, Memo
from memrank.board.model import Board
from memrank.board.pages import downloads
from memrank.board.render import DEFAULT_TEMPLATES, render_pages, static_files
from memrank.errors import BoardError, OutputUnwritable

__all__ = ["DATA_APART_LEAST", "WRITE_LEAST", "Made", "assemble", "differences", "make", "write"]


@dataclass(frozen=True)
class Made:
    """A build in memory: the Board, every file of the site, and what was refused."""

    board: Board
    tree: dict[str, bytes]
    verified: int
    """How many artifacts verified."""
    refusals: tuple[Refusal, ...]
    """Every artifact the verifier refused, with its reason; none of them is in ``tree``."""


def make(artifacts: Path, templates: Path | None, docs: Path, memo: Memo = NO_MEMO) -> Made:
    """Verify the artifacts, build the Board of those that verify, and render the site with
    ``templates`` (None: the default theme inside the package). With a ``memo``, what an
    earlier build made of the same verified inputs is taken from it (``memrank.board.memo``);
    the site is byte for byte the one a build without it makes.

    The parsed result files are dropped on return: the Board keeps only what it shows.
    """
    with collector_paused():
        loaded = load(artifacts, memo)
        runs = loaded.verification.runs
        board = build_board(
            loaded.config,
            runs,
            loaded.trust,
            render_docs(docs, memo),
            source_date(),
            loaded.identities,
            memo,
            roots=loaded.roots,
            stored=loaded.stored,
            field=loaded.field,
        )
        tree = assemble(board, templates or DEFAULT_TEMPLATES, downloads(runs), memo)
    memo.prune()
    return Made(board, tree, len(runs), loaded.verification.refusals)


def assemble(
    board: Board, templates: Path, downloads: Mapping[str, bytes], memo: Memo = NO_MEMO
) -> dict[str, bytes]:
    """Every file of the site by root-relative path: pages, static assets, the downloads
    (signed envelopes), data files, and last the manifest of all of them."""
    tree: dict[str, bytes] = {}
    pages, data = _pages_and_data(board, templates, memo)
    parts = (pages, static_files(templates), downloads, data)
    for part in parts:
        for path, content in part.items():
            if path in tree:
                raise BoardError(
                    f"two parts of the board both want {path!r}; rename the template asset or "
                    "report this as a bug"
                )
            tree[path] = content
    tree[urls.MANIFEST] = manifest(board, tree)
    return tree


DATA_APART_LEAST = 800
"""The fewest run pages a board holds for its data files to be made in a forked worker while
its pages render (the pages are then rendered in workers too)."""


def _pages_and_data(
    board: Board, templates: Path, memo: Memo
) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The pages and the data files: on a large board, the data files (plots, compare-two
    data, results per track: a second of work at 1,000 runs x 3) are made in a forked worker
    meanwhile, not after the pages in this process."""
    jobs = (
        lambda: render_pages(board, templates, memo),
        lambda: data_files(board, memo),
    )
    shares = split(jobs, 1) if len(board.runs) >= DATA_APART_LEAST else [jobs]
    pages, data = (made for share in in_shares(_done, shares) for made in share)
    return pages, data


def _done(jobs: Sequence[Callable[[], dict[str, bytes]]]) -> list[dict[str, bytes]]:
    return [job() for job in jobs]


WRITE_LEAST = 1_000
"""The fewest files per process for a first build's files to be written in forked workers too."""


def write(tree: Mapping[str, bytes], out: Path) -> None:
    """Make ``out`` hold exactly ``tree``; a file system that fails (a full disk, a name too
    long) ends in OutputUnwritable naming it, never a traceback."""
    try:
        _write(tree, out)
    except OSError as exc:
        raise OutputUnwritable(
            f"--out {out}: the site cannot be written ({exc.strerror or exc}); free space or "
            "give another folder"
        ) from None


def _write(tree: Mapping[str, bytes], out: Path) -> None:
    out = out.resolve()
    if out.exists() and not _replaceable(out):
        raise BoardError(
            f"{out}: not empty and not a built board (no {urls.MANIFEST}); refusing to replace "
            "it. Pass --out naming an empty folder or a previous site"
        )
    if (out / urls.MANIFEST).is_file():
        try:
            _update(tree, out)
            return
        except (OSError, OutputUnwritable):
            pass  # say, a file where a folder now goes: write it all afresh, or say why not
    building = out.with_name(f".{out.name}.building")
    retired = out.with_name(f".{out.name}.old")
    for leftover in (building, retired):
        shutil.rmtree(leftover, ignore_errors=True)
    try:
        # The files of a first build in contiguous shares, one per core: most of writing them
        # is the kernel's work per file and folder, which two processes do side by side.
        in_shares(
            lambda paths: _write_files(tree, building, paths, fresh=True),
            split(sorted(tree), WRITE_LEAST),
        )
    except (OSError, OutputUnwritable):
        shutil.rmtree(building, ignore_errors=True)
        raise
    if out.exists():
        out.rename(retired)
    building.rename(out)
    shutil.rmtree(retired, ignore_errors=True)


def _update(tree: Mapping[str, bytes], out: Path) -> None:
    """Rewrite the files of ``out`` that differ from ``tree``, manifest last; delete the rest,
    and the folders that leaves empty."""
    found, folders = _files_under(out)

    def rewritten(paths: Sequence[str]) -> None:
        changed = [path for path in paths if path not in found or _bytes(found[path]) != tree[path]]
        _write_files(tree, out, changed)

    # A run added to a large board changes thousands of pages (every rank "of N"): the files
    # are read, compared and written again in contiguous shares, one per core.
    paths = [path for path in sorted(tree) if path != urls.MANIFEST]
    in_shares(rewritten, split(paths, WRITE_LEAST))
    _write_files(tree, out, [urls.MANIFEST])
    for path in sorted(set(found) - set(tree)):
        os.unlink(found[path])
    holding = {parent for path in tree for parent in _parents(path)}
    for folder in sorted(set(folders) - holding, key=lambda f: -f.count("/")):
        try:
            os.rmdir(out / folder)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise


def _files_under(out: Path) -> tuple[dict[str, str], list[str]]:
    """Every regular file under ``out`` (or link to one) by its path relative to ``out``, with
    its path; and every folder below ``out`` (not through a link), relative to it."""
    files: dict[str, str] = {}
    folders: list[str] = []
    pending = [(str(out), "")]
    while pending:
        folder, prefix = pending.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(prefix + entry.name)
                    pending.append((entry.path, f"{prefix}{entry.name}/"))
                elif entry.is_file():
                    files[prefix + entry.name] = entry.path
    return files, folders


def _parents(path: str) -> list[str]:
    """``a/b/c.html`` -> ``["a", "a/b"]``."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[: n + 1]) for n in range(len(parts))]


def _bytes(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _write_files(
    tree: Mapping[str, bytes], out: Path, paths: Sequence[str], *, fresh: bool = False
) -> None:
    """Write ``paths`` of ``tree`` under ``out``; ``fresh``: ``out`` is a folder this build
    just made, which nobody else reads until it is renamed into place."""
    for folder in sorted({(out / path).parent for path in paths}):
        folder.mkdir(parents=True, exist_ok=True)
    base = f"{out}/"
    for path in paths:
        if fresh:  # nothing can be in the way, and a half-written folder is never seen
            _create(base + path, tree[path])
            continue
        # Each file whole or not at all, never through a device or FIFO in the way; the folder
        # is renamed into place (or the manifest written) last, so no sync per file.
        write_atomic(out / path, tree[path], sync=False)


def _create(path: str, content: bytes) -> None:
    """A new file holding ``content``, in three calls to the kernel: ``open`` adds a stat, a
    terminal check and a seek to each file, and a fresh build creates some 10,000 of them."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        view, written = memoryview(content), 0
        while written < len(view):
            written += os.write(descriptor, view[written:])
    finally:
        os.close(descriptor)


def differences(tree: Mapping[str, bytes], out: Path) -> list[str]:
    """How the folder ``out`` differs from ``tree``: one line per missing, extra or changed file."""
    found = _files_under(out)[0] if out.is_dir() else {}
    lines = [f"missing: {path}" for path in sorted(tree) if path not in found]
    lines += [f"not built: {path}" for path in sorted(found) if path not in tree]
    lines += [
        f"differs: {path}"
        for path in sorted(tree)
        if path in found and _bytes(found[path]) != tree[path]
    ]
    return lines


def _replaceable(out: Path) -> bool:
    return out.is_dir() and (not any(out.iterdir()) or (out / urls.MANIFEST).is_file())
