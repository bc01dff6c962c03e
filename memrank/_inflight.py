"""Calls in flight to running services, so a run can say what it is waiting on.

Every call the shared HTTP client makes (its retries and waits included) is registered here
while it lasts; the progress line shows how many there are and the age of the oldest, and a
run names on stderr any call that has lasted past a minute, as it happens.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["STUCK_AFTER", "Call", "calls_in_flight", "in_flight"]

STUCK_AFTER = 60.0
"""Seconds after which a call still in flight is named on stderr."""

_lock = threading.Lock()
_calls: dict[int, Call] = {}
_numbers = itertools.count(1)


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
    """Register one call for as long as the block runs."""
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
