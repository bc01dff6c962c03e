"""A circuit breaker: stop sending to an endpoint that keeps failing.

Under a persistent outage every call would spend its whole retry allowance before failing,
for hours on a large evaluation. A breaker watches the calls made to one endpoint (across
the units that share the client) and judges the endpoint by its calls, not by its attempts:
the retries of one call count once, so one request the endpoint cannot answer (a poisoned
query) fails its own call and never the endpoint. It opens when ``consecutive`` distinct
calls in a row failed, when at least ``spread`` distinct calls failed and nothing succeeded
for ``span`` seconds since the first of them began (judged on a clock, not only when an
attempt ends), or when ``rate`` of the last ``window`` calls failed at their first attempt.
Open, it stays open for the client's life: nothing more is sent, every call fails at once
with the reason, and waits between attempts end early, so a run records the remaining tasks
as failed within seconds. The thresholds sit far above what a flaky but working endpoint
produces: a 30% fault rate trips none of them (tests/systems/http/test_breaker.py).
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
    """Counts one endpoint's failed calls and opens when they show it is down. Thread-safe."""

    def __init__(
        self,
        consecutive: int = 10,
        span: float = 5.0,
        spread: int = 2,
        window: int = 50,
        rate: float = 0.9,
    ) -> None:
        self.consecutive, self.span, self.spread = consecutive, span, spread
        self.window, self.rate = window, rate
        self._lock = threading.Lock()
        self._recent: deque[bool] = deque(maxlen=window)
        self._failing: set[int] = set()
        """The calls that failed since the last success: the streak."""
        self._attempts = 0
        """Failed attempts in the streak, retries included (for the message only)."""
        self._streak_began = 0.0
        self._last_success = float("-inf")
        self._last = ""
        self._reason: str | None = None
        self._opened = threading.Event()

    def admit(self, what: str) -> None:
        """Raise BreakerOpen (naming why) when the breaker is open; return otherwise."""
        if self._reason is not None:
            raise BreakerOpen(f"{what}: not sent: {self._reason}")

    def record(
        self, call: int, attempt: int, failed: bool, last: str, began: float | None = None
    ) -> None:
        """One attempt's outcome: the ``attempt``-th of call number ``call``, begun at
        ``began`` (a ``time.monotonic()`` reading; now when not given). ``last`` says what a
        failed one met (a status, a timeout)."""
        now = time.monotonic()
        with self._lock:
            if attempt == 1:
                self._recent.append(failed)
            if not failed:
                self._failing.clear()
                self._attempts = 0
                self._last_success = now
                return
            if not self._failing:
                self._streak_began = max(now if began is None else began, self._last_success)
            self._failing.add(call)
            self._attempts += 1
            self._last = last
            self._judge(now)

    def _judge(self, now: float) -> None:
        if self._reason is not None or not self._failing:
            return
        calls, lasted = len(self._failing), now - self._streak_began
        if calls >= self.consecutive:
            why = f"{calls} calls in a row failed"
        elif calls >= self.spread and lasted >= self.span:
            why = (
                f"nothing succeeded for {lasted:.0f} s while {calls} calls failed "
                f"({self._attempts} attempts)"
            )
        elif len(self._recent) == self.window and sum(self._recent) >= self.rate * self.window:
            why = (
                f"{sum(self._recent)} of the last {self.window} calls failed at their first attempt"
            )
        else:
            return
        self._reason = (
            f"the endpoint is treated as down ({why}; the last: {self._last}), so memrank "
            "stopped sending to it for the rest of this run"
        )
        self._opened.set()

    def pause(self, seconds: float, what: str) -> None:
        """Wait between attempts, ending early with BreakerOpen if the breaker opens (the span
        rule is judged as its time comes, not only when the next attempt ends)."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            with self._lock:
                due = self._streak_began + self.span - time.monotonic() if self._failing else 0
            # wake when the span comes due, if it is still to come; else sleep the wait out
            if self._opened.wait(min(left, due + 0.01) if due > 0 else left):
                break
            with self._lock:
                self._judge(time.monotonic())
        self.admit(what)
