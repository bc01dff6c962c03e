"""langgraph-store: LangGraph's ``InMemoryStore`` with a semantic index, a namespace per user.

The long-term memory store LangGraph documents for agents: items ``put`` one at a time under
the namespace ``("memories", <isolation unit>)``, the ``text`` field embedded by the index's ``embed``
function (memrank's MiniLM, 384 dimensions), and ``search(namespace, query=..., limit=k)``
ranking every item of the namespace by cosine similarity, computed exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memrank.system import Content, Document, Memory, Recall, text_of
from memrank.systems.dense import DIMENSIONS
from memrank.systems.libraries._told import Told, embedder, require_library, version_of

__all__ = ["LangGraphStore"]


class LangGraphStore(Memory):
    """LangGraph 1.2.24 ``InMemoryStore``, index on ``text``, one namespace per unit."""

    name, version = "langgraph-store", "1"

    def __init__(self) -> None:
        require_library("the langgraph-store system", "langgraph", ("langgraph",))
        self._embedder = embedder()
        self._told = Told()
        self._store: Any = None
        self._namespace: tuple[str, ...] = ()

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = self._embedder.encode(texts).tolist()
        return vectors

    def prepare(self, isolation_unit: str) -> None:
        from langgraph.store.memory import InMemoryStore

        self._told.clear()
        self._store = InMemoryStore(
            index={"dims": DIMENSIONS, "embed": self._embed, "fields": ["text"]}
        )
        self._namespace = ("memories", isolation_unit)

    def ingest(self, documents: Sequence[Document]) -> None:
        # One put per document, as an agent writes memories. (A batch of puts fails in 1.2.24
        # when two items share a text: it embeds each distinct text once, then expects one
        # vector per item.)
        for key, text in self._told.add(documents):
            self._store.put(self._namespace, key, {"text": text})

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        hits = self._store.search(self._namespace, query=text_of(query), limit=k)
        return self._told.recall(
            "langgraph", [h.key for h in hits], [float(h.score) for h in hits], "scores"
        )

    def cleanup(self) -> None:
        self._store = None
        self._told.clear()

    def state_fingerprint(self) -> str:
        return f"{len(self._told.documents) if self._store is not None else 0} document(s)"

    def components(self) -> dict[str, str]:
        return {
            "library": f"{version_of('langgraph')}, {version_of('langgraph-checkpoint')}",
            "store": "InMemoryStore, namespace ('memories', <unit>) per unit",
            "index": f"fields ['text'], {DIMENSIONS} dimensions, cosine similarity over every "
            "item (exact)",
            "embedder": self._embedder.describe(),
            **self._told.captions.components(),
        }
