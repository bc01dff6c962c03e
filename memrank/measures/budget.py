"""The context budget, the decisive variable of a retrieval comparison: a system that returns
more text finds more evidence.

recalled-words is how much text a system handed back for a task, the budget it spent; every
evaluation that scores evidence also records it, so the two are never read apart. An evaluation
held to a budget has its recalls cut to it and its evidence read at the budget.
"""

from __future__ import annotations

from collections.abc import Sequence

from memrank.budget import Budget
from memrank.evaluation import Evaluation
from memrank.measure import Decider, Measure, Scope, Value
from memrank.measures.evidence import EvidenceRecall
from memrank.measures.means import EvidenceMeans, Means
from memrank.trace import Trace

__all__ = ["RecalledWords", "held_to", "means_at"]

_AT_BUDGET = "evidence-means@"


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


def held_to(evaluation: Evaluation, budget: Budget) -> Evaluation:
    """``evaluation`` with ``budget`` declared, and its evidence recall read at the budget
    beside @k (``evidence-recall@500w`` and its means): the run cuts every recall to it, whole
    documents in rank order, and records the cut on each trace."""
    measures: list[Measure] = []
    for m in evaluation.measures:
        if m.name.startswith(_AT_BUDGET):
            continue  # an earlier budget's means: the new budget's replace them
        if isinstance(m, EvidenceRecall):
            measures.append(EvidenceRecall(budget=budget))
        else:
            measures.append(m)
        if isinstance(m, EvidenceMeans) and budget.capped:
            measures.append(means_at(budget, m.categories))
    return evaluation.model_copy(update={"budget": budget, "measures": tuple(measures)})


def means_at(budget: Budget, categories: tuple[str, ...] = ()) -> Means:
    """The means of ``evidence-recall@<budget>``, overall and per category."""
    at = budget.label

    class EvidenceMeansAtBudget(Means):
        name = f"{_AT_BUDGET}{at}"
        of = reads = (f"evidence-recall@{at}", f"evidence-recall-negative@{at}")
        by_category = (f"evidence-recall@{at}",)

    return EvidenceMeansAtBudget(categories)
