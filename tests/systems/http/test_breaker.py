"""The circuit breaker judges an endpoint by its calls, not its attempts: it opens on distinct
calls failing in a row, on several calls failing while nothing succeeds for a span (judged on
a clock), or on a failure rate; never on one call's own retries, never on a flaky endpoint."""

from __future__ import annotations

import random
import threading
import time

import pytest

from memrank.systems.http._breaker import Breaker, BreakerOpen


def test_distinct_calls_failing_in_a_row_open_it_and_every_later_call_fails_at_once() -> None:
    breaker = Breaker(consecutive=3)
    for call in (1, 2):
        breaker.record(call, 1, True, "HTTP 503")
    breaker.admit("Search")  # still closed
    breaker.record(3, 1, True, "HTTP 503")
    with pytest.raises(BreakerOpen, match=r"Search: not sent: .*3 calls in a row failed.*HTTP 503"):
        breaker.admit("Search")


def test_the_retries_of_one_call_never_open_it() -> None:
    # a poisoned query: one call failing attempt after attempt, for longer than the span
    breaker = Breaker(consecutive=3, span=0.1, window=5)
    for attempt in range(1, 50):
        breaker.record(7, attempt, True, "a timeout")
    time.sleep(0.15)
    breaker.record(7, 50, True, "a timeout")
    breaker.pause(0.05, "Search")
    breaker.admit("Search")


def test_calls_failing_while_nothing_succeeds_for_the_span_open_it_on_time() -> None:
    # as an endpoint answering every call 503 with a long Retry-After: few attempts, over time
    breaker = Breaker(span=0.3)
    breaker.record(1, 1, True, "HTTP 503")
    breaker.record(2, 1, True, "HTTP 503")
    started = time.monotonic()
    with pytest.raises(BreakerOpen, match=r"nothing succeeded for 0 s while 2 calls failed"):
        breaker.pause(30, "Search")  # no attempt ends meanwhile: the clock opens it
    assert time.monotonic() - started < 1


def test_a_success_ends_the_streak() -> None:
    breaker = Breaker(consecutive=3, span=0.2)
    breaker.record(1, 1, True, "HTTP 503")
    time.sleep(0.25)
    breaker.record(2, 1, False, "")
    breaker.record(3, 1, True, "HTTP 503")
    breaker.record(4, 1, True, "HTTP 503")
    breaker.admit("Search")


def test_a_streak_counts_from_the_last_success_not_from_when_a_slow_call_began() -> None:
    breaker = Breaker(span=0.2)
    began = time.monotonic()
    time.sleep(0.25)
    breaker.record(1, 1, False, "")
    breaker.record(2, 1, True, "a timeout", began)  # began before the success: not a streak
    breaker.record(3, 1, True, "HTTP 503")
    breaker.admit("Search")


def test_a_flaky_endpoint_never_opens_it() -> None:
    draws = random.Random(15)
    breaker = Breaker()
    for call in range(20_000):
        for attempt in range(1, 5):
            failed = draws.random() < 0.3
            breaker.record(call, attempt, failed, "HTTP 503")
            if not failed:
                break
    breaker.admit("Search")


def test_a_wait_between_attempts_ends_when_it_opens() -> None:
    breaker = Breaker(consecutive=1)
    threading.Timer(0.1, breaker.record, (1, 1, True, "HTTP 503")).start()
    started = time.monotonic()
    with pytest.raises(BreakerOpen):
        breaker.pause(30, "Search")
    assert time.monotonic() - started < 5
