"""recalled-words: how much text a system handed back for a task, the budget it spent.

Context budget is the decisive variable of a retrieval comparison: a system that returns more
text finds more evidence. Every evaluation that scores evidence also records this, so the two
are never read apart.
"""

from __future__ import annotations

from collections.abc import Sequence

from memrank.measure import Decider, Measure, Scope, Value
from memrank.trace import Trace

__all__ = ["RecalledWords"]


class RecalledWords(Measure):
    """The whitespace-separated words in all documents a task recalled."""

    name, scope, reads, decider = "recalled-words", Scope.TASK, ("recalled",), Decider.MEMRANK

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        produced = []
        counted: dict[int, int] = {}  # id() of a document the traces hold -> its words
        for trace in traces:
            documents = trace.recalled.documents if trace.recalled else ()
            words = 0
            for d in documents:
                count = counted.get(id(d))
                if count is None:
                    count = counted[id(d)] = len(d.text.split())
                words += count
            produced.append(
                Value(
                    measure=self.name,
                    decider=self.decider,
                    task_id=trace.task.id,
                    value=float(words),
                    why=f"words in the {len(documents)} recalled document(s)",
                )
            )
        return produced
