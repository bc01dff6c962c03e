"""memrank pair: read two saved results side by side."""

from __future__ import annotations

from pathlib import Path

import click

from memrank.errors import PairingRefused

__all__ = ["pair_command"]


@click.command("pair")
@click.argument("path_a", metavar="RESULT_A", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("path_b", metavar="RESULT_B", type=click.Path(dir_okay=False, path_type=Path))
def pair_command(path_a: Path, path_b: Path) -> None:
    """Print the paired reading of two saved results of the same evaluation.

    RESULT_A and RESULT_B are result files (`memrank run ... --save`); the gap is B minus A.
    Exits 3 when they cannot be paired (different evaluations or versions, a refused run)
    and 4 when a file cannot be read.
    """
    from memrank.paired import paired
    from memrank.result import Result

    a, b = Result.load(path_a), Result.load(path_b)
    try:
        reading = paired(a, b)
    except PairingRefused as refused:
        raise PairingRefused(f"{path_a} (A) and {path_b} (B): {refused.message}") from None
    click.echo(str(reading))
