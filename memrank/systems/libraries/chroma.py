"""chroma: Chroma's in-process client, one collection per isolation unit, stock index settings.

Each unit's documents go into a fresh collection of an ``EphemeralClient`` (nothing on disk)
with telemetry off, one ``add`` per document; Chroma's default index is kept (HNSW, L2
distance, ef_construction 100, ef_search 100, 16 neighbours). Vectors are memrank's MiniLM,
given with each document and query, so the ranking is Chroma's approximate nearest-neighbour
search over the same vectors the exact dense stores rank (docs/systems.md measures how often
the two differ).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memrank.system import Content, Document, Memory, Recall, text_of
from memrank.systems.libraries._told import Told, embedder, require_library, version_of

__all__ = ["ChromaMemory"]

_UNITS = itertools.count()  # collection names unique in the process: clients share a system


class ChromaMemory(Memory):
    """Chroma 1.5.9, an ephemeral in-process collection per unit, default HNSW (L2)."""

    name, version = "chroma", "1"

    def __init__(self) -> None:
        require_library("the chroma system", "chroma", ("chromadb",))
        import chromadb
        from chromadb.config import Settings

        self._client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
        self._embedder = embedder()
        self._told = Told()
        self._collection: Any = None

    def prepare(self, isolation_unit: str) -> None:
        self.cleanup()
        self._collection = self._client.create_collection(
            f"memrank-unit-{next(_UNITS)}", embedding_function=None
        )

    def ingest(self, documents: Sequence[Document]) -> None:
        stored = self._told.add(documents)
        vectors = self._embedder.encode([text for _, text in stored])
        # One add per document, as an agent adds memories: a batch is inserted into the HNSW
        # graph on several threads, and the graph (so the ranking) then differs run to run.
        for (key, text), vector in zip(stored, vectors, strict=True):
            self._collection.add(ids=[key], documents=[text], embeddings=vector[None, :])

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        if not self._told.documents:
            return Recall()
        found = self._collection.query(
            query_embeddings=self._embedder.encode([text_of(query)]),
            n_results=min(k, len(self._told.documents)),
            include=["distances"],
        )
        return self._told.recall("chroma", found["ids"][0], found["distances"][0], "distances")

    def cleanup(self) -> None:
        if self._collection is not None:
            self._client.delete_collection(self._collection.name)
            self._collection = None
        self._told.clear()

    def state_fingerprint(self) -> str:
        held = self._collection.count() if self._collection is not None else 0
        return f"{held} document(s)"

    def components(self) -> dict[str, str]:
        return {
            "library": version_of("chromadb"),
            "store": "EphemeralClient (in memory), one collection per unit, telemetry off",
            "index": "chroma's default HNSW (approximate): l2, ef_construction 100, ef_search "
            "100, max_neighbors 16; one add per document",
            "embedder": self._embedder.describe(),
            **self._told.captions.components(),
        }
