"""A deadline over a whole HTTP exchange: connect, send, and every byte of the answer.

A socket timeout bounds one read, so a peer that trickles a byte at a time keeps a request
alive for ever. Here every connect, read and write of a pooled connection is given at most
the time left until the deadline of the exchange it serves, and one made after the deadline
fails at once. The deadline belongs to the thread making the request (httpx's sync client
uses a connection from one thread at a time), so connections pooled across units stay safe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

__all__ = ["deadline", "transport"]

_local = threading.local()


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Every network operation of this thread inside the block ends within ``seconds``."""
    _local.at = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.at = None


def _bounded(timeout: float | None, expired: type[Exception]) -> float | None:
    """The timeout cut to the time left until the deadline; ``expired`` once it has passed."""
    at: float | None = getattr(_local, "at", None)
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise expired("the deadline of the exchange passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> _Stream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, bounded))

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
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.connect_tcp(host, port, bounded, local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.connect_unix_socket(path, bounded, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def transport() -> httpx.HTTPTransport:
    """An httpx transport whose connections keep the deadline of the calling thread."""
    made = httpx.HTTPTransport()
    # httpx exposes no way to hand its pool a network backend; the pool reads this attribute
    # each time it opens a connection (httpcore 1.x), and the deadline tests would fail
    # the moment it stopped doing so.
    made._pool._network_backend = _Backend()  # noqa: SLF001
    return made
