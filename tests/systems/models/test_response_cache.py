"""The response cache writes each entry through write_atomic: whole or not at all, never
over what is not a regular file."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from memrank.errors import OutputUnwritable
from memrank.systems.models import ResponseCache, cache_key


def test_an_entry_is_kept_whole_with_nothing_beside_it(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = cache_key("https://x/v1", "m", b"{}")
    bodies = [bytes([n]) * 200_000 for n in range(8)]
    writers = [threading.Thread(target=cache.put, args=(key, body)) for body in bodies]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    assert cache.get(key) in bodies  # one writer's answer, whole
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [f"{key}.json"]


def test_a_fifo_where_an_entry_goes_is_refused_and_kept(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = cache_key("https://x/v1", "m", b"{}")
    fifo = tmp_path / key[:2] / f"{key}.json"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    with pytest.raises(OutputUnwritable, match="is a FIFO"):
        cache.put(key, b"answer")
    assert stat.S_ISFIFO(fifo.stat().st_mode)
