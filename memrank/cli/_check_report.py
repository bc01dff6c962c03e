"""Print a conformance suite's outcomes, as text or --json, and fail when any check failed.

Shared by ``memrank check`` and ``memrank targets verify`` so both print and exit alike.
"""

from __future__ import annotations

import click
import orjson

from memrank.errors import CheckFailed
from memrank.systems.http._checklist import CheckOutcome, layout, tally

__all__ = ["report_outcomes"]


def report_outcomes(outcomes: list[CheckOutcome], as_json: bool, printed: bool = False) -> None:
    """Echo every outcome (only the tally when each was ``printed`` as it ended); raise
    CheckFailed (exit 1) naming the checks that failed."""
    if as_json:
        click.echo(orjson.dumps([o.model_dump() for o in outcomes], option=orjson.OPT_INDENT_2))
    else:
        click.echo(tally(outcomes) if printed else layout(outcomes))
    failed = [o.name for o in outcomes if o.ran and not o.passed]
    not_run = sum(not o.ran for o in outcomes)
    if failed:
        raise CheckFailed(
            f"{len(failed)} check(s) failed: {', '.join(failed)}"
            + (f"; {not_run} not run, as the endpoint stopped answering" if not_run else "")
        )
