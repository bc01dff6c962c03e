"""Required spans where a benchmark defines none: the reference answer, when it is verbatim evidence.

LoCoMo, LongMemEval and BEAM annotate answers, not spans. When a reference answer appears
word for word (case aside) in one of its evidence turns, it is a span a recall must contain to
hold the answer, and word-match can decide; otherwise the task names no span and word-match
records None with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["answer_spans"]


def answer_spans(answer: str | None, evidence_texts: Iterable[str]) -> tuple[str, ...]:
    """``(answer,)`` when the answer occurs verbatim in an evidence text, else ``()``."""
    span = (answer or "").strip()
    if span and any(span.lower() in text.lower() for text in evidence_texts):
        return (span,)
    return ()
