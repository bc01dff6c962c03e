"""The measures memrank ships. Each is an ordinary Measure and nothing more."""

from memrank.measures.bookkeeping import FailureRate, Latency
from memrank.measures.demo_score import DemoScore
from memrank.measures.word_match import WordMatch, recalled_doc_id

__all__ = ["DemoScore", "FailureRate", "Latency", "WordMatch", "recalled_doc_id"]
