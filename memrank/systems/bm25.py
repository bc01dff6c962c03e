"""bm25: Okapi BM25 over numpy postings, a strong lexical baseline.

Score of a document for a query: the sum over the query's words (repeats count) of
``idf(w) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avg_len))`` with Lucene's idf,
``ln(1 + (N - df + 0.5) / (df + 0.5))``, which is never negative. Terms are ``terms(text)``,
which the hybrid matches on too: ``memrank.systems.text.words`` (lower-cased alphanumeric
tokens longer than one character, stopwords dropped), each reduced to its Snowball English stem
(Porter2, via PyStemmer), so "adopting", "adopted" and "adoption" are one term ("adopt");
``stem=False`` (the catalog's ``bm25-plain``) matches the unstemmed words. Ranked by score, ties in a fixed pseudo-random order of query and text
(``memrank.systems.ties``); documents scoring zero share no term with the query and are not
returned.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import datetime

import numpy as np
import numpy.typing as npt
import Stemmer

from memrank.system import Content, Document, Memory, Recall, text_of
from memrank.systems.text import CaptionsRead, words
from memrank.systems.ties import TIES, tie_keys, top

__all__ = ["STEMMER", "BM25", "BM25Adapter", "BM25Index", "BM25Plain", "terms"]

STEMMER = f"snowball english (pystemmer {Stemmer.version()})"
"""What stems, as recorded in a run's components."""

# A PyStemmer stemmer keeps a cache and is not safe to share between threads: one per thread.
_local = threading.local()


def terms(text: str) -> list[str]:
    """The text's words (``memrank.systems.text.words``), each stemmed (Snowball English)."""
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = Stemmer.Stemmer("english")
    stems: list[str] = stemmer.stemWords(words(text))
    return stems


class BM25Index:
    """Postings of a growing list of texts, scored with Okapi BM25 (Lucene idf).

    Words are given already tokenised. Adding texts only records them; the postings and
    per-posting impacts are built on the first query after an addition.
    """

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self._docs: list[list[str]] = []
        self._stale = True
        self._vocabulary: dict[str, int] = {}
        self._starts = np.zeros(1, dtype=np.int64)
        self._postings = np.zeros(0, dtype=np.int64)
        self._impacts = np.zeros(0, dtype=np.float64)

    def __len__(self) -> int:
        return len(self._docs)

    def add(self, tokenised: Sequence[list[str]]) -> None:
        self._docs.extend(tokenised)
        self._stale = True

    def scores(self, query: Sequence[str]) -> npt.NDArray[np.float64]:
        """Every document's score for the query words, in ingest order."""
        if self._stale:
            self._build()
        wanted = [self._vocabulary[w] for w in query if w in self._vocabulary]
        if not wanted:
            return np.zeros(len(self._docs))
        spans = [slice(self._starts[t], self._starts[t + 1]) for t in wanted]
        return np.bincount(
            np.concatenate([self._postings[s] for s in spans]),
            weights=np.concatenate([self._impacts[s] for s in spans]),
            minlength=len(self._docs),
        ).astype(np.float64, copy=False)

    def top(
        self, query: Sequence[str], k: int, ties: Callable[[Sequence[int]], npt.NDArray[np.uint64]]
    ) -> list[tuple[int, float]]:
        """The k best (position, score) pairs with a score above zero.

        ``ties`` gives the keys that order equal scores, for the positions scored.
        """
        scores = self.scores(query)
        scored = np.flatnonzero(scores > 0)
        order = scored[top(scores[scored], k, lambda best: ties(scored[best].tolist()))]
        return [(int(position), float(scores[position])) for position in order]

    def _build(self) -> None:
        term_ids: list[int] = []
        docs: list[int] = []
        counts: list[int] = []
        vocabulary: dict[str, int] = {}
        for position, tokens in enumerate(self._docs):
            tally: dict[int, int] = {}
            for token in tokens:
                term = vocabulary.setdefault(token, len(vocabulary))
                tally[term] = tally.get(term, 0) + 1
            term_ids.extend(tally)
            docs.extend([position] * len(tally))
            counts.extend(tally.values())
        term_of = np.asarray(term_ids, dtype=np.int64)
        order = np.argsort(term_of, kind="stable")  # postings grouped by term, docs ascending
        lengths = np.asarray([len(tokens) for tokens in self._docs], dtype=np.float64)
        document_frequency = np.bincount(term_of, minlength=len(vocabulary)).astype(np.float64)
        idf = np.log1p((len(self._docs) - document_frequency + 0.5) / (document_frequency + 0.5))
        postings = np.asarray(docs, dtype=np.int64)[order]
        tf = np.asarray(counts, dtype=np.float64)[order]
        average = lengths.mean() if len(lengths) and lengths.mean() > 0 else 1.0
        norm = self.k1 * (1 - self.b + self.b * lengths[postings] / average)
        self._impacts = idf[term_of[order]] * tf * (self.k1 + 1) / (tf + norm)
        self._postings = postings
        self._starts = np.concatenate(([0], np.cumsum(document_frequency).astype(np.int64)))
        self._vocabulary = vocabulary
        self._stale = False


class BM25Adapter(Memory):
    """Okapi BM25 (k1 1.5, b 0.75, Lucene idf) over the documents it is told, one unit each."""

    name, version = "bm25", "2"

    def __init__(self, k1: float = 1.5, b: float = 0.75, stem: bool = True) -> None:
        self.k1, self.b, self.stem = k1, b, stem
        self._terms = terms if stem else words
        self._captions = CaptionsRead()
        self._clear()

    def _clear(self) -> None:
        self._index = BM25Index(self.k1, self.b)
        self._documents: list[Document] = []

    def prepare(self, isolation_unit: str) -> None:
        self._clear()

    def ingest(self, documents: Sequence[Document]) -> None:
        self._captions.told(documents)
        self._documents.extend(documents)
        self._index.add([self._terms(d.text) for d in documents])

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        text = text_of(query)
        ranked = self._index.top(
            self._terms(text),
            k,
            lambda positions: tie_keys(text, (self._documents[p].text for p in positions)),
        )
        return Recall(
            documents=tuple(self._documents[position] for position, _ in ranked),
            declared={"scores": [round(score, 6) for _, score in ranked]},
        )

    def cleanup(self) -> None:
        self._clear()

    def state_fingerprint(self) -> str:
        return f"{len(self._documents)} document(s)"

    def components(self) -> dict[str, str]:
        return {
            "scoring": f"okapi bm25, k1={self.k1}, b={self.b}, lucene idf",
            "words": "lower-cased alphanumeric tokens, stopwords dropped"
            + (f", stemmed: {STEMMER}" if self.stem else ", not stemmed"),
            "ties": TIES,
            **self._captions.components(),
        }


class BM25Plain(BM25Adapter):
    """bm25 without stemming: the same scoring over the words as written (for comparison)."""

    name = "bm25-plain"

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        super().__init__(k1, b, stem=False)


BM25 = BM25Adapter
