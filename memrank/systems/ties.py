"""Neutral tie-breaking for memrank's own ranked baselines.

Ranking equal scores in ingest order favours whatever was said first, and in a conversation
benchmark the evidence is not spread evenly over time, so the baselines break ties by a fixed
pseudo-random order instead: among equal scores, documents go in the order of the BLAKE2b
digest (8 bytes) of the query and the document's text, the rule ``word-overlap`` follows. The
same question over the same documents gives the same order on every run and machine, whatever
ids a transport gives the documents, and it owes nothing to when a document was told.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

import numpy as np
import numpy.typing as npt

__all__ = ["TIES", "descending", "tie_keys", "top"]

TIES = "equal scores in the order of blake2b(query, text): pseudo-random, not ingest order"
"""The rule, as recorded in a run's components."""


def tie_keys(query: str, texts: Iterable[str]) -> npt.NDArray[np.uint64]:
    """The order among equal scores: one fixed pseudo-random key per query and text."""
    return np.fromiter(
        (
            int.from_bytes(hashlib.blake2b(f"{query}\0{text}".encode(), digest_size=8).digest())
            for text in texts
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


def top(
    scores: npt.NDArray[np.float64],
    k: int,
    keys_of: Callable[[npt.NDArray[np.intp]], npt.NDArray[np.uint64]],
) -> npt.NDArray[np.intp]:
    """The positions of the k best scores, best first; equal scores in the order of their keys.

    ``keys_of(positions)`` is asked only for the positions that can reach the first k (those
    scoring at least the k-th best score), so a query hashes about k texts, not all of them.
    """
    if k <= 0 or len(scores) == 0:
        return np.zeros(0, dtype=np.intp)
    cut = min(k, len(scores)) - 1
    kth_best = -np.partition(-scores, cut)[cut]
    contenders = np.flatnonzero(scores >= kth_best)
    best: npt.NDArray[np.intp] = contenders[descending(scores[contenders], keys_of(contenders))][:k]
    return best
