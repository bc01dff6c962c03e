"""memrank reproduce: rebuild a signed run's recorded build, run it again, give one verdict."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from memrank.cli.artifacts import artifacts_option

if TYPE_CHECKING:
    from memrank.runs.reproduce import Reproduction

__all__ = ["reproduce_command"]


@click.command("reproduce")
@click.argument("target", metavar="RUN")
@artifacts_option("The artifacts directory holding the run (its root.json verifies it).")
@click.option(
    "--repository",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="The git repository whose commits rebuild the run. Default: the one holding "
    "--artifacts, else the working directory.",
)
@click.option(
    "--wheel",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Install this wheel instead of building the recorded commit's.",
)
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="Set an option of the system for the rerun (repeatable): an endpoint's base_url, or "
    "an option the run withheld as a secret.",
)
@click.option(
    "--keep",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep the rerun's files here (rerun.json, result.json, timings.json, scores.json, "
    "rerun.log).",
)
@click.option(
    "--tasks",
    "show_tasks",
    is_flag=True,
    help="When it differs, list every flipped task and the full paired reading.",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="The rerun's progress line on stderr. Default: on a terminal.",
)
def reproduce_command(
    target: str,
    directory: Path,
    repository: Path | None,
    wheel: Path | None,
    options: tuple[str, ...],
    keep: Path | None,
    show_tasks: bool,
    progress: bool | None,
) -> None:
    """Rebuild what the signed run RUN records, rerun it, and say whether it matches.

    RUN is an artifact id (or a unique prefix of it), an envelope file, or the address of the
    run's page on a board. The recorded build is recreated from this repository (a worktree at
    the recorded commit, its wheel, a fresh environment with the recorded distributions
    pinned; kept in memrank's cache folder for next time), or from --wheel FILE. The verdict
    is "byte-identical" (exit 0) when the rerun's result and scores files have the signed
    digests; otherwise "differs" (exit 9), after the published scores read against the
    rerun's: which tasks flipped, and which recorded fields differ. An endpoint observation is
    re-measured against --option base_url=URL, never reproduced: its verdict is "re-measured:
    every task's value is the same" (exit 0) or "differs". Exits 10 when the build cannot
    be recreated (the commit is not here, a distribution cannot be had), 6 when the run does
    not verify.
    """
    import sys

    from memrank.artifacts import locate
    from memrank.runs.reproduce import repository_of, reproduce

    envelope = locate(target, directory)
    done = reproduce(
        envelope,
        artifacts=directory,
        repository=repository or repository_of(directory),
        wheel=wheel,
        options=options,
        keep=keep,
        progress=sys.stderr.isatty() if progress is None else progress,
        say=lambda line: click.echo(line, err=True),
    )
    _report(done, show_tasks=show_tasks)


SHOWN_FLIPS = 10
"""Flipped tasks listed per measure unless --tasks asks for all."""


def _report(done: Reproduction, *, show_tasks: bool) -> None:
    from memrank.errors import RerunDiffers

    statement = done.run.statement
    pipeline = done.run.predicate.pipeline
    click.echo(f"run:        {done.run.predicate.run_id}  ({done.run.artifact_id[:16]})")
    click.echo(
        f"build:      commit {pipeline.git_commit or 'not recorded'}, memrank "
        f"{pipeline.memrank_version}, code {pipeline.code_sha256[:16]}..."
    )
    click.echo(f"result:     signed {statement.result_subject.digest.sha256[:16]}..., "
               f"rerun {done.rerun.result_sha256[:16]}...")  # fmt: skip
    click.echo(f"scores:     signed {statement.scores_subject.digest.sha256[:16]}..., "
               f"rerun {done.rerun.scores_sha256[:16]}...")  # fmt: skip
    if done.identical:
        kind = "re-measured, and byte-identical" if done.endpoint else "byte-identical"
        click.echo(f"verdict:    {kind}")
        return
    if done.endpoint:
        click.echo("note:       an endpoint can only be re-measured, not reproduced")
        if done.same_values:
            click.echo("verdict:    re-measured: every task's value is the same")
            return
    if done.cause:
        click.echo(f"cause:      {done.cause}")
    if done.differing_fields:
        click.echo(f"differs in: {', '.join(done.differing_fields)}")
    assert done.reading is not None
    for reading in done.reading.measures:
        if not reading.flipped:
            continue
        shown = reading.flipped if show_tasks else reading.flipped[:SHOWN_FLIPS]
        click.echo(
            f"flipped:    {reading.measure}: {len(reading.flipped)} of {reading.paired} task(s)"
        )
        for flip in shown:
            click.echo(f"  {flip.task_id}  {flip.was:g} -> {flip.now:g}")
        if len(shown) < len(reading.flipped):
            click.echo(f"  ... {len(reading.flipped) - len(shown)} more (--tasks lists them)")
    click.echo("")
    click.echo(done.reading.layout(tasks=show_tasks))
    click.echo("verdict:    differs")
    raise RerunDiffers("the rerun's files are not the signed ones; see the reading above")
