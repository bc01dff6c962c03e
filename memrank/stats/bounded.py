"""A 95% interval for a mean of values that lie in a declared range, inside that range.

The CR2 / t(G - 1) interval is symmetric about the mean, so near an end of the range it runs
past it (a recall's interval below 0), and with ten clusters of 0/1 or near-0/1 values it covers
the true mean less often than it claims (about 0.935 in place of 0.95: the cluster means are
skewed and their spread is read from ten of them). For a mean in a range [low, high] memrank
instead rescales the values to [0, 1] and draws Wilson's score interval with continuity
correction (Newcombe 1998) on the clustered effective sample size, as Korn and Graubard (1998)
do for survey proportions:

- the effective size is m (1 - m) / V, the tasks a simple random sample would need to give the
  CR2 variance V at the mean m (never more than the tasks there are; all of them when V = 0);
- it is shrunk by (z / t)^2, with t the 97.5th percentile of t(G - 1), so the few clusters'
  uncertainty about V widens the interval as t(G - 1) widens the CR2 one.

The score interval is asymmetric towards the middle of the range and never leaves it; a mean at
an end (every task 0) has an interval reaching a little inside. tests/stats/test_coverage.py
checks its coverage in a null simulation at LoCoMo's cluster sizes (docs/methodology.md).
A measure with no upper (or lower) bound keeps the CR2 / t(G - 1) interval, cut at the bound
it has.
"""

from __future__ import annotations

import math

import numpy as np

from memrank.stats._dist import normal_quantile, t_quantile

__all__ = ["BOUNDED_METHOD", "Bounds", "UNBOUNDED_METHOD", "bounded_interval"]

Bounds = tuple[float | None, float | None]
"""A measure's declared range: lowest and highest value, None for no bound on that side."""

BOUNDED_METHOD = (
    "Wilson score interval with continuity correction on the clustered effective sample size "
    "(CR2 variance, t with G-1 df)"
)
UNBOUNDED_METHOD = "CR2 cluster-robust interval, t with G-1 df"
_Z = normal_quantile(0.05)


def bounded_interval(
    mean: np.ndarray,
    variance: np.ndarray,
    tasks: np.ndarray,
    df: np.ndarray,
    bounds: Bounds,
) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the 95% interval of ``mean`` (CR2 ``variance``, over ``tasks`` valued tasks
    in clusters giving ``df`` = G - 1) inside ``bounds``: rows of NaN where the mean is NaN."""
    low, high = bounds
    t = np.array([t_quantile(int(d)) for d in np.asarray(df).ravel()]).reshape(np.shape(df))
    if low is None or high is None or not high > low:
        half = t * np.sqrt(variance)
        lower, upper = mean - half, mean + half
        return (
            lower if low is None else np.maximum(lower, low),
            upper if high is None else np.minimum(upper, high),
        )
    width = high - low
    share = np.clip((mean - low) / width, 0.0, 1.0)
    spread = variance / width**2
    spread_of_one = share * (1.0 - share)
    with np.errstate(invalid="ignore", divide="ignore"):
        effective = np.where(
            (spread > 0) & (spread_of_one > 0), spread_of_one / spread, np.asarray(tasks, float)
        )
    n = np.minimum(effective, tasks) * (_Z / t) ** 2
    lower, upper = _wilson_corrected(share, np.maximum(n, math.ulp(1.0)))
    return low + width * lower, low + width * upper


def _wilson_corrected(share: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Wilson's score interval with continuity correction for a proportion ``share`` of ``n``
    (Newcombe 1998, method 4), for a real-valued n: the proportions pi with |share - pi| -
    1/(2n) <= z sqrt(pi (1 - pi) / n).

    Each end is Newcombe's closed form, the root of that equation squared, except where the
    share is within 1/(2n) of the range's end: every proportion on that side then qualifies,
    so the end is the range's. (With a whole count that happens only for 0 of n or n of n,
    where Newcombe sets the end; with a real-valued n and share the root there is one the
    squaring brought in, and a smaller n would have given a narrower interval.)"""
    z2 = _Z * _Z
    correction = 0.5 / n
    centre = 2.0 * n * share + z2
    denominator = 2.0 * (n + z2)
    below = z2 - 2.0 - 1.0 / n + 4.0 * share * (n * (1.0 - share) + 1.0)
    above = z2 + 2.0 - 1.0 / n + 4.0 * share * (n * (1.0 - share) - 1.0)
    lower = (centre - 1.0 - _Z * np.sqrt(np.maximum(below, 0.0))) / denominator
    upper = (centre + 1.0 + _Z * np.sqrt(np.maximum(above, 0.0))) / denominator
    lower = np.where(share <= correction, 0.0, np.clip(lower, 0.0, share))
    upper = np.where(share >= 1.0 - correction, 1.0, np.clip(upper, share, 1.0))
    return lower, upper
