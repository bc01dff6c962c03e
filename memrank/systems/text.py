"""Tokenising shared by the shipped lexical systems, and how they read images: as captions.

Every shipped in-process system reads text only. A document's image parts reach it as their
captions (``Document.text``); ``CaptionsRead`` counts the image parts it was told, so the run
records, in the system's components, that it read captions where images were given.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memrank.system import Document, image_count

__all__ = ["STOPWORDS", "CaptionsRead", "words"]

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


class CaptionsRead:
    """The image parts a text-only system was told, each read as its caption (or not at all)."""

    def __init__(self) -> None:
        self.images = 0

    def told(self, documents: Sequence[Document]) -> None:
        self.images += sum(image_count(d.content) for d in documents)

    def components(self) -> dict[str, str]:
        """``{"images": ...}`` once an image part was told, else nothing."""
        if not self.images:
            return {}
        return {
            "images": f"text-only: {self.images} image part(s) read as their caption text "
            "(left out where a document gives no caption)"
        }
