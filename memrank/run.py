"""run(): put an evaluation's tasks to a system and record what happened; measure(): score later.

The run refuses before touching the system when it cannot be run as asked. Otherwise every
task yields exactly one trace, whether the system answered or raised; a failure is recorded
with the step it broke at and the run goes on. memrank times every call at its own boundary.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from memrank._clock import elapsed_ms, now_utc, tick
from memrank._units import drive_units
from memrank.budget import hold_traces
from memrank.errors import MeasureRefused, UsageError
from memrank.evaluation import Evaluation, Task, Unit
from memrank.measure import Measure, Scope, Value
from memrank.measures import FailureRate, Latency
from memrank.measures.kinds import binary_names, declared_binary
from memrank.provenance import capture
from memrank.result import ClearingRecord, EvaluationRecord, Result, SystemRecord
from memrank.system import Assistant, Memory, Model, Recall, Retriever, System, takes_options
from memrank.trace import TRACE_FIELDS, Answered, Declared, Failure, Given, Step, Trace

__all__ = ["measure", "run"]

_ALWAYS_PRODUCED = frozenset(TRACE_FIELDS) - {"given", "recalled", "answered"}
_PRODUCED_BY_KIND = {
    "memory": {"given", "recalled"},
    "retriever": {"given", "recalled"},
    "model": {"answered"},
    "assistant": {"given", "answered"},
}
_MESSAGE_CAP = 2000


def run(system: object, evaluation: Evaluation, *, concurrency: int = 4) -> Result:
    """Run ``evaluation`` against ``system``; returns a Result, refused or measured.

    ``concurrency`` bounds how many isolation units run at once for a memory that hands out
    a handle per unit (a client of a running service); every other system runs its units one
    after another, whatever it says.
    """
    if concurrency < 1:
        raise UsageError(f"concurrency is {concurrency}; give 1 or more units at once")
    started = now_utc()
    measures = _with_bookkeeping(evaluation.measures)
    evaluation_record = EvaluationRecord(
        name=evaluation.name,
        version=evaluation.version,
        task_count=len(evaluation.tasks),
        clearing=evaluation.clearing,
        track=evaluation.track,
        k=evaluation.k,
        measures=tuple(m.name for m in measures),
        slice=evaluation.slice,
        binary=binary_names(measures),
        budget=evaluation.budget,
    )
    refusal = _refusal(system, evaluation, measures)
    if refusal is not None:
        return Result(
            system=_record_of(system, touched=False),
            evaluation=evaluation_record,
            refusal=refusal,
            started=started,
            finished=now_utc(),
            provenance=capture(evaluation),
        )
    assert isinstance(system, System)
    traces, clearing = _drive(system, evaluation, concurrency)
    traces = hold_traces(traces, evaluation.budget)
    return Result(
        system=_record_of(system, touched=True),
        evaluation=evaluation_record,
        clearing=clearing,
        traces=tuple(traces),
        values=tuple(_apply(measures, traces, ())),
        started=started,
        finished=now_utc(),
        provenance=capture(evaluation),
    )


def measure(result: Result, *measures: Measure) -> Result:
    """Apply measures to a stored result's traces; the system is never touched again."""
    if result.refusal is not None:
        raise MeasureRefused(f"the run was refused ({result.refusal}); it has no traces to measure")
    problem = _unreadable(measures, result.system.kind, {v.measure for v in result.values})
    if problem:
        raise MeasureRefused(problem)
    added = _apply(measures, list(result.traces), result.values)
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


# -- refusals ------------------------------------------------------------------------------------


def _with_bookkeeping(measures: Sequence[Measure]) -> tuple[Measure, ...]:
    """The evaluation's measures, then memrank's own clock and bookkeeping unless already named."""
    named = {m.name for m in measures}
    extra = [m for m in (Latency(), FailureRate()) if m.name not in named]
    return (*measures, *extra)


