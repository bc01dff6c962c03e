"""memrank run: run a named system on a named evaluation and print the result."""

from __future__ import annotations

from pathlib import Path

import click

from memrank.errors import RefusedRun, TasksFailedInRun, UsageError

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
def run_command(
    system_name: str,
    evaluation_name: str,
    save_path: Path | None,
    options: tuple[str, ...],
    concurrency: int,
) -> None:
    """Run SYSTEM on EVALUATION (names from `memrank catalog`) and print the result.

    Exits 3 when the run is refused; a refused run is still saved when --save is given.
    Exits 7 when the run finished but tasks failed, after printing (and saving) the result.
    """
    from memrank.catalog import evaluation, system
    from memrank.run import run

    made = system(system_name, **_options(options))
    result = run(made, evaluation(evaluation_name), concurrency=concurrency)
    click.echo(str(result))
    if save_path is not None:
        result.save(save_path)
        click.echo(f"saved:      {save_path}")
    if result.refusal is not None:
        raise RefusedRun(result.refusal)
    if result.failed:
        raise TasksFailedInRun(
            f"{len(result.failed)} of {len(result.traces)} task(s) failed; each failure is "
            "recorded on its trace (see the result above)"
        )


def _options(pairs: tuple[str, ...]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            raise UsageError(f"--option {pair!r} is not KEY=VALUE, e.g. --option base_url=URL")
        options[key] = value
    return options
