"""memrank run: run a named system on a named evaluation and print the result.

Every run is tracked (memrank.runs): it has an id, a journal its traces are appended to as
they finish, and a folder in the run registry; Ctrl-C exits 130 and says how to resume.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from memrank.cli._answer import AnswerOptions, answer_options, check_judged, plan
from memrank.errors import RefusedRun, RunSuspect, TasksFailedInRun

if TYPE_CHECKING:
    from memrank.answer import AnswerStage
    from memrank.evaluation import Evaluation
    from memrank.result import Result
    from memrank.runs.registry import RunRecord
    from memrank.runs.tracked import Request

__all__ = ["request_of", "run_command", "tracked_run"]


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
    help="Print every value with its why (as print(result)), or one line per measure "
    "(the default).",
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
    from memrank.runs.runset import is_set
    from memrank.runs.summary import summary_json, summary_text

    context = click.get_current_context()
    if is_set(given["system_name"], given["evaluation_name"]):
        from memrank.cli.runset import run_many

        run_many(context, given)
        return
    if given["resume"] is not None:
        given = _with_earlier_options(context, given)
    as_json, save_path = given["as_json"], given["save_path"]
    result, record, staged = tracked_run(
        given, request_of(context, given), run_id=given["run_id"], resume=given["resume"]
    )
    declared = record.headline_measure
    if as_json:
        shown = {"run_id": record.id, **summary_json(result, declared), "saved": record.saved}
        if result.integrity is not None:
            shown["integrity"] = result.integrity.summary()
        import json

        click.echo(json.dumps(shown, indent=2))
    else:
        click.echo(str(result) if given["every_value"] else summary_text(result, declared))
        if result.integrity is not None and not given["every_value"]:
            click.echo(result.integrity.line)
        if staged:
            from memrank.answer import spent

            click.echo(spent(result.traces, result.values))
        if save_path is not None:
            click.echo(f"saved:      {save_path}")
        click.echo(f"run:        {record.id}", err=True)
    if result.refusal is not None:
        raise RefusedRun(result.refusal)
    for stage in staged:
        check_judged(stage.made)
    if result.integrity is not None and result.integrity.verdict == "suspect":
        raise RunSuspect(
            f"the run was saved, and its {result.integrity.line}; it cannot be published "
            "(docs/integrity.md)"
        )
    if result.failed:
        from memrank.runs.causes import failure_causes, said

        raise TasksFailedInRun(
            f"{len(result.failed)} of {len(result.traces)} task(s) failed: "
            f"{said(failure_causes(result.failed))}; each failure is recorded on its trace"
        )


def tracked_run(
    given: dict[str, Any], request: Request, *, run_id: str | None, resume: str | None
) -> tuple[Result, RunRecord, list[AnswerStage]]:
    """Run ``request`` tracked, with the answer stage the options configure; also returns
    the stage when one ran (its cost is printed after the result)."""
    from memrank.runs.tracked import run_tracked

    answering = {name: given[name] for name in AnswerOptions.__dataclass_fields__}
    staged: list[AnswerStage] = []

    def answering_stage(evaluation: Evaluation, kind: str) -> tuple[AnswerStage | None, Evaluation]:
        stage, chosen = plan(AnswerOptions(**answering), evaluation, kind)
        if stage is not None:
            from memrank.answer import estimate

            staged.append(stage)
            click.echo(estimate(stage, chosen.tasks).line(), err=given["as_json"])
        return stage, chosen

    progress = given["progress"]
    result, record = run_tracked(
        request,
        run_id=run_id,
        resume=resume,
        progress=sys.stderr.isatty() if progress is None else progress,
        answering=answering_stage,
        say=lambda line: click.echo(line, err=True),
    )
    return result, record, staged


def request_of(context: click.Context, given: dict[str, Any]) -> Request:
    """The run ``memrank run`` was asked for, with its options as words for a resume."""
    from memrank.runs.narrow import parse_task_ids
    from memrank.runs.shards import parse_shard
    from memrank.runs.tracked import Request

    shard, task_ids = given["shard"], given["task_ids"]
    return Request(
        target=given["system_name"],
        evaluation=given["evaluation_name"],
        options=given["options"],
        concurrency=given["concurrency"],
        save=given["save_path"],
        place=given["place"],
        shard=parse_shard(shard) if shard is not None else None,
        limit=given["limit"],
        task_ids=parse_task_ids(task_ids) if task_ids is not None else None,
        max_failures=given["max_failures"],
        retry_failed=given["retry_failed"],
        arguments=_words(context, given),
    )


_NOT_REPEATED = frozenset({"resume", "run_id", "as_json", "every_value", "progress"})
"""Options a resume does not repeat: which run, and how its output is shown."""


def _words(context: click.Context, given: dict[str, Any]) -> tuple[str, ...]:
    """The options given (not defaulted) as command-line words, paths made absolute."""
    words: list[str] = []
    for parameter in context.command.params:
        name = parameter.name
        if (
            not isinstance(parameter, click.Option)
            or name is None
            or name in _NOT_REPEATED
            or given.get(name) is None
            or context.get_parameter_source(name) is ParameterSource.DEFAULT
            and name not in context.meta.get(_FILLED, ())
        ):
            continue
        value, flag = given[name], parameter.opts[0]
        if parameter.is_flag:
            if value:
                words.append(flag)
            elif parameter.secondary_opts:
                words.append(parameter.secondary_opts[0])
        elif parameter.multiple:
            for one in value:
                words += [flag, str(one)]
        else:
            words += [flag, str(value.absolute() if isinstance(value, Path) else value)]
    return tuple(words)


_FILLED = "memrank.filled"


def _with_earlier_options(context: click.Context, given: dict[str, Any]) -> dict[str, Any]:
    """On ``--resume``: every option the stopped run was started with that is not given now."""
    from memrank.runs.tracked import stopped_run

    record = stopped_run(request_of(context, given), given["resume"])
    earlier = context.command.make_context(
        "run", [record.target, record.evaluation, *record.arguments], resilient_parsing=True
    )
    filled = dict(given)
    taken = []
    for name, value in earlier.params.items():
        if (
            name not in _NOT_REPEATED
            and context.get_parameter_source(name) is ParameterSource.DEFAULT
            and earlier.get_parameter_source(name) is not ParameterSource.DEFAULT
        ):
            filled[name] = value
            taken.append(name)
    context.meta[_FILLED] = tuple(taken)
    return filled
