"""Run sets: several systems on several evaluations in one command, each pair a tracked run.

``memrank run bm25,hybrid locomo,demo`` runs every pair in turn (systems outermost), each an
ordinary tracked run of the registry. The set has a record of its own (``sets/<id>.json`` in
the run registry) naming each pair's run, so ``--resume SET_ID`` goes on where it stopped: a
pair whose run is done is not run again, a stopped one resumes from its journal, and the pairs
not yet begun start.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ValidationError

from memrank._basics import FROZEN, UTCDateTime, now_utc
from memrank._files import write_atomic
from memrank.errors import UsageError
from memrank.result import Result
from memrank.runs.registry import RESULT, RunRecord, RunState, find, home, run_folder

__all__ = [
    "Member",
    "PairRunner",
    "RecordMaker",
    "RunSet",
    "is_set",
    "load_set",
    "names_of",
    "new_set",
    "run_set",
    "set_resume_command",
]

SETS = "sets"


class RunSet(BaseModel):
    """The record of a run set: its pairs and the run each has, once begun."""

    model_config = FROZEN
    id: str
    """``set-<UTC date>-<time>-<6 hex>``."""
    systems: tuple[str, ...]
    evaluations: tuple[str, ...]
    arguments: tuple[str, ...] = ()
    """The options every pair runs with, as command-line words."""
    runs: dict[str, str] = {}
    """``SYSTEM EVALUATION`` -> the id of its run, once begun."""
    created: UTCDateTime


@dataclass(frozen=True)
class Member:
    """One pair of the set, as it ended."""

    target: str
    evaluation: str
    record: RunRecord
    result: Result | None
    """None when the run ended without a result (it failed)."""


PairRunner = Callable[[str, str, str, bool], "tuple[Result | None, RunRecord]"]
"""Runs one pair: (system, evaluation, its run's id, whether to resume) -> result, record."""

RecordMaker = Callable[[str, str], RunRecord]
"""Records a new run of one pair (system, evaluation) before it starts."""


def is_set(system: str, evaluation: str) -> bool:
    return "," in system or "," in evaluation


def names_of(text: str, what: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names:
        raise UsageError(f"{what} {text!r}: give names separated by commas")
    return names


def set_resume_command(run_set: RunSet) -> str:
    import shlex

    words = [",".join(run_set.systems), ",".join(run_set.evaluations), *run_set.arguments]
    return " ".join(["memrank run", *map(shlex.quote, words), "--resume", run_set.id])


def new_set(systems: Sequence[str], evaluations: Sequence[str], arguments: Sequence[str]) -> RunSet:
    import os

    return _saved(
        RunSet(
            id=f"set-{now_utc():%Y%m%d-%H%M%S}-{os.urandom(3).hex()}",
            systems=tuple(systems),
            evaluations=tuple(evaluations),
            arguments=tuple(arguments),
            created=now_utc(),
        )
    )


def load_set(set_id: str) -> RunSet:
    path = home() / SETS / f"{set_id}.json"
    try:
        return RunSet.model_validate_json(path.read_bytes())
    except (OSError, ValidationError) as exc:
        raise UsageError(
            f"--resume {set_id}: no readable run set at {path} ({type(exc).__name__})"
        ) from None


def run_set(run_set: RunSet, make_record: RecordMaker, run_pair: PairRunner) -> list[Member]:
    """Every pair of ``run_set`` run (or kept, or resumed) in turn; the set's record names each
    pair's run before it starts, so an interrupted set resumes."""
    members = []
    for target in run_set.systems:
        for evaluation in run_set.evaluations:
            key = f"{target} {evaluation}"
            if key in run_set.runs:
                earlier = find(run_set.runs[key])
                if earlier.state is RunState.DONE:
                    result = Result.load(run_folder(earlier.id) / RESULT)
                    members.append(Member(target, evaluation, earlier, result))
                    continue
                run_id, resuming = earlier.id, True
            else:
                run_id, resuming = make_record(target, evaluation).id, False
                run_set = _saved(run_set.model_copy(update={"runs": {**run_set.runs, key: run_id}}))
            result_or_none, record = run_pair(target, evaluation, run_id, resuming)
            members.append(Member(target, evaluation, record, result_or_none))
    return members


def _saved(run_set: RunSet) -> RunSet:
    write_atomic(home() / SETS / f"{run_set.id}.json", run_set.model_dump_json(indent=2).encode())
    return run_set
