"""A response answers only the request it was sent for: bytes after a complete answer, or
waiting before a request is sent, fail that call by name and close the connection, which is
never used again; nothing they hold is recorded for any request or unit."""

from __future__ import annotations

import socket
import time

import pytest
from httpcore._backends.sync import SyncStream

import memrank
from memrank.result import Result
from memrank.systems import WordOverlap
from memrank.systems.http import AmlMemory
from memrank.systems.http._client import NO_RETRY, HttpClient
from memrank.systems.http._transport import Unasked, _Stream
from memrank.trace import Step
from memrank.wire._service import ContractService
from tests.systems.http.hostile import Doubling, Received, response_bytes
from tests.systems.http.raw import Raw
from tests.systems.http.test_aml_faults import _evaluation

FOLLOWED = "more bytes on the connection, sent for no request"


def _doubled_run(same_write: bool) -> tuple[Result, Doubling]:
    with Doubling(ContractService(WordOverlap), same_write=same_write) as server:
        memory = AmlMemory(server.url, timeout=5)
        result = memrank.run(memory, _evaluation(), concurrency=4)  # 8 units, 4 at once
        memory.close()
    return result, server


def _recalled_ids(result: Result) -> set[str]:
    return {d.id for t in result.traces if t.recalled for d in t.recalled.documents}


def _reused_after_doubling(server: Doubling) -> list[Received]:
    """Requests that came on a connection after it carried a second response."""
    doubled, later = set(), []
    for entry in server.received:
        if entry.port in doubled:
            later.append(entry)
        if entry.path == "/search":
            doubled.add(entry.port)
    return later


def test_a_second_response_in_the_answers_own_write_fails_every_search_by_name() -> None:
    result, server = _doubled_run(same_write=True)
    assert server.doubled_on and "forged" not in _recalled_ids(result)
    searched = [t for t in result.traces if t.error is None or t.error.step is Step.RETRIEVE]
    assert searched and all(t.error is not None for t in searched)  # none used the answer
    for trace in searched:
        assert trace.error is not None and trace.error.type == "ContractError"
        assert FOLLOWED in trace.error.message and "closed the connection" in trace.error.message
    assert _reused_after_doubling(server) == []


def test_a_second_response_in_a_write_of_its_own_is_never_read() -> None:
    clean = memrank.run(WordOverlap(), _evaluation())
    result, server = _doubled_run(same_write=False)
    assert len(server.doubled_on) >= len(clean.traces) and "forged" not in _recalled_ids(result)
    expected = {v.task_id: v.value for v in clean.values_of("word-match")}
    for trace in result.traces:
        if trace.error is not None:  # caught after the answer: the call failed by name
            assert FOLLOWED in trace.error.message
    for value in result.values_of("word-match"):
        if value.value is not None:  # an answer used was the real one
            assert value.value == expected[value.task_id]
    assert _reused_after_doubling(server) == []


def test_bytes_sent_to_an_idle_connection_are_never_read() -> None:
    answer = response_bytes(200, b'{"data": []}')

    def then_stray(conn: socket.socket, stop: object) -> None:
        conn.sendall(answer)
        time.sleep(0.05)
        conn.sendall(response_bytes(200, b'{"data": [{"id": "stray", "content": "x"}]}'))
        time.sleep(1)

    with Raw(then_stray) as server:
        http = HttpClient(None, timeout=5)
        first = http.post(f"{server.url}/search", b"{}", NO_RETRY, what="Search")
        time.sleep(0.3)  # the stray response arrives while the connection idles in the pool
        second = http.post(f"{server.url}/search", b"{}", NO_RETRY, what="Search")
        http.close()
    assert first.content == second.content == b'{"data": []}'
    assert server.requests == 2  # the second request went on a new connection


def test_a_request_is_never_sent_where_bytes_wait_unread() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        stream = _Stream(SyncStream(ours))
        stream.write(b"POST /search HTTP/1.1\r\n")  # nothing waits: sent
        theirs.sendall(b"HTTP/1.1 413 Too Large\r\n\r\n")  # an early answer
        stream.write(b"Content-Length: 2\r\n\r\n{}")  # a request under way goes on
        assert stream.read(100).startswith(b"HTTP/1.1 413")
        theirs.sendall(response_bytes(200, b"{}"))  # then a response to nothing
        time.sleep(0.05)
        with pytest.raises(Unasked) as caught:
            stream.write(b"POST /search HTTP/1.1\r\n")
        assert caught.value.size == len(response_bytes(200, b"{}"))
        assert theirs.recv(1000).count(b"POST") == 1  # the second request was never sent
