"""What the board and the readers need to know of a value name beyond its numbers: whether the
measures declare it binary, and the range its values lie in.

A result records the binary names (``evaluation.binary``). A result saved before measures
declared their type recorded nothing (None); for it, the shipped measures' own declarations
stand in, so ``word-match`` and ``evidence-hit@10`` stay binary when such a result is read again.

Ranges are declared here, per value name's stem (the name before ``@`` or ``:``, and without a
``.mean`` or ``.mean.category-<c>`` ending, since a mean lies where its values do): every share,
recall, rate and answer score in [0, 1], counts of words and tokens, durations and costs from 0
up. An interval drawn for a mean never leaves its range (memrank.stats.bounded); attestation and
verification refuse a value outside it (memrank.artifacts); a name not declared here has no
range.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memrank.result import EvaluationRecord
    from memrank.stats import Bounds

__all__ = ["declared_binary", "declared_range", "shipped_binary"]

SHARE: Bounds = (0.0, 1.0)
FROM_ZERO: Bounds = (0.0, None)
_RANGES: dict[str, Bounds] = {
    **dict.fromkeys(
        (
            "word-match",
            "demo-score",
            "evidence-recall",
            "evidence-recall-negative",
            "evidence-hit",
            "evidence-hit-negative",
            "session-recall",
            "session-recall-negative",
            "recall-all",
            "ndcg-any",
            "instructions-followed",
            "failure-rate",
            "integrity-suspect",
            "judge",
            "answer-f1",
            "bleu-1",
            "locomo-f1",
        ),
        SHARE,
    ),
    "recalled-words": FROM_ZERO,
    "latency": FROM_ZERO,
    "usage": FROM_ZERO,
}


def declared_binary(record: EvaluationRecord) -> tuple[str, ...]:
    """The value names a result's measures declared binary (see the module docstring)."""
    return shipped_binary() if record.binary is None else record.binary


def shipped_binary() -> tuple[str, ...]:
    """The binary value names of memrank's shipped measures."""
    from memrank.measures.evidence import EvidenceRecall
    from memrank.measures.word_match import WordMatch

    return (*WordMatch.binary, *EvidenceRecall.binary)


_COUNTS = (".calls",)
"""Suffixes of a value name that count calls (a judge's ``<name>.calls``), whatever range the
name before them declares."""


def declared_range(name: str) -> Bounds:
    """The range of the values named ``name`` (``(None, None)`` when none is declared)."""
    if name.endswith(_COUNTS):
        return FROM_ZERO
    stem = name.partition(".mean")[0].partition("@")[0].partition(":")[0]
    return _RANGES.get(stem, _RANGES.get(stem.partition(".")[0], (None, None)))
