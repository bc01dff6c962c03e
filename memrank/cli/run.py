"""memrank run: run a named system on a named evaluation and print the result."""

from __future__ import annotations

from pathlib import Path

import click

from memrank.cli._options import typed_options
from memrank.errors import RefusedRun

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
    """
    from memrank.catalog import evaluation, system
    from memrank.run import run

    made = system(system_name, **typed_options(system_name, options))
    result = run(made, evaluation(evaluation_name), concurrency=concurrency)
    click.echo(str(result))
    if save_path is not None:
        result.save(save_path)
        click.echo(f"saved:      {save_path}")
    if result.refusal is not None:
        raise RefusedRun(result.refusal)
