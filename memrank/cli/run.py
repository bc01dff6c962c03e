"""memrank run: run a named system on a named evaluation and print the result; memrank merge:
put the N shards of one run back into the result made in one piece.

Every run is tracked (memrank.runs): the options become a plan (memrank.runs.plan) that
memrank.runs.tracked runs under a journal, with an id and a folder in the run registry; Ctrl-C
exits 130 and says how to resume. Several systems or evaluations make a run set
(``memrank run SYSTEM,SYSTEM EVALUATION,EVALUATION``): each pair an ordinary tracked run
(memrank.runs.runset keeps the set's record), one summary table at the end; Ctrl-C, SIGTERM or
SIGHUP stops the pair in flight and prints the command that resumes the whole set.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memrank.cli._answer import answer_options
from memrank.cli._plan import answering_of, request_of, with_earlier_options
from memrank.errors import UsageError
from memrank.runs.request import evaluation_argument

if TYPE_CHECKING:
    from memrank.runs.runset import Member
    from memrank.runs.tracked import Finished

__all__ = ["merge_command", "run_command"]

_ONE_RUN_ONLY = {"save_path": "--save", "retry_failed": "--retry-failed", "shard": "--shard"}
"""Options that name one run's files or parts, so they cannot apply to every pair."""


@click.command("run")
@click.argument("system_name", metavar="SYSTEM")
@click.argument("evaluation_name", metavar="EVALUATION")
@click.option(
    "--save",
    "save_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the result file here (typed JSON; reload with Result.load).",
)
@click.option(
    "--option",
    "options",
    metavar="KEY=VALUE",
    multiple=True,
    help="An option of SYSTEM (repeatable), typed as its constructor declares, "
    "e.g. --option base_url=URL.",
)
@click.option(
    "--concurrency",
    default=4,
    show_default=True,
    type=click.IntRange(min=1),
    help="Isolation units run at once, for systems that serve units at once (HTTP services).",
)
@click.option(
    "--resume",
    metavar="[RUN_ID]",
    is_flag=False,
    flag_value="",
    default=None,
    help="Go on with a stopped run: the one named, or the latest stopped run of SYSTEM on "
    "EVALUATION with the same options. The tasks it kept are not run again.",
)
@click.option(
    "--on",
    "place",
    type=click.Choice(["local", "none"]),
    help="Where SYSTEM runs: local (inside memrank) or none (already running; reached by the "
    "URL its variables name). Default: whichever SYSTEM is.",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="A progress line on stderr (tasks, units, rate, time left). Default: on a terminal.",
)
@click.option(
    "--shard",
    metavar="I/N",
    help="Run only shard I of N (split by isolation unit, balanced by task count); "
    "`memrank merge` puts the N results back together. A shard alone is not publishable.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    help="Run only the first N tasks (a slice: never publishable).",
)
@click.option(
    "--tasks",
    "task_ids",
    metavar="ID,...",
    help="Run only these tasks, named by id (a slice: never publishable).",
)
@click.option(
    "--max-failures",
    metavar="RATE|N",
    help="Stop early, exit 7, once more tasks failed than N, or than RATE (0.05 or 5%) of "
    "the tasks; the journal resumes it.",
)
@click.option(
    "--retry-failed",
    metavar="RUN",
    help="Run only the failed tasks of finished run RUN again, into a new complete result.",
)
@click.option(
    "--values/--summary",
    "every_value",
    default=False,
    help="Print every measure (its mean, n, undecided, decider and scope), or the summary on "
    "one screen: the headline and a key value of each measure (the default).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the run's summary as JSON.")
