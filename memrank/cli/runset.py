"""`memrank run SYSTEM,SYSTEM EVALUATION,EVALUATION`: a run set, one summary table at the end.

Each pair is an ordinary tracked run (memrank.runs.runset keeps the set's record); Ctrl-C,
SIGTERM or SIGHUP stops the pair in flight and prints the command that resumes the whole set.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

from memrank.cli._plan import answering_of, request_of
from memrank.errors import UsageError
from memrank.runs.request import evaluation_argument

if TYPE_CHECKING:
    from memrank.runs.runset import Member

__all__ = ["run_many"]

_ONE_RUN_ONLY = {"save_path": "--save", "retry_failed": "--retry-failed", "shard": "--shard"}
"""Options that name one run's files or parts, so they cannot apply to every pair."""


def run_many(context: click.Context, given: dict[str, Any]) -> None:
    """Run (or resume) every pair, print one table, exit with the worst pair's code."""
    from memrank.runs.runset import (
        check_pairs,
        load_set,
        names_of,
        new_set,
        run_set,
        set_resume_command,
    )

    for name, option in _ONE_RUN_ONLY.items():
        if given[name] is not None:
            raise UsageError(
                f"{option} names one run's result; a run set keeps each pair's result in the "
                "run registry (`memrank runs show ID`), so run it without"
            )
    systems = names_of(given["system_name"], "SYSTEM")
    evaluations = tuple(map(evaluation_argument, names_of(given["evaluation_name"], "EVALUATION")))
    request = request_of(context, given)
    check_pairs(systems, evaluations, request)
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
        the_set = new_set(systems, evaluations, request.arguments)
    progress = given["progress"]
    members = run_set(
        the_set,
        request,
        answering_of(given),
        progress=sys.stderr.isatty() if progress is None else progress,
        say=lambda line: click.echo(line, err=True),
    )
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
        "slice": record.slice,
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
                member.record.part,
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
