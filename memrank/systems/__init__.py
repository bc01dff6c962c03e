"""The systems memrank ships: small in-process memories and controls, and clients of running
engines (Mem0, Hindsight, Supermemory, AtomicMemory, and any translator: Native).

The engine clients are imported on first use, so ``from memrank.systems import WordOverlap``
never loads the HTTP client. The numpy-backed baselines live in their own modules so importing
this package stays light: ``memrank.systems.bm25.BM25`` and ``memrank.systems.hybrid.Hybrid``
(which needs the optional extra ``memrank[dense]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memrank._lazy import lazy_names
from memrank.systems.controls import FixedContext, FullContext, NoContext, Random
from memrank.systems.word_overlap import WordOverlap

if TYPE_CHECKING:
    from memrank.systems.http.atomicmemory import AtomicMemory as AtomicMemory
    from memrank.systems.http.hindsight import Hindsight as Hindsight
    from memrank.systems.http.mem0 import Mem0 as Mem0
    from memrank.systems.http.native import Native as Native
    from memrank.systems.http.supermemory import Supermemory as Supermemory

_HOMES = {
    "AtomicMemory": "memrank.systems.http.atomicmemory",
    "Hindsight": "memrank.systems.http.hindsight",
    "Mem0": "memrank.systems.http.mem0",
    "Native": "memrank.systems.http.native",
    "Supermemory": "memrank.systems.http.supermemory",
}

__all__ = [
    "AtomicMemory",
    "FixedContext",
    "FullContext",
    "Hindsight",
    "Mem0",
    "Native",
    "NoContext",
    "Random",
    "Supermemory",
    "WordOverlap",
]

__getattr__ = lazy_names(__name__, _HOMES)[0]
