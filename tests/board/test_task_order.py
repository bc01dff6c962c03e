"""A column lines its runs up by task, whatever order each run's scores file lists them in."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np

from memrank.artifacts import read_scores, scores_of
from memrank.board.config import Column
from memrank.board.tables import table_of


def _scored(result: bytes, *, reversed_tasks: bool) -> SimpleNamespace:
    """A verified run as a column's table reads it: its scores and its evaluation record."""
    if reversed_tasks:
        data = json.loads(result)
        data["traces"].reverse()
        result = json.dumps(data).encode()
    scores = read_scores(scores_of(result), source="test")
    return SimpleNamespace(
        scores=scores, predicate=SimpleNamespace(evaluation=SimpleNamespace(binary=None))
    )


def test_a_run_listing_its_tasks_in_another_order_lines_up_by_task(locomo_result: bytes) -> None:
    # Runs of an evaluation mostly share one task list, and the table takes the rows of those
    # that list the column's order as they are; a run listing them otherwise is placed task by
    # task. Three runs from one process: the first two hold one list object, the third another.
    runs = [_scored(locomo_result, reversed_tasks=flip) for flip in (False, False, True)]
    assert runs[0].scores.task_ids is runs[1].scores.task_ids
    assert runs[2].scores.task_ids == runs[0].scores.task_ids[::-1]
    measure = next(iter(runs[0].scores.measures))
    values = runs[0].scores.measures[measure].values
    assert len({v for v in values if v is not None}) > 1  # a misplaced value would show
    column = Column(
        evaluation="locomo", version="v", title="LoCoMo", measure=measure, direction="higher"
    )
    table = table_of(column, runs)
    assert table.task_ids == runs[0].scores.task_ids
    assert np.array_equal(table.matrix[0], table.matrix[1], equal_nan=True)
    assert np.array_equal(table.matrix[2], table.matrix[0], equal_nan=True)
