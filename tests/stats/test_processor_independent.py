"""The numbers a board publishes are the same bytes on every processor.

OpenBLAS picks its kernels by processor, and with them the order in which a product sums; the
last bit of such a sum differs from one machine to the next. No sum behind an interval, a p
value or a difference goes through it. Each reading runs in a process of its own, with OpenBLAS
told which kernels to take (``OPENBLAS_CORETYPE``, read as it loads).
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

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
    read = {
        kernels: subprocess.run(
            [sys.executable, "-c", READING],
            env={**os.environ, "OPENBLAS_CORETYPE": kernels, "OPENBLAS_NUM_THREADS": "1"},
            capture_output=True,
            check=True,
            timeout=120,
        ).stdout
        for kernels in ("Prescott", "Sandybridge", "Haswell")
    }
    assert read["Prescott"] == read["Sandybridge"] == read["Haswell"]
