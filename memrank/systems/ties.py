"""Neutral tie-breaking for memrank's own ranked baselines.

Ranking equal scores in ingest order favours whatever was said first, and in a conversation
benchmark the evidence is not spread evenly over time, so the baselines break ties by a fixed
pseudo-random order instead: each document's place among its equals is the BLAKE2b digest of
the seed and its id. The order is the same on every run, machine and question (the id is all it
reads), and unrelated to when the document was told.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

__all__ = ["descending", "tie_keys"]


def tie_keys(ids: Iterable[str], seed: int = 0) -> npt.NDArray[np.uint64]:
    """One fixed pseudo-random key per document id: the order among equal scores."""
    salt = seed.to_bytes(8, "little", signed=True)
    return np.fromiter(
        (
            int.from_bytes(hashlib.blake2b(i.encode(), digest_size=8, salt=salt).digest(), "little")
            for i in ids
        ),
        dtype=np.uint64,
    )


def descending(
    scores: npt.NDArray[np.float64], keys: npt.NDArray[np.uint64]
) -> npt.NDArray[np.intp]:
    """Positions by score, best first; equal scores in the order of their keys."""
    # lexsort sorts by its last key first: score descending, then tie key ascending.
    order: npt.NDArray[np.intp] = np.lexsort((keys, -scores))
    return order
