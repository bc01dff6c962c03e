"""Benchmark: bm25 and hybrid ingest and query throughput on LoCoMo, as ratios in the same run.

For each conversation a fresh store is told all its turns (ingest) and asked its questions one
at a time with k=20 (query), as memrank.run does. Reported:

- bm25 queries/s against the bm25s package (Lucene variant, same words, one query per call,
  tokenising included on both sides), target at least 2x; ingest likewise. bm25 builds its
  postings on the first query after an ingest, so that build is counted in its query time.
- hybrid query time against bm25 query time, and hybrid ingest docs/s (it embeds every turn:
  the embedding cache is off here; tests/perf/bench_embedding.py measures it).

The material is read as the tests read it: MEMRANK_DATA_DIR, else shared/data beside the
repository.  Run: uv run python tests/perf/bench_baselines.py [rounds] [conversations]
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import bm25s

import memrank
from memrank import Document, Evaluation
from memrank.evaluations import locomo
from memrank.systems.bm25 import BM25
from memrank.systems.embedding_cache import CACHE_VARIABLE
from memrank.systems.hybrid import Hybrid
from memrank.systems.text import words

K = 20


def material() -> Path | None:
    if os.environ.get("MEMRANK_DATA_DIR"):
        return None
    return Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo"


def conversations(evaluation: Evaluation, count: int) -> list[tuple[list[Document], list[str]]]:
    units = list(evaluation.units())[:count]
    return [(list(u.documents), [str(t.prompt) for t in u.tasks]) for u in units]


def timed_memory(
    make: Callable[[], memrank.Memory], data: list[tuple[list[Document], list[str]]]
) -> tuple[float, float]:
    ingest = query = 0.0
    for documents, questions in data:
        memory = make()
        memory.prepare("bench")
        start = time.perf_counter()
        memory.ingest(documents)
        ingest += time.perf_counter() - start
        start = time.perf_counter()
        for question in questions:
            memory.retrieve(question, K, "bench")
        query += time.perf_counter() - start
        memory.cleanup()
    return ingest, query


def timed_bm25s(data: list[tuple[list[Document], list[str]]]) -> tuple[float, float]:
    ingest = query = 0.0
    for documents, questions in data:
        start = time.perf_counter()
        index = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
        index.index([words(d.text) for d in documents], show_progress=False)
        ingest += time.perf_counter() - start
        start = time.perf_counter()
        for question in questions:
            tokens = [w for w in words(question) if w in index.vocab_dict]
            if tokens:
                index.retrieve([tokens], k=min(K, len(documents)), show_progress=False, n_threads=1)
        query += time.perf_counter() - start
    return ingest, query


def main(rounds: int, count: int) -> None:
    os.environ[CACHE_VARIABLE] = "off"
    data = conversations(locomo(path=material()), count)
    docs = sum(len(d) for d, _ in data)
    questions = sum(len(q) for _, q in data)
    print(f"LoCoMo: {len(data)} conversation(s), {docs} turns, {questions} questions, k={K}")
    ours = [timed_memory(BM25, data) for _ in range(rounds)]
    theirs = [timed_bm25s(data) for _ in range(rounds)]
    bm25_ingest, bm25_query = min(i for i, _ in ours), min(q for _, q in ours)
    ref_ingest, ref_query = min(i for i, _ in theirs), min(q for _, q in theirs)
    print(
        f"bm25:   ingest {docs / bm25_ingest:10.0f} docs/s   query {questions / bm25_query:8.0f} q/s  (best of {rounds})"
    )
    print(
        f"bm25s:  ingest {docs / ref_ingest:10.0f} docs/s   query {questions / ref_query:8.0f} q/s  (best of {rounds})"
    )
    print(f"bm25 / bm25s queries per second = {ref_query / bm25_query:.1f}x (target >= 2x)")
    print(f"bm25 / bm25s ingest docs per second = {ref_ingest / bm25_ingest:.1f}x")
    hybrid_ingest, hybrid_query = timed_memory(Hybrid, data)
    print(
        f"hybrid: ingest {docs / hybrid_ingest:10.0f} docs/s   query {questions / hybrid_query:8.0f} q/s  (once)"
    )
    print(f"hybrid query time / bm25 query time = {hybrid_query / bm25_query:.1f}x")
    print(f"hybrid ingest time / bm25 ingest time = {hybrid_ingest / bm25_ingest:.0f}x")


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 3,
        int(sys.argv[2]) if len(sys.argv) > 2 else 10,
    )
