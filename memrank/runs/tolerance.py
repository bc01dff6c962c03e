"""``--max-failures RATE|N``: stop a run early once more tasks failed than the operator accepts.

``N`` (a whole number) is a count of failed tasks; ``RATE`` (``0.05`` or ``5%``) a share of
the run's tasks, so the run stops as soon as its failures already exceed that share of the
whole, whatever the rest would do. The run stops with exit 7 and keeps its journal: the units
it completed are not run again when it is resumed.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

from memrank._drive import Observer, UnitOutcome
from memrank.errors import TasksFailedInRun, UsageError
from memrank.trace import Trace

__all__ = ["FailureLimit", "FailureWatch", "parse_failure_limit"]


@dataclass(frozen=True)
class FailureLimit:
    """At most ``allowed`` failed tasks; ``given`` is the option as the operator wrote it."""

    allowed: int
    given: str


def parse_failure_limit(text: str, tasks: int) -> FailureLimit:
    """``--max-failures`` for a run of ``tasks`` tasks; a one-line UsageError when malformed."""
    cleaned = text.strip()
    try:
        if cleaned.endswith("%"):
            share = float(cleaned[:-1]) / 100
        elif cleaned.isdigit():
            return FailureLimit(int(cleaned), cleaned)
        else:
            share = float(cleaned)
    except ValueError:
        share = math.nan
    if not 0 <= share <= 1:
        raise UsageError(
            f"--max-failures {text!r}: give a count of tasks (5), or a share of them (0.05 or 5%)"
        )
    return FailureLimit(math.floor(share * tasks), cleaned)


class FailureWatch:
    """Passes every event on to ``inner``; raises TasksFailedInRun past the limit."""

    def __init__(self, inner: Observer, limit: FailureLimit, stopped: str) -> None:
        self.inner, self.limit, self.stopped = inner, limit, stopped
        self.failed = 0
        self._lock = threading.Lock()

    def done(self, unit: str) -> UnitOutcome | None:
        earlier = self.inner.done(unit)
        if earlier is not None:
            self._count(sum(1 for trace in earlier.traces if trace.error is not None))
        return earlier

    def task_finished(self, trace: Trace) -> None:
        self.inner.task_finished(trace)
        if trace.error is not None:
            self._count(1)

    def unit_finished(self, unit: str, outcome: UnitOutcome) -> None:
        self.inner.unit_finished(unit, outcome)

    def _count(self, failed: int) -> None:
        with self._lock:
            self.failed += failed
            if self.failed > self.limit.allowed:
                raise TasksFailedInRun(
                    f"stopped early: {self.failed} task(s) failed, more than --max-failures "
                    f"{self.limit.given} allows ({self.limit.allowed}); {self.stopped}"
                )
