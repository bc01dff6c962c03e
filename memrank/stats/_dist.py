"""The two reference distributions the tests need, in numpy alone: Student's t with an integer
number of degrees of freedom, and chi-square with one; and ``distinct``, the values a table is
computed once for.

memrank depends on numpy, not scipy, so these are computed here from closed forms (the tests
cross-check them against scipy). Degrees of freedom are always G - 1 for G clusters, an integer,
which is what makes the finite series below exact.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

__all__ = ["chi2_1_sf", "distinct", "normal_quantile", "t_quantile", "t_two_sided_p"]


def distinct(values: np.ndarray | Iterable[int]) -> list[int | float]:
    """The distinct values of ``values`` (any shape), smallest first, as Python numbers.

    Not ``numpy.unique``: a process's first call of it imports ``numpy.ma`` (a twentieth of a
    second), and the board's building process, which every other process of a build waits on,
    needs distinct values in several places; counted as a Python set they cost microseconds.
    """
    return sorted(set(np.asarray(values).ravel().tolist()))


def t_two_sided_p(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """P(|T| >= |t|) for Student's t with integer ``df`` >= 1 (elementwise).

    Uses the finite series for integer degrees of freedom (Abramowitz and Stegun 26.7.3-4):
    with theta = atan(|t| / sqrt(df)), P(|T| < |t|) is a polynomial in cos(theta) times
    sin(theta) (even df) or that plus theta (odd df).
    """
    t = np.abs(np.asarray(t, dtype=float))
    df = np.asarray(df, dtype=np.int64)
    t, df = np.broadcast_arrays(t, df)
    inside = np.empty(t.shape)
    for nu in distinct(df):
        where = df == nu
        inside[where] = _t_inside(t[where], int(nu))
    tail = 1.0 - inside
    # 1 - inside keeps about 1e-16 absolute, so below 1e-12 it has lost its digits (and below
    # 1e-16 reads 0): there the tail's asymptotic form (within 1%), so a tiny p is never 0.
    far = (tail < _FAR) & np.isfinite(t)
    if far.any():
        tail[far] = _far_tail(t[far], df[far])
    clipped: np.ndarray = np.clip(tail, 0.0, 1.0)
    return clipped


_FAR = 1e-12


def _far_tail(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """P(|T| >= t) for large t: 2 f(t) (df + t^2) / (df t), f the density, in logs."""
    nu = df.astype(float)
    log_c = np.array(
        [math.lgamma((n + 1) / 2) - math.lgamma(n / 2) - 0.5 * math.log(n * math.pi) for n in nu]
    )
    log_t = np.log(t)
    # log(1 + t^2/nu) and log(nu + t^2) as 2 log t plus a small term: no overflow at any t
    log_f = log_c - (nu + 1) / 2 * (2 * log_t - np.log(nu) + np.log1p(nu * np.exp(-2 * log_t)))
    log_ratio = np.log1p(nu * np.exp(-2 * log_t)) + log_t - np.log(nu)
    tail: np.ndarray = 2.0 * np.exp(log_f + log_ratio)
    return tail


def _t_inside(t: np.ndarray, nu: int) -> np.ndarray:
    if nu < 1:
        raise ValueError(f"degrees of freedom must be at least 1; got {nu}")
    theta = np.arctan(t / math.sqrt(nu))
    sin, cos2 = np.sin(theta), np.cos(theta) ** 2
    if nu % 2 == 0:  # sin(theta) * (1 + 1/2 c^2 + 1*3/(2*4) c^4 + ... up to c^(nu-2))
        term, total = np.ones_like(t), np.ones_like(t)
        for j in range(1, nu // 2):
            term = term * cos2 * (2 * j - 1) / (2 * j)
            total = total + term
        even: np.ndarray = sin * total
        return even
    if nu == 1:
        return 2.0 * theta / math.pi
    # 2/pi * (theta + sin(theta) cos(theta) (1 + 2/3 c^2 + 2*4/(3*5) c^4 + ... up to c^(nu-3)))
    cos = np.sqrt(cos2)
    term, total = np.ones_like(t), np.ones_like(t)
    for j in range(1, (nu - 1) // 2):
        term = term * cos2 * (2 * j) / (2 * j + 1)
        total = total + term
    odd: np.ndarray = 2.0 / math.pi * (theta + sin * cos * total)
    return odd


@lru_cache(maxsize=4096)
def t_quantile(df: int, two_sided_level: float = 0.05) -> float:
    """The t with P(|T| >= t) = ``two_sided_level`` (0.05: the 97.5th percentile).

    Newton's method on the two-sided p, from the Cornish-Fisher start, kept inside a bracket
    that halves whenever a step would leave it: a few evaluations, to float resolution.
    """
    z = normal_quantile(two_sided_level)
    t = z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
    low, high = 0.0, max(2.0 * t, 1.0)
    while _p(high, df) > two_sided_level:
        low, high = high, 2.0 * high
    log_scale = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    for _ in range(100):
        gap = _p(t, df) - two_sided_level
        if gap > 0:
            low = max(low, t)
        else:
            high = min(high, t)
        density = math.exp(log_scale - (df + 1) / 2 * math.log1p(t * t / df))
        step = t + gap / (2.0 * density)  # p falls at twice the density as t grows
        t = step if low < step < high else (low + high) / 2.0
        if abs(gap) < 1e-15 or high - low <= 1e-14 * high:
            break
    return t


def _p(t: float, df: int) -> float:
    return float(t_two_sided_p(np.array(t), np.array(df)))


def normal_quantile(two_sided_level: float) -> float:
    """z with P(|Z| >= z) = level, by bisection on erfc (called once per distinct df)."""
    low, high = 0.0, 40.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if math.erfc(middle / math.sqrt(2.0)) > two_sided_level:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


_ERFC = np.frompyfunc(math.erfc, 1, 1)


def chi2_1_sf(x: np.ndarray) -> np.ndarray:
    """P(X >= x) for chi-square with one degree of freedom: erfc(sqrt(x / 2))."""
    x = np.maximum(np.asarray(x, dtype=float), 0.0)
    return np.asarray(_ERFC(np.sqrt(x / 2.0)), dtype=float)
