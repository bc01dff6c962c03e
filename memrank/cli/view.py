"""memrank view: a result file or a registry run as a local static page."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["view_command"]


@click.command("view")
@click.argument("source", metavar="RESULT|RUN_ID")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the pages here (default: beside the result file as RESULT.view/, or the "
    "run's folder of the run registry for a run id).",
)
def view_command(source: str, out: Path | None) -> None:
    """Render any result (unsigned, a development run, a slice) as a local static page with
    the board's theme (the headline, each measure, per category, a page per task with what
    was recalled and every value with its why), and print the page's path."""
    from memrank._files import check_writable
    from memrank.errors import UsageError
    from memrank.result import Result
    from memrank.runs.registry import RESULT, find, run_folder
    from memrank.view import write_view

    path = Path(source)
    declared = None
    if not path.is_file() and not _looks_like_a_file(source):
        record = find(source)
        path = run_folder(record.id) / RESULT
        if not path.is_file():
            raise UsageError(
                f"run {record.id} is {record.state.value} and has no result yet; resume it "
                "first (`memrank runs show` prints how)"
            )
        declared = record.headline_measure
        out = out or run_folder(record.id) / "view"
    result = Result.load(path)  # exits 4 naming the file when it cannot be read
    out = out or path.with_name(path.name + ".view")
    check_writable(out, option="--out", folder=True)
    index = write_view(result, out, declared)
    click.echo(str(index))


def _looks_like_a_file(source: str) -> bool:
    return "/" in source or source.endswith(".json")
