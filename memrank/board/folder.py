"""The site's files put in a folder, or compared with one, as they are made.

A site is a list of parts, each making one or more of its files (a page, an evaluation's plots
and compare-two data, a run's signed envelope), and a manifest made last from every other
file's sha256 (``Files``). The parts are handed out in batches to this process and, on a large
board, to forked copies of it (``memrank._forked.in_turns``); each process puts the files it
makes where they go and sends back their digests, never their bytes: at 3,000 runs the site is
135 MB, which would otherwise be pickled, piped and held again by the building process before a
byte was written.

A build that fails leaves the previous site as it was. A first build writes a sibling folder
and renames it into place once every file is in it. A rebuild compares each file with the one
in place and writes a changed one beside it, under a name of this build's; once every file is
made, those are renamed over the old ones (a reader never sees half a file), what the new site
no longer holds is deleted, and manifest.json is written last. If the renames are stopped
midway, the manifest still names the old files and ``memrank build-site --check`` reports the
difference until the next build. A folder is only ever touched when it is empty or a previous
build made it (it holds manifest.json). ``differences`` makes the same files the same way and
compares each with the folder's, writing nothing.
"""

from __future__ import annotations

import errno
import hashlib
import os
import secrets
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from memrank._collector import collector_paused
from memrank._files import write_atomic
from memrank._forked import in_turns
from memrank.board import urls
from memrank.errors import BoardError, OutputUnwritable

__all__ = ["PARTS_BATCH", "PARTS_LEAST", "Files", "Part", "differences", "write"]

Part = Callable[[], Mapping[str, bytes]]
"""Work that makes one or more of the site's files, by root-relative path."""
Kept = TypeVar("Kept")

PARTS_LEAST = 400
"""The fewest parts per process for parts to be made in forked workers too: below it, forking
costs more than it saves."""
PARTS_BATCH = 16
"""Parts a process takes at a time (``memrank._forked.in_turns``)."""


@dataclass(frozen=True)
class Files:
    """Every file of a site, as work still to do."""

    parts: Sequence[Part]
    """Heaviest first, so that the batches handed out last are small."""
    manifest: Callable[[Mapping[str, str]], bytes]
    """manifest.json, made from every other file's sha256 by path."""

    def tree(self) -> dict[str, bytes]:
        """The whole site in memory, by root-relative path."""
        made = _made(self, _given)
        tree = {path: content for path, (_, content) in made.items()}
        tree[urls.MANIFEST] = self.manifest(_digests(made))
        return tree


def write(files: Files, out: Path) -> int:
    """Make ``out`` hold exactly ``files``; how many files it then holds. A file system that
    fails (a full disk, a name too long) ends in OutputUnwritable naming it, never a
    traceback."""
    try:
        return _write(files, out.resolve())
    except OSError as exc:
        raise OutputUnwritable(
            f"--out {out}: the site cannot be written ({exc.strerror or exc}); free space or "
            "give another folder"
        ) from None


def differences(files: Files, out: Path) -> list[str]:
    """How the folder ``out`` differs from ``files``: one line per missing, extra or changed
    file."""
    found = _files_under(out)[0] if out.is_dir() else {}
    compared = _Compared(found)
    made = _made(files, compared)
    verdicts = {path: verdict for path, (_, verdict) in made.items()}
    verdicts[urls.MANIFEST] = compared(urls.MANIFEST, files.manifest(_digests(made)))
    lines = [f"missing: {path}" for path in sorted(verdicts) if verdicts[path] == "missing"]
    lines += [f"not built: {path}" for path in sorted(found) if path not in verdicts]
    lines += [f"differs: {path}" for path in sorted(verdicts) if verdicts[path] == "differs"]
    return lines


def _write(files: Files, out: Path) -> int:
    if out.exists() and not _replaceable(out):
        raise BoardError(
            f"{out}: not empty and not a built board (no {urls.MANIFEST}); refusing to replace "
            "it. Pass --out naming an empty folder or a previous site"
        )
    if (out / urls.MANIFEST).is_file():
        try:
            return _update(files, out)
        except (OSError, OutputUnwritable):
            pass  # say, a file where a folder now goes: write it all afresh, or say why not
    building = out.with_name(f".{out.name}.building")
    retired = out.with_name(f".{out.name}.old")
    for leftover in (building, retired):
        shutil.rmtree(leftover, ignore_errors=True)
    building.mkdir(parents=True)
    created = _Created(building)
    try:
        made = _made(files, created)
        created(urls.MANIFEST, files.manifest(_digests(made)))
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    if out.exists():
        out.rename(retired)
    building.rename(out)
    shutil.rmtree(retired, ignore_errors=True)
    return len(made) + 1


