"""Tie-aware ranks and wins from a matrix of pairwise p values."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

from memrank._basics import FROZEN
from memrank.stats.clustered import LEVEL

__all__ = ["RankRange", "tie_aware_ranks", "wins"]


class RankRange(BaseModel):
    """Where a row stands: from 1 + the rows significantly better, to the row count minus the
    rows significantly worse. One number when the two meet; a range shows the ties."""

    model_config = FROZEN
    best: int
    """1 + the number of rows significantly better: the rank a board shows."""
    worst: int
    """The number of rows minus the rows significantly worse."""

    @property
    def label(self) -> str:
        return str(self.best) if self.best == self.worst else f"{self.best}-{self.worst}"


def tie_aware_ranks(
    means: Sequence[float] | np.ndarray,
    p_values: np.ndarray,
    higher_is_better: bool = True,
) -> list[RankRange]:
    """A rank range per row from its mean and the pairwise p matrix (``pairwise_p_values``).

    Row j is significantly better than row i when p[i, j] < 0.05 and j's mean is better. NaN
    (no test possible, or no mean) separates nothing. Each pair is tested at 5% on its own,
    with no multiplicity correction: see docs/methodology.md for what a rank then guarantees.
    """
    better, worse = _separated(means, p_values, higher_is_better)
    above, below = better.sum(axis=1), worse.sum(axis=1)
    return [
        RankRange(best=1 + int(up), worst=len(above) - int(down))
        for up, down in zip(above, below, strict=True)
    ]


def wins(
    means: Sequence[float] | np.ndarray,
    p_values: np.ndarray,
    higher_is_better: bool = True,
) -> np.ndarray:
    """Per row, how many rows it beats: those significantly worse at the 5% level, by the
    very test ``tie_aware_ranks`` reads (so a win is a step of some row's rank range). A tie
    (p at or above 0.05, or no test possible) is not a win for either row."""
    _, worse = _separated(means, p_values, higher_is_better)
    counted: np.ndarray = worse.sum(axis=1)
    return counted


def _separated(
    means: Sequence[float] | np.ndarray, p_values: np.ndarray, higher_is_better: bool
) -> tuple[np.ndarray, np.ndarray]:
    """``better[i, j]``: row j is significantly better than row i; ``worse[i, j]``: worse."""
    m = np.asarray(means, dtype=float)
    p = np.asarray(p_values, dtype=float)
    if p.shape != (len(m), len(m)):
        raise ValueError(f"p_values must be {len(m)} x {len(m)}; got {p.shape}")
    sign = 1.0 if higher_is_better else -1.0
    with np.errstate(invalid="ignore"):
        separated = (p < LEVEL) & ~np.isnan(m)[:, None] & ~np.isnan(m)[None, :]
        better = separated & (sign * m[None, :] > sign * m[:, None])  # [i, j]: j above i
        worse = separated & (sign * m[None, :] < sign * m[:, None])
    return better, worse
