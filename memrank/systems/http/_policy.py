"""Retry policies: which failures of an operation are retried, how often, how long between,
and how long a call may spend waiting in all; and Retry-After read as seconds."""

from __future__ import annotations

import email.utils
from dataclasses import dataclass
from datetime import UTC, datetime

__all__ = ["NO_RETRY", "WAITING", "RetryPolicy", "retry_after_seconds"]

WAITING = 120.0
"""The most seconds one call spends waiting between attempts, by default."""


@dataclass(frozen=True)
class RetryPolicy:
    """Which failures of one operation are retried, how often, and how long to wait between."""

    statuses: frozenset[int]
    """HTTP statuses that are retried; every other status is final."""
    attempts: int = 4
    """Attempts in all, the first included."""
    backoff: float = 0.5
    """Seconds before the second attempt; doubled for each attempt after."""
    max_wait: float = 10.0
    """The longest wait between attempts, Retry-After included: a longer Retry-After is met
    by trying again sooner (an outage is then told from a pause by the circuit breaker)."""
    transport: bool = True
    """Whether timeouts and connection failures are retried."""
    timeouts: bool = True
    """Whether an exchange that ran out its deadline is retried (when ``transport`` is)."""
    waiting: float = WAITING
    """The most seconds one call spends waiting between attempts in all: a retry that would
    wait past it is not made, so no call's retries run on unbounded."""

    def wait(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        wanted = retry_after if retry_after is not None else self.backoff * 2 ** (attempt - 1)
        return min(self.max_wait, max(0.0, wanted))


NO_RETRY = RetryPolicy(frozenset(), attempts=1, transport=False)


def retry_after_seconds(retry_after: str | None) -> float | None:
    """Retry-After as seconds from now: delta-seconds or an HTTP date; None when absent or bad."""
    if retry_after is None:
        return None
    try:
        return float(retry_after)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(retry_after)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - datetime.now(UTC)).total_seconds()
