"""`memrank --help` lists every command from a table without importing one, and lists it
exactly as the commands themselves would be listed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


def test_a_run_that_answers_nothing_loads_no_answer_stage(tmp_path: Path) -> None:
    # the answer stage pulls in the model clients (httpx, rich): a third of a CPU-second of a
    # LoCoMo run that asks no model anything
    probe = (
        "import sys\n"
        "from memrank.cli import main\n"
        "main(['run', 'bm25', 'demo'], standalone_mode=False)\n"
        "print(sorted(m for m in ('memrank.answer.stage', 'httpx', 'rich') if m in sys.modules))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "MEMRANK_HOME": str(tmp_path)},
    ).stdout.splitlines()
    assert found[-1] == "[]"
