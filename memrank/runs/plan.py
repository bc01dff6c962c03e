"""A tracked run as a plan: everything decided before it starts, handed down to run_tracked.

The command line turns what it was given into one frozen ``RunPlan`` (``plan_of``): the run
as asked, checked; the record it runs under (new, made beforehand, or the stopped run it
resumes); the answer and judge options; the finished run whose failed tasks it retries; and
where ``--save`` writes. ``memrank.runs.tracked.run_tracked`` runs it, and a run set is a
loop over plans (``memrank.runs.runset``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memrank.runs.answering import AnswerOptions
from memrank.runs.registry import RunRecord, find
from memrank.runs.request import Request, check_request, chosen_record

__all__ = ["RunPlan", "plan_of"]


@dataclass(frozen=True)
class RunPlan:
    """One tracked run, resolved: nothing in it is looked up again once it starts."""

    request: Request
    """The run as asked for: what its record and its resume command name."""
    record: RunRecord
    """The record it runs under: a new one, one made beforehand, or the stopped run resumed."""
    fresh: bool
    """Whether ``record`` was made for this run (a usage error then leaves nothing behind)."""
    resuming: bool
    """Whether it goes on from the journal of a stopped run."""
    answering: AnswerOptions
    """The answer and judge options, turned into the answer stage once the system is known."""
    retry_source: RunRecord | None
    """The finished run whose failed tasks are run again (``--retry-failed``)."""
    save: Path | None
    """Where ``--save`` also writes the result: absolute and resolved, so two spellings of one
    path are one target to the check against other runs' targets."""


def plan_of(
    request: Request,
    answering: AnswerOptions,
    *,
    run_id: str | None = None,
    resume: str | None = None,
) -> RunPlan:
    """The plan of ``request``: checked (exit 2 before anything starts), its record chosen.

    ``run_id`` names a record made beforehand (``memrank submit``, a run set); ``resume`` a
    stopped run to go on with (``""``: the latest of the same system, evaluation and options).
    """
    check_request(request)
    record = chosen_record(request, run_id, resume)
    return RunPlan(
        request=request,
        record=record,
        fresh=run_id is None and resume is None,
        resuming=resume is not None,
        answering=answering,
        retry_source=find(request.retry_failed) if request.retry_failed is not None else None,
        save=request.save.resolve() if request.save is not None else None,
    )