def _update(files: Files, out: Path) -> int:
    """Rewrite the files of ``out`` that differ from ``files``, manifest last; delete the
    rest, and the folders that leaves empty."""
    found, folders = _files_under(out)
    staging = _Staged(out, found)
    try:
        made = _made(files, staging)
    except BaseException:
        staging.abandon()
        raise
    for path, (_, staged) in made.items():
        if staged is not None:
            os.replace(staged, f"{out}/{path}")
    for path in sorted(set(found) - set(made) - {urls.MANIFEST}):
        os.unlink(found[path])
    holding = {parent for path in made for parent in _parents(path)}
    for folder in sorted(set(folders) - holding, key=lambda f: -f.count("/")):
        try:
            os.rmdir(out / folder)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
    write_atomic(out / urls.MANIFEST, files.manifest(_digests(made)), sync=False)
    return len(made) + 1


def _made(files: Files, put: Callable[[str, bytes], Kept]) -> dict[str, tuple[str, Kept]]:
    """Each file's sha256 and what ``put`` (run where the file is made) kept of it, by path."""

    def work(parts: Sequence[Part]) -> list[list[tuple[str, str, Kept]]]:
        return [
            [
                (path, hashlib.sha256(content).hexdigest(), put(path, content))
                for path, content in part().items()
            ]
            for part in parts
        ]

    made: dict[str, tuple[str, Kept]] = {}
    # Many long-lived objects at once (a board's pages, its models): see collector_paused.
    with collector_paused():
        done = in_turns(work, files.parts, PARTS_LEAST, PARTS_BATCH)
    for path, digest, kept in (file for part in done for file in part):
        if path in made or path == urls.MANIFEST:
            raise _both_want(path)
        made[path] = (digest, kept)
    return made


def _both_want(path: str) -> BoardError:
    return BoardError(
        f"two parts of the board both want {path!r}; rename the template asset or report this "
        "as a bug"
    )


def _digests(made: Mapping[str, tuple[str, object]]) -> dict[str, str]:
    return {path: digest for path, (digest, _) in made.items()}


def _given(path: str, content: bytes) -> bytes:
    """The file's bytes, sent back (``Files.tree``)."""
    return content


class _Folders:
    """Folders under ``base`` made as files need them, each once per process."""

    def __init__(self, base: Path) -> None:
        self.base = f"{base}/"
        self._made: set[str] = set()

    def file(self, path: str) -> str:
        """The full path of ``path``, its folder made if need be."""
        folder = path.rpartition("/")[0]
        if folder and folder not in self._made:
            os.makedirs(self.base + folder, exist_ok=True)
            self._made.add(folder)
        return self.base + path

    def created(self, full: str, path: str, content: bytes) -> None:
        """``content`` in a new file at ``full``, this build's own name for ``path``: only a
        file another part made for the same path can be in the way."""
        try:
            _create(full, content)
        except FileExistsError:
            raise _both_want(path) from None


class _Created(_Folders):
    """Each file created in a folder this build just made, which nobody reads until it is
    renamed into place: nothing can be in the way but a file another part made."""

    def __call__(self, path: str, content: bytes) -> None:
        self.created(self.file(path), path, content)


class _Staged(_Folders):
    """Each file compared with the one in place; a new or changed one written beside it under
    a name of this build's, its full path kept to be renamed over the old one (None: the
    same bytes are in place)."""

    def __init__(self, out: Path, found: Mapping[str, str]) -> None:
        super().__init__(out)
        self.found = found
        self.suffix = f".{secrets.token_hex(6)}.new"

    def __call__(self, path: str, content: bytes) -> str | None:
        if path in self.found and _bytes(self.found[path]) == content:
            return None
        folder, _, name = self.file(path).rpartition("/")
        staged = f"{folder}/.{name}{self.suffix}"
        self.created(staged, path, content)
        return staged

    def abandon(self) -> None:
        """Delete what this build staged: a process that failed did not say what it had."""
        for path in _files_under(Path(self.base))[0].values():
            if path.endswith(self.suffix):
                os.unlink(path)


@dataclass(frozen=True)
class _Compared:
    """Each file compared with the one in ``found`` (by path): same, differs or missing."""

    found: Mapping[str, str]

    def __call__(self, path: str, content: bytes) -> str:
        if path not in self.found:
            return "missing"
        return "same" if _bytes(self.found[path]) == content else "differs"


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


def _create(path: str, content: bytes) -> None:
    """A new file holding ``content``, in three calls to the kernel: ``open`` adds a stat, a
    terminal check and a seek to each file, and a fresh build creates some 7,000 of them."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        view, written = memoryview(content), 0
        while written < len(view):
            written += os.write(descriptor, view[written:])
    finally:
        os.close(descriptor)


def _replaceable(out: Path) -> bool:
    return out.is_dir() and (not any(out.iterdir()) or (out / urls.MANIFEST).is_file())
