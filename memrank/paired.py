"""memrank.paired(a, b): two results of one evaluation read side by side, task by task.

A lens above the run, not an eighth word: it reads two results and returns a ``Paired``, which
is not a result. It reports means, the gap (B minus A), the tasks whose value flipped, and how
often chance alone splits the tasks that unevenly. It never says "better": the closing line is
part of the reading itself, so the caveat travels with the numbers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from memrank._pair_sides import Held, Side, side_of
from memrank._paired_reading import (
    CAUTION,
    CLOSING,
    FEW_DISCORDANT,
    Flip,
    LeftOut,
    MeasureReading,
    Paired,
    Table,
)
from memrank.errors import PairingRefused, UsageError
from memrank.measures.kinds import declared_binary
from memrank.reruns import differ_note, note, unsure_note
from memrank.stats import cluster_codes, paired_reading

if TYPE_CHECKING:
    from memrank.result import Result

__all__ = [
    "CAUTION",
    "CLOSING",
    "Flip",
    "LeftOut",
    "MeasureReading",
    "Paired",
    "Table",
    "paired",
    "paired_sides",
]


def paired(a: Result, b: Result) -> Paired:
    """Read results ``a`` and ``b`` of the same evaluation side by side, task by task.

    Refused (``PairingRefused``) unless both are of the same evaluation at the same version
    and neither run was refused. Only task-scope values pair. Each measure is tested as its
    measure declares it (binary or continuous), with clusters from the tasks' groups.
    """
    from memrank.result import Result

    for label, result in (("A", a), ("B", b)):
        if not isinstance(result, Result):
            raise UsageError(
                f"memrank.paired reads two Results; {label} is a {type(result).__name__} "
                "(load a saved one with Result.load)"
            )
    return paired_sides(side_of(a, "A"), side_of(b, "B"))


def paired_sides(a: Side, b: Side) -> Paired:
    """``paired`` of two sides however they were read (memrank._pair_sides)."""
    _check_pairable(a, b)
    values_a, values_b = a.values, b.values
    shared = [task for task in a.tasks if task in b.tasks]
    clusters = {**b.tasks, **a.tasks}
    binary = set(declared_binary(a.evaluation)) & set(declared_binary(b.evaluation))
    readings = []
    for measure, held_a in values_a.items():
        if measure in values_b:
            held_b = values_b[measure]
            readings.append(
                _read(measure, shared, held_a, held_b, clusters, binary=measure in binary)
            )
    return Paired(
        evaluation=a.evaluation.name,
        version=a.evaluation.version,
        a=a.system,
        b=b.system,
        measures=tuple(readings),
        tasks_only_in_a=tuple(task for task in a.tasks if task not in b.tasks),
        tasks_only_in_b=tuple(task for task in b.tasks if task not in a.tasks),
        measures_only_in_a=tuple(m for m in values_a if m not in values_b),
        measures_only_in_b=tuple(m for m in values_b if m not in values_a),
        rerun=note(
            (a.system, a.evaluation, a.by_task),
            (b.system, b.evaluation, b.by_task),
            checks=(a.checks, b.checks),
        ),
        differ=differ_note((a.system, a.evaluation), (b.system, b.evaluation)),
        unsure=unsure_note((a.system, a.evaluation), (b.system, b.evaluation)),
    )


def _check_pairable(a: Side, b: Side) -> None:
    for result in (a, b):
        if result.refusal is not None:
            raise PairingRefused(
                f"result {result.label} ({result.system.name} on {result.evaluation.name}) was "
                f"refused ({result.refusal}); a refused run has no values to pair"
            )
    if a.evaluation.name != b.evaluation.name:
        raise PairingRefused(
            f"result A is of evaluation {a.evaluation.name!r} and result B of "
            f"{b.evaluation.name!r}; a paired reading needs two results of the same evaluation"
        )
    if a.evaluation.version != b.evaluation.version:
        raise PairingRefused(
            f"result A is of {a.evaluation.name} at {a.evaluation.version!r} and result B at "
            f"{b.evaluation.version!r}; tasks of two versions are not the same tasks, so run "
            "both at one version"
        )
    if a.evaluation.slice != b.evaluation.slice:

        def named(result: Side) -> str:
            return f"slice {result.evaluation.slice!r}" if result.evaluation.slice else "in full"

        raise PairingRefused(
            f"result A is of {a.evaluation.name} {named(a)} and result B {named(b)}; a slice "
            "pairs only with a run of the same slice"
        )


def _read(
    measure: str,
    shared: list[str],
    held_a: dict[str, Held],
    held_b: dict[str, Held],
    clusters: dict[str, str | None],
    *,
    binary: bool,
) -> MeasureReading:
    tasks: list[str] = []
    numbers_a: list[float] = []
    numbers_b: list[float] = []
    # Flips and left-out tasks go to MeasureReading as dicts: pydantic makes the thousands of
    # models of a reading in one validation, much faster than one constructor call each.
    left_out: list[dict[str, str]] = []
    for task in shared:
        one, other = held_a.get(task), held_b.get(task)
        if one is None and other is None:
            continue  # valued by neither side: not this measure's business (its scope skips it)
        number_a = None if one is None else one[0]
        number_b = None if other is None else other[0]
        if number_a is not None and number_b is not None:
            tasks.append(task)
            numbers_a.append(number_a)
            numbers_b.append(number_b)
        else:
            left_out.append({"task_id": task, "why": _why_unpaired(one, other)})
    if not tasks:
        return MeasureReading(
            measure=measure,
            kind=None,
            paired=0,
            mean_a=None,
            mean_b=None,
            gap=None,
            discordant=0,
            left_out=left_out,
            caution=CAUTION,
        )
    a = np.array(numbers_a, dtype=float)
    b = np.array(numbers_b, dtype=float)
    codes = cluster_codes([clusters.get(task) for task in tasks])
    test = paired_reading(a, b, codes, binary=binary)
    differ = np.flatnonzero(a != b)
    few = CAUTION if len(differ) < FEW_DISCORDANT else None
    return MeasureReading(
        measure=measure,
        kind="binary" if binary else "continuous",
        paired=len(tasks),
        mean_a=test.mean_a,
        mean_b=test.mean_b,
        gap=test.difference,
        discordant=len(differ),
        table=_table(a, b) if binary else None,
        test=test,
        flipped=_flips(tasks, a, b, differ),
        left_out=left_out,
        caution="; ".join(c for c in (test.caution, few) if c) or None,
    )


def _flips(
    tasks: list[str], a: np.ndarray, b: np.ndarray, differ: np.ndarray
) -> list[dict[str, str | float]]:
    was, now = a.tolist(), b.tolist()
    return [{"task_id": tasks[i], "was": was[i], "now": now[i]} for i in differ.tolist()]


def _table(a: np.ndarray, b: np.ndarray) -> Table:
    a_one, b_one = a == 1, b == 1
    return Table(
        both=int(np.sum(a_one & b_one)),
        neither=int(np.sum(~a_one & ~b_one)),
        only_a=int(np.sum(a_one & ~b_one)),
        only_b=int(np.sum(~a_one & b_one)),
    )


def _why_unpaired(a: Held | None, b: Held | None) -> str:
    return "; ".join(
        f"{side} has no value" if held is None else f"{side} None: {held[1]}"
        for side, held in (("A", a), ("B", b))
        if held is None or held[0] is None
    )
