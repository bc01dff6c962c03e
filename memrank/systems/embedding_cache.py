"""Embeddings kept on disk by content hash, so a rerun does not embed again.

One SQLite file per model (``<cache dir>/embeddings/<model>.sqlite3``) maps the sha256 of a
text (a document or a query) to its vector. Where: ``MEMRANK_EMBEDDING_CACHE`` when set (a folder; ``off`` turns the
cache off), else ``memrank/embeddings`` in the user's cache directory. SQLite makes every store
one transaction (a crash leaves the file whole, at worst without its last stores) and lets several processes read
and write the same file at once (write-ahead log, waits of up to 60 s for a lock). A vector is
only a function of the model and the text, so a key names it for good and entries are never
replaced.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memrank._files import user_cache_dir
from memrank.errors import UsageError

__all__ = ["CACHE_VARIABLE", "EmbeddingCache", "cache_for", "text_key"]

CACHE_VARIABLE = "MEMRANK_EMBEDDING_CACHE"
_LOOKUP_CHUNK = 500  # ids in one IN (...) query, under SQLite's host-parameter limit


def text_key(text: str) -> bytes:
    """The cache key of a text: the sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class EmbeddingCache:
    """Vectors of one model by text key, in one SQLite file."""

    def __init__(self, path: Path, dimensions: int) -> None:
        self.path, self.dimensions = path, dimensions
        self._lock = threading.Lock()  # one connection, shared by the threads of a server
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, timeout=60, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            # A power cut may lose the last writes, never the file's integrity: for a cache
            # that is the right trade against an fsync per query.
            self._db.execute("PRAGMA synchronous=NORMAL")
            # A rowid table: WITHOUT ROWID would store each 1.5 KB vector in the key's b-tree,
            # which more than doubles the file.
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)"
            )
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:
            raise UsageError(
                f"the embedding cache {path} cannot be used ({exc}); point {CACHE_VARIABLE} at "
                f"a writable folder, or set {CACHE_VARIABLE}=off"
            ) from None

    def get(self, keys: Sequence[bytes]) -> dict[bytes, npt.NDArray[np.float32]]:
        """The vectors held for those keys (keys not held are absent)."""
        found: dict[bytes, npt.NDArray[np.float32]] = {}
        with self._lock:
            for start in range(0, len(keys), _LOOKUP_CHUNK):
                chunk = keys[start : start + _LOOKUP_CHUNK]
                rows = self._db.execute(
                    f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(chunk))})",
                    chunk,
                )
                for key, blob in rows:
                    vector = np.frombuffer(blob, dtype=np.float32)
                    if vector.shape == (self.dimensions,):  # anything else was not written by us
                        found[key] = vector
        return found

    def put(self, keys: Sequence[bytes], vectors: npt.NDArray[np.float32]) -> None:
        """Keep the vectors, in one transaction; a key already held keeps its vector."""
        rows = [
            (k, np.ascontiguousarray(v, dtype=np.float32).tobytes())
            for k, v in zip(keys, vectors, strict=True)
        ]
        with self._lock, self._db:
            self._db.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?)", rows)


def cache_for(model: str, dimensions: int) -> EmbeddingCache | None:
    """The cache of the named model (a file-safe name), or None when turned off."""
    given = os.environ.get(CACHE_VARIABLE, "")
    if given.lower() == "off":
        return None
    folder = Path(given).expanduser() if given else user_cache_dir() / "memrank" / "embeddings"
    return EmbeddingCache(folder / f"{model}.sqlite3", dimensions)
