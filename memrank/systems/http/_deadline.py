"""A deadline over a whole HTTP exchange: connect, send, and every byte of the answer.

A socket timeout bounds one read, so a peer that trickles a byte at a time keeps a request
alive for ever. Here every connect, read and write of a pooled connection is given at most
the time left until the deadline of the exchange it serves (``bounded``, which the transport
calls), and one made after the deadline fails at once. The deadline belongs to the thread
making the request (httpx's sync client uses a connection from one thread at a time), so
connections pooled across units stay safe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["bounded", "deadline"]

_local = threading.local()


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Every network operation of this thread inside the block ends within ``seconds``."""
    _local.at = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.at = None


def bounded(timeout: float | None, expired: type[Exception]) -> float | None:
    """The timeout cut to the time left until the deadline; ``expired`` once it has passed."""
    at: float | None = getattr(_local, "at", None)
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise expired("the deadline of the exchange passed")
    return left if timeout is None else min(timeout, left)
