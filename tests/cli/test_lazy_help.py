"""`memrank --help` lists every command from a table without importing one, and lists it
exactly as the commands themselves would be listed."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from memrank.cli import main


@pytest.mark.parametrize("width", [40, 60, 80])
def test_the_listing_is_the_commands_own(width: int) -> None:
    context = click.Context(main, info_name="memrank", terminal_width=width)
    names = main.list_commands(context)
    commands = [main.get_command(context, name) for name in names]
    eager = click.Group(commands=[command for command in commands if command is not None])
    listed, expected = context.make_formatter(), context.make_formatter()
    main.format_commands(context, listed)
    eager.format_commands(context, expected)
    assert listed.getvalue() == expected.getvalue()
    assert names == sorted(eager.commands)


def test_help_and_version_import_no_command_module() -> None:
    probe = (
        "import sys\n"
        "from memrank.cli import main\n"
        "for args in (['--help'], ['--version']):\n"
        "    main(args, standalone_mode=False)\n"
        "print(sorted(m for m in sys.modules if m.startswith('memrank.cli.')))\n"
        "print(sorted(m for m in ('pydantic', 'numpy', 'httpx', 'jinja2') if m in sys.modules))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert found[-2:] == ["[]", "[]"]
