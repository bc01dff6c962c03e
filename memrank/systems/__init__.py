"""The systems memrank ships: small in-process memories and controls.

The numpy-backed baselines live in their own modules so importing this package stays light:
``memrank.systems.bm25.BM25`` and ``memrank.systems.hybrid.Hybrid`` (which needs the optional
extra ``memrank[dense]``).
"""

from memrank.systems.controls import FixedContext, FullContext, NoContext, Random
from memrank.systems.word_overlap import WordOverlap

__all__ = ["FixedContext", "FullContext", "NoContext", "Random", "WordOverlap"]
