"""memrank catalog, targets and evals: what can be evaluated, against what, and what it needs;
``evals check`` reads your own evaluation file, ``targets verify`` checks a translator."""

from __future__ import annotations

import os
import re
from pathlib import Path

import click

from memrank.cli.wire import translator_verify_command
from memrank.errors import UnknownName, UsageError

__all__ = ["catalog_command", "evals_group", "targets_group"]

# The environment variables an entry's "needs" names (AML_BASE_URL, HINDSIGHT_API_KEY, ...).
_VARIABLE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b")


@click.command("catalog")
def catalog_command() -> None:
    """List every shipped system and evaluation with what it needs."""
    from memrank.catalog import catalog

    click.echo(str(catalog()))


@click.group("targets")
def targets_group() -> None:
    """Targets (named systems): list them, show what one needs, check a translator."""


@targets_group.command("ls")
def targets_ls_command() -> None:
    """List every target (a named system) with what it is."""
    from memrank.catalog import SYSTEMS

    width = max(len(entry.name) for entry in SYSTEMS)
    for entry in SYSTEMS:
        click.echo(f"{entry.name:<{width}}  {entry.summary}")


@targets_group.command("show")
@click.argument("name", metavar="TARGET")
def targets_show_command(name: str) -> None:
    """What TARGET is, what it needs, and ✔/✘ for each environment variable it reads."""
    from memrank.catalog import SYSTEMS

    found = [entry for entry in SYSTEMS if entry.name == name]
    if not found:
        known = ", ".join(entry.name for entry in SYSTEMS)
        raise UnknownName(f"no target named {name!r}; known: {known}")
    entry = found[0]
    click.echo(f"target:     {entry.name}")
    click.echo(f"what:       {entry.summary}")
    click.echo(f"class:      {entry.target}")
    click.echo(f"needs:      {entry.needs}")
    for variable in dict.fromkeys(_VARIABLE.findall(entry.needs)):  # in order, once each
        mark = "✔ set" if os.environ.get(variable) else "✘ not set"
        click.echo(f"  {mark:<10} {variable}")


@click.group("evals")
def evals_group() -> None:
    """The evaluations memrank ships."""


@evals_group.command("ls")
def evals_ls_command() -> None:
    """List every evaluation with what it measures and what it needs."""
    from memrank.catalog import EVALUATIONS

    width = max(len(entry.name) for entry in EVALUATIONS)
    for entry in EVALUATIONS:
        click.echo(f"{entry.name:<{width}}  {entry.summary}")
        click.echo(f"{'':<{width}}  needs: {entry.needs}")


@evals_group.command("check")
@click.argument("path", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path))
def check_evaluation_command(path: Path) -> None:
    """Check an evaluation file (.jsonl, or .yaml with memrank[yaml]) as `memrank run` reads
    it, and say what it holds; an error names the line and the field."""
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


targets_group.add_command(translator_verify_command)
