"""Benchmark: each engine client's retrieve throughput against its loopback engine server, at
concurrency 8, as a ratio to a bare httpx loop sending the very same requests in the same run.

Each server runs in its own process (the tests' loopback engine servers, and the example
translator for Native), holding 50 short documents in one namespace. Both sides send the same
1,000 searches from 8 threads over one pooled client; rounds alternate, best of several.
Target: ratio >= 0.8 for every engine. Also printed: memrank's own client time per call
(building, validating and mapping), as each retrieve declares it.
Run: uv run python tests/perf/bench_engine_clients.py [rounds]
"""

from __future__ import annotations

import copy
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import orjson
from _search_load import client_round, notes, queries
from _timing import threaded_seconds

from memrank.systems.http import AtomicMemory, Hindsight, Mem0, Native, Supermemory
from memrank.systems.http._engine import EngineMemory

THREADS, SEARCHES, DOCUMENTS, K = 8, 1000, 50, 10
KEY = "bench-key"
ROOT = Path(__file__).parents[2]
SERVE_LOOPBACK = (
    "import sys\n"
    "from tests.systems.http.engines import ENGINES\n"
    "case = next(c for c in ENGINES if c.name == sys.argv[1])\n"
    "server = case.server()\n"
    "server.key = sys.argv[2]\n"
    "server.__enter__()\n"
    "print(server.url, flush=True)\n"
    "sys.stdin.read()\n"
)

# Per engine: memrank's client, and the bare request for one search (path, body, headers).
Bare = Callable[[str, str], tuple[str, dict[str, object]]]
ENGINES: dict[str, tuple[type[EngineMemory], Bare, dict[str, str]]] = {
    "mem0": (
        Mem0,
        lambda ns, q: ("/search", {"query": q, "user_id": ns, "top_k": K}),
        {"X-API-Key": KEY},
    ),
    "hindsight": (
        Hindsight,
        lambda ns, q: (f"/v1/default/banks/{ns}/memories/recall", {"query": q}),
        {"Authorization": f"Bearer {KEY}"},
    ),
    "supermemory": (
        Supermemory,
        lambda ns, q: ("/v3/search", {"q": q, "containerTags": [ns], "limit": K}),
        {"Authorization": f"Bearer {KEY}"},
    ),
    "atomicmemory": (
        AtomicMemory,
        lambda ns, q: ("/v1/memories/search", {"user_id": ns, "query": q, "limit": K}),
        {"Authorization": f"Bearer {KEY}"},
    ),
    "native": (
        Native,
        lambda ns, q: ("/retrieve", {"unit": ns, "query": q, "k": K}),
        {},
    ),
}


def start(name: str) -> tuple[subprocess.Popen[str], str]:
    if name == "native":
        command = [sys.executable, "translator.py", "--port", "0"]
        cwd = ROOT / "examples" / "native-translator"
    else:
        command, cwd = [sys.executable, "-c", SERVE_LOOPBACK, name, KEY], ROOT
    server = subprocess.Popen(
        command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    return server, server.stdout.readline().split()[-1]


def engine_round(prepared: EngineMemory) -> tuple[float, float]:
    """Seconds for every search through the client, and mean client milliseconds per call."""
    handles = [copy.copy(prepared) for _ in range(THREADS)]  # one prepared unit, 8 callers
    return client_round(handles, queries(SEARCHES), K)


def bare_round(
    bare: httpx.Client, url: str, request: Bare, namespace: str, headers: dict[str, str]
) -> float:
    """Seconds for the same searches as a bare httpx loop: post, check the status, parse."""
    calls = [request(namespace, q) for q in queries(SEARCHES)]
    bodies = [(path, orjson.dumps(body)) for path, body in calls]
    sent = {"Content-Type": "application/json", **headers}

    def work(thread: int) -> None:
        for path, body in bodies[thread::THREADS]:
            response = bare.post(f"{url}{path}", content=body, headers=sent)
            response.raise_for_status()
            assert response.json()

    return threaded_seconds(work, THREADS)


def measure(name: str, rounds: int) -> tuple[float, float, float]:
    kind, request, headers = ENGINES[name]
    server, url = start(name)
    try:
        options = {"poll_interval": 0.01} if kind is Supermemory else {}
        root = kind(url, api_key=KEY if headers else None, timeout=30, **options)  # type: ignore[arg-type]
        writer = root.for_unit("run_000000bench0", "bench")
        writer.prepare("u")
        writer.ingest(notes(DOCUMENTS))
        namespace = writer.namespace("u")
        client_times, bare_times, client_ms = [], [], []
        with httpx.Client() as bare:
            for _ in range(rounds):
                seconds, overhead = engine_round(writer)
                client_times.append(seconds)
                client_ms.append(overhead)
                bare_times.append(bare_round(bare, url, request, namespace, headers))
        writer.cleanup()
        root.close()
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.terminate()
        server.wait(10)
    return SEARCHES / min(client_times), SEARCHES / min(bare_times), min(client_ms)


def main(rounds: int) -> None:
    print(f"{SEARCHES} searches from {THREADS} threads per engine, best of {rounds}")
    print(f"{'engine':<13} {'client/s':>9} {'bare/s':>9} {'ratio':>6}  client ms/call")
    for name in ENGINES:
        client_rate, bare_rate, client_ms = measure(name, rounds)
        print(
            f"{name:<13} {client_rate:9.0f} {bare_rate:9.0f} {client_rate / bare_rate:6.2f}  {client_ms:.3f}"
        )
    print("target: ratio >= 0.8 for every engine")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
