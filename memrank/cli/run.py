"""memrank run: run a named system on a named evaluation and print the result.

Every run is tracked (memrank.runs): it has an id, a journal its traces are appended to as
they finish, and a folder in the run registry; Ctrl-C exits 130 and says how to resume.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memrank.cli._answer import AnswerOptions, answer_options, check_judged, plan
from memrank.errors import RefusedRun, TasksFailedInRun

if TYPE_CHECKING:
    from memrank.answer import AnswerStage
    from memrank.evaluation import Evaluation

__all__ = ["run_command"]


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
@click.option("--summary", is_flag=True, help="Print one line per measure, not per value.")
@click.option("--json", "as_json", is_flag=True, help="Print the run's summary as JSON.")
@click.option("--run-id", hidden=True, help="Run under a record made beforehand (submit).")
@answer_options
def run_command(
    system_name: str,
    evaluation_name: str,
    save_path: Path | None,
    options: tuple[str, ...],
    concurrency: int,
    resume: str | None,
    place: str | None,
    progress: bool | None,
    shard: str | None,
    summary: bool,
    as_json: bool,
    run_id: str | None,
    **answering: Any,
) -> None:
    """Run SYSTEM on EVALUATION (names from `memrank catalog`) and print the result.

    With a judge (--judge or $MEMRANK_JUDGE) or an answer model, memrank's answer stage
    answers from what the system recalled and the protocol's measures score the answers; the
    cost estimate is printed before the run and the real cost after. Exits 3 when the run is
    refused; a refused run is still saved when --save is given.
    Exits 7 when the run finished but tasks failed (an answer model that failed every call
    among them), 8 when the judge failed every call; both after printing (and saving) the
    result.
    Exits 130 when interrupted, keeping what was done: `--resume` goes on from there.
    """
    from memrank.runs.shards import parse_shard
    from memrank.runs.summary import summary_json, summary_text
    from memrank.runs.tracked import Request, run_tracked

    request = Request(
        target=system_name,
        evaluation=evaluation_name,
        options=options,
        concurrency=concurrency,
        save=save_path,
        place=place,
        shard=parse_shard(shard) if shard is not None else None,
    )
    staged: list[AnswerStage] = []

    def answering_stage(evaluation: Evaluation, kind: str) -> tuple[AnswerStage | None, Evaluation]:
        stage, chosen = plan(AnswerOptions(**answering), evaluation, kind)
        if stage is not None:
            from memrank.answer import estimate

            staged.append(stage)
            click.echo(estimate(stage, chosen.tasks).line(), err=as_json)
        return stage, chosen

    result, record = run_tracked(
        request,
        run_id=run_id,
        resume=resume,
        progress=sys.stderr.isatty() if progress is None else progress,
        answering=answering_stage,
    )
    if as_json:
        shown = {"run_id": record.id, **summary_json(result), "saved": record.saved}
        click.echo(json.dumps(shown, indent=2))
    else:
        click.echo(summary_text(result) if summary else str(result))
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
    if result.failed:
        raise TasksFailedInRun(
            f"{len(result.failed)} of {len(result.traces)} task(s) failed; each failure is "
            "recorded on its trace (see the result above)"
        )
