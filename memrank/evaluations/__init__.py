"""The evaluations memrank ships: the demo, and LoCoMo, LongMemEval, BEAM, Mem-Gallery and
MemoryCode from pinned files."""

from memrank.evaluations.beam import beam, beam_folders
from memrank.evaluations.demo import demo
from memrank.evaluations.locomo import locomo
from memrank.evaluations.longmemeval import longmemeval, longmemeval_file
from memrank.evaluations.mem_gallery import mem_gallery
from memrank.evaluations.memorycode import memorycode

__all__ = [
    "beam",
    "beam_folders",
    "demo",
    "locomo",
    "longmemeval",
    "longmemeval_file",
    "mem_gallery",
    "memorycode",
]
