"""memrank targets ls/show and evals ls: what can be evaluated, against what, and what it needs."""

from __future__ import annotations

import os
import re

import click

from memrank.cli.evals_check import check_evaluation_command
from memrank.errors import UnknownName

__all__ = ["evals_group", "targets_ls_command", "targets_show_command"]

# The environment variables an entry's "needs" names (AML_BASE_URL, HINDSIGHT_API_KEY, ...).
_VARIABLE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b")


def variables(needs: str) -> list[str]:
    """The environment variables a catalog entry's ``needs`` names, in order, once each."""
    return list(dict.fromkeys(_VARIABLE.findall(needs)))


@click.command("ls")
def targets_ls_command() -> None:
    """List every target (a named system) with what it is."""
    from memrank.catalog import SYSTEMS

    width = max(len(entry.name) for entry in SYSTEMS)
    for entry in SYSTEMS:
        click.echo(f"{entry.name:<{width}}  {entry.summary}")


@click.command("show")
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
    for variable in variables(entry.needs):
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


evals_group.add_command(check_evaluation_command)
