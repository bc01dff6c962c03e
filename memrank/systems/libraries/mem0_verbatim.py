"""mem0-verbatim: Mem0's open-source library in its documented no-extraction mode.

``Memory.add(message, user_id=<unit>, metadata=..., infer=False)`` stores each document as
given (no LLM reads it), in a local Qdrant collection in a temporary directory, with Mem0's
history database beside it; ``Memory.search(query, top_k=k, filters={"user_id": <unit>},
threshold=0.0)`` ranks them. The threshold is 0.0 because Mem0's default, 0.1, drops real hits;
telemetry is off.

What Mem0's search adds to the vector similarity depends on what is installed: BM25 keyword
scores need fastembed (whose model is a hub download) and entity boosts need spaCy's English
model (also a download), so offline neither is on: the ranking is Mem0's semantic score. Mem0
is given memrank's MiniLM as its embedder (its ``huggingface`` provider would load the same
model through sentence-transformers and torch); no LLM is ever called (its client points at a
closed port).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from memrank.system import Content, Document, Memory, Recall, text_of
from memrank.systems.dense import DIMENSIONS, MiniLM
from memrank.systems.libraries._told import Told, embedder, require_library, scratch, version_of

__all__ = ["Mem0Verbatim"]

_KEY = "memrank_key"  # the metadata field each memory carries its key back in


class Mem0Verbatim(Memory):
    """Mem0 2.2.1 library, ``infer=False``, local Qdrant, threshold 0.0, MiniLM."""

    name, version = "mem0-verbatim", "1"

    def __init__(self, threshold: float = 0.0) -> None:
        os.environ["MEM0_TELEMETRY"] = "False"  # read when mem0 is first imported
        require_library("the mem0-verbatim system", "mem0", ("mem0", "qdrant_client"))
        directory = scratch(self, "memrank-mem0-")
        os.environ.setdefault("MEM0_DIR", directory)  # not the user's ~/.mem0
        from mem0 import Memory as Mem0Memory
        from mem0.configs.base import MemoryConfig

        self.threshold = threshold
        self._embedder = embedder()
        self._memory: Any = Mem0Memory(
            MemoryConfig(
                vector_store={
                    "provider": "qdrant",
                    "config": {
                        "collection_name": "memrank",
                        "path": os.path.join(directory, "qdrant"),
                        "embedding_model_dims": DIMENSIONS,
                    },
                },
                embedder={"provider": "openai", "config": {"api_key": "never-used"}},
                llm={
                    "provider": "openai",
                    "config": {"api_key": "never-used", "openai_base_url": "http://127.0.0.1:9"},
                },
                history_db_path=os.path.join(directory, "history.db"),
            )
        )
        self._memory.embedding_model = _Embedder(self._embedder)
        self._told = Told()
        self._unit = ""

    def prepare(self, isolation_unit: str) -> None:
        self.cleanup()
        self._unit = isolation_unit

    def ingest(self, documents: Sequence[Document]) -> None:
        for key, text in self._told.add(documents):
            self._memory.add(
                [{"role": "user", "content": text}],
                user_id=self._unit,
                metadata={_KEY: key},
                infer=False,
            )

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        found = self._memory.search(
            text_of(query), top_k=k, filters={"user_id": self._unit}, threshold=self.threshold
        )["results"]
        return self._told.recall(
            "mem0",
            [str((hit.get("metadata") or {}).get(_KEY)) for hit in found],
            [float(hit["score"]) for hit in found],
            "scores",
        )

    def cleanup(self) -> None:
        if self._unit:
            self._memory.delete_all(user_id=self._unit)
        self._told.clear()

    def state_fingerprint(self) -> str:
        held = self._memory.get_all(filters={"user_id": self._unit}) if self._unit else None
        return f"{len(held['results']) if held else 0} memory(ies)"

    def components(self) -> dict[str, str]:
        return {
            "library": f"{version_of('mem0ai')}, {version_of('qdrant-client')}",
            "add": "infer=False: each document stored verbatim, no LLM",
            "store": "local qdrant (a temporary directory), one collection, user_id per unit",
            "search": f"threshold={self.threshold}; BM25 keyword scores off (fastembed not "
            "installed); entity boosts off (spaCy not installed); no reranker",
            "embedder": f"{self._embedder.describe()} (set as Mem0's embedding model)",
            **self._told.captions.components(),
        }


class _Embedder:
    """Mem0's embedder interface over memrank's MiniLM."""

    def __init__(self, model: MiniLM) -> None:
        self._model = model

    def embed(
        self, text: str, memory_action: Literal["add", "search", "update"] | None = None
    ) -> list[float]:
        vector: list[float] = self._model.encode([text])[0].tolist()
        return vector
