"""Driving isolation units: one after another, or several at once for a memory that hands
out a handle per unit (``Memory.for_unit``), always reporting outcomes in unit order.

A unit an earlier attempt stopped part way through comes back from ``run_unit`` as a
``PartDone`` (a journal being resumed hands it out): only its other tasks are run, on the
unit's documents told afresh, and the two outcomes are joined.

Units run at once run on daemon threads, and a stop (Ctrl-C, a signal, a failure limit, any
error in one unit) is not waited out: the driver raises at once, no unit starts after it, and
each unit in flight is abandoned at its next call (``memrank._inflight.stopped_by``). A call
already on the wire is left to end on its own, so a stopped run exits within moments however
slowly its endpoint answers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from memrank._inflight import stopped_by
from memrank.errors import UsageError
from memrank.system import Memory
from memrank.task import Unit

__all__ = ["PartDone", "drive_units", "serves_units_at_once"]

Outcome = TypeVar("Outcome")


@runtime_checkable
class PartDone(Protocol):
    """What an earlier attempt kept of a unit it stopped part way through: the outcome of the
    unit's first tasks (a unit's tasks run in order, so what finished is always its first
    ones)."""

    @property
    def task_ids(self) -> tuple[str, ...]:
        """The ids of the tasks that finished, in order."""

    def completed(self, rest: Any) -> Any:
        """The whole unit's outcome: these tasks, then ``rest``, the outcome of the others."""


def serves_units_at_once(memory: Memory) -> bool:
    """A memory serves units at once when it hands out its own handle per unit."""
    return type(memory).for_unit is not Memory.for_unit


def drive_units(
    memory: Memory,
    units: Sequence[Unit],
    run_unit: Callable[[Unit], Outcome],
    concurrency: int,
) -> list[Outcome]:
    """Each unit's outcome, in unit order, with at most ``concurrency`` units in flight.

    A memory without per-unit handles holds one unit's state at a time, so its units run one
    after another whatever ``concurrency`` says; that keeps in-process systems exactly as
    they were.
    """
    finishing = _finishing(run_unit)
    if concurrency == 1 or len(units) < 2 or not serves_units_at_once(memory):
        return [finishing(unit) for unit in units]
    return _at_once(units, finishing, min(concurrency, len(units)))


def _finishing(run_unit: Callable[[Unit], Outcome]) -> Callable[[Unit], Outcome]:
    """``run_unit``, which runs only the tasks a unit handed back part done still lacks."""

    def finished(unit: Unit) -> Outcome:
        outcome = run_unit(unit)
        if not isinstance(outcome, PartDone):
            return outcome
        done = outcome.task_ids
        if tuple(task.id for task in unit.tasks[: len(done)]) != done:
            raise UsageError(
                f"the stopped run finished tasks of unit {unit.name!r} that are not its first "
                f"{len(done)} now (its tasks were planted otherwise); start a new run"
            )
        rest = unit.model_copy(update={"tasks": unit.tasks[len(done) :]})
        joined: Outcome = outcome.completed(run_unit(rest))
        return joined

    return finished


def _at_once(
    units: Sequence[Unit], run_unit: Callable[[Unit], Outcome], workers: int
) -> list[Outcome]:
    """Each unit's outcome, ``workers`` units at a time; the first error (or an interrupt of
    the calling thread) stops them all and is raised without waiting for the units in flight."""
    stop = threading.Event()
    changed = threading.Condition()
    queue = iter(enumerate(units))
    outcomes: dict[int, Outcome] = {}
    errors: list[BaseException] = []

    def work() -> None:
        with stopped_by(stop):
            while not stop.is_set():
                with changed:
                    taken = next(queue, None)
                if taken is None:
                    return
                index, unit = taken
                try:
                    outcome = run_unit(unit)
                except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
                    with changed:
                        if not stop.is_set():  # after a stop, what a unit meets is moot
                            errors.append(exc)
                            stop.set()
                        changed.notify()
                    return
                with changed:
                    outcomes[index] = outcome
                    changed.notify()

    for number in range(workers):
        threading.Thread(target=work, name=f"memrank-unit-{number}", daemon=True).start()
    try:
        with changed:
            while len(outcomes) < len(units) and not errors:
                changed.wait()
    finally:
        stop.set()  # on an interrupt too: no unit starts, and those in flight send no more
    if errors:
        raise errors[0]
    return [outcomes[index] for index in range(len(units))]
