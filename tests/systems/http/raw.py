"""Loopback servers that misbehave below HTTP's level: trickle an answer a byte at a time,
hang after reading the request, or send a body of any size. Each binds port 0, answers every
connection on its own thread, and stops (closing every socket) when its context ends."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable

Behaviour = Callable[[socket.socket, threading.Event], None]


class Raw:
    """Reads each request's head (and Content-Length body), then hands the socket over."""

    def __init__(self, behaviour: Behaviour) -> None:
        self._behaviour = behaviour
        self._stop = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self._threads: list[threading.Thread] = []
        self._accepting = threading.Thread(target=self._accept)
        self.requests = 0
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def __enter__(self) -> Raw:
        self._accepting.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._accepting.join()
        for thread in self._threads:
            thread.join(timeout=5)
        self._listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            thread = threading.Thread(target=self._serve, args=(conn,))
            self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(2)
            try:
                head = b""
                while b"\r\n\r\n" not in head:
                    got = conn.recv(65536)
                    if not got:
                        return
                    head += got
                top, _, rest = head.partition(b"\r\n\r\n")
                length = _content_length(top)
                while len(rest) < length:
                    rest += conn.recv(65536)
                self.requests += 1
                self._behaviour(conn, self._stop)
            except OSError:
                return  # the client gave up: what these servers are for


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value.strip())
    return 0


def trickle(interval: float, *, headers_too: bool = False) -> Behaviour:
    """Answer 200 one byte every ``interval`` seconds (the head too, when ``headers_too``)."""
    body = b'{"data": []}' + b" " * 10_000

    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        if not headers_too:
            conn.sendall(head)
        for byte in (head if headers_too else b"") + body:
            if stop.wait(interval):
                return
            conn.sendall(bytes([byte]))

    return behaviour


def hang(conn: socket.socket, stop: threading.Event) -> None:
    """Read the request, answer nothing until the server stops."""
    stop.wait(30)


def body_of(size: int, *, declared: bool) -> Behaviour:
    """Answer 200 with ``size`` bytes, in 1 MiB writes, with or without a Content-Length."""
    block = b"x" * (1 << 20)

    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        length = f"Content-Length: {size}\r\n" if declared else "Connection: close\r\n"
        conn.sendall(f"HTTP/1.1 200 OK\r\n{length}\r\n".encode())
        sent = 0
        while sent < size and not stop.is_set():
            part = block[: min(len(block), size - sent)]
            conn.sendall(part)
            sent += len(part)

    return behaviour
