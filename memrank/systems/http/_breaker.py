"""A circuit breaker: stop sending to an endpoint once the evidence says it is down.

Under a persistent outage every call would spend its whole retry allowance before failing,
for hours on a large evaluation. A breaker watches the calls made to one endpoint (across
the units that share the client) and judges the endpoint by its calls, not by its attempts:
the retries of one call count once, so one request the endpoint cannot answer (a poisoned
query) fails its own call and never the endpoint. Nor do a few such requests: queries asked
one after another by one unit can each be poisoned, so failures prove the endpoint down only
when they span distinct calls of several units, are failures to connect at all, or are many.
Since the last success, it opens when

- ``consecutive`` (5) distinct calls failed, whoever made them;
- at least ``spread`` (3) distinct calls, made by at least two units (threads) at once, failed
  and nothing succeeded for ``span`` (5 s) since the first of them began;
- at least ``unreachable`` (2) distinct calls could not connect at all and nothing succeeded
  for ``span``;

or when ``rate`` (90%) of the last ``window`` (50) calls failed at their first attempt. The
span is judged on a clock, not only when an attempt ends. Open, it stays open for the
client's life: nothing more is sent, every call fails at once with the reason, and waits
between attempts end early, so a run records the remaining tasks as failed within seconds.
The thresholds sit far above what a flaky but working endpoint produces: a 30% fault rate
trips none of them (tests/systems/http/test_breaker.py).
"""

from __future__ import annotations

import sys
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
        consecutive: int = 5,
        span: float = 5.0,
        spread: int = 3,
        unreachable: int = 2,
        window: int = 50,
        rate: float = 0.9,
    ) -> None:
        self.consecutive, self.span, self.spread = consecutive, span, spread
        self.unreachable, self.window, self.rate = unreachable, window, rate
        self._lock = threading.Lock()
        self._recent: deque[bool] = deque(maxlen=window)
        self._failing: dict[int, int] = {}
        """The calls that failed since the last success (the streak): call -> the unit
        (thread) that made it."""
        self._unreached: set[int] = set()
        """The calls of the streak that could not connect."""
        self._attempts = 0
        """Failed attempts in the streak, retries included (for the message only)."""
        self._streak_began = 0.0
        self._last_success = float("-inf")
        self._last = ""
        self._reason: str | None = None
        self._opened = threading.Event()

    @classmethod
    def never(cls) -> Breaker:
        """A breaker that never opens: for a client that must judge every call itself."""
        return cls(consecutive=sys.maxsize, spread=sys.maxsize, unreachable=sys.maxsize, rate=2.0)

    def admit(self, what: str) -> None:
        """Raise BreakerOpen (naming why) when the breaker is open; return otherwise."""
        if self._reason is not None:
            raise BreakerOpen(f"{what}: not sent: {self._reason}")

    def record(
        self,
        call: int,
        attempt: int,
        failed: bool,
        last: str,
        began: float | None = None,
        *,
        unreachable: bool = False,
    ) -> None:
        """One attempt's outcome: the ``attempt``-th of call number ``call``, begun at
        ``began`` (a ``time.monotonic()`` reading; now when not given), made by the calling
        thread's unit. ``last`` says what a failed one met (a status, a timeout);
        ``unreachable``, that it could not connect at all."""
        now = time.monotonic()
        with self._lock:
            if attempt == 1:
                self._recent.append(failed)
            if not failed:
                self._failing.clear()
                self._unreached.clear()
                self._attempts = 0
                self._last_success = now
                return
            if not self._failing:
                self._streak_began = max(now if began is None else began, self._last_success)
            self._failing[call] = threading.get_ident()
            if unreachable:
                self._unreached.add(call)
            self._attempts += 1
            self._last = last
            self._judge(now)

    def _judge(self, now: float) -> None:
        if self._reason is not None or not self._failing:
            return
        calls, lasted = len(self._failing), now - self._streak_began
        units = len(set(self._failing.values()))
        if calls >= self.consecutive:
            why = f"{calls} calls in a row failed"
        elif calls >= self.spread and units >= 2 and lasted >= self.span:
            why = (
                f"nothing succeeded for {lasted:.0f} s while {calls} calls failed "
                f"(made by {units} units at once; {self._attempts} attempts)"
            )
        elif len(self._unreached) >= self.unreachable and lasted >= self.span:
            why = (
                f"nothing succeeded for {lasted:.0f} s while {len(self._unreached)} calls "
                "could not connect at all"
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
        rules are judged as their time comes, not only when the next attempt ends)."""
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
