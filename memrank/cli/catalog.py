"""memrank catalog: everything that ships, with what each needs."""

from __future__ import annotations

import click

__all__ = ["catalog_command"]


@click.command("catalog")
def catalog_command() -> None:
    """List every shipped system and evaluation with what it needs."""
    from memrank.catalog import catalog

    click.echo(str(catalog()))
