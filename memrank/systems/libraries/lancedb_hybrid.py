"""lancedb-hybrid: LanceDB's hybrid search, its native full-text index and a flat vector search
fused by its default reranker (reciprocal rank fusion).

Each unit's documents go into a fresh table of a LanceDB database in a temporary directory (a
key, the text and its MiniLM vector per row). Before the first query after documents were
added, LanceDB's native full-text index is (re)built over the text with its defaults (``FTS()``:
simple tokenizer, lower case, English stemming and stop words, ASCII folding); a query
is ``query_type="hybrid"`` with the query's vector and text, fused by LanceDB's default
``RRFReranker`` (K 60). The vector side is exhaustive (no vector index is built): exact.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memrank.system import Content, Document, Memory, Recall, text_of
from memrank.systems.libraries._told import Told, embedder, require_library, scratch, version_of

__all__ = ["LanceDBHybrid"]

_UNITS = itertools.count()


class LanceDBHybrid(Memory):
    """LanceDB 0.40.0 hybrid search: native full-text index + flat vectors, default RRF."""

    name, version = "lancedb-hybrid", "1"

    def __init__(self) -> None:
        require_library("the lancedb-hybrid system", "lancedb", ("lancedb", "pyarrow"))
        import lancedb

        self._db = lancedb.connect(scratch(self, "memrank-lancedb-"))
        self._embedder = embedder()
        self._told = Told()
        self._table: Any = None
        self._indexed = True

    def prepare(self, isolation_unit: str) -> None:
        self.cleanup()

    def ingest(self, documents: Sequence[Document]) -> None:
        import pyarrow as pa

        stored = self._told.add(documents)
        if not stored:
            return
        texts = [text for _, text in stored]
        rows = pa.table(
            {
                "key": [key for key, _ in stored],
                "text": texts,
                "vector": pa.FixedShapeTensorArray.from_numpy_ndarray(
                    self._embedder.encode(texts)
                ).storage,
            }
        )
        if self._table is None:
            self._table = self._db.create_table(f"unit_{next(_UNITS)}", data=rows)
        else:
            self._table.add(rows)
        self._indexed = False

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        if self._table is None:
            return Recall()
        if not self._indexed:
            from lancedb.index import FTS

            self._table.create_index("text", config=FTS(), replace=True)
            self._indexed = True
        text = text_of(query)
        hits = (
            self._table.search(query_type="hybrid")
            .vector(self._embedder.encode([text])[0])
            .text(text)
            .limit(k)
            .to_list()
        )
        return self._told.recall(
            "lancedb", [h["key"] for h in hits], [h["_relevance_score"] for h in hits], "scores"
        )

    def cleanup(self) -> None:
        if self._table is not None:
            self._db.drop_table(self._table.name)
            self._table = None
        self._told.clear()

    def state_fingerprint(self) -> str:
        held = self._table.count_rows() if self._table is not None else 0
        return f"{held} document(s)"

    def components(self) -> dict[str, str]:
        return {
            "library": version_of("lancedb"),
            "store": "a LanceDB database in a temporary directory, one table per unit",
            "index": "native full-text index on the text, FTS() defaults (simple tokenizer, "
            "lower case, english stemming and stop words, ascii folding); vectors searched flat "
            "(no vector index: exact)",
            "fusion": "query_type=hybrid, lancedb's default RRFReranker (K=60)",
            "embedder": self._embedder.describe(),
            **self._told.captions.components(),
        }
