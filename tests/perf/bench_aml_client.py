"""Benchmark: AmlMemory's Search throughput against a fast loopback server, at concurrency 8,
as a ratio to a bare httpx loop sending the very same requests in the same run.

The server is `memrank serve word-overlap` in its own process (so it does not share this
process's interpreter lock), holding 50 short documents under one user_id. Both sides send
the same 2,000 Search bodies from 8 threads over one pooled client; rounds alternate, best of
several. Target: ratio >= 0.8. Also printed: memrank's own client time per call (building,
validating and mapping), as each Search declares it.
Run: uv run python tests/perf/bench_aml_client.py [rounds]
"""

from __future__ import annotations

import subprocess
import sys

import httpx
import orjson
from _search_load import client_round, notes, queries
from _timing import threaded_seconds

from memrank.systems.http import AmlMemory

THREADS, SEARCHES, DOCUMENTS, TOP_K = 8, 2000, 50, 10


def start_server() -> tuple[subprocess.Popen[str], str]:
    command = [
        sys.executable,
        "-c",
        "from memrank.cli import main; main()",
        "serve",
        "word-overlap",
        "--port",
        "0",
    ]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    return server, server.stdout.readline().split()[3]


def aml_round(root: AmlMemory, run_id: str) -> tuple[float, float]:
    """Seconds for every Search through AmlMemory, and mean client milliseconds per call."""
    handles = [root.for_unit(run_id, "bench") for _ in range(THREADS)]
    return client_round(handles, queries(SEARCHES), TOP_K)


def bare_round(client: httpx.Client, url: str, user_id: str) -> float:
    """Seconds for the same Searches as a bare httpx loop: post, check the status, parse."""
    bodies = [
        orjson.dumps({"query": q, "user_id": user_id, "top_k": TOP_K}) for q in queries(SEARCHES)
    ]

    def work(thread: int) -> None:
        for body in bodies[thread::THREADS]:
            response = client.post(url, content=body, headers={"Content-Type": "application/json"})
            response.raise_for_status()
            assert response.json()["data"]

    return threaded_seconds(work, THREADS)


def main(rounds: int) -> None:
    server, url = start_server()
    try:
        root = AmlMemory(url, timeout=30)
        run_id = "run_000000bench0"
        writer = root.for_unit(run_id, "bench")
        writer.prepare("u")
        writer.ingest(notes(DOCUMENTS))
        user_id = writer.user_id_of("u")
        aml_times, bare_times, client_ms = [], [], []
        with httpx.Client() as bare:
            for _ in range(rounds):
                seconds, overhead = aml_round(root, run_id)
                aml_times.append(seconds)
                client_ms.append(overhead)
                bare_times.append(bare_round(bare, f"{url}/search", user_id))
        root.close()
    finally:
        server.terminate()
        server.wait(10)
    aml_rate, bare_rate = SEARCHES / min(aml_times), SEARCHES / min(bare_times)
    print(
        f"{SEARCHES} Searches from {THREADS} threads against `memrank serve word-overlap`, best of {rounds}"
    )
    print(f"AmlMemory.retrieve: {aml_rate:8.0f} searches/s")
    print(f"bare httpx loop:    {bare_rate:8.0f} searches/s")
    print(f"memrank client time per call (declared): {min(client_ms):.3f} ms")
    print(f"AML client throughput / bare httpx = {aml_rate / bare_rate:.2f} (target >= 0.8)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
