"""The results store over HTTP, against a loopback server this test starts: the right bytes are
fetched; wrong bytes, nothing, a 50 MB body and a trickle are each refused, clearly, without
holding the body."""

from __future__ import annotations

import socket
import threading
import time
import tracemalloc
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from memrank.artifacts import Attested, ResultsStore, store_of_board, verify, verify_directory
from memrank.errors import (
    BoardConfigError,
    OversizeFile,
    ResultStoreError,
    SubjectDigestMismatch,
    SubjectMissing,
)

from .conftest import Store

FIFTY_MB = 50 << 20


class _Store(BaseHTTPRequestHandler):
    """``/<mode>/<sha256>.json``: ok, wrong, huge (declared), endless (undeclared), slow."""

    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        mode, _, name = self.path.strip("/").partition("/")
        self.server.requests.append(self.path)
        good = self.server.files.get(name)
        try:
            if mode == "ok" and good is not None:
                self._send(good)
            elif mode == "wrong" and good is not None:
                self._send(good[:-1] + b" ")
            elif mode == "huge":
                self._stream(FIFTY_MB, declared=True)
            elif mode == "endless":
                self._stream(FIFTY_MB, declared=False)
            elif mode == "slow":
                self._stream(100 << 16, declared=False, pause=0.2)
            else:
                self._send(b'{"message":"Not Found"}', status=404)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up, as it should on a body it refuses

    def _send(self, body: bytes, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _stream(self, size: int, *, declared: bool, pause: float = 0.0) -> None:
        self.send_response(200)
        if declared:
            self.send_header("Content-Length", str(size))
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        chunk = b"\0" * (1 << 16)
        for _ in range(size // len(chunk)):
            self.wfile.write(chunk)
            if pause:
                time.sleep(pause)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, files: dict[str, bytes]) -> None:
        super().__init__(("127.0.0.1", 0), _Store)
        self.files = files
        self.requests: list[str] = []


@pytest.fixture
def server(attested: Attested) -> Iterator[_Server]:
    made = _Server({attested.result_file.name: attested.result_file.read_bytes()})
    thread = threading.Thread(target=made.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield made
    finally:
        made.shutdown()
        made.server_close()
        thread.join(timeout=10)


def http_store(server: _Server, mode: str) -> ResultsStore:
    host, port = server.server_address[:2]
    url = f"http://{host}:{port}/{mode}/{{sha256}}.json"
    return ResultsStore.parse(url, base=Path("."), where="test")


def deep(store: Store, attested: Attested, results: ResultsStore) -> None:
    attested.result_file.unlink(missing_ok=True)
    verify(attested.envelope, store.trust, store=results, deep=True)


def test_deep_fetches_the_result_file_over_http(
    store: Store, attested: Attested, server: _Server
) -> None:
    attested.result_file.unlink()
    run = verify(attested.envelope, store.trust, store=http_store(server, "ok"), deep=True)
    assert run.result_checked
    assert server.requests == [f"/ok/{attested.result_file.name}"]


def test_a_store_serving_wrong_bytes_is_refused(
    store: Store, attested: Attested, server: _Server
) -> None:
    with pytest.raises(SubjectDigestMismatch, match="served bytes whose sha256"):
        deep(store, attested, http_store(server, "wrong"))


def test_a_store_without_the_file_is_refused(
    store: Store, attested: Attested, server: _Server
) -> None:
    with pytest.raises(SubjectMissing, match="answered 404"):
        deep(store, attested, http_store(server, "none"))


@pytest.mark.parametrize("mode", ["huge", "endless"])
def test_a_50_mb_body_is_refused_without_holding_it(
    store: Store, attested: Attested, server: _Server, mode: str
) -> None:
    with pytest.raises(OversizeFile, match="without reading it whole"):
        deep(store, attested, http_store(server, mode))
    # What one fetch holds at its peak: a few chunks, never the body.
    tracemalloc.start()
    try:
        with pytest.raises(OversizeFile):
            http_store(server, mode).fetch(attested.result_file.stem, 1 << 20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20


def test_a_store_that_trickles_is_refused_at_the_deadline(
    attested: Attested, server: _Server
) -> None:
    results = http_store(server, "slow")
    started = time.monotonic()
    with pytest.raises(ResultStoreError, match="within 0.5 s"):
        results.fetch(attested.result_file.stem, FIFTY_MB, deadline_s=0.5)
    assert time.monotonic() - started < 5


def test_an_unreachable_store_is_refused(attested: Attested) -> None:
    with socket.socket() as probe:  # a port nothing listens on once the probe closes
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/{{sha256}}.json"
    results = ResultsStore.parse(url, base=Path("."), where="test")
    with pytest.raises(ResultStoreError, match="did not answer"):
        results.fetch(attested.result_file.stem, 100)


def test_board_toml_names_the_store(store: Store, attested: Attested, server: _Server) -> None:
    host, port = server.server_address[:2]
    (store.directory / "board.toml").write_text(
        f'[site]\nresults_store = "http://{host}:{port}/ok/{{sha256}}.json"\n'
    )
    attested.result_file.unlink()
    named = store_of_board(store.directory)
    assert named is not None
    verification = verify_directory(store.directory, store=named, deep=True)
    assert verification.ok and verification.runs[0].result_checked


@pytest.mark.parametrize(
    "location",
    ["http://example.org/{sha256}.json", "https://example.org/results/", "ftp://x/{sha256}"],
)
def test_a_store_address_off_the_rules_is_refused(location: str) -> None:
    with pytest.raises(BoardConfigError, match="results store"):
        ResultsStore.parse(location, base=Path("."), where="board.toml: results.store")
