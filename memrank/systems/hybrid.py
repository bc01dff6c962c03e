"""hybrid: dense and BM25 rankings fused by weighted reciprocal rank, seeds grown by neighbours.

The recipe the Agent Memory Leaderboard's first-cycle open-source winner (InvMem) describes,
with all-MiniLM-L6-v2 (int8 ONNX) where InvMem used bge-small-en-v1.5:

1. one memory unit per message; a message longer than ``chunk_words`` words is split into
   chunks of ``chunk_words`` words overlapping by ``overlap_words`` (each chunk names its
   message in ``metadata["doc_id"]``);
2. two rankings of every unit: dense cosine, and BM25 (units scoring zero are not in it);
3. fused score ``dense_weight / (rrf_k + dense rank) + bm25_weight / (rrf_k + bm25 rank)``,
   by default ``1/(60 + dense) + 0.5/(60 + bm25)``; ties in ingest order;
4. the ``seeds`` best fused units, each followed by the ``window`` units before and after it
   in ingest order that belong to the same session (``metadata["session_id"]``; documents
   naming none count as one session), de-duplicated;
5. filled to k from the fused ranking, and cut to k.

Every constant is a constructor argument and is recorded in the run (``components()``).
Needs the optional extra ``memrank[dense]``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

import numpy as np
import numpy.typing as npt

from memrank.errors import UsageError
from memrank.system import Content, Document, Memory, Recall, text_of
from memrank.systems.bm25 import BM25Index
from memrank.systems.dense import DIMENSIONS, MiniLM, require_dense
from memrank.systems.text import CaptionsRead, words

__all__ = ["Hybrid", "HybridAdapter", "split_words"]

_WORD = re.compile(r"\S+")


def split_words(document: Document, size: int, overlap: int) -> list[Document]:
    """The document itself when it has at most ``size`` words, else its overlapping chunks.

    Words are runs of non-space characters; a chunk is the original text from its first word
    to its last, so nothing inside it is rewritten.
    """
    text = document.text
    spans = [match.span() for match in _WORD.finditer(text)]
    if len(spans) <= size:
        return [document]
    chunks = []
    step = size - overlap
    for number, start in enumerate(range(0, len(spans) - overlap, step)):
        last = spans[min(start + size, len(spans)) - 1]
        chunks.append(
            Document(
                id=f"{document.id}#chunk-{number}",
                content=text[spans[start][0] : last[1]],
                user_id=document.user_id,
                timestamp=document.timestamp,
                metadata={**document.metadata, "doc_id": document.id, "chunk": number},
            )
        )
    return chunks


class HybridAdapter(Memory):
    """Dense + BM25 fused by weighted reciprocal rank, with same-session neighbour expansion."""

    name, version = "hybrid", "1"

    def __init__(
        self,
        chunk_words: int = 320,
        overlap_words: int = 40,
        rrf_k: float = 60.0,
        dense_weight: float = 1.0,
        bm25_weight: float = 0.5,
        seeds: int = 20,
        window: int = 1,
        k1: float = 1.5,
        b: float = 0.75,
        batch_size: int = 64,
    ) -> None:
        require_dense("the hybrid system")
        if not 0 <= overlap_words < chunk_words:
            raise UsageError(
                f"overlap_words={overlap_words} must be at least 0 and below "
                f"chunk_words={chunk_words}"
            )
        if seeds < 1 or window < 0:
            raise UsageError(f"seeds={seeds} must be at least 1 and window={window} at least 0")
        self.chunk_words, self.overlap_words = chunk_words, overlap_words
        self.rrf_k, self.dense_weight, self.bm25_weight = rrf_k, dense_weight, bm25_weight
        self.seeds, self.window, self.k1, self.b = seeds, window, k1, b
        self._embedder = MiniLM(batch_size)
        self._captions = CaptionsRead()
        self._clear()

    def _clear(self) -> None:
        self._units: list[Document] = []
        self._sessions: list[object] = []
        self._vectors: npt.NDArray[np.float32] = np.zeros((0, DIMENSIONS), dtype=np.float32)
        self._lexical = BM25Index(self.k1, self.b)

    def prepare(self, isolation_unit: str) -> None:
        self._clear()

    def ingest(self, documents: Sequence[Document]) -> None:
        self._captions.told(documents)
        units = [
            unit
            for document in documents
            for unit in split_words(document, self.chunk_words, self.overlap_words)
        ]
        self._units.extend(units)
        self._sessions.extend(unit.metadata.get("session_id") for unit in units)
        self._vectors = np.vstack([self._vectors, self._embedder.encode([u.text for u in units])])
        self._lexical.add([words(unit.text) for unit in units])

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        if not self._units:
            return Recall()
        text = text_of(query)
        fused = self._fused(text)
        ranking = _descending(fused)
        picked: list[int] = []
        via: list[str] = []
        for seed in ranking[: self.seeds]:
            for position, how in [(int(seed), "seed"), *self._neighbours(int(seed))]:
                if position not in picked:
                    picked.append(position)
                    via.append(how)
        for position in ranking:
            if len(picked) >= k:
                break
            if int(position) not in picked:
                picked.append(int(position))
                via.append("fill")
        return Recall(
            documents=tuple(self._units[p] for p in picked[:k]),
            declared={
                "fused": [round(float(fused[p]), 6) for p in picked[:k]],
                "via": via[:k],
                "units": len(self._units),
            },
        )

    def _fused(self, text: str) -> npt.NDArray[np.float64]:
        count = len(self._units)
        similarity = self._vectors @ self._embedder.encode([text])[0]
        dense_rank = np.empty(count)
        dense_rank[_descending(similarity.astype(np.float64))] = np.arange(1, count + 1)
        fused: npt.NDArray[np.float64] = self.dense_weight / (self.rrf_k + dense_rank)
        lexical = self._lexical.scores(words(text))
        scored = np.flatnonzero(lexical > 0)
        order = scored[np.lexsort((scored, -lexical[scored]))]
        fused[order] += self.bm25_weight / (self.rrf_k + np.arange(1, len(order) + 1))
        return fused

    def _neighbours(self, seed: int) -> list[tuple[int, str]]:
        found = []
        for offset in range(1, self.window + 1):
            for position in (seed - offset, seed + offset):
                same = 0 <= position < len(self._units)
                if same and self._sessions[position] == self._sessions[seed]:
                    found.append((position, "neighbour"))
        return found

    def cleanup(self) -> None:
        self._clear()

    def state_fingerprint(self) -> str:
        return f"{len(self._units)} unit(s)"

    def components(self) -> dict[str, str]:
        return {
            "embedder": self._embedder.describe(),
            "lexical": f"okapi bm25, k1={self.k1}, b={self.b}, lucene idf",
            "units": f"one per message; longer than {self.chunk_words} words: chunks of "
            f"{self.chunk_words} words overlapping by {self.overlap_words}",
            "fusion": f"{self.dense_weight}/({self.rrf_k} + dense rank) + "
            f"{self.bm25_weight}/({self.rrf_k} + bm25 rank)",
            "expansion": f"top {self.seeds} fused seeds, each followed by {self.window} unit(s) "
            "before and after it in the same session; de-duplicated; filled to k in fused order",
            **self._captions.components(),
        }


def _descending(scores: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    """Positions by score, best first; ties in ingest order."""
    positions = np.arange(len(scores))
    return positions[np.lexsort((positions, -scores))]


Hybrid = HybridAdapter
