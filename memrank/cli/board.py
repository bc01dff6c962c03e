"""memrank build-site: verify every artifact, build the Board, render it into site/."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from memrank.errors import ArtifactRefused, BoardConfigError, SiteOutOfDate

if TYPE_CHECKING:
    from memrank.artifacts import Refusal
    from memrank.board.model import Board

__all__ = ["build_site_command"]

_FOLDER = click.Path(file_okay=False, path_type=Path)


@click.command("build-site")
@click.option(
    "--artifacts",
    default=Path("artifacts"),
    show_default=True,
    type=_FOLDER,
    help="Holds board.toml, root.json, runs/ and results/.",
)
@click.option(
    "--templates",
    default=None,
    type=_FOLDER,
    help="The jinja2 templates and static/ assets of the board [default: the theme inside the "
    "package].",
)
@click.option(
    "--docs",
    default=Path("docs"),
    show_default=True,
    type=_FOLDER,
    help="Markdown pages published with the board (raw HTML is shown as text).",
)
@click.option(
    "--out", default=Path("site"), show_default=True, type=_FOLDER, help="Where the site goes."
)
@click.option("--strict", is_flag=True, help="Fail (exit 6) if any artifact is refused.")
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; fail (exit 1) if --out differs from what the artifacts build.",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Work everything out afresh: neither read nor write the build memo in memrank's "
    "cache folder (the publishing workflows build this way).",
)
def build_site_command(
    artifacts: Path,
    templates: Path | None,
    docs: Path,
    out: Path,
    strict: bool,
    check: bool,
    no_cache: bool,
) -> None:
    """Build the static leaderboard from the signed artifacts that verify.

    Every envelope in artifacts/runs/ is verified against artifacts/root.json; each refused
    one (a development observation, a bad signature, an unpinned pipeline ...) is listed with
    its reason and left out of every page. The same inputs give a byte-identical site.

    A rebuild takes what is unchanged (a column's pair tests, pages, plots) from a memo in
    memrank's cache folder, keyed by the verified bytes it was made from, and rewrites only
    the files that changed; with or without it, the site is the same.
    """
    from memrank._files import check_writable
    from memrank.board.folder import differences, write
    from memrank.board.memo import NO_MEMO, Memo
    from memrank.board.site import make

    if not docs.is_dir() and _given(click.get_current_context(), "docs"):
        raise BoardConfigError(
            f"--docs {docs}: no such folder; give the folder of the Markdown pages"
        )
    if not docs.is_dir():  # the default folder: built without it, but never without a word
        click.echo(
            f"warning: no {docs}/ folder here, so the board has no documentation pages; run "
            "from the repository, or give --docs DIR",
            err=True,
        )
    if not check:
        check_writable(out, option="--out", folder=True)
    memo = NO_MEMO if no_cache else Memo.default()
    made = make(artifacts, templates, docs, memo)
    board = made.board
    if made.refusals:
        _print_refusals(made.refusals, artifacts)
        if strict:
            raise ArtifactRefused(
                f"{len(made.refusals)} artifact(s) refused and --strict is set; nothing was written"
            )
    _warn_empty_columns(board)
    accepted = f"{made.verified} run(s) verified, {len(made.refusals)} refused"
    if check:
        found = differences(made.files, out)
        memo.prune()  # after the files were made: an entry they read is kept
        if found:
            click.echo("\n".join(found))
            raise SiteOutOfDate(
                f"{out} is not what {artifacts} builds ({len(found)} file(s) differ); run "
                "`memrank build-site` and commit the result"
            )
        click.echo(f"{out} is up to date; {accepted}")
        return
    written = write(made.files, out)
    memo.prune()
    click.echo(
        f"built {out}: {written} file(s), {len(board.runs)} run page(s), "
        f"{len(board.evaluations)} evaluation page(s); {accepted}"
    )


def _print_refusals(refusals: Sequence[Refusal], artifacts: Path) -> None:
    """The refused artifacts as a table: artifact, then the verifier's reason."""
    names = [_relative(refusal.path, artifacts) for refusal in refusals]
    width = max(len("artifact"), *(len(name) for name in names))
    click.echo(f"{'artifact':<{width}}  reason")
    for name, refusal in zip(names, refusals, strict=True):
        click.echo(f"{name:<{width}}  {refusal.error.__name__}: {refusal.reason}")


def _relative(path: Path, artifacts: Path) -> str:
    try:
        return path.relative_to(artifacts).as_posix()
    except ValueError:
        return str(path)


def _given(context: click.Context, name: str) -> bool:
    """Whether the option was given, not left at its default (a missing default is fine)."""
    return context.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT


def _warn_empty_columns(board: Board) -> None:
    """A column no accepted run fills is most often a misspelt evaluation in board.toml."""
    for track in board.tracks:
        for position, column in enumerate(track.columns):
            if all(row.cells[position] is None for row in track.rows):
                click.echo(
                    f"warning: board.toml column {column.evaluation!r} of track {track.name!r} "
                    "has no verified run; check the evaluation's name as runs record it",
                    err=True,
                )
