"""Measure: does an honest endpoint keep its headline when its run is guarded?

One endpoint is run on one evaluation unguarded (the same client with the guard off, as memrank
runs an in-process memory: real names, no canaries) and guarded (as every endpoint run is:
opaque names, canaries and their look-alike turns planted, credit only for what was told), in
alternating turns. Prints each run's headline (the evaluation's headline measure), the verdict,
p and foreign count of each guarded run, the mean guarded minus unguarded difference (each turn's
over the tasks both of its runs valued, so a task one run failed does not count), and the
system's own run-to-run spread (max - min among the unguarded runs, and among the guarded
ones): a move within the spread is the system's own variation, not the checks'.

For each guarded run it also counts the benchmark tasks whose headline value differs from the
unguarded run of its turn, and how many of those recalled a planted turn (a canary's own turn
or a look-alike) inside the budget: there a planted turn took a place an evidence turn could
have held. The other changed tasks recalled only the benchmark's own turns: the planted turns
changed how the engine ranks those (BM25's word statistics, a neighbour window), or the engine
varies by itself. Between two unguarded runs, the tasks that differ show how much an engine
varies with no checks at all.

    uv run python tests/perf/integrity_headline.py --engine ami --evaluation locomo --turns 2
    uv run python tests/perf/integrity_headline.py --system mem0 --option base_url=URL \
        --option infer=false --evaluation locomo:smoke

``--engine`` takes bm25 (served over the Add/Search contract on loopback, in this process),
ami, hindsight or mem0 (the real engines of tests/engines, at the URLs ``engines.sh up`` wrote
to ``$ENGINES_ROOT/run/engines.env``). ``--save DIR`` keeps every result, for ``memrank pair``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import memrank
from memrank._system_options import typed_options
from memrank.catalog import system_factory
from memrank.runs.summary import headline
from memrank.system import Document, System
from memrank.systems.bm25 import BM25Adapter
from memrank.trace import Trace
from memrank.wire._service import ContractService
from memrank.wire.serve import serving

ENGINES = {
    # engine: (catalog name, the engines.env variable holding its URL, options)
    "ami": ("active-memory-index", "AML_BASE_URL", ()),
    "hindsight": ("hindsight", "HINDSIGHT_API_URL", ()),
    "mem0": ("mem0", "MEM0_HTTP_URL", ("infer=false",)),
}
PLANTED = ":canary-"
"""What every planted turn's id holds once mapped back: ``<unit>:canary-<n>:<i>`` for a canary's
own turns, ``<unit>:canary-<n>:look-alike-<i>`` for its look-alikes (memrank.integrity)."""


@dataclass(frozen=True)
class Run:
    guarded: bool
    turn: int
    seconds: float
    result: memrank.Result
    headline: float
    scores: dict[str, float | None]
    """Task id -> its headline value."""


def _engines_env() -> dict[str, str]:
    root = os.environ.get("ENGINES_ROOT") or str(Path.home() / ".cache" / "memrank" / "engines")
    listed = Path(root) / "run" / "engines.env"
    if not listed.is_file():
        raise SystemExit(
            f"{listed} is missing: start the engines (bash tests/engines/engines.sh up)"
        )
    pairs = (line.split("=", 1) for line in listed.read_text().splitlines() if "=" in line)
    return {key.strip(): value.strip() for key, value in pairs}


@contextlib.contextmanager
def _endpoint(args: argparse.Namespace) -> Iterator[tuple[str, tuple[str, ...]]]:
    """The catalog name and ``KEY=VALUE`` options that reach the endpoint, while it is up."""
    if args.engine == "bm25":
        with serving(ContractService(BM25Adapter)) as url:
            yield "aml", (f"base_url={url}",)
    elif args.engine is not None:
        name, variable, options = ENGINES[args.engine]
        yield name, (f"base_url={_engines_env()[variable]}", *options)
    else:
        yield args.system, tuple(args.option)


def _made(name: str, pairs: tuple[str, ...], *, guarded: bool) -> System:
    """The endpoint's client; unguarded, a subclass that memrank runs as in-process."""
    options: dict[str, Any] = typed_options(name, pairs)
    if guarded:
        return memrank.system(name, **options)
    factory = system_factory(name)
    if not isinstance(factory, type):
        raise SystemExit(f"{name} is made by a function, not a class: cannot run it unguarded")
    unguarded = type(factory.__name__, (factory,), {"transport": "in-process"})
    made = unguarded(**options)
    assert isinstance(made, System)
    return made


def _planted_within_budget(trace: Trace) -> bool:
    recalled = trace.recalled.documents if trace.recalled else ()
    kept = recalled[: trace.cut.kept] if trace.cut else recalled
    return any(_is_planted(document) for document in kept)


def _is_planted(document: Document) -> bool:
    metadata = document.metadata or {}
    ids = [document.id, str(metadata.get("doc_id", ""))]
    claimed = metadata.get("doc_ids")
    if isinstance(claimed, list | tuple):
        ids.extend(str(i) for i in claimed)
    return any(PLANTED in i for i in ids)


