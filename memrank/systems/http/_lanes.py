"""Connections that rest after each answer, so bytes nobody asked for are never read as one.

A server can follow an answer with a second response (or any bytes) that answers nothing; on
a connection that then carries the next request, perhaps another unit's, they would be read
as that request's answer. Bytes that came with the answer's last ones, or wait on the socket
when it ends, fail the call that read it (``Unasked``, after), and its connection is closed.
Bytes still in flight then (written a moment later, or held back by the server until memrank
acknowledged the answer, which memrank does at once where the system lets it: TCP_QUICKACK)
arrive while the connection rests: it carries no request until twice the time its exchange
took, and 10 ms, have passed (250 ms without TCP_QUICKACK); a request that finds no rested
connection opens a new one. Whatever arrived meanwhile is never read: a connection holding
bytes is closed before it is used (httpcore's own check, and ``_transport``'s). A server that
waits longer than that before sending is answering the next request, as any server may.

Each lane is an httpx transport of one connection; at most ``resting`` lanes wait at once,
the rest are closed.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from memrank.systems.http._transport import Unasked, lane, waiting

__all__ = ["RestingTransport"]

_FLOOR = 0.01 if hasattr(socket, "TCP_QUICKACK") else 0.25
"""Seconds a connection rests beyond twice its exchange: the acknowledgement of an answer
leaves at once with TCP_QUICKACK, and within the usual 200 ms of delay without it."""


@dataclass
class _Lane:
    transport: httpx.HTTPTransport
    rested_at: float = 0.0
    """The ``time.monotonic()`` reading from which it may carry a request."""


class RestingTransport(httpx.BaseTransport):
    """Requests carried over connections that rest after each answer (see the module)."""

    def __init__(self, resting: int = 32) -> None:
        # one for every lane: making one reads the certificate authorities from disk
        self._ssl = httpx.create_ssl_context()
        self._resting = resting
        self._idle: list[_Lane] = []
        self._lock = threading.Lock()
        self._closed = False

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        taken, started = self._take(), time.monotonic()
        try:
            response = taken.transport.handle_request(request)
        except BaseException:
            self._give_back(taken, started)
            raise
        response.stream = _Watched(
            response.stream,  # type: ignore[arg-type]
            response.extensions["network_stream"],
            lambda: self._give_back(taken, started),
        )
        return response

    def close(self) -> None:
        with self._lock:
            self._closed, idle, self._idle = True, self._idle, []
        for resting in idle:
            resting.transport.close()

    def _take(self) -> _Lane:
        now = time.monotonic()
        with self._lock:
            for position, resting in enumerate(self._idle):
                if resting.rested_at <= now:
                    return self._idle.pop(position)
        return _Lane(lane(self._ssl))

    def _give_back(self, taken: _Lane, started: float) -> None:
        now = time.monotonic()
        taken.rested_at = now + 2 * (now - started) + _FLOOR
        with self._lock:
            kept = not self._closed and len(self._idle) < self._resting
            if kept:
                self._idle.append(taken)
        if not kept:
            taken.transport.close()


class _Watched(httpx.SyncByteStream):
    """An answer's body, looked after: when it ends, nothing may follow it on the connection
    (``Unasked`` is raised and the connection closed); when it is closed, its lane rests."""

    def __init__(
        self, inner: httpx.SyncByteStream, network: Any, closed: Callable[[], None]
    ) -> None:
        self._inner, self._network, self._closed = inner, network, closed

    def __iter__(self) -> Iterator[bytes]:
        yield from self._inner
        _acknowledge(self._network)
        extra = len(_parser(self._inner).trailing_data[0]) + waiting(self._network)
        if extra:
            self._network.close()  # never used again
            raise Unasked(extra, after=True)

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            self._closed()


def _acknowledge(network: Any) -> None:
    """Acknowledge what was read at once (TCP_QUICKACK, where the system has it), so a server
    holding bytes back until then sends them while the connection rests."""
    sock = network.get_extra_info("socket")
    if hasattr(socket, "TCP_QUICKACK") and isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):  # not TCP (a Unix socket): nothing is held back
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)


def _parser(stream: httpx.SyncByteStream) -> Any:
    """The h11 state of the connection an answer's body comes over. Neither httpx nor httpcore
    exposes it; these are the attributes of httpx 0.28 and httpcore 1.0 (httpx's transport
    stream, over the pool's, over the HTTP/1.1 connection's), and every test that reads an
    answer fails the moment they change."""
    pooled = stream._httpcore_stream  # type: ignore[attr-defined]  # noqa: SLF001
    return pooled._stream._connection._h11_state  # noqa: SLF001
