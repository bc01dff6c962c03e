"""Options several commands share, defined once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

__all__ = ["artifacts_option"]


def artifacts_option(help_text: str) -> Callable[[Any], Any]:
    """``--artifacts DIR`` (default ``artifacts``), passed as ``directory``; ``help_text`` says
    what the command does with it."""
    return click.option(
        "--artifacts",
        "directory",
        default=Path("artifacts"),
        show_default=True,
        type=click.Path(file_okay=False, path_type=Path),
        help=help_text,
    )