@click.option("--run-id", hidden=True, help="Run under a record made beforehand (submit).")
@answer_options
def run_command(**given: Any) -> None:
    """Run SYSTEM on EVALUATION (names from `memrank catalog`) and print the result.

    With a judge (--judge or $MEMRANK_JUDGE) or an answer model, memrank's answer stage
    answers from what the system recalled and the protocol's measures score the answers; the
    cost estimate is printed before the run and the real cost after. Exits 3 when the run is
    refused; a refused run is still saved when --save is given.
    Exits 7 when the run finished but tasks failed (an answer model that failed every call
    among them), 8 when the judge failed every call, 11 when a system reached over the network
    ends "integrity: suspect" (docs/integrity.md); each after printing (and saving) the result. Exits 130 when interrupted (143 on SIGTERM, 129 on SIGHUP), keeping what was done:
    `--resume` goes on from there with every option the run was started with.
    """
    from memrank.runs.plan import plan_of
    from memrank.runs.runset import is_set
    from memrank.runs.tracked import run_tracked

    context = click.get_current_context()
    if is_set(given["system_name"], given["evaluation_name"]):
        _run_set(context, given)
        return
    if given["resume"] is not None:
        given = with_earlier_options(context, given)
    plan = plan_of(
        request_of(context, given),
        answering_of(given),
        run_id=given["run_id"],
        resume=given["resume"],
    )
    progress = given["progress"]
    finished = run_tracked(
        plan,
        progress=sys.stderr.isatty() if progress is None else progress,
        say=lambda line: click.echo(line, err=True),
    )
    _show(finished, given)
    if finished.ending is not None:
        raise finished.ending


@click.command("merge")
@click.argument(
    "shard_paths",
    metavar="SHARD...",
    nargs=-1,
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
)
@click.option(
    "--save",
    "save_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the merged result file here.",
)
@click.option("--summary", is_flag=True, help="Print one line per measure, not per value.")
@answer_options
def merge_command(
    shard_paths: tuple[Path, ...], save_path: Path, summary: bool, **answering: Any
) -> None:
    """Merge the result files of `memrank run ... --shard I/N` (every I from 1 to N) into one.

    The shards must be of one system, evaluation version, pipeline and dataset bundle, each
    given once and none missing, and measured alike: give the answer and judge options the
    shards ran with. The evaluation's material must be here too, because the measures that
    span tasks are applied again to the merged traces (each task keeps the values its shard
    measured; no judge is asked again). The merged result equals a run made in one piece,
    timings aside. Exits 3 when the files are not the shards of one run and 4 when a file
    cannot be read.
    """
    from memrank._apply import measures_of
    from memrank._files import check_writable
    from memrank.catalog import evaluation
    from memrank.result import Result
    from memrank.runs.answering import AnswerOptions, answer_plan
    from memrank.runs.merge import merge, whole_evaluation_name
    from memrank.runs.summary import summary_text

    check_writable(save_path, option="--save")
    shards = [Result.load(path) for path in shard_paths]
    sources = [str(path) for path in shard_paths]
    whole = evaluation(whole_evaluation_name(shards, sources))
    stage, whole = answer_plan(AnswerOptions(**answering), whole, shards[0].system.kind)
    merged = merge(shards, whole, sources, measures_of(whole, stage))
    merged.save(save_path)
    click.echo(summary_text(merged, every_measure=True) if summary else str(merged))
    click.echo(f"saved:      {save_path}")


def _show(finished: Finished, given: dict[str, Any]) -> None:
    """The result on stdout: the summary on one screen (or every measure, or JSON), where it
    was saved, and what to look at next."""
    from memrank.runs.summary import summary_json, summary_text

    result, record = finished.result, finished.record
    declared = record.headline_measure
    if given["as_json"]:
        import json

        shown = {"run_id": record.id, **summary_json(result, declared), "saved": record.saved}
        if result.integrity is not None:
            shown["integrity"] = result.integrity.summary()
        click.echo(json.dumps(shown, indent=2))
        return
    click.echo(summary_text(result, declared, every_measure=given["every_value"]))
    if result.integrity is not None:
        click.echo(result.integrity.line)
    if finished.stage is not None:
        from memrank.answer import spent

        click.echo(spent(result.traces, result.values))
    if given["save_path"] is not None:
        click.echo(f"saved:      {given['save_path']}")
    click.echo(f"next:       memrank view {record.id} (a page per task)")


def _run_set(context: click.Context, given: dict[str, Any]) -> None:
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
