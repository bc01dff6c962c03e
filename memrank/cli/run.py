"""memrank run: run a named system on a named evaluation and print the result."""

from __future__ import annotations

from pathlib import Path

import click

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
def run_command(system_name: str, evaluation_name: str, save_path: Path | None) -> None:
    """Run SYSTEM on EVALUATION (names from `memrank catalog`) and print the result.

    Exits 3 when the run is refused; a refused run is still saved when --save is given.
    """
    from memrank.catalog import evaluation, system
    from memrank.run import run

    result = run(system(system_name), evaluation(evaluation_name))
    click.echo(str(result))
    if save_path is not None:
        result.save(save_path)
        click.echo(f"saved:      {save_path}")
    if result.refusal is not None:
        raise RefusedRun(result.refusal)
