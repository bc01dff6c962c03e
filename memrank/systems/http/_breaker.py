"""A circuit breaker: stop sending to an endpoint that keeps failing.

Under a persistent outage every call would spend its whole retry allowance before failing,
for hours on a large evaluation. The breaker watches every attempt a client makes (across
the units that share it) and opens when ``consecutive`` attempts in a row failed, or when
``rate`` of the last ``window`` did. Open, it stays open for the client's life: no request is
sent, every call fails at once with the reason, and waits between attempts end early, so
the run records the remaining tasks as failed within seconds. The thresholds sit far above
what a flaky but working endpoint produces (a 25% fault rate trips neither in a run).
"""

from __future__ import annotations

import threading
from collections import deque

from memrank.errors import EndpointError

__all__ = ["Breaker", "BreakerOpen"]


class BreakerOpen(EndpointError):
    """The breaker is open: the endpoint failed too often and nothing more is sent to it."""


class Breaker:
    """Counts failed attempts; opens on too many in a row or too high a rate. Thread-safe."""

    def __init__(self, consecutive: int = 10, window: int = 50, rate: float = 0.9) -> None:
        self.consecutive, self.window, self.rate = consecutive, window, rate
        self._lock = threading.Lock()
        self._recent: deque[bool] = deque(maxlen=window)
        self._in_a_row = 0
        self._reason: str | None = None
        self._opened = threading.Event()

    def admit(self, what: str) -> None:
        """Raise BreakerOpen (naming why) when the breaker is open; return otherwise."""
        if self._reason is not None:
            raise BreakerOpen(f"{what}: not sent: {self._reason}")

    def record(self, failed: bool, last: str) -> None:
        """One attempt's outcome; ``last`` says what a failed one met (a status, a timeout)."""
        with self._lock:
            self._recent.append(failed)
            self._in_a_row = self._in_a_row + 1 if failed else 0
            if self._reason is not None or not failed:
                return
            failures = sum(self._recent)
            if self._in_a_row >= self.consecutive:
                why = f"{self._in_a_row} attempts in a row failed"
            elif len(self._recent) == self.window and failures >= self.rate * self.window:
                why = f"{failures} of the last {self.window} attempts failed"
            else:
                return
            self._reason = (
                f"the endpoint is treated as down ({why}; the last: {last}), so memrank "
                "stopped sending to it for the rest of this run"
            )
            self._opened.set()

    def pause(self, seconds: float, what: str) -> None:
        """Wait between attempts, ending early with BreakerOpen if the breaker opens."""
        if self._opened.wait(seconds):
            self.admit(what)
