"""The connections memrank's HTTP client makes: within the deadline, and only ever answered.

A deadline is over a whole exchange: connect, send, and every byte of the answer. A socket
timeout bounds one read, so a peer that trickles a byte at a time keeps a request alive for
ever. Here every connect, read and write of a pooled connection is given at most the time left
until the deadline of the exchange it serves (``bounded``), and one made after the deadline
fails at once. The deadline belongs to the thread making the request (``deadline``: httpx's
sync client uses a connection from one thread at a time), so connections pooled across units
stay safe.

A request is sent only on a connection where nothing waits unread, as bytes there would be
taken for the answer to a request they were never sent for: ``Unasked`` is raised instead,
before anything is sent, and httpcore closes the connection. ``Unasked`` also says when
bytes came after a complete answer (``_lanes`` looks for them).
"""

from __future__ import annotations

import select
import socket
import ssl
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

__all__ = ["Unasked", "bounded", "deadline", "lane", "waiting"]

_thread_deadline = threading.local()


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Every network operation of this thread inside the block ends within ``seconds``."""
    _thread_deadline.at = time.monotonic() + seconds
    try:
        yield
    finally:
        _thread_deadline.at = None


def bounded(timeout: float | None, expired: type[Exception]) -> float | None:
    """The timeout cut to the time left until the deadline; ``expired`` once it has passed."""
    at: float | None = getattr(_thread_deadline, "at", None)
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise expired("the deadline of the exchange passed")
    return left if timeout is None else min(timeout, left)


class Unasked(Exception):  # noqa: N818 - what came, not a kind of error; caught in _exchange
    """Bytes nobody asked for: waiting before a request was sent on a connection, or come
    after its complete answer."""

    def __init__(self, size: int, *, after: bool) -> None:
        super().__init__(f"{size} bytes {'after the answer' if after else 'before the request'}")
        self.size, self.after = size, after


def waiting(stream: httpcore.NetworkStream) -> int:
    """How many bytes wait unread on a connection: 0 when none came, or at its end."""
    sock = stream.get_extra_info("socket")
    if isinstance(sock, ssl.SSLSocket):
        # decrypted and unread; the raw socket may hold TLS records that carry no data
        return sock.pending()
    if not isinstance(sock, socket.socket) or sock.fileno() < 0:
        return 0
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    if not poller.poll(0):
        return 0
    try:
        return len(sock.recv(1 << 16, socket.MSG_PEEK))
    except OSError:  # reset meanwhile: nothing to take for an answer
        return 0


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner
        self._sending = False
        """Whether a request is being written (a write since the last read)."""

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self._sending = False
        return self._inner.read(max_bytes, bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not self._sending:  # a request begins: the connection must hold nothing unread
            unread = waiting(self._inner)
            if unread:
                raise Unasked(unread, after=False)
            self._sending = True
        self._inner.write(buffer, bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> _Stream:
        limit = bounded(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, limit))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        limit = bounded(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.connect_tcp(host, port, limit, local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        limit = bounded(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.connect_unix_socket(path, limit, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def lane(ssl_context: ssl.SSLContext) -> httpx.HTTPTransport:
    """An httpx transport of one connection, whose connection keeps the deadline of the
    calling thread and sends a request only where nothing waits unread."""
    made = httpx.HTTPTransport(
        verify=ssl_context, limits=httpx.Limits(max_connections=1, max_keepalive_connections=1)
    )
    # httpx exposes no way to hand its pool a network backend; the pool reads this attribute
    # each time it opens a connection (httpcore 1.x), and the deadline tests would fail
    # the moment it stopped doing so.
    made._pool._network_backend = _Backend()  # noqa: SLF001
    return made