def _one_run(
    name: str, pairs: tuple[str, ...], evaluation: memrank.Evaluation, turn: int, guarded: bool
) -> Run:
    memory = _made(name, pairs, guarded=guarded)
    began = time.perf_counter()
    try:
        result = memrank.run(memory, evaluation, concurrency=4)
    finally:
        close = getattr(memory, "close", None)
        if close is not None:
            close()
    seconds = time.perf_counter() - began
    failed = len(result.failed)
    if result.refusal is not None or failed:
        print(f"  warning: refused ({result.refusal}) or {failed} failed task(s)")
    measure, mean = headline(result, evaluation.headline)
    assert measure is not None and mean is not None, "the run has no headline value"
    scores = {v.task_id: v.value for v in result.values_of(measure) if v.task_id is not None}
    return Run(guarded, turn, seconds, result, mean, scores)


def _line(run: Run) -> str:
    kind = "guarded  " if run.guarded else "unguarded"
    text = f"  turn {run.turn} {kind} {run.headline:.4f}  ({run.seconds:.0f} s)"
    integrity = run.result.integrity
    if integrity is not None:
        test = integrity.test
        p = "n/a" if test is None or test.p_value is None else f"{test.p_value:.2f}"
        text += (
            f"  {integrity.verdict}, p {p}, foreign {integrity.foreign.documents}, "
            f"canaries {len(integrity.traces)}"
        )
    return text


def _why_moved(guarded: Run, unguarded: Run) -> str:
    """How many benchmark tasks both runs valued changed value, and how many of those recalled
    a planted turn inside the budget (and how many tasks did at all)."""
    mine, theirs = guarded.scores, unguarded.scores
    valued = [t for t in mine.keys() & theirs.keys() if None not in (mine[t], theirs[t])]
    changed = [task for task in valued if mine[task] != theirs[task]]
    planted = {t.task.id for t in guarded.result.traces if _planted_within_budget(t)}
    down = sum(1 for task in changed if (mine[task] or 0) < (theirs[task] or 0))
    with_planted = [task for task in changed if task in planted]
    planted_down = sum(1 for task in with_planted if (mine[task] or 0) < (theirs[task] or 0))
    return (
        f"  turn {guarded.turn}: {len(changed)} of {len(valued)} task(s) changed vs unguarded "
        f"({down} down); {len(with_planted)} of them recalled a planted turn inside the budget "
        f"(the k recalled, without one) ({planted_down} down); {len(planted)} task(s) in all "
        "recalled one"
    )


def _over_shared(unguarded: Run, guarded: Run) -> tuple[int, float, float]:
    """Both runs' headline over the tasks both valued: the headline itself when neither run
    failed a task, a fair comparison when one did (a failed task has no value)."""
    mine, theirs = unguarded.scores, guarded.scores
    shared = [t for t in mine if mine[t] is not None and theirs.get(t) is not None]
    assert shared, "the two runs valued no task in common"
    mean_u = statistics.mean(mine[t] or 0.0 for t in shared)
    mean_g = statistics.mean(theirs[t] or 0.0 for t in shared)
    return len(shared), mean_u, mean_g


def _spread(runs: list[Run]) -> str:
    if len(runs) < 2:
        return "n/a (one run)"
    values = [r.headline for r in runs]
    return f"{max(values) - min(values):.4f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--engine", choices=["bm25", *ENGINES])
    which.add_argument("--system", help="a catalog name (its URL and options by --option)")
    parser.add_argument("--option", action="append", default=[], help="KEY=VALUE for --system")
    parser.add_argument("--evaluation", default="locomo")
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--save", type=Path, help="a folder to keep every result in")
    args = parser.parse_args()
    evaluation = memrank.evaluation(args.evaluation)
    runs: list[Run] = []
    with _endpoint(args) as (name, pairs):
        print(f"{name} on {args.evaluation} ({evaluation.headline}), {args.turns} turn(s)")
        for turn in range(1, args.turns + 1):
            for guarded in (False, True):
                run = _one_run(name, pairs, evaluation, turn, guarded)
                runs.append(run)
                print(_line(run), flush=True)
                if args.save is not None:
                    args.save.mkdir(parents=True, exist_ok=True)
                    kind = "guarded" if guarded else "unguarded"
                    run.result.save(args.save / f"{kind}-{turn}.json")
    plain = [r for r in runs if not r.guarded]
    guarded_runs = [r for r in runs if r.guarded]
    differences = []
    for u, g in zip(plain, guarded_runs, strict=True):
        shared, mean_u, mean_g = _over_shared(u, g)
        differences.append(mean_g - mean_u)
        print(
            f"  turn {u.turn} over the {shared} task(s) both valued: unguarded {mean_u:.4f}, "
            f"guarded {mean_g:.4f}, difference {mean_g - mean_u:+.4f}"
        )
    print(f"mean guarded - unguarded: {statistics.mean(differences):+.4f}")
    print(f"spread unguarded: {_spread(plain)}, guarded: {_spread(guarded_runs)}")
    print("why values moved:")
    for u, g in zip(plain, guarded_runs, strict=True):
        print(_why_moved(g, u))
    for earlier, later in zip(plain, plain[1:], strict=False):
        one, other = earlier.scores, later.scores
        valued = [t for t in one.keys() & other.keys() if None not in (one[t], other[t])]
        differing = sum(1 for task in valued if one[task] != other[task])
        print(
            f"  unguarded turns {earlier.turn} and {later.turn}: {differing} of {len(valued)} "
            "task(s) differ (the engine's own variation)"
        )


if __name__ == "__main__":
    main()
