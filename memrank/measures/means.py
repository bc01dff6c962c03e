"""Run-scope means of task-scope values, overall and per category: what a table quotes.

A mean is taken over the tasks that have a value; tasks whose value is None (no evidence, a
negative task, a failure) are left out, and every mean's why says how many were, counting
failed tasks apart: a mean over the tasks that did not fail is not the system's score over
the evaluation, and the reader must see that it dropped them. Per-category
means use the material's own category labels (``.mean.category-<label>``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from memrank.measure import Decider, Measure, Scope, Value
from memrank.measures.evidence import HIT_AT, KS
from memrank.measures.ranking import RANKING_KS
from memrank.trace import Trace

__all__ = ["EvidenceMeans", "Means", "RankingMeans"]


class Means(Measure):
    """Means of the value names in ``of``; those in ``by_category`` also per category."""

    scope, decider = Scope.RUN, Decider.RULE
    of: ClassVar[tuple[str, ...]]
    by_category: ClassVar[tuple[str, ...]]

    def __init__(self, categories: Sequence[str] = ()) -> None:
        self.categories = tuple(categories)

    def names(self) -> tuple[str, ...]:
        return (
            *(f"{name}.mean" for name in self.of),
            *(
                f"{name}.mean.category-{category}"
                for name in self.by_category
                for category in self.categories
            ),
        )

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        category_of = {trace.task.id: trace.task.category for trace in traces}
        failed = {trace.task.id for trace in traces if not trace.ok}
        by_name: dict[str, list[Value]] = {}
        for value in values:
            if value.task_id is not None:
                by_name.setdefault(value.measure, []).append(value)
        produced = [self._mean(f"{name}.mean", by_name.get(name, []), failed) for name in self.of]
        for name in self.by_category:
            # each name's values split by category in one pass, not one pass per category
            by_category: dict[str | None, list[Value]] = {}
            for value in by_name.get(name, []):
                by_category.setdefault(category_of.get(value.task_id or ""), []).append(value)
            for category in self.categories:
                members = by_category.get(category, [])
                produced.append(self._mean(f"{name}.mean.category-{category}", members, failed))
        return produced

    def _mean(self, name: str, members: list[Value], failed_tasks: set[str]) -> Value:
        numbers = [v.value for v in members if v.value is not None]
        failed = (
            sum(v.value is None and v.task_id in failed_tasks for v in members)
            if failed_tasks
            else 0
        )
        undecided = len(members) - len(numbers) - failed
        mean: float | None = None
        if not members:
            why = f"no task has a value named {name.partition('.mean')[0]!r}"
        elif not numbers:
            why = f"none of the {len(members)} task value(s) could be decided"
            if failed:
                why += f" ({failed} failed)"
        else:
            mean = sum(numbers) / len(numbers)
            why = f"mean over {len(numbers)} task(s)"
            if set(numbers) <= _ZERO_OR_ONE:
                why += f" ({int(sum(numbers))} of {len(numbers)})"
            if failed:
                why += f"; {failed} failed task(s) left out, not counted as 0"
            if undecided:
                why += f"; {undecided} without a value left out"
        return Value(measure=name, decider=self.decider, value=mean, why=why)


_ZERO_OR_ONE = frozenset({0.0, 1.0})
_RECALLS = (*(f"evidence-recall@{k}" for k in KS), f"evidence-hit@{HIT_AT}")


class EvidenceMeans(Means):
    """Means of the evidence measures and of recalled-words; evidence recall also per category."""

    name = "evidence-means"
    by_category = _RECALLS
    of = reads = (
        *_RECALLS,
        *(f"session-recall@{k}" for k in KS),
        "recalled-words",
        *(f"evidence-recall-negative@{k}" for k in KS),
        f"evidence-hit-negative@{HIT_AT}",
    )


class RankingMeans(Means):
    """Means of LongMemEval's recall-all@k and ndcg-any@k, overall and per question type."""

    name = "ranking-means"
    of = reads = by_category = tuple(
        f"{m}@{k}" for k in RANKING_KS for m in ("recall-all", "ndcg-any")
    )
