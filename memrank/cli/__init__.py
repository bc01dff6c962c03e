"""The memrank command line: one module per command group, gathered here."""

from __future__ import annotations

import click

from memrank.cli.artifacts import attest_command, verify_command
from memrank.cli.board import build_site_command
from memrank.cli.catalog import catalog_command
from memrank.cli.evals_check import check_evaluation_command
from memrank.cli.keys import keys_group
from memrank.cli.listing import evals_group, targets_ls_command, targets_show_command
from memrank.cli.measure import measure_command
from memrank.cli.merge import merge_command
from memrank.cli.pair import pair_command
from memrank.cli.publish import (
    approve_command,
    review_command,
    supersede_command,
    withdraw_command,
)
from memrank.cli.reproduce import reproduce_command
from memrank.cli.run import run_command
from memrank.cli.runs import kill_command, runs_group, submit_command, watch_command
from memrank.cli.targets import targets_group
from memrank.cli.trust import trust_group
from memrank.cli.view import view_command
from memrank.cli.wire import check_command, serve_command

__all__ = ["main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memrank", prog_name="memrank")
def main() -> None:
    """memrank: measure memory systems, compare runs honestly, publish signed results."""


main.add_command(run_command)
main.add_command(catalog_command)
main.add_command(pair_command)
main.add_command(merge_command)
main.add_command(serve_command)
main.add_command(check_command)
main.add_command(keys_group)
main.add_command(attest_command)
main.add_command(verify_command)
main.add_command(trust_group)
main.add_command(targets_group)
main.add_command(build_site_command)
main.add_command(submit_command)
main.add_command(watch_command)
main.add_command(runs_group)
main.add_command(kill_command)
main.add_command(evals_group)
evals_group.add_command(check_evaluation_command)
targets_group.add_command(targets_ls_command)
targets_group.add_command(targets_show_command)
main.add_command(review_command)
main.add_command(approve_command)
main.add_command(withdraw_command)
main.add_command(supersede_command)
main.add_command(measure_command)
main.add_command(reproduce_command)
main.add_command(view_command)
