"""Which value names the measures declare binary, collected for the result's record."""

from __future__ import annotations

from collections.abc import Sequence

from memrank.measure import Measure

__all__ = ["binary_names"]


def binary_names(measures: Sequence[Measure]) -> tuple[str, ...]:
    """Every value name the measures declare binary, in measure order."""
    return tuple(name for m in measures for name in m.binary)
