"""memrank/_files.py: reading a file no further than a cap."""

from __future__ import annotations

import contextlib
import os
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
