"""Clock readings shared by the benchmarks: one run of some work, and work split over threads."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

__all__ = ["seconds", "threaded_seconds"]


def seconds(work: Callable[[], object]) -> float:
    """Wall-clock seconds for one call of ``work``."""
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def threaded_seconds(work: Callable[[int], object], threads: int) -> float:
    """Wall-clock seconds for ``work(0)`` ... ``work(threads - 1)``, each on its own thread."""

    def every_thread() -> None:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(work, range(threads)))  # list(): re-raise what any thread raised

    return seconds(every_thread)
