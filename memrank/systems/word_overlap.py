"""WordOverlap: a trivial in-process memory ranking documents by shared words."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime

from memrank.system import Content, Document, Memory, Recall, text_of
from memrank.systems.text import words

__all__ = ["WordOverlap", "WordOverlapAdapter"]


class WordOverlapAdapter(Memory):
    """Ranks documents by how many distinct query words they contain.

    Documents sharing no word with the query are not returned: an empty recall means it
    found nothing, which is exactly where a paraphrased question defeats it. Ties (common: a
    count of shared words ties across the tenth place on most LoCoMo questions) are broken by a
    hash of the query and the document's text, an order that owes nothing to when a document
    was told (ingest order would favour early turns, and with them the early evidence) and that
    is the same whatever ids a transport gives the documents.
    """

    name, version = "word-overlap", "in-process"

    def __init__(self) -> None:
        self._documents: list[tuple[Document, frozenset[str]]] = []

    def prepare(self, isolation_unit: str) -> None:
        self._documents = []

    def ingest(self, documents: Sequence[Document]) -> None:
        self._documents.extend((d, frozenset(words(d.text))) for d in documents)

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        asked = text_of(query)
        wanted = frozenset(words(asked))
        shared = [
            (len(wanted & held), position) for position, (_, held) in enumerate(self._documents)
        ]
        # only documents that share a word are ranked, so only they need a tie-breaking key
        scored = [
            (score, _tie_breaker(asked, self._documents[position][0].text), position)
            for score, position in shared
            if score > 0
        ]
        ranked = sorted(scored, key=lambda s: (-s[0], s[1]))[:k]
        return Recall(
            documents=tuple(self._documents[position][0] for _, _, position in ranked),
            declared={"shared_words": [score for score, _, _ in ranked]},
        )

    def cleanup(self) -> None:
        self._documents = []

    def state_fingerprint(self) -> str:
        return f"{len(self._documents)} document(s)"


def _tie_breaker(query: str, text: str) -> bytes:
    """A fixed pseudo-random key per query and document: the same run gives the same order."""
    return hashlib.blake2b(f"{query}\0{text}".encode(), digest_size=8).digest()


WordOverlap = WordOverlapAdapter
