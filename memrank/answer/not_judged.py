"""The value a run that no judge decided carries instead of the judge's: apart from the answer
measures so a run without a judge does not import the model clients."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memrank.measure import Decider, Measure, Scope, Value

if TYPE_CHECKING:
    from memrank.trace import Trace

__all__ = ["NotJudged"]


class NotJudged(Measure):
    """Says plainly, in the result, that the run was not judged and why."""

    name, scope, reads, decider = "judge", Scope.RUN, (), Decider.MODEL

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        return [
            Value(
                measure=self.name,
                decider=self.decider,
                value=None,
                why=f"not judged: {self.reason}",
            )
        ]
