"""A circuit breaker: stop sending to an endpoint that keeps failing.

Under a persistent outage every call would spend its whole retry allowance before failing,
for hours on a large evaluation. A breaker watches every attempt made to one endpoint
(across the units that share the client) and opens when ``consecutive`` attempts in a row
failed, when every attempt for ``span`` seconds failed (an endpoint answering 503 with
Retry-After fails rarely but always), or when ``rate`` of the last ``window`` did. Open,
it stays open for the client's life: nothing more is sent, every call fails at once with the
reason, and waits between attempts end early, so a run records the remaining tasks as
failed within seconds. The thresholds sit far above what a flaky but working endpoint
produces: a 25% fault rate trips none of them in a run.
"""

from __future__ import annotations

import threading
import time
from collections import deque

from memrank.errors import EndpointError

__all__ = ["Breaker", "BreakerOpen"]


class BreakerOpen(EndpointError):
    """The breaker is open: the endpoint failed too often and nothing more is sent to it."""


class Breaker:
    """Counts one endpoint's failed attempts and opens when they show it is down. Thread-safe."""

    def __init__(
        self, consecutive: int = 10, span: float = 15.0, window: int = 50, rate: float = 0.9
    ) -> None:
        self.consecutive, self.span, self.window, self.rate = consecutive, span, window, rate
        self._lock = threading.Lock()
        self._recent: deque[bool] = deque(maxlen=window)
        self._in_a_row = 0
        self._streak_began = 0.0
        self._reason: str | None = None
        self._opened = threading.Event()

    def admit(self, what: str) -> None:
        """Raise BreakerOpen (naming why) when the breaker is open; return otherwise."""
        if self._reason is not None:
            raise BreakerOpen(f"{what}: not sent: {self._reason}")

    def record(self, failed: bool, last: str) -> None:
        """One attempt's outcome; ``last`` says what a failed one met (a status, a timeout)."""
        now = time.monotonic()
        with self._lock:
            self._recent.append(failed)
            if not failed:
                self._in_a_row = 0
                return
            if self._in_a_row == 0:
                self._streak_began = now
            self._in_a_row += 1
            if self._reason is None:
                self._judge(now, last)

    def _judge(self, now: float, last: str) -> None:
        failures, lasted = sum(self._recent), now - self._streak_began
        if self._in_a_row >= self.consecutive:
            why = f"{self._in_a_row} attempts in a row failed"
        elif self._in_a_row >= 2 and lasted >= self.span:
            why = f"every attempt for {lasted:.0f} s failed ({self._in_a_row} attempts)"
        elif len(self._recent) == self.window and failures >= self.rate * self.window:
            why = f"{failures} of the last {self.window} attempts failed"
        else:
            return
        self._reason = (
            f"the endpoint is treated as down ({why}; the last: {last}), so memrank stopped "
            "sending to it for the rest of this run"
        )
        self._opened.set()

    def pause(self, seconds: float, what: str) -> None:
        """Wait between attempts, ending early with BreakerOpen if the breaker opens."""
        if self._opened.wait(seconds):
            self.admit(what)
