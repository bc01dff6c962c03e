"""Applying measures to traces, in order, each seeing the values of those before it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memrank.errors import MeasureRefused
from memrank.evaluation import Evaluation
from memrank.measure import Measure, Scope, Value
from memrank.measures import FailureRate, Latency
from memrank.trace import Trace

if TYPE_CHECKING:
    from memrank.answer import AnswerStage

__all__ = ["apply", "apply_keeping", "measures_of", "with_bookkeeping"]


def with_bookkeeping(measures: Sequence[Measure]) -> tuple[Measure, ...]:
    """The evaluation's measures, then memrank's own bookkeeping and clock unless already named.

    The clock's values come last: they are what an artifact's timings file holds, and joining
    a result file with its timings file appends them (memrank.artifacts.join)."""
    named = {m.name for m in measures}
    extra = [m for m in (FailureRate(), Latency()) if m.name not in named]
    return (*measures, *extra)


def measures_of(evaluation: Evaluation, answer: AnswerStage | None) -> tuple[Measure, ...]:
    """Every measure a run of ``evaluation`` applies, in order: the evaluation's, the answer
    stage's protocol measures when memrank answers, then memrank's bookkeeping."""
    answering = answer.measures(evaluation) if answer is not None else ()
    return with_bookkeeping((*evaluation.measures, *answering))


def apply_keeping(
    measures: Sequence[Measure], traces: list[Trace], kept: Sequence[Value]
) -> list[Value]:
    """Like ``apply``, but every task-scope measure's values are taken from ``kept`` (in trace
    order) instead of being measured again: a merge of shards re-derives what spans tasks
    without asking a judge model a second time."""
    order = {trace.task.id: position for position, trace in enumerate(traces)}
    values: list[Value] = []
    for m in measures:
        if m.scope is Scope.TASK:
            names = set(m.names())
            produced = sorted(
                (v for v in kept if v.measure in names and v.task_id is not None),
                key=lambda v: order.get(v.task_id or "", len(order)),
            )
        else:
            produced = _checked(m, m.measure(traces, values))
        values.extend(produced)
    return values


def apply(measures: Sequence[Measure], traces: list[Trace], prior: Sequence[Value]) -> list[Value]:
    """The values ``measures`` add to ``prior``, applied in order."""
    values = list(prior)
    added: list[Value] = []
    for m in measures:
        produced = _apply_one(m, traces, values)
        values.extend(produced)
        added.extend(produced)
    return added


def _apply_one(m: Measure, traces: list[Trace], values: Sequence[Value]) -> list[Value]:
    if m.scope is not Scope.TASK:
        return _checked(m, m.measure(traces, values))
    produced = _checked(m, m.measure([t for t in traces if t.ok], values))
    for trace in traces:
        if trace.error is None:
            continue
        why = f"the task failed at {trace.error.step.value}: {trace.error.message}"
        produced.extend(
            Value(measure=name, decider=m.decider, task_id=trace.task.id, value=None, why=why)
            for name in m.names()
        )
    order = {trace.task.id: position for position, trace in enumerate(traces)}
    return sorted(produced, key=lambda v: order.get(v.task_id or "", len(order)))


def _checked(m: Measure, produced: list[Value]) -> list[Value]:
    names = set(m.names())
    for value in produced:
        if value.measure not in names:
            raise MeasureRefused(
                f"measure {m.name!r} produced a value named {value.measure!r}; it declares "
                f"{', '.join(sorted(names))}"
            )
        if m.scope is Scope.TASK and value.task_id is None:
            raise MeasureRefused(
                f"measure {m.name!r} is task-scope but produced a value without task_id"
            )
    return list(produced)
