"""The measures memrank ships. Each is an ordinary Measure and nothing more.

Names are imported on first use (PEP 562), so a reader that needs only
``memrank.measures.kinds`` (a paired reading, the board) does not load every measure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memrank._lazy import lazy_names

if TYPE_CHECKING:
    from memrank.measures.bookkeeping import FailureRate as FailureRate
    from memrank.measures.bookkeeping import Latency as Latency
    from memrank.measures.budget import RecalledWords as RecalledWords
    from memrank.measures.code_rules import InstructionsFollowed as InstructionsFollowed
    from memrank.measures.demo_score import DemoScore as DemoScore
    from memrank.measures.evidence import EvidenceRecall as EvidenceRecall
    from memrank.measures.evidence import EvidenceTurn as EvidenceTurn
    from memrank.measures.evidence import SessionRecall as SessionRecall
    from memrank.measures.evidence import evidence_metadata as evidence_metadata
    from memrank.measures.means import EvidenceMeans as EvidenceMeans
    from memrank.measures.means import Means as Means
    from memrank.measures.means import RankingMeans as RankingMeans
    from memrank.measures.ranking import SessionRanking as SessionRanking
    from memrank.measures.word_match import WordMatch as WordMatch
    from memrank.measures.word_match import recalled_doc_id as recalled_doc_id

_HOMES = {
    "DemoScore": "memrank.measures.demo_score",
    "EvidenceMeans": "memrank.measures.means",
    "EvidenceRecall": "memrank.measures.evidence",
    "EvidenceTurn": "memrank.measures.evidence",
    "FailureRate": "memrank.measures.bookkeeping",
    "InstructionsFollowed": "memrank.measures.code_rules",
    "Latency": "memrank.measures.bookkeeping",
    "Means": "memrank.measures.means",
    "RankingMeans": "memrank.measures.means",
    "RecalledWords": "memrank.measures.budget",
    "SessionRanking": "memrank.measures.ranking",
    "SessionRecall": "memrank.measures.evidence",
    "WordMatch": "memrank.measures.word_match",
    "evidence_metadata": "memrank.measures.evidence",
    "recalled_doc_id": "memrank.measures.word_match",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
