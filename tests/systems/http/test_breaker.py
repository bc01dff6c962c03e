"""The circuit breaker: opens on failures in a row, on a failing streak that lasts (an endpoint
answering 503 with a long Retry-After), or on a failure rate; never on a flaky endpoint."""

from __future__ import annotations

import random
import threading
import time

import pytest

from memrank.systems.http._breaker import Breaker, BreakerOpen


def test_failures_in_a_row_open_it_and_every_later_call_fails_at_once_naming_why() -> None:
    breaker = Breaker(consecutive=3)
    for _ in range(2):
        breaker.record(True, "HTTP 503")
    breaker.admit("Search")  # still closed
    breaker.record(True, "HTTP 503")
    with pytest.raises(
        BreakerOpen, match=r"Search: not sent: .*3 attempts in a row failed.*HTTP 503"
    ):
        breaker.admit("Search")


def test_a_streak_of_sparse_failures_that_lasts_opens_it() -> None:
    # as an endpoint answering 503 with Retry-After does: few attempts, all failed, over time
    breaker = Breaker(span=0.2)
    breaker.record(True, "HTTP 503")
    time.sleep(0.25)
    breaker.record(True, "HTTP 503")
    with pytest.raises(BreakerOpen, match=r"every attempt for 0 s failed \(2 attempts\)"):
        breaker.admit("Search")


def test_a_success_ends_the_streak() -> None:
    breaker = Breaker(consecutive=3, span=0.2)
    breaker.record(True, "HTTP 503")
    time.sleep(0.25)
    breaker.record(False, "")
    breaker.record(True, "HTTP 503")
    breaker.record(True, "HTTP 503")
    breaker.admit("Search")


def test_a_flaky_endpoint_never_opens_it() -> None:
    draws = random.Random(15)
    breaker = Breaker()
    for _ in range(20_000):
        breaker.record(draws.random() < 0.3, "HTTP 503")
    breaker.admit("Search")


def test_a_wait_between_attempts_ends_when_it_opens() -> None:
    breaker = Breaker(consecutive=1)
    threading.Timer(0.1, breaker.record, (True, "HTTP 503")).start()
    started = time.monotonic()
    with pytest.raises(BreakerOpen):
        breaker.pause(30, "Search")
    assert time.monotonic() - started < 5
