"""Independent implementations of the interval of one mean, for the tests to hold memrank's
to: written from the papers, with scipy for the distributions and the roots, and none of
memrank's shortcuts.

- The CR2 variance of a mean straight from Bell and McCaffrey's (2002) matrix formula:
  (X'X)^-1 sum_g X_g' A_g e_g e_g' A_g X_g (X'X)^-1 with A_g = (I - H_gg)^(-1/2), X a column of
  ones and H_gg cluster g's block of its hat matrix, each A_g from an eigendecomposition
  (memrank scales each cluster's residual sum by a closed form instead).
- Wilson's score interval with continuity correction as Newcombe (1998, method 4) defines it:
  the proportions pi with |p - pi| - 1/(2n) <= z sqrt(pi (1 - pi) / n), each end found as a
  root by scipy's brentq (memrank takes Newcombe's closed form for them).
- The bounded interval of docs/methodology.md on top of the two: the share of the range, the
  effective sample size p (1 - p) / V (at most the tasks valued; all of them when either is 0)
  shrunk by (z / t)^2, t the 97.5th percentile of t(G - 1).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm
from scipy.stats import t as student_t

__all__ = ["Z", "bounded_reference", "cr2_variance", "wilson_corrected"]

Z = float(norm.ppf(0.975))
"""The 97.5th percentile of the standard normal."""


def cr2_variance(values: np.ndarray, codes: np.ndarray) -> float:
    """Bell and McCaffrey's CR2 variance of the mean of ``values`` in clusters ``codes``."""
    n = len(values)
    x = np.ones((n, 1))
    bread = np.linalg.inv(x.T @ x)
    residuals = values - (x @ (bread @ x.T @ values))
    meat = np.zeros((1, 1))
    for code in np.unique(codes):
        inside = codes == code
        hat = x[inside] @ bread @ x[inside].T  # the cluster's block of X (X'X)^-1 X'
        complement = np.eye(int(inside.sum())) - hat
        eigenvalues, vectors = np.linalg.eigh(complement)
        adjustment = vectors @ np.diag(eigenvalues**-0.5) @ vectors.T
        score = x[inside].T @ adjustment @ residuals[inside]
        meat += np.outer(score, score)
    return float((bread @ meat @ bread)[0, 0])


def wilson_corrected(share: float, n: float, z: float = Z) -> tuple[float, float]:
    """Newcombe's method 4 for a proportion ``share`` of ``n``, each end a root of its
    defining equation (the range's end where every proportion on that side qualifies)."""
    correction = 0.5 / n

    def outside(pi: float, side: int) -> float:
        return side * (share - pi) - correction - z * math.sqrt(pi * (1.0 - pi) / n)

    exact = {"xtol": 1e-17, "rtol": 4 * np.finfo(float).eps, "maxiter": 500}
    lower = 0.0
    if share - correction > 0:
        lower = brentq(outside, 0.0, share - correction, args=(1,), **exact)
    upper = 1.0
    if share + correction < 1:
        upper = brentq(outside, share + correction, 1.0, args=(-1,), **exact)
    return lower, upper


def bounded_reference(
    values: np.ndarray, codes: np.ndarray, low: float | None, high: float | None
) -> tuple[float, float, float]:
    """The mean of ``values`` (NaN left out) and its 95% interval inside [low, high]."""
    keep = ~np.isnan(values)
    kept, clusters = values[keep], codes[keep]
    mean, variance, tasks = float(kept.mean()), cr2_variance(kept, clusters), len(kept)
    t = float(student_t.ppf(0.975, len(np.unique(clusters)) - 1))
    if low is None or high is None:
        half = t * math.sqrt(variance)
        lower = mean - half if low is None else max(mean - half, low)
        upper = mean + half if high is None else min(mean + half, high)
        return mean, lower, upper
    width = high - low
    share = (mean - low) / width
    spread, spread_of_one = variance / width**2, share * (1.0 - share)
    effective = spread_of_one / spread if spread > 0 and spread_of_one > 0 else tasks
    lower, upper = wilson_corrected(share, min(effective, tasks) * (Z / t) ** 2)
    return mean, low + width * lower, low + width * upper
