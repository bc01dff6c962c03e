"""hybrid-invmem: dense and BM25 rankings fused by weighted reciprocal rank, seeds grown by neighbours.

The recipe the Agent Memory Leaderboard's first-cycle open-source winner (InvMem) describes,
with all-MiniLM-L6-v2 (int8 ONNX) where InvMem used bge-small-en-v1.5; memrank's ``hybrid``
until version 1, kept for comparison (docs/evaluations.md has the ablation):

1. units as in ``memrank.systems.hybrid`` (one per message, long messages chunked);
2. two rankings of every unit: dense cosine, and BM25 over unstemmed words (units scoring zero
   are not in it);
3. fused score ``dense_weight / (rrf_k + dense rank) + bm25_weight / (rrf_k + bm25 rank)``,
   by default ``1/(60 + dense) + 0.5/(60 + bm25)``;
4. the ``seeds`` best fused units, each followed by the ``window`` units before and after it
   in ingest order that belong to the same session (``metadata["session_id"]``; documents
   naming none count as one session), de-duplicated;
5. filled to k from the fused ranking, and cut to k.

Ties in a fixed pseudo-random order of query and text (version 1 kept ingest order).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from memrank.errors import UsageError
from memrank.system import Recall
from memrank.systems.hybrid import DenseLexical
from memrank.systems.ties import descending

__all__ = ["InvMemHybrid"]


class InvMemHybrid(DenseLexical):
    """Dense + BM25 fused by weighted reciprocal rank, with same-session neighbour expansion."""

    name, version = "hybrid-invmem", "2"

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
        stem: bool = False,
        batch_size: int = 64,
    ) -> None:
        if seeds < 1:
            raise UsageError(f"seeds={seeds} must be at least 1")
        self.rrf_k, self.dense_weight, self.bm25_weight = rrf_k, dense_weight, bm25_weight
        self.seeds = seeds
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
        ties = self._ties(text)
        fused = self._fused(text, ties)
        ranking = descending(fused, ties)
        picked: list[int] = []
        via: list[str] = []
        for seed in ranking[: self.seeds]:
            for position, how in [(int(seed), "seed")] + [
                (n, "neighbour") for n in self._neighbours(int(seed))
            ]:
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

    def _fused(self, text: str, ties: npt.NDArray[np.uint64]) -> npt.NDArray[np.float64]:
        count = len(self._units)
        dense_rank = np.empty(count)
        dense_rank[descending(self._dense(text), ties)] = np.arange(1, count + 1)
        fused: npt.NDArray[np.float64] = self.dense_weight / (self.rrf_k + dense_rank)
        lexical = self._bm25(text)
        scored = np.flatnonzero(lexical > 0)
        order = scored[descending(lexical[scored], ties[scored])]
        fused[order] += self.bm25_weight / (self.rrf_k + np.arange(1, len(order) + 1))
        return fused

    def components(self) -> dict[str, str]:
        return {
            **super().components(),
            "fusion": f"{self.dense_weight}/({self.rrf_k} + dense rank) + "
            f"{self.bm25_weight}/({self.rrf_k} + bm25 rank)",
            "expansion": f"top {self.seeds} fused seeds, each followed by {self.window} unit(s) "
            "before and after it in the same session; de-duplicated; filled to k in fused order",
        }
