"""Tokenising shared by the shipped lexical systems."""

from __future__ import annotations

import re

__all__ = ["STOPWORDS", "words"]

_WORD = re.compile(r"[a-z0-9]+")

# Function words carry no topic; matching on them would rank every passage alike.
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "after",
        "all",
        "also",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "but",
        "by",
        "can",
        "could",
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
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "just",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "out",
        "she",
        "so",
        "some",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "up",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)


def words(text: str) -> list[str]:
    """Lower-cased alphanumeric tokens longer than one character, stopwords removed."""
    return [w for w in _WORD.findall(text.lower()) if len(w) > 1 and w not in STOPWORDS]
