"""demo-score: per group, the share of tasks whose evidence documents were all recalled."""

from __future__ import annotations

from collections.abc import Sequence

from memrank.measure import Decider, Measure, Scope, Value
from memrank.measures.word_match import recalled_doc_id
from memrank.trace import Trace

__all__ = ["DemoScore"]


class DemoScore(Measure):
    """Evidence recall per group, the demo's headline.

    A task counts when every evidence document came back; an abstention task has no evidence
    to recall and counts as recalled when it ran; a failed task, abstention or not, counts as
    not recalled.
    """

    name, scope, reads, decider = "demo-score", Scope.GROUP, ("recalled",), Decider.RULE

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        groups: dict[str, list[Trace]] = {}
        for trace in traces:
            groups.setdefault(trace.task.group or trace.task.id, []).append(trace)
        produced = []
        for group, members in groups.items():
            hits = [self._recalled(t) for t in members]
            scored = [hit for hit in hits if hit is not None]
            failed = sum(not t.ok for t in members)
            why = "evidence_recall (retrieval proxy; not answer correctness)"
            if failed:
                why += f"; {failed} of {len(members)} task(s) failed, counted as not recalled"
            produced.append(
                Value(
                    measure=self.name,
                    decider=self.decider,
                    group=group,
                    value=sum(scored) / len(scored) if scored else None,
                    why=why if scored else "no task in the group names evidence documents",
                )
            )
        return produced

    @staticmethod
    def _recalled(trace: Trace) -> float | None:
        expected = trace.task.expected
        if not trace.ok and (expected.abstain or expected.evidence_doc_ids):
            return 0.0  # a failed task recalled nothing, abstention included
        if expected.abstain:
            return 1.0
        if not expected.evidence_doc_ids:
            return None
        if trace.recalled is None:
            return 0.0
        got = {recalled_doc_id(d) for d in trace.credited}
        return float(set(expected.evidence_doc_ids) <= got)
