"""Why a cell reads as it does, where a reader would take the value for a bug.

A column read at a context budget (``evidence-recall@500w``) keeps, of what a system returned,
the whole documents that fit the budget, in the system's order, and never splits one
(docs/methodology.md, budget-matched comparisons). A control that returns a whole conversation
as one document finds every evidence turn at k and keeps nothing within 500 words: its 0 is the
budget at work, not a fault. The note says so from the run's own signed values.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memrank.measure import Value

__all__ = ["budget_note"]

_AT_BUDGET = re.compile(r"(?P<stem>.+)@(?P<size>\d+)(?P<unit>[wt])")
"""A value read at a budget: ``<stem>@500w`` (words) or ``<stem>@2000t`` (tokens)."""
_UNITS = {"w": "words", "t": "tokens"}


def budget_note(measure: str, value: float | None, summary: Sequence[Value]) -> str:
    """Why ``value`` of the budget reading ``measure`` is 0 although the same run recalled
    evidence at k (its summary's ``<stem>@<k>.mean``); empty when nothing needs saying."""
    found = _AT_BUDGET.fullmatch(measure)
    if found is None or value != 0.0:
        return ""
    stem, size, unit = found["stem"], found["size"], _UNITS[found["unit"]]
    at_k = re.compile(rf"{re.escape(stem)}@(\d+)\.mean")
    recalled = sorted(
        (int(matched[1]), v.value)
        for v in summary
        if (matched := at_k.fullmatch(v.measure)) and v.value
    )
    if not recalled:
        return ""
    k, at = recalled[0]
    return (
        f"0 within {size} {unit}, yet {stem}@{k} is {at:.3f} on the same run: the evidence it "
        f"returns lies past its first {size} {unit}. The budget keeps whole documents while "
        f"they fit and never splits one, so a first document longer than {size} {unit} (such as "
        "a whole conversation returned as one document) leaves nothing."
    )
