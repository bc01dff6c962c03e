"""`memrank run SYSTEM,SYSTEM EVALUATION,EVALUATION`: a run set, one summary table at the end.

Each pair is an ordinary tracked run (memrank.runs.runset keeps the set's record); Ctrl-C,
SIGTERM or SIGHUP stops the pair in flight and prints the command that resumes the whole set.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from memrank.errors import Interrupted, MemrankError, UsageError

if TYPE_CHECKING:
    from memrank.result import Result
    from memrank.runs.registry import RunRecord
    from memrank.runs.runset import Member

__all__ = ["run_many"]

_ONE_RUN_ONLY = {"save_path": "--save", "retry_failed": "--retry-failed", "shard": "--shard"}
"""Options that name one run's files or parts, so they cannot apply to every pair."""


def run_many(context: click.Context, given: dict[str, Any]) -> None:
    """Run (or resume) every pair, print one table, exit with the worst pair's code."""
    from memrank.cli.run import request_of, tracked_run
    from memrank.runs.registry import save_record
    from memrank.runs.runset import load_set, names_of, new_set, run_set, set_resume_command
    from memrank.runs.tracked import new_record

    for name, option in _ONE_RUN_ONLY.items():
        if given[name] is not None:
            raise UsageError(
                f"{option} names one run's result; a run set keeps each pair's result in the "
                "run registry (`memrank runs show ID`), so run it without"
            )
    systems = names_of(given["system_name"], "SYSTEM")
    evaluations = names_of(given["evaluation_name"], "EVALUATION")
    if given["resume"]:
        the_set = load_set(given["resume"])
        if (the_set.systems, the_set.evaluations) != (systems, evaluations):
            raise UsageError(
                f"run set {the_set.id} is of {','.join(the_set.systems)} on "
                f"{','.join(the_set.evaluations)}; resume it with: {set_resume_command(the_set)}"
            )
    elif given["resume"] == "":
        raise UsageError(
            "--resume for a run set needs its id (`set-...`), as printed when it stopped"
        )
    else:
        the_set = new_set(systems, evaluations, request_of(context, given).arguments)

    def pair_given(target: str, evaluation: str) -> dict[str, Any]:
        return {**given, "system_name": target, "evaluation_name": evaluation}

    def make_record(target: str, evaluation: str) -> RunRecord:
        return save_record(new_record(request_of(context, pair_given(target, evaluation))))

    def run_pair(
        target: str, evaluation: str, run_id: str, resuming: bool
    ) -> tuple[Result | None, RunRecord]:
        from memrank.runs.registry import find

        click.echo(f"pair:       {target} × {evaluation}", err=True)
        request = request_of(context, pair_given(target, evaluation))
        try:
            result, record, _ = tracked_run(
                given,
                request,
                run_id=None if resuming else run_id,
                resume=run_id if resuming else None,
            )
        except Interrupted as stopped:
            raise type(stopped)(
                f"{stopped.message}\nresume the run set with: {set_resume_command(the_set)}"
            ) from None
        except MemrankError as failed:  # the pair is recorded failed; the others still run
            click.echo(f"{target} × {evaluation}: {failed.message}", err=True)
            return None, find(run_id)
        return result, record

    members = run_set(the_set, make_record, run_pair)
    if given["as_json"]:
        click.echo(json.dumps({"set": the_set.id, "runs": [_row(m) for m in members]}, indent=2))
    else:
        click.echo(_table(members))
        click.echo(f"set:        {the_set.id}", err=True)
    worst = max((m.record.exit_code or 0 for m in members), default=0)
    if worst:
        context.exit(worst)


def _row(member: Member) -> dict[str, Any]:
    record, result = member.record, member.result
    return {
        "system": member.target,
        "evaluation": member.evaluation,
        "run_id": record.id,
        "state": record.state.value,
        "exit_code": record.exit_code,
        "headline": {"measure": record.headline_measure, "mean": record.headline},
        "tasks": len(result.traces) if result is not None else record.tasks,
        "failed": len(result.failed) if result is not None else None,
        "error": record.error,
    }


def _table(members: list[Member]) -> str:
    header = ("SYSTEM", "EVALUATION", "STATE", "HEADLINE", "MEAN", "TASKS", "FAILED", "RUN")
    rows = [header]
    for member in members:
        row = _row(member)
        mean = row["headline"]["mean"]
        rows.append(
            (
                member.target,
                member.evaluation,
                row["state"],
                row["headline"]["measure"] or "-",
                "-" if mean is None else f"{mean:.4f}",
                "-" if row["tasks"] is None else str(row["tasks"]),
                "-" if row["failed"] is None else str(row["failed"]),
                row["run_id"],
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )
