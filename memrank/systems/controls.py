"""Control arms: systems that bound what a memory could add.

``no-context`` recalls nothing (the floor); ``full-context`` recalls everything it was told as
one document (the ceiling of recall, at the largest budget); ``fixed-context`` recalls the most
recent messages within a fixed word budget; ``random`` recalls k documents drawn at random (the
floor of ranking). None of them reads the query except ``random``, which seeds on it.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from datetime import datetime

from memrank.errors import UsageError
from memrank.system import Content, Document, Memory, Recall, text_of
from memrank.systems.text import CaptionsRead

__all__ = [
    "FixedContext",
    "FixedContextAdapter",
    "FullContext",
    "FullContextAdapter",
    "NoContext",
    "NoContextAdapter",
    "Random",
    "RandomAdapter",
]


class NoContextAdapter(Memory):
    """The no-memory floor: told everything, recalls nothing."""

    name, version = "no-context", "in-process"

    def prepare(self, isolation_unit: str) -> None:
        pass

    def ingest(self, documents: Sequence[Document]) -> None:
        pass

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        return Recall(documents=(), declared={"control": "no-context"})

    def cleanup(self) -> None:
        pass


class _Told(Memory):
    """What the told-everything controls share: the documents of the unit, in ingest order."""

    def __init__(self) -> None:
        self._documents: list[Document] = []
        self._captions = CaptionsRead()

    def prepare(self, isolation_unit: str) -> None:
        self._documents = []

    def ingest(self, documents: Sequence[Document]) -> None:
        self._captions.told(documents)
        self._documents.extend(documents)

    def cleanup(self) -> None:
        self._documents = []

    def state_fingerprint(self) -> str:
        return f"{len(self._documents)} document(s)"


def _joined(control: str, texts: list[str], whole: list[str], budget: int | None) -> Recall:
    """The texts as one document, unranked, with the budget they were held to declared; its
    ``doc_ids`` name the documents it holds whole, so evidence named by id is found in it."""
    if not texts:
        return Recall(declared={"control": control, "budget_words": budget, "words": 0})
    content = "\n".join(texts)
    spent = len(content.split())
    metadata = {"messages": len(texts), "words": spent, "doc_ids": whole}
    return Recall(
        documents=(Document(id=control, content=content, metadata=metadata),),
        declared={"control": control, "budget_words": budget, "words": spent},
    )


class FullContextAdapter(_Told):
    """Recalls everything the unit was told, in ingest order, as one document; no budget."""

    name, version = "full-context", "in-process"

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        told = self._documents
        return _joined("full-context", [d.text for d in told], [d.id for d in told], None)

    def components(self) -> dict[str, str]:
        return self._captions.components()


class FixedContextAdapter(_Told):
    """Recalls the most recent messages that fit in ``budget_words``, in ingest order, as one
    document; a last message longer than the budget alone is cut to its last words."""

    name, version = "fixed-context", "in-process"

    def __init__(self, budget_words: int = 500) -> None:
        if budget_words < 1:
            raise UsageError(f"budget_words={budget_words} must be at least 1")
        super().__init__()
        self.budget_words = budget_words

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        kept: list[str] = []
        whole: list[str] = []
        room = self.budget_words
        for document in reversed(self._documents):
            size = len(document.text.split())
            if size > room:
                if not kept:
                    kept.append(" ".join(document.text.split()[-room:]))
                break
            kept.append(document.text)
            whole.append(document.id)
            room -= size
        return _joined("fixed-context", kept[::-1], whole[::-1], self.budget_words)

    def components(self) -> dict[str, str]:
        return {
            "budget": f"{self.budget_words} words: the most recent messages that fit",
            **self._captions.components(),
        }


class RandomAdapter(_Told):
    """Recalls k of the unit's documents drawn at random, seeded by ``seed``, the unit and the
    query, so a rerun draws the same documents whatever the order of the questions."""

    name, version = "random", "in-process"

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self.seed = seed

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        key = hashlib.sha256(f"{self.seed}\0{user_id}\0{text_of(query)}".encode()).digest()
        draw = random.Random(int.from_bytes(key[:8], "big"))
        picked = draw.sample(range(len(self._documents)), min(k, len(self._documents)))
        return Recall(
            documents=tuple(self._documents[i] for i in picked),
            declared={"control": "random", "seed": self.seed},
        )

    def components(self) -> dict[str, str]:
        return {"seed": str(self.seed)}


NoContext = NoContextAdapter
FullContext = FullContextAdapter
FixedContext = FixedContextAdapter
Random = RandomAdapter
