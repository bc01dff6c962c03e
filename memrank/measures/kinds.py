"""Which value names the measures declare binary, collected for the result's record.

A result records them (``evaluation.binary``). A result saved before measures declared their
type recorded nothing (None); for it, the shipped measures' own declarations stand in, so
``word-match`` and ``evidence-hit@10`` stay binary when such a result is read again.
"""

from __future__ import annotations

from collections.abc import Sequence

from memrank.measure import Measure
from memrank.measures.evidence import EvidenceRecall
from memrank.measures.word_match import WordMatch
from memrank.result import EvaluationRecord

__all__ = ["SHIPPED_BINARY", "binary_names", "declared_binary"]

SHIPPED_BINARY: tuple[str, ...] = (*WordMatch.binary, *EvidenceRecall.binary)
"""The binary value names of memrank's shipped measures."""


def binary_names(measures: Sequence[Measure]) -> tuple[str, ...]:
    """Every value name the measures declare binary, in measure order."""
    return tuple(name for m in measures for name in m.binary)


def declared_binary(record: EvaluationRecord) -> tuple[str, ...]:
    """The value names a result's measures declared binary (see the module docstring)."""
    return SHIPPED_BINARY if record.binary is None else record.binary
