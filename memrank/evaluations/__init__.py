"""The evaluations memrank ships."""

from memrank.evaluations.demo import demo

__all__ = ["demo"]
