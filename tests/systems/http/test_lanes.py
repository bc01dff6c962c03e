"""Connections rest after each answer: one is reused once it has rested, never sooner."""

from __future__ import annotations

import time

from memrank.systems import WordOverlap
from memrank.systems.http._client import NO_RETRY, HttpClient
from memrank.wire._service import Answer, ContractService
from tests.systems.http.hostile import Rewriting

SEARCH = b'{"query": "q", "user_id": "nobody", "top_k": 1}'
SLOW = 0.2


def _slowly(answer: Answer, body: bytes) -> Answer:
    time.sleep(SLOW)  # an exchange of 0.2 s: its connection rests 0.41 s after it
    return answer


def _ports(pause: float) -> list[int]:
    """The client ports of two Searches sent ``pause`` seconds apart."""
    with Rewriting(ContractService(WordOverlap), _slowly) as server:
        http = HttpClient(None, timeout=5)
        http.post(f"{server.url}/search", SEARCH, NO_RETRY, what="Search")
        time.sleep(pause)
        http.post(f"{server.url}/search", SEARCH, NO_RETRY, what="Search")
        http.close()
    return [entry.port for entry in server.received]


def test_a_connection_is_reused_once_it_has_rested() -> None:
    first, second = _ports(pause=2 * SLOW + 0.3)
    assert first == second


def test_a_connection_still_resting_carries_no_request() -> None:
    first, second = _ports(pause=0)
    assert first != second
