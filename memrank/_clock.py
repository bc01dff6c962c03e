"""memrank's own clock: wall time for records, a monotonic counter for durations."""

from __future__ import annotations

import time
from datetime import UTC, datetime

__all__ = ["elapsed_ms", "now_utc", "tick"]


def now_utc() -> datetime:
    """The moment, in UTC, for a record's started/finished fields."""
    return datetime.now(UTC)


def tick() -> int:
    """A monotonic instant in nanoseconds."""
    return time.perf_counter_ns()


def elapsed_ms(since: int) -> float:
    """Milliseconds since a ``tick()``."""
    return (time.perf_counter_ns() - since) / 1e6
