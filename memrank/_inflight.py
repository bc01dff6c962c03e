"""Calls in flight to running services, so a run can say what it is waiting on.

Every call the shared HTTP client makes (its retries and waits included) is registered here
while it lasts; the progress line shows how many there are and the age of the oldest, and a
run names on stderr any call that has lasted past a minute, as it happens.

A thread that works for a run which can be stopped (a unit driven at once with others) makes
its calls under ``stopped_by``: once the run is stopped, the thread's next call is refused
with ``Abandoned``, so a unit left behind by Ctrl-C sends nothing more.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["STUCK_AFTER", "Abandoned", "Call", "calls_in_flight", "in_flight", "stopped_by"]

STUCK_AFTER = 60.0
"""Seconds after which a call still in flight is named on stderr."""

_lock = threading.Lock()
_calls: dict[int, Call] = {}
_numbers = itertools.count(1)
_thread = threading.local()


class Abandoned(BaseException):
    """A call refused because the run its thread works for was stopped: the unit is abandoned
    where it stands. Not an ``Exception``, so nothing that records a system's failures takes
    it for one (a task cut short by a stop did not fail: it is run again on resume)."""


@contextmanager
def stopped_by(stop: threading.Event) -> Iterator[None]:
    """Calls this thread makes inside the block are refused (``Abandoned``) once ``stop`` is set."""
    _thread.stop = stop
    try:
        yield
    finally:
        _thread.stop = None


@dataclass(frozen=True)
class Call:
    """One call in flight: what it is (as its errors name it) and when it began."""

    number: int
    """Unique in this process: tells two calls with one description apart."""
    what: str
    began: float
    """A ``time.monotonic()`` reading."""

    def age(self, now: float | None = None) -> float:
        """Seconds since it began."""
        return (time.monotonic() if now is None else now) - self.began


@contextmanager
def in_flight(what: str) -> Iterator[Call]:
    """Register one call for as long as the block runs; ``Abandoned`` when this thread's run
    was stopped."""
    stop: threading.Event | None = getattr(_thread, "stop", None)
    if stop is not None and stop.is_set():
        raise Abandoned(f"{what}: not sent: the run was stopped")
    call = Call(next(_numbers), what, time.monotonic())
    with _lock:
        _calls[call.number] = call
    try:
        yield call
    finally:
        with _lock:
            del _calls[call.number]


def calls_in_flight() -> list[Call]:
    """The calls in flight now, oldest first."""
    with _lock:
        return sorted(_calls.values(), key=lambda call: call.began)
