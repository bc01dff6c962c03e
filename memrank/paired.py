"""memrank.paired(a, b): two results of one evaluation read side by side, task by task.

A lens above the run, not an eighth word: it reads two results and returns a ``Paired``, which
is not a result. It reports means, the gap (B minus A), the tasks whose value flipped, and how
often chance alone splits the tasks that unevenly. It never says "better": the closing line is
part of the reading itself, so the caveat travels with the numbers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, get_args

import numpy as np
from pydantic import BaseModel

from memrank._basics import FROZEN
from memrank._pair_sides import Held, Side, side_of
from memrank._paired_layout import full_layout, one_screen
from memrank._records import SystemRecord
from memrank.errors import PairingRefused, UsageError
from memrank.measures.kinds import declared_binary
from memrank.reruns import differ_note, note, unsure_note
from memrank.stats import ClusteredReading, cluster_codes, paired_reading

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

Closing = Literal[
    "A gap is a gap. Nothing above says which system is better; that depends on what\n"
    "you are buying, and these numbers do not know what that is."
]
CLOSING: Closing = get_args(Closing)[0]
"""The fixed last line of every reading."""
CAUTION = "too few tasks differ to characterise the gap"
FEW_DISCORDANT = 10
"""Below this many differing tasks the reading says so instead of characterising the gap."""


class Flip(BaseModel):
    """A paired task whose value differs between the two results."""

    model_config = FROZEN
    task_id: str
    was: float
    """A's value."""
    now: float
    """B's value."""


class LeftOut(BaseModel):
    """A task both results ran that could not be paired on one measure."""

    model_config = FROZEN
    task_id: str
    why: str
    """Which side had no number, and that side's reason."""


class Table(BaseModel):
    """A binary measure's 2x2 counts over the paired tasks."""

    model_config = FROZEN
    both: int
    """Tasks valued 1 on both sides."""
    neither: int
    """Tasks valued 0 on both sides."""
    only_a: int
    """Tasks valued 1 by A and 0 by B."""
    only_b: int
    """Tasks valued 0 by A and 1 by B."""


class MeasureReading(BaseModel):
    """One task-scope measure read side by side over the tasks both results valued."""

    model_config = FROZEN
    measure: str
    kind: Literal["binary", "continuous"] | None
    """As the measure declares it (recorded on the result); None when no task could be paired."""
    paired: int
    """Tasks valued by both results."""
    mean_a: float | None
    """A's mean over the paired tasks; None when none paired."""
    mean_b: float | None
    gap: float | None
    """mean B minus mean A: a gap, not a verdict."""
    discordant: int
    """Paired tasks whose values differ."""
    table: Table | None = None
    """The 2x2 counts, for a binary measure."""
    test: ClusteredReading | None = None
    """The cluster-aware test and 95% interval of the gap (memrank.stats.paired_reading)."""
    flipped: tuple[Flip, ...] = ()
    """Every paired task whose value differs, in A's task order."""
    left_out: tuple[LeftOut, ...] = ()
    """Tasks both ran whose value is None (or missing) on a side, so not paired."""
    caution: str | None = None
    """Why to lean on the reading less: few clusters, or fewer than 10 paired tasks differ."""


class Paired(BaseModel):
    """Two results of one evaluation read side by side; ``str()`` lays the reading out."""

    model_config = FROZEN
    evaluation: str
    version: str
    a: SystemRecord
    b: SystemRecord
    measures: tuple[MeasureReading, ...]
    """One reading per task-scope measure both results carry, in A's order."""
    tasks_only_in_a: tuple[str, ...] = ()
    """Tasks A ran and B did not; never paired."""
    tasks_only_in_b: tuple[str, ...] = ()
    measures_only_in_a: tuple[str, ...] = ()
    """Task-scope measures only A carries; never paired."""
    measures_only_in_b: tuple[str, ...] = ()
    rerun: str | None = None
    """Set when A and B ran one configuration and still differ: the system is not
    deterministic from run to run, or the integrity checks planted different canaries in the
    two runs (memrank.reruns)."""
    differ: str | None = None
    """Set when A and B ran one system class whose records differ (another endpoint, engine
    version or configuration): the reading compares two systems, not a rerun."""
    unsure: str | None = None
    """Set when A and B have alike records but nothing shows they ran one configuration (no
    version declared, no common probe answers): the reading cannot tell a rerun from another
    system at the same address."""
    notice: Closing = CLOSING
    """The closing line, carried with the numbers wherever they go."""

    def __str__(self) -> str:
        return full_layout(self)

    def layout(self, *, values: bool = False, tasks: bool = False) -> str:
        """The reading for a terminal: one line per measure by default; ``values`` adds each
        measure's test, interval and table, ``tasks`` also each task that flipped or was left
        out (both: exactly ``str()``)."""
        if values or tasks:
            return full_layout(self, tasks=tasks)
        return one_screen(self)


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
