"""memrank merge: put the N shards of one run back into the result made in one piece."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from memrank.cli._answer import answer_options
from memrank.runs.answering import AnswerOptions, answer_plan

__all__ = ["merge_command"]


@click.command("merge")
@click.argument(
    "shard_paths",
    metavar="SHARD...",
    nargs=-1,
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
)
@click.option(
    "--save",
    "save_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the merged result file here.",
)
@click.option("--summary", is_flag=True, help="Print one line per measure, not per value.")
@answer_options
def merge_command(
    shard_paths: tuple[Path, ...], save_path: Path, summary: bool, **answering: Any
) -> None:
    """Merge the result files of `memrank run ... --shard I/N` (every I from 1 to N) into one.

    The shards must be of one system, evaluation version, pipeline and dataset bundle, each
    given once and none missing, and measured alike: give the answer and judge options the
    shards ran with. The evaluation's material must be here too, because the measures that
    span tasks are applied again to the merged traces (each task keeps the values its shard
    measured; no judge is asked again). The merged result equals a run made in one piece,
    timings aside. Exits 3 when the files are not the shards of one run and 4 when a file
    cannot be read.
    """
    from memrank._apply import measures_of
    from memrank._files import check_writable
    from memrank.catalog import evaluation
    from memrank.result import Result
    from memrank.runs.merge import merge, whole_evaluation_name
    from memrank.runs.summary import summary_text

    check_writable(save_path, option="--save")
    shards = [Result.load(path) for path in shard_paths]
    sources = [str(path) for path in shard_paths]
    whole = evaluation(whole_evaluation_name(shards, sources))
    stage, whole = answer_plan(AnswerOptions(**answering), whole, shards[0].system.kind)
    merged = merge(shards, whole, sources, measures_of(whole, stage))
    merged.save(save_path)
    click.echo(summary_text(merged, every_measure=True) if summary else str(merged))
    click.echo(f"saved:      {save_path}")