def _refusal(system: object, evaluation: Evaluation, measures: Sequence[Measure]) -> str | None:
    kinds = (Memory, Model, Retriever, Assistant)
    if not isinstance(system, kinds):
        return (
            f"{type(system).__name__} is not a kind memrank knows; subclass memrank.Memory, "
            "memrank.Model, memrank.Retriever or memrank.Assistant"
        )
    missing = [verb for verb in system.verbs if _lacks(type(system), verb)]
    if missing:
        return (
            f"{type(system).__name__} is a {system.kind} but does not implement "
            f"{', '.join(missing)}; a {system.kind} needs {', '.join(system.verbs)}"
        )
    if evaluation.has_documents and not system.can_be_told:
        return (
            f"evaluation {evaluation.name!r} carries documents and a {system.kind} has no verb "
            "to be told things with; use a Memory, Retriever or Assistant"
        )
    return _unreadable(measures, system.kind, set())


def _lacks(cls: type, verb: str) -> bool:
    method = getattr(cls, verb, None)
    return not callable(method) or getattr(method, "__isabstractmethod__", False)


def _unreadable(measures: Sequence[Measure], kind: str, value_names: set[str]) -> str | None:
    """Why a measure cannot run: it reads a name nothing in the run produces before it."""
    fields = _ALWAYS_PRODUCED | _PRODUCED_BY_KIND.get(kind, set())
    available = set(value_names)
    for m in measures:
        unknown = [name for name in m.reads if name not in fields and name not in available]
        if unknown:
            return (
                f"measure {m.name!r} reads {', '.join(map(repr, unknown))}, which nothing in this "
                f"run produces; a {kind} run has trace fields {', '.join(sorted(fields))}"
                + (
                    f" and values {', '.join(sorted(available))}"
                    if available
                    else " and no values yet"
                )
            )
        available.update(m.names())
    return None


# -- driving the system ----------------------------------------------------------------------------


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
    )


def _message(exc: BaseException) -> str:
    message = str(exc) or type(exc).__name__
    if len(message) > _MESSAGE_CAP:
        message = message[:_MESSAGE_CAP] + f"... ({len(message) - _MESSAGE_CAP} characters cut)"
    return message


def _failure(step: Step, exc: BaseException) -> Failure:
    return Failure(step=step, message=_message(exc), type=type(exc).__name__)


def _drive(
    system: System, evaluation: Evaluation, concurrency: int
) -> tuple[list[Trace], ClearingRecord]:
    traces: list[Trace] = []
    units = list(evaluation.units())
    if not isinstance(system, Memory):
        for unit in units:
            traces.extend(_ask_stateless(system, unit, evaluation.k))
        return traces, ClearingRecord(
            rule=evaluation.clearing,
            units=len(units),
            observed=None,
            why=f"a {system.kind} keeps no state between calls; there is nothing to clear",
        )
    observations: list[bool | None] = []
    problems: list[str] = []
    run_id = f"run_{os.urandom(6).hex()}"  # fresh per run: a service without delete needs it
    run_unit = partial(_run_unit, system, run_id=run_id, evaluation=evaluation.name, k=evaluation.k)
    for unit_traces, observed, problem in drive_units(system, units, run_unit, concurrency):
        traces.extend(unit_traces)
        observations.append(observed)
        if problem:
            problems.append(problem)
    return traces, _clearing_record(evaluation, units, observations, problems)


def _run_unit(
    root: Memory, unit: Unit, *, run_id: str, evaluation: str, k: int
) -> tuple[list[Trace], bool | None, str | None]:
    """Prepare, give the unit's documents once, ask each task, clean up; on the unit's handle."""
    given = Given(unit=unit.name, document_ids=tuple(d.id for d in unit.documents))
    started = now_utc()
    setup_ms: dict[str, float] = {}
    broken: Failure | None = None
    fresh: str | None = None
    system = root
    try:
        system = root.for_unit(run_id, evaluation)
        clock = tick()
        system.prepare(unit.name)
        setup_ms["prepare"] = elapsed_ms(clock)
        fresh = system.state_fingerprint()
    except Exception as exc:  # noqa: BLE001 - a system's failure is recorded, never raised
        broken = _failure(Step.PREPARE, exc)
    if broken is None and unit.documents:
        try:
            clock = tick()
            system.ingest(list(unit.documents))
            setup_ms["ingest"] = elapsed_ms(clock)
        except Exception as exc:  # noqa: BLE001
            broken = _failure(Step.INGEST, exc)

    traces = []
    offers_options = takes_options(system)
    for position, task in enumerate(unit.tasks):
        timings = dict(setup_ms) if position == 0 else {}
        if broken is not None:
            traces.append(_trace(task, given, started, timings, error=broken))
            continue
        options = {"options": task.options} if offers_options and task.options else {}
        call = partial(
            system.retrieve, task.prompt, k, unit.name, query_timestamp=task.asked_at, **options
        )
        traces.append(_ask(system, task, given, timings, Step.RETRIEVE, call, k))

    try:
        system.cleanup()
    except Exception as exc:  # noqa: BLE001
        return (
            traces,
            False,
            f"cleanup of {unit.name!r} raised {type(exc).__name__}: {_message(exc)}",
        )
    after = system.state_fingerprint()
    if fresh is None or after is None:
        return traces, None, None
    if after != fresh:
        return (
            traces,
            False,
            f"after cleanup of {unit.name!r} the state fingerprint was {after!r}, not {fresh!r}",
        )
    return traces, True, None


