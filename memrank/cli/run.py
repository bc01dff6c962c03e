"""memrank run: run a named system on a named evaluation and print the result; memrank merge:
put the N shards of one run back into the result made in one piece.

Every run is tracked (memrank.runs): the options become a plan (memrank.runs.plan) that
memrank.runs.tracked runs under a journal, with an id and a folder in the run registry; Ctrl-C
exits 130 and says how to resume. Several systems or evaluations make a run set (cli.runset).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memrank.cli._answer import answer_options
from memrank.cli._plan import answering_of, request_of, with_earlier_options

if TYPE_CHECKING:
    from memrank.runs.tracked import Finished

__all__ = ["merge_command", "run_command"]


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
        from memrank.cli.runset import run_many

        run_many(context, given)
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
