"""The docs stay true to the code: every command has a section in docs/cli.md."""

from __future__ import annotations

from pathlib import Path

import click

from memrank.cli import main

CLI_DOC = (Path(__file__).parents[1] / "docs" / "cli.md").read_text()


def _commands(group: click.Group, prefix: str) -> list[str]:
    found = []
    for name, command in sorted(group.commands.items()):
        path = f"{prefix} {name}"
        found.append(path)
        if isinstance(command, click.Group):
            found.extend(_commands(command, path))
    return found


def test_every_command_is_documented() -> None:
    missing = [c for c in _commands(main, "memrank") if f"## `{c}" not in CLI_DOC]
    assert not missing, f"docs/cli.md has no section for {missing}"
