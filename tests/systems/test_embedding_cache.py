"""The embedding cache (by content hash, one SQLite file per model) and length batching."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memrank.errors import UsageError
from memrank.systems.dense import DIMENSIONS, MiniLM, batches
from memrank.systems.embedding_cache import CACHE_VARIABLE, text_key

TEXTS = [
    "Caroline went to the LGBTQ support group.",
    "Melanie paints sunsets.",
    "Melanie paints sunsets.",
]


def _rows(folder: Path) -> dict[bytes, bytes]:
    (path,) = folder.glob("*.sqlite3")
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT key, vector FROM vectors"))


def test_a_text_is_embedded_once_and_read_back_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path))
    first = MiniLM().encode(TEXTS)
    rows = _rows(tmp_path)
    assert set(rows) == {text_key(TEXTS[0]), text_key(TEXTS[1])}  # the repeated text is kept once
    np.testing.assert_array_equal(first[1], first[2])
    np.testing.assert_allclose(first, MiniLM(cache=False).encode(TEXTS), atol=1e-6)
    # What is held is what is used: a vector planted in the cache comes back instead of the model's.
    planted = np.zeros(DIMENSIONS, dtype=np.float32)
    planted[0] = 1.0
    (path,) = tmp_path.glob("*.sqlite3")
    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE vectors SET vector = ? WHERE key = ?", (planted.tobytes(), text_key(TEXTS[1]))
        )
    again = MiniLM().encode(TEXTS)
    np.testing.assert_array_equal(again[0], first[0])
    np.testing.assert_array_equal(again[1], planted)
    assert MiniLM().encode([]).shape == (0, DIMENSIONS)


def test_off_keeps_nothing_and_an_unusable_folder_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_VARIABLE, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    MiniLM().encode(TEXTS)
    assert not (tmp_path / "user-cache").exists()
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(CACHE_VARIABLE, str(blocked / "embeddings"))
    with pytest.raises(
        UsageError, match=rf"a-file/embeddings/.*cannot be used .* {CACHE_VARIABLE}=off"
    ):
        MiniLM()


def test_the_default_folder_is_in_the_user_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(CACHE_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    MiniLM().encode(TEXTS[:1])
    assert len(_rows(tmp_path / "memrank" / "embeddings")) == 1


_WRITER = """
import sys
from memrank.systems.dense import MiniLM
MiniLM().encode([f"message {i} of a shared history" for i in range(int(sys.argv[1]), int(sys.argv[2]))])
"""


def test_processes_writing_one_cache_at_once_lose_nothing(tmp_path: Path) -> None:
    environment = {**os.environ, CACHE_VARIABLE: str(tmp_path)}
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(low), str(low + 80)], env=environment)
        for low in (0, 40, 20)  # overlapping ranges: the same texts written concurrently
    ]
    assert [w.wait(timeout=300) for w in writers] == [0, 0, 0]
    rows = _rows(tmp_path)
    assert len(rows) == 120
    assert all(len(vector) == 4 * DIMENSIONS for vector in rows.values())


def test_batches_group_similar_lengths_within_every_cap() -> None:
    lengths = [5, 200, 7, 6, 180, 256, 5, 9, 30, 31]
    groups = batches(lengths, most=3, pieces=600, cells=60_000)
    assert sorted(p for group in groups for p in group) == list(range(len(lengths)))
    assert [[lengths[p] for p in group] for group in groups] == [
        [5, 5, 6],
        [7, 9, 30],
        [31],  # the batch before is full (most=3)
        [180],  # with 31: 2 x 180 x 180 cells exceed 60,000
        [200],
        [256],
    ]
    for group in groups:
        width = max(lengths[p] for p in group)
        assert len(group) <= 3 and len(group) * width <= 600
        assert len(group) == 1 or len(group) * width * width <= 60_000
    assert batches([1000], most=64, pieces=10, cells=10) == [[0]]  # too long for a cap: alone
