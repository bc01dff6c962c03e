"""The circuit breaker judges an endpoint by its calls, not its attempts: it opens on distinct
calls failing in a row, on calls of several units failing while nothing succeeds for a span
(judged on a clock), on calls that cannot connect, or on a failure rate; never on one call's
own retries, never on a few queries of one unit, never on a flaky endpoint."""

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


def _from_another_unit(breaker: Breaker, call: int, **outcome: object) -> None:
    """Record a failed first attempt of ``call`` as another unit (thread) makes it."""
    other = threading.Thread(
        target=breaker.record, args=(call, 1, True, "HTTP 503"), kwargs=outcome
    )
    other.start()
    other.join()


def test_calls_of_several_units_failing_for_the_span_open_it_on_time() -> None:
    # as an endpoint answering every call 503 with a long Retry-After: few attempts, over time
    breaker = Breaker(span=0.3)
    _from_another_unit(breaker, 1)
    breaker.record(2, 1, True, "HTTP 503")
    breaker.record(3, 1, True, "HTTP 503")
    started = time.monotonic()
    with pytest.raises(
        BreakerOpen, match=r"nothing succeeded for 0 s while 3 calls failed \(made by 2 units"
    ):
        breaker.pause(30, "Search")  # no attempt ends meanwhile: the clock opens it
    assert time.monotonic() - started < 1


def test_a_few_failing_queries_of_one_unit_never_open_it() -> None:
    # two adjacent queries the endpoint answers 500, each retried past the span, then more
    # of the unit's queries: fewer than five distinct calls in a row, one unit
    breaker = Breaker(span=0.1)
    for call in range(1, 5):
        for attempt in range(1, 5):
            breaker.record(call, attempt, True, "HTTP 500")
        breaker.pause(0.15, "Search")
    breaker.admit("Search")
    breaker.record(5, 1, True, "HTTP 500")  # the fifth distinct call in a row
    with pytest.raises(BreakerOpen, match="5 calls in a row failed"):
        breaker.admit("Search")


def test_nor_do_two_units_failing_two_calls() -> None:
    breaker = Breaker(span=0.1)
    _from_another_unit(breaker, 1)
    breaker.record(2, 1, True, "HTTP 500")
    breaker.pause(0.2, "Search")
    breaker.admit("Search")


def test_calls_that_cannot_connect_open_it_after_the_span() -> None:
    breaker = Breaker(span=0.2)
    breaker.record(1, 1, True, "could not be reached", unreachable=True)
    breaker.record(2, 1, True, "could not be reached", unreachable=True)
    breaker.admit("Search")  # a blip shorter than the span is ridden out
    with pytest.raises(BreakerOpen, match="while 2 calls could not connect at all"):
        breaker.pause(5, "Search")


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