def _ask_stateless(system: System, unit: Unit, k: int) -> list[Trace]:
    given = Given(unit=unit.name, document_ids=tuple(d.id for d in unit.documents))
    documents = list(unit.documents)
    traces = []
    for task in unit.tasks:
        call: Callable[[], Any]
        if isinstance(system, Retriever):
            step, call = Step.RANK, partial(system.rank, task.prompt, documents, k)
        elif isinstance(system, Assistant):
            step, call = Step.RESPOND, partial(system.respond, task.prompt, documents)
        else:
            assert isinstance(system, Model)
            step, call = Step.COMPLETE, partial(system.complete, task.prompt)
            given = Given(unit=unit.name, document_ids=())
        traces.append(_ask(system, task, given, {}, step, call, k))
    return traces


def _ask(
    system: System,
    task: Task,
    given: Given,
    timings: dict[str, float],
    step: Step,
    call: Callable[[], Any],
    k: int,
) -> Trace:
    """Make one timed call for one task and record it, whatever happens."""
    started = now_utc()
    recalled: Recall | None = None
    answered: Answered | None = None
    try:
        clock = tick()
        returned = call()
        took = elapsed_ms(clock)
        if step in (Step.RETRIEVE, Step.RANK):
            recalled = _checked_recall(returned, k, step)
        else:
            answered = _checked_answer(returned, step)
        timings = {**timings, step.value: took}
        declared = Declared(
            usage=system.usage(),
            engine_timings_ms=system.engine_timings(),
            state_fingerprint=system.state_fingerprint(),
        )
    except Exception as exc:  # noqa: BLE001 - one trace per task, always
        return _trace(task, given, started, timings, error=_failure(step, exc))
    return _trace(
        task, given, started, timings, recalled=recalled, answered=answered, declared=declared
    )


def _checked_recall(returned: object, k: int, step: Step) -> Recall:
    if not isinstance(returned, Recall):
        raise TypeError(f"{step.value} returned {type(returned).__name__}, expected memrank.Recall")
    if len(returned.documents) > k:
        raise ValueError(
            f"{step.value} returned {len(returned.documents)} documents for k={k}; "
            "return at most k, best first (the order is the measurement)"
        )
    return returned


def _checked_answer(returned: object, step: Step) -> Answered:
    if not isinstance(returned, str):
        raise TypeError(f"{step.value} returned {type(returned).__name__}, expected str")
    return Answered(text=returned)


def _trace(
    task: Task, given: Given, started: Any, timings: dict[str, float], **parts: Any
) -> Trace:
    return Trace(
        task=task.model_copy(update={"context": ()}),
        given=given,
        timings_ms=timings,
        started=started,
        finished=now_utc(),
        **parts,
    )


def _clearing_record(
    evaluation: Evaluation, units: list[Unit], observations: list[bool | None], problems: list[str]
) -> ClearingRecord:
    if problems:
        observed, why = False, "; ".join(problems)
    elif observations and all(o is True for o in observations):
        observed, why = (
            True,
            f"every cleanup returned the state fingerprint to where it began ({len(units)} unit(s))",
        )
    else:
        observed, why = (
            None,
            "the system declares no state fingerprint, so clearing could not be observed",
        )
    return ClearingRecord(rule=evaluation.clearing, units=len(units), observed=observed, why=why)


# -- measuring ---------------------------------------------------------------------------------------


def _apply(measures: Sequence[Measure], traces: list[Trace], prior: Sequence[Value]) -> list[Value]:
    """Apply measures in order, each seeing the values of those before it."""
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
