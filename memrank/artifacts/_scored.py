"""A signed run read as a Result from its statement and scores file alone.

A paired reading needs each task's id, group and task-scope values, and the records of the
system and the evaluation: all of it is in a verified statement and its scores file, so a run
can be paired without its result file (which may be in a store far away, or gone). The Result
made here holds no recall, no answer and no clock: only what a reading reads.
"""

from __future__ import annotations

from pathlib import Path

from memrank.artifacts._scores import ABSENT_WHY, Scores
from memrank.artifacts._statement import RunPredicate
from memrank.artifacts._trust import load_trust
from memrank.artifacts._verify import verify
from memrank.measure import Decider, Value
from memrank.result import Result
from memrank.task import Task
from memrank.trace import Trace

__all__ = ["NOT_IN_SCORES", "result_of_scores", "signed_result"]

NOT_IN_SCORES = "(a scores file holds no prompt)"


def result_of_scores(scores: Scores, predicate: RunPredicate) -> Result:
    """The Result a paired reading needs of a run: its records, its tasks in order with their
    groups and categories, and every task-scope value of its scores file (a task the run
    never valued on a measure, its why the scores file's absent one, has no value here, as in
    the result file)."""
    started, finished = predicate.started_at, predicate.finished_at
    traces = tuple(
        Trace(
            task=Task(id=task_id, prompt=NOT_IN_SCORES, group=group, category=category),
            started=started,
            finished=finished,
        )
        for task_id, group, category in zip(
            scores.task_ids, scores.groups, scores.categories, strict=True
        )
    )
    values = []
    for measure, column in scores.measures.items():
        counts = column.count or [None] * len(column.values)
        totals = column.total or [None] * len(column.values)
        for index, number in enumerate(column.values):
            if number is None and column.why.get(index) == ABSENT_WHY:
                continue  # the run never valued this task on this measure: no value to pair
            values.append(
                Value(
                    measure=measure,
                    decider=Decider(column.decider),
                    task_id=scores.task_ids[index],
                    group=scores.groups[index],
                    value=number,
                    why=column.why.get(index, ""),
                    count=counts[index],
                    total=totals[index],
                )
            )
    return Result(
        system=predicate.system,
        evaluation=predicate.evaluation,
        traces=traces,
        values=tuple(values),
        started=started,
        finished=finished,
    )


def signed_result(envelope: Path) -> Result:
    """The run in ``runs/<artifact-id>.json``, verified against its artifacts directory's
    trust root, read from its statement and scores file (``result_of_scores``)."""
    run = verify(envelope, load_trust(envelope.parent.parent / "root.json"))
    return result_of_scores(run.scores, run.predicate)
