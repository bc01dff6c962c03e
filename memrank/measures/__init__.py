"""The measures memrank ships. Each is an ordinary Measure and nothing more."""

from memrank.measures.bookkeeping import FailureRate, Latency
from memrank.measures.budget import RecalledWords
from memrank.measures.code_rules import InstructionsFollowed
from memrank.measures.demo_score import DemoScore
from memrank.measures.evidence import (
    EvidenceRecall,
    EvidenceTurn,
    SessionRecall,
    evidence_metadata,
)
from memrank.measures.means import EvidenceMeans, Means, RankingMeans
from memrank.measures.ranking import SessionRanking
from memrank.measures.word_match import WordMatch, recalled_doc_id

__all__ = [
    "DemoScore",
    "EvidenceMeans",
    "EvidenceRecall",
    "EvidenceTurn",
    "FailureRate",
    "InstructionsFollowed",
    "Latency",
    "Means",
    "RankingMeans",
    "RecalledWords",
    "SessionRanking",
    "SessionRecall",
    "WordMatch",
    "evidence_metadata",
    "recalled_doc_id",
]
