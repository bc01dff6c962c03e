"""hybrid: dense and BM25 scores, each min-max normalised, fused by a weighted sum.

1. one memory unit per message; a message longer than ``chunk_words`` words is split into
   chunks of ``chunk_words`` words overlapping by ``overlap_words`` (each chunk names its
   message in ``metadata["doc_id"]``);
2. two scores of every unit: dense cosine (all-MiniLM-L6-v2, int8 ONNX) and stemmed BM25;
   each is min-max normalised over the unit's store, so the best unit scores 1 on each;
3. fused score ``dense_weight * dense + (1 - dense_weight) * bm25``;
4. a unit's final score is its fused score or ``neighbour_weight`` times the fused score of a
   unit at most ``window`` places before or after it in the same session, whichever is larger:
   a neighbour of a strong match is recalled only where it beats the units matched directly,
   so expansion never crowds out a better direct match at small k;
5. ranked by final score, ties in a fixed pseudo-random order of query and text, cut to k.

Every constant is a constructor argument and is recorded in the run (``components()``); the
defaults were chosen on LoCoMo's smoke slice and the BEAM conversation, never on full LoCoMo
(docs/evaluations.md). The recipe InvMem describes (reciprocal-rank fusion, seed expansion) is
``memrank.systems.hybrid_invmem``. Needs the optional extra ``memrank[dense]``.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Sequence
from datetime import datetime

import numpy as np
import numpy.typing as npt

from memrank.errors import UsageError
from memrank.system import Content, Document, Memory, Recall, text_of
from memrank.systems.bm25 import STEMMER, BM25Index, terms
from memrank.systems.dense import DIMENSIONS, MiniLM, require_dense
from memrank.systems.text import CaptionsRead, words
from memrank.systems.ties import TIES, tie_keys, top

__all__ = ["DenseLexical", "Hybrid", "HybridAdapter", "split_words"]

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


class DenseLexical(Memory):
    """Units embedded and BM25-indexed as they are told; what both hybrids share.

    A subclass ranks (``_ranked``) and says how (``components``).
    """

    def __init__(
        self,
        *,
        chunk_words: int,
        overlap_words: int,
        window: int,
        k1: float,
        b: float,
        stem: bool,
        batch_size: int,
    ) -> None:
        require_dense(f"the {self.name} system")
        if not 0 <= overlap_words < chunk_words:
            raise UsageError(
                f"overlap_words={overlap_words} must be at least 0 and below "
                f"chunk_words={chunk_words}"
            )
        if window < 0:
            raise UsageError(f"window={window} must be at least 0")
        self.chunk_words, self.overlap_words, self.window = chunk_words, overlap_words, window
        self.k1, self.b, self.stem = k1, b, stem
        self._terms = terms if stem else words
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
        self._lexical.add([self._terms(unit.text) for unit in units])

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        if not self._units:
            return Recall()
        return self._ranked(text_of(query), k)

    @abstractmethod
    def _ranked(self, text: str, k: int) -> Recall:
        """The best ``k`` units of a store that holds some, for the query ``text``."""

    def _dense(self, text: str) -> npt.NDArray[np.float64]:
        """Every unit's cosine with the query, in ingest order."""
        similarity: npt.NDArray[np.float64] = (
            self._vectors @ self._embedder.encode([text])[0]
        ).astype(np.float64)
        return similarity

    def _bm25(self, text: str) -> npt.NDArray[np.float64]:
        """Every unit's BM25 score for the query, in ingest order (0 shares no term)."""
        return self._lexical.scores(self._terms(text))

    def _ties(
        self, text: str, positions: Sequence[int] | npt.NDArray[np.intp] | None = None
    ) -> npt.NDArray[np.uint64]:
        """The units' keys among equal scores for this query (all units when none are named)."""
        units = self._units if positions is None else [self._units[p] for p in positions]
        return tie_keys(text, (unit.text for unit in units))

    def _neighbours(self, unit: int) -> list[int]:
        """The units at most ``window`` places before and after, in the same session."""
        found = []
        for offset in range(1, self.window + 1):
            for position in (unit - offset, unit + offset):
                same = 0 <= position < len(self._units)
                if same and self._sessions[position] == self._sessions[unit]:
                    found.append(position)
        return found

    def cleanup(self) -> None:
        self._clear()

    def state_fingerprint(self) -> str:
        return f"{len(self._units)} unit(s)"

    def components(self) -> dict[str, str]:
        return {
            "embedder": self._embedder.describe(),
            "lexical": f"okapi bm25, k1={self.k1}, b={self.b}, lucene idf, "
            + (f"stemmed: {STEMMER}" if self.stem else "not stemmed"),
            "units": f"one per message; longer than {self.chunk_words} words: chunks of "
            f"{self.chunk_words} words overlapping by {self.overlap_words}",
            "ties": TIES,
            **self._captions.components(),
        }


class HybridAdapter(DenseLexical):
    """Min-max normalised dense and BM25 scores, summed with weights; neighbours inherit."""

    name, version = "hybrid", "2"

    def __init__(
        self,
        dense_weight: float = 0.6,
        neighbour_weight: float = 0.8,
        window: int = 1,
        chunk_words: int = 320,
        overlap_words: int = 40,
        k1: float = 1.5,
        b: float = 0.75,
        stem: bool = True,
        batch_size: int = 64,
    ) -> None:
        if not (0 <= dense_weight <= 1 and 0 <= neighbour_weight < 1):
            raise UsageError(
                f"dense_weight={dense_weight} must be within [0, 1] and "
                f"neighbour_weight={neighbour_weight} within [0, 1)"
            )
        self.dense_weight, self.neighbour_weight = dense_weight, neighbour_weight
        super().__init__(
            chunk_words=chunk_words,
            overlap_words=overlap_words,
            window=window,
            k1=k1,
            b=b,
            stem=stem,
            batch_size=batch_size,
        )

    def _ranked(self, text: str, k: int) -> Recall:
        fused = self.dense_weight * _minmax(self._dense(text))
        fused += (1 - self.dense_weight) * _minmax(self._bm25(text))
        final, via = fused.copy(), ["direct"] * len(fused)
        if self.neighbour_weight > 0:
            for position in top(
                fused, k, lambda best: self._ties(text, best)
            ):  # only a top-k unit can lift one into k
                lifted = self.neighbour_weight * fused[position]
                for neighbour in self._neighbours(int(position)):
                    if lifted > final[neighbour]:
                        final[neighbour], via[neighbour] = lifted, "neighbour"
        picked = [int(p) for p in top(final, k, lambda best: self._ties(text, best))]
        return Recall(
            documents=tuple(self._units[p] for p in picked),
            declared={
                "scores": [round(float(final[p]), 6) for p in picked],
                "via": [via[p] for p in picked],
                "units": len(self._units),
            },
        )

    def components(self) -> dict[str, str]:
        return {
            **super().components(),
            "fusion": f"{self.dense_weight} * minmax(cosine) + "
            f"{round(1 - self.dense_weight, 6)} * minmax(bm25)",
            "expansion": (
                f"a unit scores at least {self.neighbour_weight} x the fused score of a top-k "
                f"unit at most {self.window} place(s) away in its session"
                if self.neighbour_weight > 0
                else "none"
            ),
        }


def _minmax(scores: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Scores mapped onto [0, 1], lowest to highest; all 0 when every score is equal."""
    low, high = scores.min(), scores.max()
    if high <= low:
        return np.zeros_like(scores)
    normalised: npt.NDArray[np.float64] = (scores - low) / (high - low)
    return normalised


Hybrid = HybridAdapter
