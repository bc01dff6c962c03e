"""Run sets: several systems on several evaluations in one command, each pair a tracked run.

``memrank run bm25,hybrid locomo,demo`` runs every pair in turn (systems outermost), each an
ordinary tracked run of the registry. The set has a record of its own (``sets/<id>.json`` in
the run registry) naming each pair's run, so ``--resume SET_ID`` goes on where it stopped: a
pair whose run is done is not run again, a stopped one resumes from its journal, and the pairs
not yet begun start.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from pydantic import BaseModel, ValidationError

from memrank._basics import FROZEN, UTCDateTime, now_utc
from memrank._files import write_atomic
from memrank.errors import Interrupted, MemrankError, UsageError
from memrank.result import Result
from memrank.runs.answering import AnswerOptions
from memrank.runs.plan import RunPlan, plan_of
from memrank.runs.registry import RESULT, RunRecord, RunState, find, home, run_folder, save_record
from memrank.runs.request import Request, check_request, new_record
from memrank.runs.tracked import run_tracked

__all__ = [
    "Member",
    "RunSet",
    "check_pairs",
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


def check_pairs(systems: Sequence[str], evaluations: Sequence[str], request: Request) -> None:
    """Every pair's run checked before any pair runs: an unknown name, an option a system does
    not take, is refused (exit 2) with nothing run and nothing recorded."""
    for target in systems:
        for evaluation in evaluations:
            check_request(_pair(request, target, evaluation))


def run_set(
    run_set: RunSet,
    request: Request,
    answering: AnswerOptions,
    *,
    progress: bool,
    say: Callable[[str], None],
) -> list[Member]:
    """Every pair of ``run_set`` run (or kept, or resumed) in turn, each with the options of
    ``request``; the set's record names each pair's run before it starts, so an interrupted
    set resumes. A pair that fails is said and recorded, and the others still run."""
    members = []
    for target in run_set.systems:
        for evaluation in run_set.evaluations:
            key = f"{target} {evaluation}"
            asked = _pair(request, target, evaluation)
            if key in run_set.runs:
                earlier = find(run_set.runs[key])
                if earlier.state is RunState.DONE:
                    result = Result.load(run_folder(earlier.id) / RESULT)
                    members.append(Member(target, evaluation, earlier, result))
                    continue
                plan = plan_of(asked, answering, resume=earlier.id)
            else:
                # the set's process is the run's until its own starts: were it to die first,
                # the run shows lost (and can be resumed or removed), never running for ever
                made = save_record(new_record(asked).model_copy(update={"pid": os.getpid()}))
                run_set = _saved(
                    run_set.model_copy(update={"runs": {**run_set.runs, key: made.id}})
                )
                plan = plan_of(asked, answering, run_id=made.id)
            say(f"pair:       {target} × {evaluation}")
            members.append(_member(run_set, plan, progress, say))
    return members


def _member(run_set: RunSet, plan: RunPlan, progress: bool, say: Callable[[str], None]) -> Member:
    target, evaluation = plan.request.target, plan.request.evaluation
    try:
        finished = run_tracked(plan, progress=progress, say=say)
    except Interrupted as stopped:
        raise type(stopped)(
            f"{stopped.message}\nresume the run set with: {set_resume_command(run_set)}"
        ) from None
    except MemrankError as failed:  # the pair is recorded failed; the others still run
        say(f"{target} × {evaluation}: {failed.message}")
        return Member(target, evaluation, find(plan.record.id), None)
    return Member(target, evaluation, finished.record, finished.result)


def _pair(request: Request, target: str, evaluation: str) -> Request:
    return replace(request, target=target, evaluation=evaluation)


def _saved(run_set: RunSet) -> RunSet:
    write_atomic(home() / SETS / f"{run_set.id}.json", run_set.model_dump_json(indent=2).encode())
    return run_set
