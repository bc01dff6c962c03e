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
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

__all__ = ["TIES", "descending", "tie_keys"]

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
