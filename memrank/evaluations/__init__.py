"""The evaluations memrank ships: the demo, and LoCoMo, LongMemEval and BEAM from pinned files."""

from memrank.evaluations.beam import beam, beam_folders
from memrank.evaluations.demo import demo
from memrank.evaluations.locomo import locomo
from memrank.evaluations.longmemeval import longmemeval, longmemeval_file

__all__ = ["beam", "beam_folders", "demo", "locomo", "longmemeval", "longmemeval_file"]
