"""Loopback HTTP servers the tests start themselves (127.0.0.1, bounded, stopped on exit).

``Scripted`` answers each path from a script and logs every request; ``Faulty`` puts a real
ContractService behind seeded faults (429, 503, stalls past the client's timeout, connection
resets) and logs every request it received, whatever it did with it.
"""

from __future__ import annotations

import hashlib
import random
import re
import socket
import struct
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from memrank.wire._service import ContractService


@dataclass(frozen=True)
class Logged:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    fault: str = "ok"


@dataclass(frozen=True)
class Canned:
    status: int
    body: bytes = b"{}"
    headers: tuple[tuple[str, str], ...] = ()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 5  # an idle keep-alive connection is dropped rather than held forever
    disable_nagle_algorithm = True  # headers and body go out in two writes; no 40 ms stall
    server: _Loopback

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.answer(self, b"")

    def do_POST(self) -> None:
        self.server.answer(self, self.rfile.read(int(self.headers.get("Content-Length", 0))))

    do_PUT = do_DELETE = do_POST  # engine APIs put bodies on these too

    def reply(self, canned: Canned) -> None:
        self.send_response(canned.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(canned.body)))
        for name, value in canned.headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(canned.body)

    def reset(self) -> None:
        """Drop the connection with a TCP reset, answering nothing."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def lowered_headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers.items()}


class _Loopback(ThreadingHTTPServer):
    # Leaving the context waits for every handler (stalled ones included), so nothing of a
    # test outlives it; clients must close their pooled connections inside the context.
    daemon_threads = False
    block_on_close = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.log: list[Logged] = []
        self.lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05})

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def logged(self, path: str) -> list[Logged]:
        with self.lock:
            return [entry for entry in self.log if entry.path == path]

    def record(self, entry: Logged) -> None:
        with self.lock:
            self.log.append(entry)

    def __enter__(self) -> Any:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join()

    def answer(self, handler: _Handler, body: bytes) -> None:
        raise NotImplementedError


class Scripted(_Loopback):
    """Answers each path with its script in turn; the last entry answers from then on."""

    def __init__(self, **scripts: list[Canned]) -> None:
        super().__init__()
        self._scripts = {f"/{path}": list(script) for path, script in scripts.items()}

    def answer(self, handler: _Handler, body: bytes) -> None:
        self.record(Logged(handler.command, handler.path, handler.lowered_headers(), body))
        with self.lock:
            script = self._scripts.get(handler.path, [Canned(404, b'{"detail":{"reason":"no"}}')])
            canned = script.pop(0) if len(script) > 1 else script[0]
        handler.reply(canned)


_RUN_TOKEN = re.compile(rb"run_[0-9a-f]{12}|(?<=eval:)r[0-9a-f]{24}")
"""What differs between two runs of one evaluation with one secret: the run's own name."""
FAULTS = ("429", "503", "stall", "reset")


class Faulty(_Loopback):
    """A ContractService behind faults drawn per request from ``seed``.

    The draw depends only on the request (with the run's random token masked) and how many
    times that very request was seen, so the same run meets the same faults in any thread
    order. A stall answers the request, then holds the reply past the client's timeout and
    drops the connection: the write happened, the client cannot know it.
    """

    def __init__(
        self, service: ContractService, seed: int, rate: float = 0.2, stall_seconds: float = 0.8
    ) -> None:
        super().__init__()
        self.service, self.seed, self.rate, self.stall_seconds = service, seed, rate, stall_seconds
        self._seen: dict[bytes, int] = {}

    def fault(self, path: str, body: bytes) -> str:
        key = path.encode() + b"\n" + _RUN_TOKEN.sub(b"run", body)
        with self.lock:
            nth = self._seen.get(key, 0)
            self._seen[key] = nth + 1
        draw = random.Random(f"{self.seed}:{hashlib.sha256(key).hexdigest()}:{nth}").random()
        return FAULTS[int(draw / self.rate * len(FAULTS))] if draw < self.rate else "ok"

    def answer(self, handler: _Handler, body: bytes) -> None:
        if handler.command == "GET":
            self.record(Logged("GET", handler.path, handler.lowered_headers(), b""))
            handler.reply(Canned(200, b'{"status":"ok"}'))
            return
        fault = self.fault(handler.path, body)
        self.record(Logged("POST", handler.path, handler.lowered_headers(), body, fault))
        if fault == "429":
            handler.reply(
                Canned(429, b'{"detail":{"reason":"slow down"}}', (("Retry-After", "0"),))
            )
        elif fault == "503":
            handler.reply(Canned(503, b'{"detail":{"reason":"unavailable"}}'))
        elif fault == "reset":
            handler.reset()
        else:
            call = self.service.add if handler.path == "/add" else self.service.search
            answer = call(body, handler.lowered_headers())
            if fault == "stall":
                time.sleep(self.stall_seconds)
                handler.reset()
            else:
                handler.reply(Canned(answer.status, answer.body))
