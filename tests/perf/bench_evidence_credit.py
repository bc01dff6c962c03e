"""Benchmark: the credit the evidence measures give through the wire, and what they cost.

On LoCoMo (full by default), through the aml client and a loopback Add/Search server: an
honest bm25 server whose answers are reformatted (tests/systems/http/reformatted.py) must keep
its credit, and a fragment oracle (the first 6 words of each gold evidence turn, read from the
public file; also each fragment sent three times) must earn only the share of each turn it
shows. Printed per server: evidence-recall@500w (the headline), @10, evidence-hit@10 and
session-recall@10 means, and the words recalled per question. Then the evidence measures' own
time (both levels, over the in-process bm25 run's traces, median of several rounds).

Measured on full LoCoMo, evidence-recall@500w with the rule that credits whole turns only
(before) and with the shown rule and pieces attributed their session only (after); every run
under one secret, canaries told:

    server                                    before   after
    as-is, upper case, other punctuation,     0.6569   0.6569
      other whitespace, curly quotes, fresh ids (each)
    speaker prefix a word longer              0.6523   0.6523
    each hit merged with the next turn        0.6974   0.6974
    fragment oracle (6 words)                 0.9772   0.2389
    fragment oracle, each sent 3 times        0.9752   0.2384

Without canaries (before the client was guarded) the honest rows read 0.6585, 0.6540 and
0.7027 under both rules. The measures' CPU time over bm25's run, collector paused, medians of
21 rounds in four alternations: 0.21-0.23 s before, 0.24-0.25 s after (about 1% of the run).

The material is read as the tests read it: MEMRANK_DATA_DIR, else shared/data beside the
repository.  Run: uv run python tests/perf/bench_evidence_credit.py [slice|full] [rounds]
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import memrank
from memrank import Evaluation, Memory
from memrank.evaluations import locomo
from memrank.measures import evidence
from memrank.measures.evidence import EvidenceRecall, SessionRecall
from memrank.systems.bm25 import BM25
from tests.systems.http.reformatted import GoldOracle, gold_of, honest_servers, over_the_wire

COLUMNS = (
    "evidence-recall@500w.mean",
    "evidence-recall@10.mean",
    "evidence-hit@10.mean",
    "session-recall@10.mean",
    "recalled-words.mean",
)


def material() -> Path | None:
    if os.environ.get("MEMRANK_DATA_DIR"):
        return None
    return Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo"


def row(name: str, result: memrank.Result) -> str:
    means = {v.measure: v.value for v in result.values}
    cells = "".join(
        f"{means[c]:>10.4f}" if means.get(c) is not None else f"{'-':>10}" for c in COLUMNS
    )
    return f"{name:<36}{cells}"


def measures_seconds(result: memrank.Result, rounds: int) -> list[float]:
    """CPU seconds for both evidence levels over the result's traces, each round read afresh,
    with the cyclic collector paused as a run pauses it while measuring."""
    traces = [t for t in result.traces if t.error is None]
    levels = [EvidenceRecall(budget=result.evaluation.budget), SessionRecall()]
    times = []
    gc.disable()
    try:
        for _ in range(rounds):
            evidence._FOUND.clear()  # the levels' shared reading is part of what is timed
            started = time.process_time()
            for level in levels:
                level.measure(traces, [])
            times.append(time.process_time() - started)
    finally:
        gc.enable()
    return times


def main(name: str | None, rounds: int) -> None:
    evaluation: Evaluation = locomo(name, path=material()) if name else locomo(path=material())
    gold = gold_of(evaluation)
    servers: dict[str, Callable[[], Memory]] = {
        **honest_servers(),
        "fragment oracle (6 words)": lambda: GoldOracle(gold),
        "fragment oracle, each sent 3 times": lambda: GoldOracle(gold, repeat=3),
    }
    print(f"{evaluation.version}, {len(evaluation.tasks)} task(s), through the aml client")
    print(f"{'server':<36}" + "".join(f"{c.split('.')[0][:9]:>10}" for c in COLUMNS))
    for server, make in servers.items():
        print(row(server, over_the_wire(make, evaluation)), flush=True)
    in_process = memrank.run(BM25(), evaluation)
    print(row("bm25 in process", in_process))
    times = measures_seconds(in_process, rounds)
    print(
        f"evidence measures over the in-process run (CPU): median {statistics.median(times):.3f} s, "
        f"best {min(times):.3f} s of {rounds} round(s)"
    )


if __name__ == "__main__":
    main(
        sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] != "full" else None,
        int(sys.argv[2]) if len(sys.argv) > 2 else 9,
    )
