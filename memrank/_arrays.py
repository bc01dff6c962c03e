"""Distinct values of an array, without ``numpy.unique``.

A process's first plain ``numpy.unique`` imports ``numpy.ma`` (a twentieth of a second), and
the board's building process, which every other process of a build waits on, needs distinct
values in several places: counted as a Python set, they cost microseconds.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = ["distinct"]


def distinct(values: np.ndarray | Iterable[int]) -> list[int | float]:
    """The distinct values of ``values`` (any shape), smallest first, as Python numbers."""
    return sorted(set(np.asarray(values).ravel().tolist()))
