"""memrank pair: read two runs side by side, each a saved run file or a signed run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from memrank.cli.artifacts import artifacts_option
from memrank.errors import PairingRefused

if TYPE_CHECKING:
    from memrank._pair_sides import Side

__all__ = ["pair_command"]


@click.command("pair")
@click.argument("side_a", metavar="A")
@click.argument("side_b", metavar="B")
@click.option("--json", "as_json", is_flag=True, help="Print the reading as JSON.")
@click.option(
    "--values", "with_values", is_flag=True, help="Each measure's test, interval and table."
)
@click.option(
    "--tasks", "with_tasks", is_flag=True, help="Also each task that flipped or was left out."
)
@artifacts_option("Where an artifact id given as A or B is looked up.")
def pair_command(
    side_a: str, side_b: str, as_json: bool, with_values: bool, with_tasks: bool, directory: Path
) -> None:
    """Print the paired reading of two runs of the same evaluation; the gap is B minus A.

    Each of A and B is a saved run file (`memrank run ... --save`), a signed run (an artifact
    id or a unique prefix of it, its envelope runs/<id>.json, or its run page's address), or a
    committed scores file scores/<sha256>.json. A signed run is verified against its artifacts
    directory's trust root and read from its scores file: no result file is needed. One line
    per measure by default; --values adds each test, --tasks each task that flipped (--tasks
    prints exactly what print(memrank.paired(a, b)) does). Exits 3 when they cannot be paired
    (different evaluations or versions, a refused run), 4 when a file cannot be read, 6 when a
    signed run does not verify.
    """
    import os

    # A reading's kernels are elementwise numpy, never BLAS: OpenBLAS's thread pool, started
    # when numpy is imported, would cost more CPU than the whole reading (set before the import).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from memrank._collector import collector_paused
    from memrank.paired import paired_sides

    # Only what a reading reads is taken from each file; the cyclic collector is kept out of
    # it (the files make tens of thousands of small acyclic objects at once).
    with collector_paused():
        a, b = _side(side_a, "A", directory), _side(side_b, "B", directory)
        try:
            reading = paired_sides(a, b)
        except PairingRefused as refused:
            raise PairingRefused(f"{side_a} (A) and {side_b} (B): {refused.message}") from None
    if as_json:
        click.echo(reading.model_dump_json(indent=2))
    else:
        click.echo(reading.layout(values=with_values, tasks=with_tasks))


def _side(text: str, label: str, artifacts: Path) -> Side:
    """One side of a reading: a run file, or a signed run read from its scores file."""
    from memrank._pair_sides import side_from_file, side_of

    path = Path(text)
    signed = path.is_file() and path.parent.name in ("scores", "runs")
    if not signed and (path.is_file() or path.suffix or len(path.parts) > 1):
        return side_from_file(path, label)  # a run file, or meant as one: no artifacts read
    from memrank.artifacts import envelope_naming, locate, signed_result

    if path.is_file() and path.parent.name == "scores":  # artifacts/scores/<sha256>.json
        return side_of(signed_result(envelope_naming(path, path.parent.parent)), label)
    if path.is_file():  # an envelope, runs/<id>.json
        return side_of(signed_result(path), label)
    return side_of(signed_result(locate(text, artifacts, what="A run")), label)
