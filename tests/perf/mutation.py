"""Mutation testing of the modules every published number comes from: each small change to
their code (a mutant, tests/perf/_mutants.py) must make a test fail, or be one that cannot
change what they compute.

Every mutant of each module is run against the tests that cover the module (``MODULES``),
quickest to fail first, stopping at the first failure. A mutant lives only in the test process
that runs it: the process is forked from one that has imported the tests' dependencies but
nothing of memrank, and imports the mutated module from the mutated syntax tree, so no file
changes. A mutant whose tests run past the timeout counts as killed (it hangs).

Survivors that cannot change any result are listed, each with its reason, in docs/testing.md
(Equivalent mutants); the score is the share of the other mutants killed.

    uv run python tests/perf/mutation.py                          # every mutant of every module
    uv run python tests/perf/mutation.py memrank/stats/bounded.py --jobs 2
    uv run python tests/perf/mutation.py --list                   # the mutants, none run
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import importlib.util
import os
import re
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import CodeType

from _mutants import ROOT, Mutant, compiled, equivalents, mutants

_EVIDENCE_TESTS = (
    "tests/measures/test_evidence_boundaries.py",
    "tests/measures/test_evidence.py",
    "tests/measures/test_attribution.py",
)
MODULES: dict[str, tuple[str, ...]] = {
    "memrank/measures/evidence.py": _EVIDENCE_TESTS,
    "memrank/measures/containment.py": _EVIDENCE_TESTS,  # the whole-word rule evidence.py reads
    "memrank/stats/bounded.py": (
        "tests/stats/test_reference_intervals.py",
        "tests/stats/test_kernels.py",
        "tests/stats/test_coverage.py",
    ),
    "memrank/stats/clustered.py": (
        "tests/stats/test_reference_intervals.py",
        "tests/stats/test_readings.py",
        "tests/stats/test_ranks.py",
        "tests/stats/test_kernels.py",
        "tests/test_paired.py",
        "tests/stats/test_coverage.py",
    ),
    "memrank/artifacts/_verify.py": (
        "tests/artifacts/test_verify.py",
        "tests/artifacts/test_verify_boundaries.py",
        "tests/artifacts/test_policy.py",
        "tests/artifacts/test_trust.py",
        "tests/artifacts/test_mutations.py",
        "tests/integrity/test_commands.py",
    ),
}
"""Each module and the tests run against its mutants, the quickest to fail first."""


# -- running them ------------------------------------------------------------------------------


class _MutatedFinder(importlib.abc.MetaPathFinder):
    """Imports one module from the given code instead of its file."""

    def __init__(self, name: str, path: str, code: CodeType) -> None:
        self.name, self.path, self.code = name, path, code

    def find_spec(self, fullname: str, path: object, target: object = None) -> object:
        if fullname != self.name:
            return None
        code = self.code

        class Loader(importlib.machinery.SourceFileLoader):
            def get_code(self, fullname: str) -> CodeType:
                return code

        return importlib.util.spec_from_file_location(
            fullname, self.path, loader=Loader(fullname, self.path)
        )


def _start(mutant: Mutant | None, tests: tuple[str, ...], log: Path) -> int:
    """Fork a process that runs ``tests`` with ``mutant`` in place (None: none); its pid."""
    pid = os.fork()
    if pid:
        return pid
    os.setpgid(0, 0)  # its own group: a timeout ends whatever the tests started too
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(out, 1)
    os.dup2(out, 2)
    if mutant is not None:
        name = mutant.module.removesuffix(".py").replace("/", ".")
        finder = _MutatedFinder(name, str(ROOT / mutant.module), compiled(mutant))
        sys.meta_path.insert(0, finder)  # type: ignore[arg-type]
    import pytest

    flags = ["-x", "-q", "-p", "no:cacheprovider", "--no-header"]
    os._exit(int(pytest.main([*flags, *tests])))


@dataclass
class Outcome:
    mutant: Mutant
    killed: bool
    how: str
    """The first test that failed, 'timeout', or 'survived'."""


def _first_failure(log: Path) -> str:
    text = log.read_text(errors="replace")
    failed = re.search(r"^(?:FAILED|ERROR) (\S+)", text, re.MULTILINE)
    return failed.group(1) if failed else "exit status"


def run_all(found: list[Mutant], timeout: float, jobs: int, folder: Path) -> Iterator[Outcome]:
    """Each mutant against its module's tests, ``jobs`` at a time, in order of finishing (each
    process's output in ``folder`` until it is read)."""
    waiting = list(found)
    running: dict[int, tuple[Mutant, float, Path]] = {}
    while waiting or running:
        while waiting and len(running) < jobs:
            mutant = waiting.pop(0)
            log = folder / f"{len(waiting)}.log"
            running[_start(mutant, MODULES[mutant.module], log)] = (mutant, time.time(), log)
        pid, status = os.waitpid(-1, os.WNOHANG)
        if not pid:
            for other, (_, started, _) in list(running.items()):
                if time.time() - started > timeout:
                    os.killpg(other, signal.SIGKILL)
            time.sleep(0.05)
            continue
        mutant, started, log = running.pop(pid)
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
            yield Outcome(mutant, True, "timeout")
        elif os.waitstatus_to_exitcode(status) == 0:
            yield Outcome(mutant, False, "survived")
        else:
            yield Outcome(mutant, True, _first_failure(log))
        log.unlink(missing_ok=True)


