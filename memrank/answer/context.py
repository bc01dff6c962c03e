"""The context budget: the recalled documents a reader is shown, cut in rank order.

The documents are taken best first, whole, while their tokens (each counted as the protocol
shows it) fit the budget; the first one that does not fit ends the context, and it and every
later one are recorded as cut. A document is never split and the order is never changed, so
a system is read exactly as it ranked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memrank.system import Document

__all__ = ["ContextCut", "cut_in_rank_order"]


@dataclass(frozen=True)
class ContextCut:
    """The documents kept and cut, and the tokens the kept ones take."""

    kept: tuple[Document, ...]
    cut: tuple[Document, ...]
    tokens: int


def cut_in_rank_order(
    documents: Sequence[Document], budget: int | None, tokens_of: Callable[[Document], int]
) -> ContextCut:
    """The longest rank-order prefix of whole documents within ``budget`` tokens (None: all)."""
    total = 0
    for position, document in enumerate(documents):
        size = tokens_of(document)
        if budget is not None and total + size > budget:
            return ContextCut(tuple(documents[:position]), tuple(documents[position:]), total)
        total += size
    return ContextCut(tuple(documents), (), total)
