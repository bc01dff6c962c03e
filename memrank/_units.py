"""Driving isolation units: one after another, or several at once for a memory that hands
out a handle per unit (``Memory.for_unit``), always reporting outcomes in unit order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from memrank.evaluation import Unit
from memrank.system import Memory

__all__ = ["drive_units", "serves_units_at_once"]

Outcome = TypeVar("Outcome")


def serves_units_at_once(memory: Memory) -> bool:
    """A memory serves units at once when it hands out its own handle per unit."""
    return type(memory).for_unit is not Memory.for_unit


def drive_units(
    memory: Memory,
    units: Sequence[Unit],
    run_unit: Callable[[Unit], Outcome],
    concurrency: int,
) -> list[Outcome]:
    """Each unit's outcome, in unit order, with at most ``concurrency`` units in flight.

    A memory without per-unit handles holds one unit's state at a time, so its units run one
    after another whatever ``concurrency`` says; that keeps in-process systems exactly as
    they were.
    """
    if concurrency == 1 or len(units) < 2 or not serves_units_at_once(memory):
        return [run_unit(unit) for unit in units]
    from concurrent.futures import ThreadPoolExecutor  # only runs that go concurrent pay for it

    pool = ThreadPoolExecutor(
        max_workers=min(concurrency, len(units)), thread_name_prefix="memrank-unit"
    )
    try:
        return list(pool.map(run_unit, units))
    finally:
        # On Ctrl-C the units not yet started are dropped rather than run to the end; those
        # in flight finish (their traces are journaled) before the interrupt goes on.
        pool.shutdown(wait=True, cancel_futures=True)
