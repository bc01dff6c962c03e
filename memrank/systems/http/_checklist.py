"""A checklist: named checks run in order, each passing or failing with its evidence.

The two conformance suites (``memrank check`` for the Add/Search contract, ``memrank targets
verify`` for translators) share it so they run and print alike. It lives here, beside the
HTTP client both suites use, because wire may import systems and systems may not import wire.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from memrank.errors import EndpointError

__all__ = ["CheckOutcome", "FailedCheck", "layout", "run_checks"]

Checker = TypeVar("Checker")


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


class FailedCheck(Exception):
    """A check's verdict: failed, with the evidence."""


def run_checks(
    checker: Checker, checks: Sequence[tuple[str, Callable[[Checker], str], str]]
) -> list[CheckOutcome]:
    """Run each ``(name, check, requirement)`` on ``checker``; one outcome per check, in order.

    A check returns its evidence when it passes; a FailedCheck or an endpoint that cannot be
    reached fails that check alone, so the rest still run.
    """
    outcomes = []
    for name, run_check, requirement in checks:
        try:
            passed, evidence = True, run_check(checker)
        except (FailedCheck, EndpointError) as exc:
            passed, evidence = False, str(exc)
        outcomes.append(
            CheckOutcome(name=name, requirement=requirement, passed=passed, evidence=evidence)
        )
    return outcomes


def layout(outcomes: list[CheckOutcome]) -> str:
    """One line per check, then the tally."""
    width = max(len(o.name) for o in outcomes)
    lines = [
        f"pass  {o.name:<{width}}  {o.evidence}"
        if o.passed
        else f"FAIL  {o.name:<{width}}  {o.requirement}: {o.evidence}"
        for o in outcomes
    ]
    failed = sum(not o.passed for o in outcomes)
    lines.append(f"{len(outcomes)} checks: {len(outcomes) - failed} passed, {failed} failed")
    return "\n".join(lines)
