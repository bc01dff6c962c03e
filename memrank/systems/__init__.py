"""The systems memrank ships: small in-process memories and controls."""

from memrank.systems.controls import NoContext
from memrank.systems.word_overlap import WordOverlap

__all__ = ["NoContext", "WordOverlap"]
