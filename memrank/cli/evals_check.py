"""memrank evals check FILE: validate your own evaluation file without running anything."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["check_evaluation_command"]


@click.command("check")
@click.argument("path", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path))
def check_evaluation_command(path: Path) -> None:
    """Check an evaluation file (.jsonl, or .yaml with memrank[yaml]) as `memrank run` reads
    it, and say what it holds; an error names the line and the field."""
    from memrank.errors import UsageError
    from memrank.evaluations.from_file import SUFFIXES, from_file, is_evaluation_file

    if not is_evaluation_file(path.name):
        raise UsageError(f"{path}: an evaluation file ends in {', '.join(SUFFIXES)}")
    evaluation = from_file(path)
    units = list(evaluation.units())
    documents = sum(len(unit.documents) for unit in units)
    with_evidence = sum(1 for task in evaluation.tasks if task.expected.evidence_doc_ids)
    counts = evaluation.dataset_bundle().question_counts
    click.echo(f"ok: {evaluation.name} at {evaluation.version}")
    click.echo(
        f"tasks:      {len(evaluation.tasks)} in {len(units)} group(s), {documents} document(s)"
    )
    click.echo(f"evidence:   on {with_evidence} task(s); the headline is {evaluation.headline}")
    click.echo("categories: " + ", ".join(f"{name} {count}" for name, count in counts.items()))
    click.echo(f"sha256:     {evaluation.dataset_bundle().sha256}")
