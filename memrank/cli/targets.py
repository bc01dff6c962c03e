"""memrank targets: what can be evaluated; ``verify`` checks a translator before it is run."""

from __future__ import annotations

import os

import click

from memrank.cli.listing import targets_ls_command, targets_show_command
from memrank.errors import UsageError

__all__ = ["targets_group"]


@click.group("targets")
def targets_group() -> None:
    """Targets (named systems): list them, show what one needs, check a translator."""


@targets_group.command("verify")
@click.argument("url")
@click.option(
    "--key-env",
    metavar="ENVVAR",
    help="The environment variable holding the translator's key, sent as Authorization: Bearer.",
)
@click.option("--timeout", default=60.0, show_default=True, help="Seconds per request.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcomes as JSON.")
def verify_command(url: str, key_env: str | None, timeout: float, as_json: bool) -> None:
    """Check the translator at URL against the memrank-native/1 contract.

    Checks the description, a ranked retrieve, isolation between units, cleanup, and that any
    usage stated is numbers. Prints every check with pass or FAIL and its evidence, and exits
    1 when any fails. A translator that passes runs as `memrank run native EVALUATION`.
    """
    from memrank.cli._check_report import report_outcomes
    from memrank.systems.http.translator_check import verify

    key = None
    if key_env:
        key = os.environ.get(key_env, "")
        if not key:
            raise UsageError(f"--key-env {key_env}: the environment variable is not set")
    outcomes = verify(url, key, timeout=timeout)
    report_outcomes(outcomes, as_json)


targets_group.add_command(targets_ls_command)
targets_group.add_command(targets_show_command)
