"""Benchmark: what the integrity checks cost an endpoint run (target: at most 10% of its time).

An endpoint run of LoCoMo through the `aml` client against a loopback Add/Search server is
timed guarded, as every endpoint run is (opaque names, canaries planted and asked, every
recalled document mapped back and checked against what its unit was told, the canary test),
and unguarded (the same client and server with the guard off: the run as it was before the
checks), in alternating turns, each the fastest of its turns. The server is BM25 served over
the contract, so the endpoint's own work is real retrieval, not a stub. Prints both times, the
ratio, and how the extra time splits between the extra calls (canary turns told, canary
questions asked) and memrank's own checks.

    uv run python tests/perf/bench_integrity_cost.py [--evaluation locomo] [--turns 3]
"""

from __future__ import annotations

import argparse
import time

import memrank
from memrank.systems.bm25 import BM25Adapter
from memrank.systems.http.aml import AmlMemory
from memrank.wire._service import ContractService
from memrank.wire.serve import serving


class Unguarded(AmlMemory):
    """The same client, run as memrank runs an in-process memory: no guard."""

    transport = "in-process"


def _timed(memory: AmlMemory, evaluation: memrank.Evaluation) -> tuple[float, memrank.Result]:
    began = time.perf_counter()
    result = memrank.run(memory, evaluation, concurrency=4)
    return time.perf_counter() - began, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--evaluation", default="locomo")
    parser.add_argument("--turns", type=int, default=3)
    args = parser.parse_args()
    evaluation = memrank.evaluation(args.evaluation)
    guarded_times, plain_times = [], []
    with serving(ContractService(BM25Adapter)) as url:
        for _ in range(args.turns):
            plain, _ = _timed(Unguarded(url), evaluation)
            guarded, result = _timed(AmlMemory(url), evaluation)
            plain_times.append(plain)
            guarded_times.append(guarded)
    assert result.integrity is not None
    canaries = len(result.integrity.traces)
    told = sum(len(u.documents) for u in evaluation.units())
    sent = len(result.traces[0].given.document_ids) if result.traces[0].given else 0
    best_plain, best_guarded = min(plain_times), min(guarded_times)
    print(f"{args.evaluation}: {len(evaluation.tasks)} tasks, {told} documents told")
    print(f"  canary questions asked: {canaries} ({canaries / len(evaluation.tasks):.1%})")
    print(f"  first unit's documents with canaries: {sent}")
    print(f"  unguarded: {best_plain:.2f} s (turns: {', '.join(f'{t:.2f}' for t in plain_times)})")
    print(
        f"  guarded:   {best_guarded:.2f} s (turns: {', '.join(f'{t:.2f}' for t in guarded_times)})"
    )
    ratio = best_guarded / best_plain
    print(f"  ratio:     {ratio:.3f} (target <= 1.10): {'met' if ratio <= 1.10 else 'NOT met'}")


if __name__ == "__main__":
    main()
