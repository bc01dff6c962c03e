"""Driving a system through an evaluation's units: one timed call per task, one trace per task,
whatever happens; a failure is recorded with the step it broke at and the run goes on.

An ``Observer`` sees each trace as its task finishes and each unit as it completes, and may hand
back units already done (a journal being resumed) so they are not run again.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple, Protocol

from memrank._basics import elapsed_ms, now_utc, tick
from memrank._units import drive_units
from memrank.evaluation import Evaluation
from memrank.integrity.canaries import is_canary
from memrank.integrity.guard import EndpointGuard
from memrank.integrity.told import ToldIndex
from memrank.result import ClearingRecord
from memrank.system import Assistant, Memory, Model, Recall, Retriever, System, takes_options
from memrank.task import Task, Unit
from memrank.trace import Answered, Declared, Failure, Given, Step, Trace

__all__ = ["Observer", "UnitOutcome", "clearing_record", "drive"]

_MESSAGE_CAP = 2000
_NOTHING_DECLARED = Declared()  # shared: most systems declare nothing, and it is frozen
_RANKED = frozenset({Step.RETRIEVE, Step.RANK})


class UnitOutcome(NamedTuple):
    """What one isolation unit produced: its traces and whether cleanup was observed."""

    traces: list[Trace]
    observed: bool | None
    problem: str | None


class Observer(Protocol):
    """Watches a run as it goes (progress, a journal)."""

    def done(self, unit: str) -> UnitOutcome | None:
        """The outcome of ``unit`` from an earlier attempt, or None to run it."""

    def task_finished(self, trace: Trace) -> None:
        """Called as each task's trace is made; may be called from several threads at once."""

    def unit_finished(self, unit: str, outcome: UnitOutcome) -> None:
        """Called once per unit run here, when all its tasks and its cleanup are done."""


def drive(
    system: System,
    evaluation: Evaluation,
    concurrency: int,
    observer: Observer | None,
    guard: EndpointGuard | None = None,
) -> tuple[list[Trace], ClearingRecord]:
    """Every task's trace in evaluation order, and the clearing record of the run.

    With a ``guard`` (a memory reached over the network), each unit carries its canaries and
    everything sent passes through the guard (memrank.integrity.guard)."""
    units = list(evaluation.units())
    if isinstance(system, Memory):
        if guard is not None:
            units = guard.planted(units)
        run_id = f"run_{os.urandom(6).hex()}"  # fresh per run: a service without delete needs it
        step: Callable[[Unit], UnitOutcome] = partial(
            _run_unit,
            system,
            run_id=run_id,
            evaluation=evaluation.name,
            k=evaluation.k,
            guard=guard,
        )
        serve: Callable[..., list[UnitOutcome]] = partial(drive_units, system)
    else:
        step = partial(_ask_stateless, system, k=evaluation.k)
        serve = _one_after_another
    outcomes = serve(units, _observed(step, observer), concurrency)
    traces = [trace for outcome in outcomes for trace in outcome.traces]
    if not isinstance(system, Memory):
        return traces, ClearingRecord(
            rule=evaluation.clearing,
            units=len(units),
            observed=None,
            why=f"a {system.kind} keeps no state between calls; there is nothing to clear",
        )
    return traces, clearing_record(evaluation, len(units), outcomes)


def _one_after_another(
    units: list[Unit], step: Callable[[Unit], UnitOutcome], concurrency: int
) -> list[UnitOutcome]:
    return [step(unit) for unit in units]


def _observed(
    step: Callable[..., UnitOutcome], observer: Observer | None
) -> Callable[[Unit], UnitOutcome]:
    if observer is None:
        return lambda unit: step(unit, on_trace=None)

    def observed_step(unit: Unit) -> UnitOutcome:
        earlier = observer.done(unit.name)
        if earlier is not None:
            return earlier
        outcome = step(unit, on_trace=observer.task_finished)
        observer.unit_finished(unit.name, outcome)
        return outcome

    return observed_step


def _message(exc: BaseException) -> str:
    message = str(exc) or type(exc).__name__
    if len(message) > _MESSAGE_CAP:
        message = message[:_MESSAGE_CAP] + f"... ({len(message) - _MESSAGE_CAP} characters cut)"
    return message


def _failure(step: Step, exc: BaseException) -> Failure:
    return Failure(step=step, message=_message(exc), type=type(exc).__name__)


