"""An evaluation held to a context budget: its recalls cut, its evidence read at the budget."""

from __future__ import annotations

from memrank.budget import Budget
from memrank.evaluation import Evaluation
from memrank.measure import Measure
from memrank.measures.evidence import EvidenceRecall
from memrank.measures.means import EvidenceMeans, Means

__all__ = ["held_to", "means_at"]


def held_to(evaluation: Evaluation, budget: Budget) -> Evaluation:
    """``evaluation`` with ``budget`` declared, and its evidence recall read at the budget
    beside @k (``evidence-recall@500w`` and its means): the run cuts every recall to it, whole
    documents in rank order, and records the cut on each trace."""
    measures: list[Measure] = []
    for m in evaluation.measures:
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
        name = f"evidence-means@{at}"
        of = reads = (f"evidence-recall@{at}", f"evidence-recall-negative@{at}")
        by_category = (f"evidence-recall@{at}",)

    return EvidenceMeansAtBudget(categories)