def baseline(module: str, folder: Path) -> float:
    """Seconds the module's tests take unmutated; SystemExit when they fail as they are."""
    log = folder / "baseline.log"
    started = time.time()
    _, status = os.waitpid(_start(None, MODULES[module], log), 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{module}: its tests fail without a mutant:\n{log.read_text()[-3000:]}")
    log.unlink()
    return time.time() - started


def _warm() -> None:
    """Import in the parent what every test process imports (not memrank, nor pytest's plugins,
    which pytest must import itself to rewrite their asserts): each fork has it."""
    import cryptography.hazmat.primitives.asymmetric.ed25519  # noqa: F401
    import numpy  # noqa: F401
    import pydantic  # noqa: F401
    import pytest  # noqa: F401
    import scipy.optimize  # noqa: F401
    import scipy.stats  # noqa: F401


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", default=list(MODULES), help="paths as in MODULES")
    parser.add_argument("--jobs", type=int, default=1, help="test processes at once (default 1)")
    parser.add_argument("--list", action="store_true", help="print the mutants, run none")
    options = parser.parse_args()
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))  # this tree's memrank, even run from a copy of it
    listed = equivalents()
    found = {module: mutants(module) for module in options.modules}
    if options.list:
        for module_mutants in found.values():
            print(*module_mutants, sep="\n")
        return
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    _warm()
    totals = Counter[str]()
    survivors: list[Mutant] = []
    folder = Path(tempfile.mkdtemp(prefix="mutation-"))
    for module, module_mutants in found.items():
        took = baseline(module, folder)
        timeout = max(60.0, 4 * took)
        print(f"{module}: {len(module_mutants)} mutants; its tests take {took:.1f} s", flush=True)
        counts = Counter[str]()
        for outcome in run_all(module_mutants, timeout, options.jobs, folder):
            equivalent = outcome.mutant.key in listed
            kind = "killed" if outcome.killed else "equivalent" if equivalent else "survived"
            counts[kind] += 1
            if kind == "killed" and equivalent:
                counts["listed but killed"] += 1
            if kind == "survived":
                survivors.append(outcome.mutant)
            print(f"  {kind:10} {outcome.how:60.60}  {outcome.mutant}", flush=True)
        _score(module, counts)
        totals.update(counts)
    folder.rmdir()
    _score("all", totals)
    stale = set(listed) - {m.key for ms in found.values() for m in ms}
    for key in sorted(stale):
        if key[0] in found:
            print(f"listed in docs/testing.md but no such mutant: {key}")
    print("survivors not listed as equivalent:", *survivors or ["none"], sep="\n  ")


def _score(name: str, counts: Counter[str]) -> None:
    real = counts["killed"] + counts["survived"]
    score = counts["killed"] / real if real else 1.0
    print(
        f"{name}: {real + counts['equivalent']} mutants, {counts['killed']} killed, "
        f"{counts['equivalent']} equivalent (listed), {counts['survived']} survived; "
        f"score {score:.1%} of the non-equivalent"
        + (
            f"; {counts['listed but killed']} listed but killed"
            if counts["listed but killed"]
            else ""
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
