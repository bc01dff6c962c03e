"""memrank pair: read two saved results side by side."""

from __future__ import annotations

from pathlib import Path

import click

from memrank.errors import PairingRefused

__all__ = ["pair_command"]


@click.command("pair")
@click.argument("path_a", metavar="RESULT_A", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("path_b", metavar="RESULT_B", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the reading as JSON.")
@click.option(
    "--values", "with_values", is_flag=True, help="Each measure's test, interval and table."
)
@click.option(
    "--tasks", "with_tasks", is_flag=True, help="Also each task that flipped or was left out."
)
def pair_command(
    path_a: Path, path_b: Path, as_json: bool, with_values: bool, with_tasks: bool
) -> None:
    """Print the paired reading of two saved results of the same evaluation.

    RESULT_A and RESULT_B are result files (`memrank run ... --save`); the gap is B minus A.
    One line per measure by default; --values adds each test, --tasks each task that flipped
    (--tasks prints exactly what print(memrank.paired(a, b)) does).
    Exits 3 when they cannot be paired (different evaluations or versions, a refused run)
    and 4 when a file cannot be read.
    """
    import gc

    from memrank._pair_sides import side_from_file
    from memrank.paired import paired_sides

    # Only what a reading reads is taken from each file; the cyclic collector is kept out of
    # it (the files make hundreds of thousands of small acyclic objects at once).
    gc.disable()
    a, b = side_from_file(path_a, "A"), side_from_file(path_b, "B")
    try:
        reading = paired_sides(a, b)
    except PairingRefused as refused:
        raise PairingRefused(f"{path_a} (A) and {path_b} (B): {refused.message}") from None
    if as_json:
        click.echo(reading.model_dump_json(indent=2))
    else:
        click.echo(reading.layout(values=with_values, tasks=with_tasks))
