"""A checklist: named checks run in order, each passing (perhaps with a warning) or failing
with its evidence, each reported the moment it ends.

The two conformance suites (``memrank check`` for the Add/Search contract, ``memrank targets
verify`` for translators) share it so they run and print alike. It lives here, beside the
HTTP client both suites use, because wire may import systems and systems may not import wire.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from memrank.errors import EndpointError

__all__ = ["CheckOutcome", "FailedCheck", "Warned", "layout", "line", "run_checks", "tally"]

Checker = TypeVar("Checker")
STOP_AFTER = 2
"""Checks in a row that may fail because the endpoint did not answer before the rest are not
run: each would wait out the deadline only to fail the same way."""


class CheckOutcome(BaseModel):
    """One check: its name, what it requires, whether the endpoint passed, and the evidence."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    """The check's name, as printed."""
    requirement: str
    """What the contract requires, in one line."""
    passed: bool
    evidence: str
    """What was sent and what came back."""
    warning: bool = False
    """Passed, but the endpoint did something the contract allows and a reader should know."""
    ran: bool = True
    """False when the check was not run, as the endpoint had stopped answering: counted apart
    from the checks that failed (``passed`` is False too, as nothing passed)."""


class FailedCheck(Exception):
    """A check's verdict: failed, with the evidence."""


class Warned(Exception):
    """A check's verdict: passed, with a warning, and the evidence."""


def run_checks(
    checker: Checker,
    checks: Sequence[tuple[str, Callable[[Checker], str], str]],
    on_outcome: Callable[[CheckOutcome], None] | None = None,
) -> list[CheckOutcome]:
    """Run each ``(name, check, requirement)`` on ``checker``; one outcome per check, in order,
    each handed to ``on_outcome`` as soon as it is known.

    A check returns its evidence when it passes; a FailedCheck or an endpoint that cannot be
    reached fails that check alone, so the rest still run, unless the endpoint failed to
    answer the first check or ``STOP_AFTER`` in a row: then the rest are reported not run.
    """
    outcomes: list[CheckOutcome] = []
    silent, stopped_by = 0, ""
    for position, (name, run_check, requirement) in enumerate(checks):
        warning, ran = False, not stopped_by
        if stopped_by:
            passed, evidence = False, f"not run, as the endpoint did not answer: {stopped_by}"
        else:
            try:
                passed, evidence, silent = True, run_check(checker), 0
            except Warned as exc:
                passed, evidence, warning, silent = True, str(exc), True, 0
            except FailedCheck as exc:
                passed, evidence, silent = False, str(exc), 0
            except EndpointError as exc:
                passed, evidence, silent = False, str(exc), silent + 1
                if silent >= STOP_AFTER or position == 0:
                    stopped_by = f"{name}: {exc}"
        outcome = CheckOutcome(
            name=name,
            requirement=requirement,
            passed=passed,
            evidence=evidence,
            warning=warning,
            ran=ran,
        )
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)
    return outcomes


def line(outcome: CheckOutcome, width: int) -> str:
    """One check as printed: ``pass``, ``warn``, ``FAIL`` or ``skip`` (not run), the name, the
    evidence."""
    if not outcome.ran:
        return f"skip  {outcome.name:<{width}}  {outcome.evidence}"
    if not outcome.passed:
        return f"FAIL  {outcome.name:<{width}}  {outcome.requirement}: {outcome.evidence}"
    return f"{'warn' if outcome.warning else 'pass'}  {outcome.name:<{width}}  {outcome.evidence}"


def tally(outcomes: list[CheckOutcome]) -> str:
    """``10 checks: 1 passed, 2 failed, 7 not run``: a check not run is not a failure found."""
    not_run = sum(not o.ran for o in outcomes)
    failed = sum(not o.passed for o in outcomes) - not_run
    warned = sum(o.warning for o in outcomes)
    passed = f"{len(outcomes) - failed - not_run} passed" + (
        f" ({warned} with a warning)" if warned else ""
    )
    return f"{len(outcomes)} checks: {passed}, {failed} failed" + (
        f", {not_run} not run" if not_run else ""
    )


def layout(outcomes: list[CheckOutcome]) -> str:
    """One line per check, then the tally."""
    width = max(len(o.name) for o in outcomes)
    return "\n".join([*(line(o, width) for o in outcomes), tally(outcomes)])
