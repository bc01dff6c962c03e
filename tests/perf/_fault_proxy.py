"""A fault-injecting HTTP proxy on loopback: in front of an Add/Search server, it answers a
seeded share of requests itself (503 with and without Retry-After, a connection reset) or
delays them before passing them on, and logs every Add it passes on."""

from __future__ import annotations

import random
import socket
import struct
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import orjson

__all__ = ["FaultMix", "FaultProxy"]


@dataclass(frozen=True)
class FaultMix:
    """Shares of requests met with each fault; the rest pass on untouched."""

    unavailable: float = 0.20
    """503, half of them with Retry-After: 1."""
    reset: float = 0.05
    delay: float = 0.05
    """Passed on after 2 to 5 seconds."""
    seed: int = 0


@dataclass
class _Log:
    faults: Counter[str] = field(default_factory=Counter)
    add_bodies: dict[str, set[bytes]] = field(default_factory=dict)
    """request_id -> every distinct body passed on under it."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30
    disable_nagle_algorithm = True
    server: FaultProxy

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.handle(self, b"")

    def do_POST(self) -> None:
        self.server.handle(self, self.rfile.read(int(self.headers.get("Content-Length", 0))))

    def answer(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def reset(self) -> None:
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()


class FaultProxy(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, upstream: str, mix: FaultMix) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.upstream, self.mix = upstream, mix
        self.log = _Log()
        self._lock = threading.Lock()
        self._random = random.Random(mix.seed)
        self._client = httpx.Client(timeout=60)
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05})

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        self._client.close()

    def _draw(self) -> tuple[str, float]:
        with self._lock:
            draw, extra = self._random.random(), self._random.random()
        m = self.mix
        if draw < m.unavailable / 2:
            return "503+retry-after", 0.0
        if draw < m.unavailable:
            return "503", 0.0
        if draw < m.unavailable + m.reset:
            return "reset", 0.0
        if draw < m.unavailable + m.reset + m.delay:
            return "delay", 2 + 3 * extra
        return "ok", 0.0

    def handle(self, handler: _Handler, body: bytes) -> None:
        fault, seconds = self._draw()
        with self._lock:
            self.log.faults[fault] += 1
        if fault.startswith("503"):
            extra = {"Retry-After": "1"} if fault == "503+retry-after" else {}
            handler.answer(503, b'{"detail":{"reason":"unavailable"}}', extra)
            return
        if fault == "reset":
            handler.reset()
            return
        time.sleep(seconds)
        if handler.path == "/add":
            request_id = str(orjson.loads(body).get("request_id"))
            with self._lock:
                self.log.add_bodies.setdefault(request_id, set()).add(body)
        passed = self._client.request(
            handler.command,
            f"{self.upstream}{handler.path}",
            content=body or None,
            headers={"Content-Type": "application/json"},
        )
        handler.answer(passed.status_code, passed.content)
