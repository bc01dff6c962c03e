"""What every record module stands on: the frozen model config, the UTC datetime field, and
memrank's clock (wall time for records, a monotonic counter for durations)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, ConfigDict

__all__ = ["FROZEN", "UTCDateTime", "elapsed_ms", "now_utc", "tick"]

# Every vocabulary model is immutable and refuses fields it does not know, so a typo in a
# hand-written evaluation or a tampered result file is an error rather than a silent default.
# Schemas are built on first use rather than at import, which keeps `import memrank` cheap.
FROZEN = ConfigDict(frozen=True, extra="forbid", defer_build=True)


def _require_utc(moment: datetime) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("a datetime must carry a timezone; give it in UTC (tzinfo=UTC)")
    return moment.astimezone(UTC)


UTCDateTime = Annotated[datetime, AfterValidator(_require_utc)]
"""A timezone-aware datetime, normalised to UTC; naive datetimes are refused."""


def now_utc() -> datetime:
    """The moment, in UTC, for a record's started/finished fields."""
    return datetime.now(UTC)


def tick() -> int:
    """A monotonic instant in nanoseconds."""
    return time.perf_counter_ns()


def elapsed_ms(since: int) -> float:
    """Milliseconds since a ``tick()``."""
    return (time.perf_counter_ns() - since) / 1e6
