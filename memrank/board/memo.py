"""What an earlier build worked out, found again by the digest of everything it was made from.

A rebuild after one run is added redoes only what that run touches: every other column's
reading, rendered pages, plots and compare-two data come back from the memo, and the scores
files of artifacts that already passed every check are not checked again, nor parsed unless a
column that changed reads them.

What keeps this honest:

- Every key is a sha256 over memrank's own code, the templates, and the *verified* bytes the
  work was made from (signed scores digests, artifact ids, models built from them). A file that
  is refused never reaches a key, and a changed file is a different key: no entry made from
  one set of artifacts can stand in for another.
- An entry holds no verdict of trust: signatures, statements and every file's digest are
  checked on every build. The memo of artifacts only spares checking the form of a scores file,
  and its agreement with the statement, where the very same statement (its artifact id names
  the scores file's sha256) passed those checks before: they are a function of those bytes.
  Every number a changed column shows is parsed from the signed bytes.
- The memo lives in the builder's own cache folder, never in artifacts/ or site/, so nothing a
  pull request carries can seed it; each entry carries the sha256 of its content and one that
  does not match is ignored and made again. (The theme's compiled templates, kept beside the
  entries in ``templates/``, are jinja2's own bytecode cache: keyed by each template's source,
  like Python's ``__pycache__``.) The publishing workflows build with ``--no-cache``, so a
  published site never depends on a memo.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import orjson

from memrank._files import memrank_cache_dir, write_atomic
from memrank.errors import OutputUnwritable

__all__ = ["KEEP_DAYS", "NO_MEMO", "Memo", "folder_digest", "key", "pack_files", "unpack_files"]

KEEP_DAYS = 14
"""Entries no build has used for this long are deleted by the next build."""
_DIGEST = 32
_TOUCH_AFTER = 86_400
"""Seconds after which an entry read is marked used again (its modification time)."""


def key(*parts: str | bytes) -> str:
    """sha256 over the parts, each length-prefixed so no two lists of parts collide."""
    hasher = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "big"))
        hasher.update(data)
    return hasher.hexdigest()


def folder_digest(folder: Path) -> str:
    """sha256 over every file's relative path and bytes, in path order."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return key(
        *(part for p in files for part in (p.relative_to(folder).as_posix(), p.read_bytes()))
    )


class Memo:
    """A folder of entries by key; ``Memo(None)`` remembers nothing (every lookup misses).

    ``code`` is the digest of the memrank that builds: every key is made with it (``entry``),
    so an upgrade never reads what older code worked out."""

    def __init__(self, folder: Path | None, code: str = "") -> None:
        self.folder = folder
        self.code = code
        self.hits = 0
        self.misses = 0

    @classmethod
    def default(cls) -> Memo:
        """The board memo in memrank's cache folder (``MEMRANK_CACHE_DIR`` moves it)."""
        from memrank.provenance import PACKAGE_DIR, code_sha256

        return cls(memrank_cache_dir() / "board", code_sha256(PACKAGE_DIR))

    @property
    def active(self) -> bool:
        return self.folder is not None

    def entry(self, *parts: str | bytes) -> str:
        """The key of what ``parts`` describe, as this memrank makes it."""
        return key(self.code, *parts)

    def get(self, entry: str) -> bytes | None:
        """The content stored under ``entry``, or None (absent, unreadable or corrupt)."""
        if self.folder is None:
            return None
        path = self._path(entry)
        try:
            with open(path, "rb") as handle:
                stored = handle.read()
                touched = os.fstat(handle.fileno()).st_mtime
        except OSError:
            self.misses += 1
            return None
        content = stored[_DIGEST:]
        if hashlib.sha256(content).digest() != stored[:_DIGEST]:
            self.misses += 1
            return None
        self.hits += 1
        # Used: keep it past the next pruning. Once a day is enough for that, and spares a
        # rebuild a write to the file system per entry it reads (thousands of them).
        if touched < time.time() - _TOUCH_AFTER:
            with contextlib.suppress(OSError):
                os.utime(path)
        return content

    def put(self, entry: str, content: bytes) -> None:
        """Store ``content`` under ``entry`` (written whole, then renamed into place)."""
        if self.folder is None:
            return
        with contextlib.suppress(OutputUnwritable):  # only costs the next build time
            write_atomic(self._path(entry), hashlib.sha256(content).digest() + content, sync=False)

    def through(
        self, parts: Callable[[], Sequence[str | bytes]], make: Callable[[], bytes]
    ) -> bytes:
        """What ``make()`` gives, or what it gave an earlier build for the same ``parts``.
        Without a memo the parts are never worked out: ``make()`` is all there is."""
        if self.folder is None:
            return make()
        entry = self.entry(*parts())
        found = self.get(entry)
        if found is None:
            found = make()
            self.put(entry, found)
        return found

    def prune(self) -> None:
        """Delete entries unused for ``KEEP_DAYS`` days."""
        if self.folder is None or not self.folder.is_dir():
            return
        cutoff = time.time() - KEEP_DAYS * 86_400
        for path in self.folder.glob("*/*"):
            with contextlib.suppress(OSError):  # another build may prune it first
                if path.stat().st_mtime < cutoff:
                    path.unlink()

    def _path(self, entry: str) -> Path:
        assert self.folder is not None
        return self.folder / entry[:2] / entry


def pack_files(files: Mapping[str, bytes]) -> bytes:
    """Several files as one entry: a JSON line of [path, size] pairs, then their bytes."""
    header = orjson.dumps([[path, len(content)] for path, content in files.items()])
    return header + b"\n" + b"".join(files.values())


def unpack_files(packed: bytes) -> dict[str, bytes]:
    """The files ``pack_files`` packed, by path."""
    header, _, body = packed.partition(b"\n")
    files, at = {}, 0
    for path, size in orjson.loads(header):
        files[path] = body[at : at + size]
        at += size
    return files


NO_MEMO = Memo(None)
"""Remembers nothing: what a build uses unless it is given a memo."""
