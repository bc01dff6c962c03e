"""run(): put an evaluation's tasks to a system and record what happened; measure(): score later.

The run refuses before touching the system when it cannot be run as asked (memrank._run_check).
Otherwise every task yields exactly one trace, whether the system answered or raised
(memrank._drive); memrank times every call at its own boundary. Measures are applied in order
(memrank._apply).
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from memrank._apply import apply, measures_of
from memrank._basics import now_utc
from memrank._collector import collector_paused
from memrank._drive import Observer, drive
from memrank._run_check import refusal, unreadable
from memrank.errors import MeasureRefused, UsageError
from memrank.evaluation import Evaluation
from memrank.integrity.canaries import is_canary
from memrank.integrity.guard import EndpointGuard
from memrank.integrity.names import WireNames
from memrank.integrity.verdict import judge, with_verdict
from memrank.measure import Measure, binary_names
from memrank.measures.kinds import declared_binary
from memrank.provenance import capture
from memrank.result import EvaluationRecord, Result, SystemRecord
from memrank.system import Memory, System
from memrank.trace import Trace, hold_traces

if TYPE_CHECKING:
    from memrank.answer import AnswerStage

__all__ = ["measure", "run"]


def run(
    system: object,
    evaluation: Evaluation,
    *,
    concurrency: int = 4,
    observer: Observer | None = None,
    started: datetime | None = None,
    answer: AnswerStage | None = None,
    secret: bytes | None = None,
    canaries: bool = True,
    tell: Callable[[str], None] | None = None,
) -> Result:
    """Run ``evaluation`` against ``system``; returns a Result, refused or measured.

    ``concurrency`` bounds how many isolation units run at once for a memory that hands out
    a handle per unit (a client of a running service); every other system runs its units one
    after another, whatever it says. ``observer`` watches the run as it goes and may supply
    units already done (a journal being resumed, which also gives the original ``started``).
    ``answer`` (memrank.answer.AnswerStage) answers what a memory or retriever recalled and
    adds its protocol's measures.

    A memory reached over the network (an endpoint) is guarded (memrank.integrity): opaque
    names on the wire, canaries among its tasks, credit only for what its units were told, and
    a verdict in ``result.integrity``. ``secret`` (16 bytes) is the run's secret when a run is
    resumed; left out, a fresh one is drawn. ``canaries=False`` plants none (a retry of a run's
    failed tasks, whose own canaries stand for it: memrank.runs.merge re-judges the whole).
    ``tell`` is told each stage after the last unit as it starts (answering, measuring): a
    judged run spends minutes there.
    """
    if concurrency < 1:
        raise UsageError(f"concurrency is {concurrency}; give 1 or more units at once")
    started = started or now_utc()
    measures = measures_of(evaluation, answer)
    evaluation_record = EvaluationRecord.of(evaluation, measures)
    refused = refusal(system, evaluation, measures, answered=answer is not None)
    if refused is not None:
        return Result(
            system=_record_of(system, touched=False),
            evaluation=evaluation_record,
            refusal=refused,
            started=started,
            finished=now_utc(),
            provenance=capture(evaluation),
        )
    assert isinstance(system, System)
    # Everything alive now (the evaluation, its documents) is set aside from the cyclic
    # collector while the run adds its traces, and the traces too while they are measured: it
    # would walk all of it again and again for nothing. The collector still runs for what each
    # stage makes, so a long run of a service client that leaves reference cycles behind does
    # not grow without bound.
    guard = _guard_of(system, secret, canaries)
    gc.freeze()
    try:
        traces, clearing = drive(system, evaluation, concurrency, observer, guard)
        gc.freeze()
        traces = hold_traces(traces, evaluation.budget)
        canary_traces: list[Trace] = []
        if guard is not None:
            canary_traces = [t for t in traces if is_canary(t.task)]
            traces = [t for t in traces if not is_canary(t.task)]
        said = tell or (lambda _: None)
        if answer is not None:
            said(f"answering:  {len(traces)} task(s) from what was recalled")
            traces = answer.answer(traces)
        said(f"measuring:  {len(traces)} trace(s) by {len(measures)} measure(s)")
        with collector_paused():  # the values: tens of thousands of objects, all kept
            values = tuple(apply(measures, traces, ()))
            integrity = None
            if guard is not None:
                canary_values = apply(measures_of(evaluation, None), canary_traces, ())
                integrity = judge(
                    guard.secret, evaluation.headline, traces, values, canary_traces, canary_values
                )
                values = with_verdict(values, integrity)
        return Result(
            system=_record_of(system, touched=True),
            evaluation=evaluation_record,
            clearing=clearing,
            traces=tuple(traces),
            values=values,
            started=started,
            finished=now_utc(),
            provenance=capture(evaluation),
            integrity=integrity,
        )
    finally:
        gc.unfreeze()


def _guard_of(system: System, secret: bytes | None, canaries: bool) -> EndpointGuard | None:
    """The guard of a memory reached over the network; None for one that runs in-process."""
    if not isinstance(system, Memory) or system.transport == "in-process":
        return None
    names = WireNames(secret) if secret is not None else WireNames.fresh()
    return EndpointGuard(names, canaries=canaries)


def measure(result: Result, *measures: Measure) -> Result:
    """Apply measures to a stored result's traces; the system is never touched again."""
    if result.refusal is not None:
        raise MeasureRefused(f"the run was refused ({result.refusal}); it has no traces to measure")
    answered = any(t.answered is not None for t in result.traces)
    problem = unreadable(
        measures, result.system.kind, {v.measure for v in result.values}, answered=answered
    )
    if problem:
        raise MeasureRefused(problem)
    added = apply(measures, list(result.traces), result.values)
    return result.model_copy(
        update={
            "values": result.values + tuple(added),
            "evaluation": result.evaluation.model_copy(
                update={
                    "measures": result.evaluation.measures + tuple(m.name for m in measures),
                    "binary": declared_binary(result.evaluation) + binary_names(measures),
                }
            ),
        }
    )


def _record_of(system: object, *, touched: bool) -> SystemRecord:
    if not isinstance(system, System):
        return SystemRecord(name=type(system).__name__, kind="unknown")
    return SystemRecord(
        name=type(system).__name__,
        declared_name=system.name,
        kind=system.kind,
        version=system.version,
        engine_version=system.engine_version,
        declared_version=system.declared_version() if touched else None,
        transport=system.transport,
        components=system.components() if touched else {},
        options=system.catalog_options,
    )
