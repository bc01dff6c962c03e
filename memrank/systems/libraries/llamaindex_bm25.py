"""llamaindex-bm25: LlamaIndex's ``BM25Retriever`` (bm25s), the framework baseline people deploy.

Each unit's documents become ``TextNode``s (id: the key memrank gave it; text: the document's
text, no metadata), indexed by ``BM25Retriever.from_defaults`` with its defaults: English
Snowball stemmer, English stopwords on the documents, bm25s's scoring (Lucene variant, k1 1.5,
b 0.75). The index is static, so it is built again at the first query after documents were
added. It returns k nodes, zero-scoring ones included, as the library does.

Which of several equal scores the library puts first is not its own choice: bm25s takes the top
k with numpy's argpartition and argsort, whose order among equal values depends on the
processor's vector instructions (numpy picks an AVX-512 or an AVX2 sort at run time). On LoCoMo,
one run and another with numpy's AVX-512 kernels turned off recalled the same scores but a
different order for 720 of 1,986 questions, and different documents for 116. So every node's
score is asked for, and the k best taken in memrank's fixed order among equal scores
(``memrank.systems.ties``): the same on every processor.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from memrank.system import Content, Document, Memory, Recall, text_of
from memrank.systems.libraries._told import Told, require_library, version_of
from memrank.systems.ties import TIES, tie_keys, top

__all__ = ["LlamaIndexBM25"]


class LlamaIndexBM25(Memory):
    """LlamaIndex ``BM25Retriever`` 0.8.0 over the unit's documents, library defaults."""

    name, version = "llamaindex-bm25", "2"

    def __init__(self) -> None:
        require_library(
            "the llamaindex-bm25 system", "llamaindex", ("llama_index.retrievers.bm25", "bm25s")
        )
        self._told = Told()
        self._retriever: Any = None

    def prepare(self, isolation_unit: str) -> None:
        self.cleanup()

    def ingest(self, documents: Sequence[Document]) -> None:
        self._told.add(documents)
        self._retriever = None

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        if not self._told.documents:
            return Recall()
        documents = self._told.documents
        if self._retriever is None:
            from llama_index.core.schema import TextNode
            from llama_index.retrievers.bm25 import BM25Retriever

            nodes = [
                TextNode(id_=str(position), text=document.text)
                for position, document in enumerate(documents)
            ]
            # every node scored: the library's own cut at k orders ties by the processor
            self._retriever = BM25Retriever.from_defaults(
                nodes=nodes, similarity_top_k=len(documents)
            )
        text = text_of(query)
        hits = self._retriever.retrieve(text)
        keys = [h.node.node_id for h in hits]
        scores = [float(h.score or 0) for h in hits]
        every = self._told.recall("llamaindex", keys, scores, "scores").documents  # keys checked
        best = top(np.array(scores), k, lambda at: tie_keys(text, (every[i].text for i in at)))
        return self._told.recall(
            "llamaindex", [keys[i] for i in best], [scores[i] for i in best], "scores"
        )

    def cleanup(self) -> None:
        self._retriever = None
        self._told.clear()

    def state_fingerprint(self) -> str:
        return f"{len(self._told.documents)} document(s)"

    def components(self) -> dict[str, str]:
        return {
            "library": f"{version_of('llama-index-retrievers-bm25')}, "
            f"{version_of('llama-index-core')}, {version_of('bm25s')}, {version_of('pystemmer')}",
            "index": "BM25Retriever.from_defaults: bm25s (lucene), english snowball stemmer, "
            "english stopwords on documents, token pattern (?u)\\b\\w\\w+\\b",
            "returns": "k nodes, zero-scoring ones included (library default)",
            "ties": TIES,
            **self._told.captions.components(),
        }
