"""Work split into shares: the first done in this process, the others at the same time in
forked copies of it, the results in the order of the shares.

A board of thousands of runs verifies and renders them one by one, and each run's work is
independent of the others'; on a machine with more than one core the shares run side by side.
A fork, not a fresh interpreter: a worker starts with everything this process holds (a trust
root's keys, a built board, compiled templates), none of which has to pickle; only each
share's result is sent back. Platforms that cannot fork do every share here.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

__all__ = ["cores", "in_shares", "split"]

Share = TypeVar("Share")
Made = TypeVar("Made")

_work: tuple[Callable[[Any], Any], Sequence[Any]] | None = None
"""What the forked workers do, and their shares: inherited by the fork, never pickled."""


def cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def split(items: Sequence[Share], least: int) -> list[Sequence[Share]]:
    """``items`` in contiguous shares of at least ``least`` items, one per core at most (one
    share, all of them, when a fork is not worth it or not possible)."""
    workers = min(cores(), len(items) // least)
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [items]
    size = -(-len(items) // workers)
    return [items[start : start + size] for start in range(0, len(items), size)]


def in_shares(work: Callable[[Share], Made], shares: Sequence[Share]) -> list[Made]:
    """``[work(share) for share in shares]``, the first share here and each other one in a
    forked worker meanwhile. What ``work`` returns from a worker must pickle; an exception a
    worker raises is raised here."""
    global _work
    mine, *theirs = shares
    if not theirs:
        return [work(mine)]
    _work = (work, theirs)
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(len(theirs), mp_context=context) as pool:
            forked = [pool.submit(_do_share, index) for index in range(len(theirs))]
            made = [work(mine)]
            made += [future.result() for future in forked]
    finally:
        _work = None
    return made


def _do_share(index: int) -> Any:
    """In a forked worker: the work of its share."""
    assert _work is not None  # set before the fork
    work, shares = _work
    return work(shares[index])
