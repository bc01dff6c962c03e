"""English stemming for the lexical baselines: Snowball's English stemmer (Porter2), via PyStemmer.

``terms(text)`` is what bm25 and the hybrid match on: ``memrank.systems.text.words`` (lower-cased
alphanumeric tokens longer than one character, stopwords dropped), each reduced to its Snowball
English stem, so "adopting", "adopted" and "adoption" are one term ("adopt").
"""

from __future__ import annotations

import threading

import Stemmer

from memrank.systems.text import words

__all__ = ["STEMMER", "terms"]

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
