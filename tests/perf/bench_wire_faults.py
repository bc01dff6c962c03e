"""Benchmark: `memrank run aml locomo:mini` with default settings behind a fault-injecting
proxy (20% 503, half with Retry-After: 1; 5% connection resets; 5% delays of 2-5 s) in front
of `memrank serve bm25`, against the same run with no faults in the same session.

Targets: 0 failed tasks, 0 duplicate stores (every request_id the proxy passed on carried one
body, and as many request_ids reached the server as the fault-free run sent), and values
identical to the fault-free run. Printed: the faults met, the attempts per call the traces
declare, and the wall time of both runs.
Run: MEMRANK_LOCOMO_FILE=.../locomo10.json uv run python tests/perf/bench_wire_faults.py [seed]
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter

from _fault_proxy import FaultMix, FaultProxy

import memrank
from memrank.result import Result
from memrank.systems.http import AmlMemory


def start_server() -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-c", "from memrank.cli import main; main()"]
    server = subprocess.Popen(
        [*command, "serve", "bm25", "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    return server, server.stdout.readline().split()[3]


def timed_run(url: str) -> tuple[Result, float]:
    memory = AmlMemory(url)  # the defaults, as a participant would run
    started = time.perf_counter()
    result = memrank.run(memory, memrank.evaluation("locomo:mini"), concurrency=4)
    took = time.perf_counter() - started
    memory.close()
    return result, took


def main(seed: int) -> None:
    server, upstream = start_server()
    try:
        with FaultProxy(upstream, FaultMix(seed=-1, unavailable=0, reset=0, delay=0)) as clean:
            baseline, clean_seconds = timed_run(clean.url)
        with FaultProxy(upstream, FaultMix(seed=seed)) as proxy:
            faulty, faulty_seconds = timed_run(proxy.url)
    finally:
        server.terminate()
        server.wait(timeout=10)
    attempts = Counter(
        t.recalled.declared.get("attempts", 1) for t in faulty.traces if t.recalled is not None
    )
    bodies = proxy.log.add_bodies
    duplicates = sum(len(b) - 1 for b in bodies.values()) + abs(
        len(bodies) - len(clean.log.add_bodies)
    )
    same = [(v.task_id, v.measure, v.value) for v in baseline.values if v.task_id] == [
        (v.task_id, v.measure, v.value) for v in faulty.values if v.task_id
    ]
    print(f"faults met: {dict(proxy.log.faults)}")
    print(f"Search attempts per task: {dict(sorted(attempts.items()))}")
    print(f"tasks: {len(faulty.traces)}; failed: {len(faulty.failed)} (target 0)")
    print(f"request_ids stored: {len(bodies)}; duplicate stores: {duplicates} (target 0)")
    print(f"values identical to the fault-free run: {same}")
    print(f"wall time: {faulty_seconds:.1f} s with faults, {clean_seconds:.1f} s without")
    if faulty.failed:
        print(f"first failure: {faulty.failed[0].error.message}")  # type: ignore[union-attr]


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