def _run_unit(
    root: Memory,
    unit: Unit,
    *,
    run_id: str,
    evaluation: str,
    k: int,
    guard: EndpointGuard | None,
    on_trace: Callable[[Trace], None] | None,
) -> UnitOutcome:
    """Prepare, give the unit's documents once, ask each task, clean up; on the unit's handle."""
    given = Given(unit=unit.name, document_ids=tuple(d.id for d in unit.documents))
    started = now_utc()
    setup_ms: dict[str, float] = {}
    broken: Failure | None = None
    fresh: str | None = None
    system = root
    wire_unit = unit.name if guard is None else guard.unit(unit.name)
    told = None if guard is None else guard.told(unit)
    try:
        scope = (run_id, evaluation) if guard is None else guard.scope(run_id, evaluation)
        system = root.for_unit(*scope)
        clock = tick()
        system.prepare(wire_unit)
        setup_ms["prepare"] = elapsed_ms(clock)
        fresh = system.state_fingerprint()
    except Exception as exc:  # noqa: BLE001 - a system's failure is recorded, never raised
        broken = _failure(Step.PREPARE, exc)
    if broken is None and unit.documents:
        try:
            sent = list(unit.documents) if guard is None else guard.documents(unit.documents)
            clock = tick()
            system.ingest(sent)
            setup_ms["ingest"] = elapsed_ms(clock)
        except Exception as exc:  # noqa: BLE001
            broken = _failure(Step.INGEST, exc)

    traces = []
    offers_options = takes_options(system)
    for position, task in enumerate(unit.tasks):
        timings = dict(setup_ms) if position == 0 else {}
        if broken is not None:
            trace = _trace(task, given, started, timings, error=broken)
        else:
            options = {"options": task.options} if offers_options and task.options else {}
            call = partial(
                system.retrieve, task.prompt, k, wire_unit, query_timestamp=task.asked_at, **options
            )
            trace = _ask(system, task, given, timings, Step.RETRIEVE, call, k, guard, told)
        traces.append(trace)
        if on_trace is not None:
            on_trace(trace)

    try:
        system.cleanup()
    except Exception as exc:  # noqa: BLE001
        return UnitOutcome(
            traces, False, f"cleanup of {unit.name!r} raised {type(exc).__name__}: {_message(exc)}"
        )
    after = system.state_fingerprint()
    if fresh is None or after is None:
        return UnitOutcome(traces, None, None)
    if after != fresh:
        return UnitOutcome(
            traces,
            False,
            f"after cleanup of {unit.name!r} the state fingerprint was {after!r}, not {fresh!r}",
        )
    return UnitOutcome(traces, True, None)


def _ask_stateless(
    system: System, unit: Unit, *, k: int, on_trace: Callable[[Trace], None] | None
) -> UnitOutcome:
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
        trace = _ask(system, task, given, {}, step, call, k)
        traces.append(trace)
        if on_trace is not None:
            on_trace(trace)
    return UnitOutcome(traces, None, None)


def _ask(
    system: System,
    task: Task,
    given: Given,
    timings: dict[str, float],
    step: Step,
    call: Callable[[], Any],
    k: int,
    guard: EndpointGuard | None = None,
    told: ToldIndex | None = None,
) -> Trace:
    """Make one timed call for one task and record it, whatever happens; with a ``guard``, the
    recall's opaque names mapped back and its documents checked against what ``told`` holds."""
    started = now_utc()
    recalled: Recall | None = None
    answered: Answered | None = None
    foreign: tuple[int, ...] = ()
    planted: tuple[int, ...] = ()
    try:
        clock = tick()
        returned = call()
        took = elapsed_ms(clock)
        if step in _RANKED:
            recalled = _checked_recall(returned, k, step)
            if guard is not None and told is not None:
                recalled = guard.received(recalled)
                if not is_canary(task):
                    recalled, planted = guard.unplanted(recalled)
                foreign = told.foreign_ranks(recalled.documents)
        else:
            answered = _checked_answer(returned, step)
        timings = {**timings, step: took}  # a StrEnum: the step's name as a key
        declared = _declared(system)
    except Exception as exc:  # noqa: BLE001 - one trace per task, always
        return _trace(task, given, started, timings, error=_failure(step, exc))
    return _trace(
        task,
        given,
        started,
        timings,
        recalled=recalled,
        answered=answered,
        declared=declared,
        foreign=foreign,
        planted=planted,
    )


def _declared(system: System) -> Declared:
    usage, timings, fingerprint = (
        system.usage(),
        system.engine_timings(),
        system.state_fingerprint(),
    )
    if usage is None and timings is None and fingerprint is None:
        return _NOTHING_DECLARED
    return Declared(usage=usage, engine_timings_ms=timings, state_fingerprint=fingerprint)


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


def clearing_record(
    evaluation: Evaluation, units: int, outcomes: list[UnitOutcome]
) -> ClearingRecord:
    """What the units' cleanups showed, as one record (a merge of shards reads it too)."""
    problems = [o.problem for o in outcomes if o.problem]
    observations = [o.observed for o in outcomes]
    if problems:
        observed, why = False, "; ".join(problems)
    elif observations and all(o is True for o in observations):
        observed, why = (
            True,
            f"every cleanup returned the state fingerprint to where it began ({units} unit(s))",
        )
    else:
        observed, why = (
            None,
            "the system declares no state fingerprint, so clearing could not be observed",
        )
    return ClearingRecord(rule=evaluation.clearing, units=units, observed=observed, why=why)
