"""The memrank command line: one module per command group, each imported only when its command
runs (so `memrank --help` and `memrank --version` load none of them)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import click

__all__ = ["main"]

# Each command: where it is defined, and the first sentence of its help, which is what
# `memrank --help` shows (tests/cli/test_lazy_help.py holds the two equal).
COMMANDS = {
    "approve": (
        "memrank.cli.publish:approve_command",
        "Sign run ID for TRACK and DIVISION into the artifacts directory, and record it.",
    ),
    "attest": (
        "memrank.cli.artifacts:attest_command",
        "Sign the result file RESULT (from `memrank run --save`) into the artifacts directory.",
    ),
    "build-site": (
        "memrank.cli.board:build_site_command",
        "Build the static leaderboard from the signed artifacts that verify.",
    ),
    "catalog": (
        "memrank.cli.listing:catalog_command",
        "List every shipped system and evaluation with what it needs.",
    ),
    "check": (
        "memrank.cli.wire:check_command",
        "Check an endpoint against the Add/Search contract before a formal run.",
    ),
    "evals": ("memrank.cli.listing:evals_group", "The evaluations memrank ships."),
    "keys": (
        "memrank.cli.trust:keys_group",
        "Make and identify Ed25519 signing keys (PKCS8 PEM files).",
    ),
    "kill": (
        "memrank.cli.runs:kill_command",
        "Stop running run ID (Ctrl-C first, so its journal keeps what it did; then for good).",
    ),
    "measure": (
        "memrank.cli.measure:measure_command",
        "Judge the answers of the stored run RESULT (a result file) and print it.",
    ),
    "merge": ("memrank.cli.run:merge_command", "Merge the result files of `memrank run ..."),
    "pair": (
        "memrank.cli.pair:pair_command",
        "Print the paired reading of two runs of the same evaluation; the gap is B minus A.",
    ),
    "reproduce": (
        "memrank.cli.reproduce:reproduce_command",
        "Rebuild what the signed run RUN records, rerun it, and say whether it matches.",
    ),
    "review": (
        "memrank.cli.publish:review_command",
        "List finished runs not yet approved: publishable, or every reason why not.",
    ),
    "run": (
        "memrank.cli.run:run_command",
        "Run SYSTEM on EVALUATION (names from `memrank catalog`) and print the result.",
    ),
    "runs": (
        "memrank.cli.runs:runs_group",
        "The run registry: every run memrank run or submit made on this machine.",
    ),
    "serve": (
        "memrank.cli.wire:serve_command",
        "Serve the memory SYSTEM (a name from `memrank catalog`) over the Add/Search contract.",
    ),
    "submit": (
        "memrank.cli.runs:submit_command",
        "Start SYSTEM on EVALUATION in the background and print its run id at once.",
    ),
    "supersede": (
        "memrank.cli.publish:supersede_command",
        "Sign approved run ID again (another track or division) as a correction of its artifact.",
    ),
    "targets": (
        "memrank.cli.listing:targets_group",
        "Targets (named systems): list them, show what one needs, check a translator.",
    ),
    "trust": (
        "memrank.cli.trust:trust_group",
        "Create and rotate the trust root (root.json): who may sign runs, and what is pinned.",
    ),
    "upload-results": (
        "memrank.cli.publish:upload_results_command",
        "Upload the result files in STORE to the GitHub release that is the results store.",
    ),
    "verify": (
        "memrank.cli.artifacts:verify_command",
        "Verify signed runs and report each one, ok or refused (with its error class).",
    ),
    "view": (
        "memrank.cli.measure:view_command",
        "Render any result (unsigned, a development run, a slice) as a local static page with "
        "the board's theme (the headline, each measure, per category, a page per task with what "
        "was recalled and every value with its why), and print the page's path.",
    ),
    "watch": (
        "memrank.cli.runs:watch_command",
        "Follow run ID until it ends: progress on stderr, then its result; exits as it did.",
    ),
    "withdraw": (
        "memrank.cli.publish:withdraw_command",
        "Take run ID off the board: every envelope signed for it (the approval and each "
        "correction) leaves runs/ (git keeps their history).",
    ),
}


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


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memrank", prog_name="memrank")
def main() -> None:
    """memrank: measure memory systems, compare runs honestly, publish signed results."""
