"""WordOverlap: a trivial in-process memory ranking documents by shared words."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memrank.system import Content, Document, Memory, Recall, text_of
from memrank.systems.text import CaptionsRead, words

__all__ = ["WordOverlap", "WordOverlapAdapter"]


class WordOverlapAdapter(Memory):
    """Ranks documents by how many distinct query words they contain; ties keep ingest order.

    Documents sharing no word with the query are not returned: an empty recall means it
    found nothing, which is exactly where a paraphrased question defeats it.
    """

    name, version = "word-overlap", "in-process"

    def __init__(self) -> None:
        self._documents: list[tuple[Document, frozenset[str]]] = []
        self._captions = CaptionsRead()

    def prepare(self, isolation_unit: str) -> None:
        self._documents = []

    def ingest(self, documents: Sequence[Document]) -> None:
        self._captions.told(documents)
        self._documents.extend((d, frozenset(words(d.text))) for d in documents)

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        wanted = frozenset(words(text_of(query)))
        scored = [
            (len(wanted & held), position) for position, (_, held) in enumerate(self._documents)
        ]
        ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))[:k]
        return Recall(
            documents=tuple(self._documents[position][0] for _, position in ranked),
            declared={"shared_words": [score for score, _ in ranked]},
        )

    def cleanup(self) -> None:
        self._documents = []

    def state_fingerprint(self) -> str:
        return f"{len(self._documents)} document(s)"

    def components(self) -> dict[str, str]:
        return self._captions.components()


WordOverlap = WordOverlapAdapter
