"""The numbers a board publishes are the same bytes on every processor.

OpenBLAS picks its kernels by processor, and with them the order in which a product sums; the
last bit of such a sum differs from one machine to the next. No sum behind an interval, a p
value or a difference goes through it. The first test reads in processes of their own, OpenBLAS
told which kernels to take (``OPENBLAS_CORETYPE``, read as it loads); the second reads here.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import numpy as np
import pytest

from memrank.stats import pairwise_tests

READING = """
import sys
import numpy as np
from memrank.stats import mean_intervals, pairwise_tests
rng = np.random.default_rng(5)
values = np.round(rng.random((40, 600)), 3)  # continuous, some left unvalued
values[rng.random(values.shape) < 0.05] = np.nan
codes = np.repeat(np.arange(10), 60)
pairs = pairwise_tests(values, codes, binary=False)
intervals = mean_intervals(values, codes, (0.0, 1.0))
sys.stdout.buffer.write(pairs.p_values.tobytes() + pairs.differences.tobytes())
sys.stdout.buffer.write(repr([(i.mean, i.low, i.high) for i in intervals]).encode())
"""


@pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64"), reason="the kernels named are x86-64's"
)
def test_pairwise_tests_and_intervals_are_the_same_bytes_whatever_kernels_blas_takes() -> None:
    told = {"Prescott", "Sandybridge", "Haswell", ""}  # "": the processor's own choice
    read = {
        subprocess.run(
            [sys.executable, "-c", READING],
            env={**os.environ, "OPENBLAS_CORETYPE": kernels, "OPENBLAS_NUM_THREADS": "1"},
            capture_output=True,
            check=True,
            timeout=120,
        ).stdout
        for kernels in told
    }
    assert len(read) == 1


def test_two_runs_with_the_same_values_differ_by_exactly_nothing() -> None:
    """Two systems that recalled the same (identical task values, some tasks unvalued) are a
    difference of exactly 0 with p = 1. Summed through BLAS on an AVX-512 processor they came
    out 8.6e-18 apart with p = 0.197, printed as -0.000 beside a p a reader takes for a test."""
    rng = np.random.default_rng(11)
    values = rng.random((30, 400)) / 3
    values[rng.random(values.shape) < 0.1] = np.nan
    values[:, ::7] = np.nan  # tasks no run decided
    values[17] = values[4]
    pairs = pairwise_tests(values, np.repeat(np.arange(8), 50), binary=False)
    assert pairs.differences[4, 17] == pairs.differences[17, 4] == 0.0
    assert pairs.p_values[4, 17] == pairs.p_values[17, 4] == 1.0
