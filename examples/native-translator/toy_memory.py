"""A toy memory: it keeps each unit's documents and ranks them by the words they share with
the query. Standard library only; this is the system the translator next to it wraps."""

from __future__ import annotations

import re

WORD = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "she",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)


def words(text: str) -> set[str]:
    """Lower-cased words longer than one character, function words left out."""
    return {w for w in WORD.findall(text.lower()) if len(w) > 1 and w not in STOPWORDS}


class ToyMemory:
    """Units of documents ({"id", "content"}); retrieve ranks by shared words, ties keep order."""

    def __init__(self) -> None:
        self.units: dict[str, list[dict]] = {}

    def prepare(self, unit: str) -> None:
        self.units[unit] = []

    def ingest(self, unit: str, documents: list[dict]) -> None:
        self.units.setdefault(unit, []).extend(documents)

    def retrieve(self, unit: str, query: str, k: int) -> list[tuple[dict, int]]:
        """At most k (document, shared word count) pairs, best first; no shared word, no hit."""
        wanted = words(query)
        scored = [(d, len(wanted & words(d["content"]))) for d in self.units.get(unit, [])]
        return sorted((s for s in scored if s[1] > 0), key=lambda s: -s[1])[:k]

    def cleanup(self, unit: str) -> None:
        self.units.pop(unit, None)
