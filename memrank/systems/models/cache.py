"""The response cache: a model's answer to one exact request, kept so it is never paid twice.

An entry is keyed by the sha256 of (endpoint URL, model, the full request body bytes), so any
change to the prompt, the parameters or the model is a different entry, and a hit returns the
very bytes the endpoint sent: re-measuring a stored run with the same judge costs nothing and
gives bit-identical values. Only successful answers are kept. Entries live in the user's cache
dir (``MEMRANK_CACHE_DIR`` overrides it) as one file each, written atomically.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from memrank._files import memrank_cache_dir, write_atomic

__all__ = ["ResponseCache", "cache_key"]


def cache_key(endpoint: str, model: str, body: bytes, replica: int = 0) -> str:
    """The entry's name: sha256 over the endpoint, the model and the request body.

    ``replica`` tells repeated passes of one request apart (N judge passes must each be asked,
    not read back from the first); replica 0 is the request itself."""
    digest = hashlib.sha256()
    parts = [endpoint.encode(), model.encode(), body]
    if replica:
        parts.append(f"replica {replica}".encode())
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))  # length-prefixed: no two splits collide
        digest.update(part)
    return digest.hexdigest()


class ResponseCache:
    """Response bodies by cache key, one file each under ``folder``; safe across threads (each
    write goes to a file of its own, renamed into place)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else memrank_cache_dir() / "responses"

    def get(self, key: str) -> bytes | None:
        """The stored response body, or None when the request was never answered here."""
        try:
            return self._path(key).read_bytes()
        except OSError:
            return None

    def put(self, key: str, body: bytes) -> None:
        """Keep a successful response body under its key."""
        write_atomic(self._path(key), body)  # a reader sees the whole answer or none

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"
