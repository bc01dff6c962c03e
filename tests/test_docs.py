"""The docs stay true to the code: every command has a section in docs/cli.md."""

from __future__ import annotations

from pathlib import Path

import click

from memrank.cli import main

CLI_DOC = (Path(__file__).parents[1] / "docs" / "cli.md").read_text()


def _commands(group: click.Group, prefix: str) -> list[str]:
    found = []
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        path = f"{prefix} {name}"
        found.append(path)
        if isinstance(command, click.Group):
            found.extend(_commands(command, path))
    return found


def test_every_command_is_documented() -> None:
    missing = [c for c in _commands(main, "memrank") if f"## `{c}" not in CLI_DOC]
    assert not missing, f"docs/cli.md has no section for {missing}"


def _command(path: str) -> click.Command:
    command: click.Command = main
    for name in path.split()[1:]:
        assert isinstance(command, click.Group)
        found = command.get_command(click.Context(command), name)
        assert found is not None
        command = found
    return command


def test_every_option_of_the_everyday_commands_is_documented() -> None:
    """Each option of run, pair, view and the registry commands is named in docs/cli.md."""
    missing = []
    for path in ("memrank run", "memrank pair", "memrank view", "memrank runs ls",
                 "memrank runs prune", "memrank evals check", "memrank submit"):  # fmt: skip
        for parameter in _command(path).params:
            if isinstance(parameter, click.Option) and not parameter.hidden:
                flags = [*parameter.opts, *parameter.secondary_opts]
                if not any(f"`{flag}" in CLI_DOC or f"[{flag}" in CLI_DOC for flag in flags):
                    missing.append(f"{path} {flags[0]}")
    assert not missing, f"docs/cli.md never names {missing}"


def test_the_documented_exit_codes_of_a_stopped_run_are_the_errors_own() -> None:
    from memrank.errors import HungUp, Interrupted, TasksFailedInRun, Terminated

    for error, code in ((Interrupted, 130), (Terminated, 143), (HungUp, 129)):
        assert error.exit_code == code and str(code) in CLI_DOC
    assert TasksFailedInRun.exit_code == 7 and "exiting 7" in CLI_DOC
