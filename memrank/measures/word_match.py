"""word-match: do the expected spans appear verbatim in something the system recalled?

A retrieval proxy decided by a rule; it is not answer correctness, and every value says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from memrank.measure import Decider, Measure, Scope, Value
from memrank.system import Document
from memrank.trace import Trace

__all__ = ["WordMatch", "recalled_doc_id"]

PROXY = "span match in a recalled document; a retrieval proxy, not answer correctness"


def recalled_doc_id(document: Document) -> str:
    """The source document a recalled item stands for: ``metadata["doc_id"]`` when a system
    chunked or rewrote it, else its own id."""
    return str((document.metadata or {}).get("doc_id", document.id))


class WordMatch(Measure):
    """1.0 when every required span appears (case-insensitive) in some recalled document."""

    name, scope, reads, decider = "word-match", Scope.TASK, ("recalled",), Decider.RULE
    binary = ("word-match",)

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        return [self._one(trace) for trace in traces]

    def _one(self, trace: Trace) -> Value:
        expected = trace.task.expected
        if expected.abstain:
            # Nothing in the material answers the question, so no span can be missing.
            return self._value(
                trace, 1.0, f"{PROXY}; an abstention task: the material answers nothing to match"
            )
        if not expected.required_spans:
            return self._value(
                trace, None, "the task names no required spans; word-match cannot decide"
            )
        documents = trace.credited
        matched = []
        for span in expected.required_spans:
            where = next((d for d in documents if span.lower() in d.text.lower()), None)
            if where is not None:
                matched.append(f"matched {span!r} in {recalled_doc_id(where)!r}")
        value = 1.0 if len(matched) == len(expected.required_spans) else 0.0
        return self._value(trace, value, "; ".join([PROXY, *matched]))

    def _value(self, trace: Trace, value: float | None, why: str) -> Value:
        return Value(
            measure=self.name, decider=self.decider, task_id=trace.task.id, value=value, why=why
        )
