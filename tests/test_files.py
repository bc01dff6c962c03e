"""memrank/_files.py: reading a file no further than a cap, and every file memrank writes
written through write_atomic (a grep of the sources, with the exceptions named and why)."""

from __future__ import annotations

import contextlib
import os
import re
import threading
from pathlib import Path

import pytest

from memrank._files import read_at_most


@pytest.mark.parametrize(("size", "read"), [(0, 0), (5, 5), (10, 10), (11, 11), (5000, 11)])
def test_read_at_most_reads_one_byte_past_the_cap_at_most(
    tmp_path: Path, size: int, read: int
) -> None:
    path = tmp_path / "file"
    path.write_bytes(bytes(range(256)) * (size // 256) + bytes(range(size % 256)))
    assert read_at_most(path, 10) == path.read_bytes()[:read]


def test_read_at_most_reads_a_pipe_on_to_the_cap(tmp_path: Path) -> None:
    # A pipe has no size to read to: it is read in chunks, and never past cap + 1 bytes.
    path = tmp_path / "pipe"
    os.mkfifo(path)

    def write() -> None:
        # Buffered writes of more than the reader takes: once it stops, the pipe breaks.
        with contextlib.suppress(BrokenPipeError), open(path, "wb") as handle:
            handle.write(b"x" * 300_000)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert read_at_most(path, 100_000) == b"x" * 100_001
    finally:
        writer.join()


# -- every file memrank writes goes through write_atomic --------------------------------------

MEMRANK = Path(__file__).resolve().parent.parent / "memrank"
_OPEN = re.compile(r"\bopen\(((?:[^()]|\([^()]*\))*)\)", re.S)
_MODE = re.compile(r"""["']([rwabxt+]{1,4})["']""")
_WRITERS = re.compile(
    r"\.write_(?:text|bytes)\(|\bos\.open\([^)]*O_(?:WRONLY|RDWR|CREAT|APPEND)|mkstemp\("
    r"|NamedTemporaryFile\(|\bshutil\.(?:copy\w*|move)\(|\.touch\(|sqlite3\.connect\("
    r"|\bnp\.save\w*\(|\.tofile\(|extractall\("
)
ALLOWED = {
    ("runs/journal.py", 'open("xb")'): "the run journal: appended by whole lines, a torn "
    "last line left out on reading and truncated on resume (see Journal)",
    ("runs/journal.py", 'open("r+b")'): "the run journal, reopened to append after its "
    "last whole line",
    ("runs/submit.py", 'open("ab")'): "a submitted run's log: what the child "
    "process prints, appended as it runs",
    ("runs/reproduce.py", 'open(log, "wb")'): "the rerun's log: what the child process "
    "prints, streamed as it runs",
    ("runs/reproduce.py", 'open(os.devnull, "wb")'): "not a file",
    ("systems/embedding_cache.py", "sqlite3.connect("): "an SQLite database, which commits "
    "atomically through its own journal",
    (
        "board/folder.py",
        "os.open(path, os.O_WRONLY | os.O_CREAT",
    ): "a build's files, each new: in the sibling folder a first build just made, which is "
    "renamed into place whole, or beside the file it replaces under a name of the build's, "
    "renamed over it once every file is made",
}


def _writes(path: Path) -> list[str]:
    """What in ``path``'s source writes a file other than through write_atomic."""
    text = path.read_text(encoding="utf-8")
    found = [m.group(0) for m in _WRITERS.finditer(text)]
    for call in _OPEN.finditer(text):
        modes = _MODE.findall(call.group(1))
        if any(set(mode) & set("wax+") for mode in modes):
            found.append(call.group(0))
    return found


def test_every_file_memrank_writes_goes_through_write_atomic() -> None:
    written = {
        (path.relative_to(MEMRANK).as_posix(), write)
        for path in MEMRANK.rglob("*.py")
        if path.name != "_files.py" or path.parent != MEMRANK
        for write in _writes(path)
    }
    assert written - set(ALLOWED) == set(), "write these through memrank._files.write_atomic"
    assert set(ALLOWED) - written == set(), "no longer written this way: drop from ALLOWED"
