"""A column's runs side by side: each run's values of the column's measure as one row of a
runs x tasks matrix, NaN where a task was not decided, with each task's cluster and category.

Made once per column from the verified scores files; the means, intervals and all-pairs tests
(``memrank.board.reading``) are array operations over it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from memrank.artifacts import Scores, VerifiedRun
from memrank.board.config import Column
from memrank.measure import Decider
from memrank.measures.kinds import declared_binary
from memrank.stats import cluster_codes

__all__ = ["UNCATEGORISED", "TaskTable", "table_of"]

UNCATEGORISED = "uncategorised"
"""The category of a task whose scores file names none."""


@dataclass(frozen=True)
class TaskTable:
    """A column's runs and their values side by side: runs x tasks, NaN where undecided."""

    column: Column
    positions: tuple[int, ...]
    runs: tuple[VerifiedRun, ...]
    scores: list[Scores]
    task_ids: list[str]
    clusters: np.ndarray
    categories: list[str]
    matrix: np.ndarray
    deciders: dict[int, Decider]
    """By row, who decided the measure: the rows whose scores carry it."""
    decided: list[int]
    """The rows that decided at least one task: those the pair tests rank."""
    binary: bool
    """Whether every run's evaluation declares the measure binary: the measure's declared
    type chooses the test, never the values it happened to take."""

    @cached_property
    def digests(self) -> list[str]:
        """The scores digest of each decided row: what its task values are a function of."""
        return [self.runs[row].statement.scores_subject.digest.sha256 for row in self.decided]

    def undecided(self, row: int, mask: np.ndarray) -> str:
        """Why none of the row's tasks in ``mask`` has a value: the reasons its scores give."""
        score = self.scores[row]
        wanted = {self.task_ids[i] for i in np.flatnonzero(mask)}
        found = score.measures[self.column.measure].why.items()
        return _reasons(Counter(why for i, why in found if score.task_ids[i] in wanted))


def table_of(column: Column, placed: Sequence[VerifiedRun | None]) -> TaskTable:
    """The table of ``column`` over the track's rows; ``placed`` holds each row's run (or None)."""
    positions = tuple(i for i, run in enumerate(placed) if run is not None)
    runs = tuple(run for run in placed if run is not None)
    scores = [run.scores for run in runs]
    task_ids, clusters, categories, in_order = _tasks(scores)
    index = {task: i for i, task in enumerate(task_ids)}
    matrix = np.full((len(runs), len(task_ids)), np.nan)
    carried = []
    for row, score in enumerate(scores):
        found = score.measures.get(column.measure)
        if found is None:
            continue
        carried.append(row)
        # None (undecided) becomes NaN; runs of one evaluation mostly list tasks in one order
        values = np.array(found.values, dtype=float)
        if id(score.task_ids) in in_order:
            matrix[row] = values
        else:
            matrix[row, [index[t] for t in score.task_ids]] = values
    row_decided = (~np.isnan(matrix)).any(axis=1).tolist()  # one pass, not one per row
    return TaskTable(
        column=column,
        positions=positions,
        runs=runs,
        scores=scores,
        task_ids=task_ids,
        clusters=clusters,
        categories=categories,
        matrix=matrix,
        deciders={row: Decider(scores[row].measures[column.measure].decider) for row in carried},
        decided=[row for row in carried if row_decided[row]],
        binary=all(column.measure in declared_binary(run.predicate.evaluation) for run in runs),
    )


def _tasks(scores: Sequence[Scores]) -> tuple[list[str], np.ndarray, list[str], set[int]]:
    """Every task of the column in first-seen order, its cluster code and its category; and
    the task lists (by ``id``) that name those tasks in that order. The runs of an evaluation
    share one list object (``read_scores``; one per verifying process), so each list object
    is compared once, not name by name for every run."""
    group: dict[str, str | None] = {}
    category: dict[str, str] = {}
    distinct: list[list[str]] = []
    met: dict[int, list[str]] = {}  # each list object met, by id (the scores keep them alive)
    for score in scores:
        if id(score.task_ids) in met:
            continue
        met[id(score.task_ids)] = score.task_ids
        if any(score.task_ids == known for known in distinct):
            continue
        distinct.append(score.task_ids)
        for task, g, c in zip(score.task_ids, score.groups, score.categories, strict=True):
            if task not in group:
                group[task] = g
                category[task] = c or UNCATEGORISED
    task_ids = list(group)
    in_order = {at for at, names in met.items() if names == task_ids}
    return task_ids, cluster_codes(list(group.values())), [category[t] for t in task_ids], in_order


def _reasons(reasons: Counter[str]) -> str:
    """The commonest reason a run's scores give for tasks left undecided, as the end of a
    sentence; empty when they give none."""
    if not reasons:
        return ""
    (why, _), *others = reasons.most_common()
    rest = sum(count for _, count in others)
    return f": {why}" + (f" ({rest} more for other reasons)" if rest else "")
