"""What a real-benchmark task expects, built one way for LoCoMo, LongMemEval and BEAM.

Each benchmark annotates a reference answer and the turns that hold it; from those come the
answers, the required span (``answer_spans``) and the evidence ids, so all three read alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from memrank.evaluations._spans import answer_spans
from memrank.measures import EvidenceTurn
from memrank.task import Expected

__all__ = ["expected_of"]


def expected_of(
    answer: str | None,
    evidence: Sequence[EvidenceTurn],
    *,
    spans: bool = True,
    abstain: bool = False,
) -> Expected:
    """The reference answer (none when the file gives none), its span when ``spans`` and an
    evidence turn holds it verbatim, and the evidence turns' ids in order.

    ``spans=False`` for tasks whose answer must not be found (negative or abstention tasks
    whose benchmark says so): there is no span a recall should hold.
    """
    return Expected(
        answers=() if answer is None else (answer,),
        required_spans=answer_spans(answer, (e.text for e in evidence)) if spans else (),
        evidence_doc_ids=tuple(e.id for e in evidence),
        abstain=abstain,
    )
