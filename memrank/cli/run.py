"""memrank run: run a named system on a named evaluation and print the result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from memrank.cli._answer import AnswerOptions, answer_options, plan
from memrank.errors import RefusedRun, UsageError

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
    help="An option of SYSTEM, passed to it as text (repeatable), e.g. --option base_url=URL.",
)
@click.option(
    "--concurrency",
    default=4,
    show_default=True,
    type=click.IntRange(min=1),
    help="Isolation units run at once, for systems that serve units at once (HTTP services).",
)
@answer_options
def run_command(
    system_name: str,
    evaluation_name: str,
    save_path: Path | None,
    options: tuple[str, ...],
    concurrency: int,
    **answering: Any,
) -> None:
    """Run SYSTEM on EVALUATION (names from `memrank catalog`) and print the result.

    With a judge (--judge or $MEMRANK_JUDGE) or an answer model, memrank's answer stage
    answers from what the system recalled and the protocol's measures score the answers; the
    cost estimate is printed before the run and the real cost after. Exits 3 when the run is
    refused; a refused run is still saved when --save is given.
    """
    from memrank.catalog import evaluation, system
    from memrank.run import run

    made = system(system_name, **_options(options))
    stage, chosen = plan(AnswerOptions(**answering), evaluation(evaluation_name), made.kind)
    if stage is not None:
        from memrank.answer import estimate

        click.echo(estimate(stage, chosen.tasks).line())
    result = run(made, chosen, concurrency=concurrency, answer=stage)
    click.echo(str(result))
    if stage is not None:
        from memrank.answer import spent

        click.echo(spent(result.traces, result.values))
    if save_path is not None:
        result.save(save_path)
        click.echo(f"saved:      {save_path}")
    if result.refusal is not None:
        raise RefusedRun(result.refusal)


def _options(pairs: tuple[str, ...]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            raise UsageError(f"--option {pair!r} is not KEY=VALUE, e.g. --option base_url=URL")
        options[key] = value
    return options
