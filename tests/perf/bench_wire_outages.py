"""Benchmark: how long `memrank run aml demo` takes, with default settings, to report an
endpoint that is down, and what it exits with, against the deadline-free expectation.

Cases, each a loopback server in this process: every request answered 503 (health too);
health fine but every Search answered 503; the same with Retry-After: 30; health fine but
every Search hung. Targets: each ends in <= 30 s with exit 7 and every task failed (the
hung Search with --option timeout=5: within 2x the deadline per task before the breaker
opens). Printed: seconds and exit code per case.
Run: uv run python tests/perf/bench_wire_outages.py
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson

DOWN = b'{"detail":{"reason":"unavailable"}}'


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Outage

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._answer(503 if self.server.case == "all-503" else 200, b'{"status":"ok"}')

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == "/add" and self.server.case != "all-503":
            request = orjson.loads(body)
            echo = {k: request[k] for k in ("request_id", "user_id", "session_id")}
            self._answer(200, orjson.dumps({"success": True, **echo}))
        elif self.server.case == "search-hangs":
            self.server.stopped.wait(60)
        else:
            retry = {"Retry-After": "30"} if self.server.case == "search-503-retry-after" else {}
            self._answer(503, DOWN, retry)

    def _answer(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class _Outage(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, case: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.case, self.stopped = case, threading.Event()


def measure(case: str, *options: str) -> tuple[float, int, str]:
    server = _Outage(case)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    command = [sys.executable, "-c", "from memrank.cli import main; main()", "run", "aml", "demo"]
    started = time.perf_counter()
    done = subprocess.run(
        [*command, "--option", f"base_url={url}", *options],
        capture_output=True,
        text=True,
        timeout=600,
    )
    took = time.perf_counter() - started
    server.stopped.set()
    server.shutdown()
    return took, done.returncode, done.stderr.strip().splitlines()[-1]


def main() -> None:
    for case, options in (
        ("all-503", ()),
        ("search-503", ()),
        ("search-503-retry-after", ()),
        ("search-hangs", ("--option", "timeout=5")),
    ):
        took, code, said = measure(case, *options)
        print(f"{case:<24} {took:6.1f} s  exit {code}  {said}")


if __name__ == "__main__":
    main()
