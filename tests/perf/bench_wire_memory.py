"""Benchmark: peak RSS of `memrank run aml demo` against answers under the response cap that
parse large: a million tiny items (28.5 MiB), and valid answers padded to 24 MB (whitespace
after the JSON, an undeclared field, items whose text is padded), each against a baseline run
of the same command against an honest server in the same session.

Each run is its own process (`memrank run aml EVALUATION`), which states its peak resident set
(VmHWM, Linux) as it exits; the servers run in this process, each a real ContractService
behind a loopback server that rewrites every Search answer.
Targets: at most 300 MB for the million items and at most 400 MB for padded answers
(issue 49), and no task recorded from an answer past memrank's limits.
Run: uv run python tests/perf/bench_wire_memory.py [evaluation, default demo]
(LoCoMo slices read MEMRANK_DATA_DIR, as `memrank run` does)
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from memrank.result import Result
from memrank.systems import WordOverlap
from memrank.wire._service import Answer, ContractService
from tests.systems.http.hostile import Rewriting

PADDED = 24_000_000
MILLION = (
    b'{"data":[' + b",".join(b'{"id":"%d","content":"x"}' % n for n in range(1_000_000)) + b"]}"
)


def honest(answer: Answer, body: bytes) -> Answer:
    return answer


def million_items(answer: Answer, body: bytes) -> Answer:
    return Answer(200, MILLION)


def padded_with_whitespace(answer: Answer, body: bytes) -> Answer:
    return Answer(answer.status, answer.body + b" " * (PADDED - len(answer.body)))


def padded_in_a_field(answer: Answer, body: bytes) -> Answer:
    found = orjson.loads(answer.body)
    return Answer(answer.status, orjson.dumps({**found, "padding": "p" * PADDED}))


def padded_in_the_text(answer: Answer, body: bytes) -> Answer:
    found = orjson.loads(answer.body)
    items = found.get("data") or [{"id": "filler", "content": ""}]
    share = PADDED // len(items)
    padded = [{**item, "content": f"{item['content']} {'p' * share}"} for item in items]
    return Answer(answer.status, orjson.dumps({"data": padded}))


CASES: dict[str, Callable[[Answer, bytes], Answer]] = {
    "honest (baseline)": honest,
    "a million tiny items": million_items,
    "padded: whitespace": padded_with_whitespace,
    "padded: an undeclared field": padded_in_a_field,
    "padded: the items' text": padded_in_the_text,
}


# The run reports its own peak resident set (VmHWM) as it exits: the kernel's count for a
# child (wait4's ru_maxrss) starts from this process's size when it was forked.
_REPORTING_RUN = """
import atexit, sys
from memrank.cli import main
def peak():
    status = open("/proc/self/status").read().split("VmHWM:")[1]
    sys.stderr.write(f"peak-kib {status.split()[0]}\\n")
atexit.register(peak)
sys.argv[0] = "memrank"
main()
"""


def peak_of_run(url: str, evaluation: str, saved: Path) -> tuple[float, float, int]:
    """Peak RSS (MiB) and seconds of one `memrank run aml` process, and its exit code."""
    command = [sys.executable, "-c", _REPORTING_RUN, "run", "aml", evaluation]
    started = time.perf_counter()
    run = subprocess.run(
        [*command, "--save", str(saved), "--option", f"base_url={url}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    took = time.perf_counter() - started
    if not saved.exists():
        raise SystemExit(f"the run saved nothing (exit {run.returncode}): {run.stderr[-600:]}")
    (kib,) = [line.split()[1] for line in run.stderr.splitlines() if line.startswith("peak-kib")]
    return int(kib) / 1024, took, run.returncode


def main(evaluation: str) -> None:
    print(f"`memrank run aml {evaluation}`: peak RSS of the run process, by Search answer")
    baseline = None
    with tempfile.TemporaryDirectory() as folder:
        for name, rewrite in CASES.items():
            saved = Path(folder) / f"{len(name)}.json"
            with Rewriting(ContractService(WordOverlap), rewrite) as server:
                peak, seconds, code = peak_of_run(server.url, evaluation, saved)
            result = Result.load(saved)
            baseline = peak if baseline is None else baseline
            failed = len(result.failed)
            said = sorted({t.error.message.split("response ")[-1][:60] for t in result.failed})  # type: ignore[union-attr]
            print(
                f"  {name:<28} {peak:7.1f} MiB ({peak - baseline:+6.1f} vs baseline), "
                f"{seconds:5.1f} s, exit {code}, {failed} of {len(result.traces)} failed"
                + (f": {said[0]}" if said else "")
            )
    print("targets: at most 300 MB for a million items, at most 400 MB for padded answers")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "demo")
