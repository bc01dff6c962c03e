"""A click group whose commands are imported only when one runs: `memrank --help` lists them
from a table of one-line summaries, so it loads no command module."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import click

__all__ = ["LazyGroup"]


class LazyGroup(click.Group):
    """Commands named ``{name: ("module:attribute", summary)}``; a command's module is imported
    the first time the command is asked for (to run it, or to print its own help)."""

    def __init__(self, *args: Any, lazy: Mapping[str, tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self.lazy)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module, attribute = self.lazy[cmd_name][0].split(":")
            command = getattr(importlib.import_module(module), attribute)
            assert isinstance(command, click.Command)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands section exactly as click writes it, from the summaries: a command's
        summary (the first sentence of its help) is all click shortens its help to."""
        stand_ins = [click.Command(name, help=summary) for name, (_, summary) in self.lazy.items()]
        click.Group(commands=stand_ins).format_commands(ctx, formatter)
