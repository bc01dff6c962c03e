"""memrank pair: read two runs side by side, each a saved run file or a signed run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from memrank.errors import PairingRefused

if TYPE_CHECKING:
    from memrank.result import Result

__all__ = ["pair_command"]


@click.command("pair")
@click.argument("side_a", metavar="A")
@click.argument("side_b", metavar="B")
@click.option("--json", "as_json", is_flag=True, help="Print the reading as JSON.")
@click.option(
    "--artifacts",
    "directory",
    default=Path("artifacts"),
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Where an artifact id given as A or B is looked up.",
)
def pair_command(side_a: str, side_b: str, as_json: bool, directory: Path) -> None:
    """Print the paired reading of two runs of the same evaluation; the gap is B minus A.

    Each of A and B is a saved run file (`memrank run ... --save`), a signed run (an artifact
    id or a unique prefix of it, its envelope runs/<id>.json, or its run page's address), or a
    committed scores file scores/<sha256>.json. A signed run is verified against its artifacts
    directory's trust root and read from its scores file: no result file is needed. Exits 3
    when they cannot be paired (different evaluations or versions, a refused run), 4 when a
    file cannot be read, 6 when a signed run does not verify.
    """
    from memrank.paired import paired

    a, b = _side(side_a, directory), _side(side_b, directory)
    try:
        reading = paired(a, b)
    except PairingRefused as refused:
        raise PairingRefused(f"{side_a} (A) and {side_b} (B): {refused.message}") from None
    click.echo(reading.model_dump_json(indent=2) if as_json else str(reading))


def _side(text: str, artifacts: Path) -> Result:
    """One side of a reading: a run file, or a signed run read from its scores file."""
    from memrank.artifacts import envelope_naming, locate, signed_result
    from memrank.result import Result

    path = Path(text)
    if path.is_file() and path.parent.name == "scores":  # artifacts/scores/<sha256>.json
        return signed_result(envelope_naming(path, path.parent.parent))
    if path.is_file() and path.parent.name == "runs":  # an envelope
        return signed_result(path)
    if path.is_file() or path.suffix or len(path.parts) > 1:  # a file, or meant as one
        return Result.load(path)
    return signed_result(locate(text, artifacts, what="A run"))
