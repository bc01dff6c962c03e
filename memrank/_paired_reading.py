"""What memrank.paired returns: two results of one evaluation read side by side (``Paired``),
one reading per measure, and the reading laid out for a terminal: one line per measure, or
each measure's test, interval and table with the tasks that flipped (``Paired.layout`` and
``str(Paired)``)."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel

from memrank._basics import FROZEN
from memrank._records import SystemRecord
from memrank.stats import ClusteredReading

__all__ = [
    "CAUTION",
    "CLOSING",
    "FEW_DISCORDANT",
    "Flip",
    "LeftOut",
    "MeasureReading",
    "Paired",
    "Table",
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


def _header(reading: Paired) -> list[str]:
    lines = [
        f"{reading.evaluation} at {reading.version}",
        f"  A = {reading.a.name}    B = {reading.b.name}",
    ]
    for label, names in (
        ("tasks only in A", reading.tasks_only_in_a),
        ("tasks only in B", reading.tasks_only_in_b),
        ("measures only in A", reading.measures_only_in_a),
        ("measures only in B", reading.measures_only_in_b),
    ):
        if names:
            lines.append(f"  {label}: {len(names)} ({_some(names)}), not paired")
    if reading.rerun:
        lines.append(f"  rerun: {reading.rerun}")
    if reading.differ:
        lines.append(f"  not a rerun: {reading.differ}")
    if reading.unsure:
        lines.append(f"  cannot tell: {reading.unsure}")
    if not reading.measures:
        lines += ["", "no task-scope measure is carried by both results; nothing to pair"]
    return lines


def full_layout(reading: Paired, *, tasks: bool = True) -> str:
    """Each measure's test, interval and table; with ``tasks``, also each task that flipped or
    was left out (what ``str()`` prints)."""
    lines = _header(reading)
    for measure in reading.measures:
        lines += ["", *_measure_lines(measure, tasks=tasks)]
    lines += ["", reading.notice]
    return "\n".join(lines)


def one_screen(reading: Paired) -> str:
    """One line per measure: paired tasks, both means, the gap, its interval and p."""
    lines = _header(reading)
    width = max([len("measure"), *(len(r.measure) for r in reading.measures)])
    if reading.measures:
        lines += [
            "",
            f"  {'measure':<{width}}  {'paired':>6}  {'mean A':>7}  {'mean B':>7}  "
            f"{'gap':>7}  {'95% interval':>17}  {'p':>8}  differ",
        ]
    for r in reading.measures:
        test = r.test
        interval = (
            f"[{_signed(test.low)}, {_signed(test.high)}]"
            if test is not None and test.low is not None and test.high is not None
            else "none"
        )
        p = "none" if test is None or test.p_value is None else f"{test.p_value:.3g}"
        lines.append(
            f"  {r.measure:<{width}}  {r.paired:>6}  {_plain(r.mean_a):>7}  {_plain(r.mean_b):>7}  "
            f"{_signed(r.gap):>7}  {interval:>17}  {p:>8}  {r.discordant}"
        )
    cautious = sum(1 for r in reading.measures if r.caution)
    if cautious:
        lines.append(f"  caution on {cautious} measure(s): --values says why")
    lines += ["", reading.notice]
    return "\n".join(lines)


def _plain(number: float | None) -> str:
    return "None" if number is None else f"{number:.3f}"


def _measure_lines(r: MeasureReading, *, tasks: bool = True) -> list[str]:
    if r.kind is None:
        lines = [
            f"{r.measure} (0 paired task(s))",
            "  nothing to compare: every task both ran was left out",
        ]
    else:
        counted = "discordant" if r.kind == "binary" else "differ"
        lines = [
            f"{r.measure} ({r.kind}, {r.paired} paired task(s))",
            f"  mean A {r.mean_a:.3f}   mean B {r.mean_b:.3f}   gap {_signed(r.gap)}   "
            f"{r.discordant} {counted}",
        ]
    if r.table is not None:
        t = r.table
        lines.append(f"  both {t.both}  neither {t.neither}  only A {t.only_a}  only B {t.only_b}")
    if r.test is not None:
        lines += _test_lines(r.test)
    if tasks:
        shown = "{:.1f}" if r.kind == "binary" else "{:.3f}"
        lines += [
            f"  flipped: {f.task_id}  {shown.format(f.was)} -> {shown.format(f.now)}"
            for f in r.flipped
        ]
        lines += [f"  left out: {left.task_id}  {left.why}" for left in r.left_out]
    elif r.flipped or r.left_out:
        lines.append(f"  {len(r.flipped)} flipped, {len(r.left_out)} left out: --tasks lists them")
    if r.caution:
        lines.append(f"  caution: {r.caution}")
    return lines


def _test_lines(test: ClusteredReading) -> list[str]:
    p = "none" if test.p_value is None else f"{test.p_value:.3g}"
    lines = [f"  {test.method} over {test.n_clusters} cluster(s): p = {p}"]
    if test.low is None or test.high is None:
        lines.append("  95% interval of the gap: none -- every paired task is in one cluster")
    else:
        lines.append(
            f"  95% interval of the gap [{_signed(test.low)}, {_signed(test.high)}]  "
            f"CR2, t with {test.n_clusters - 1} df"
        )
    return lines


def _signed(number: float | None) -> str:
    # a gap is signed: the sign says which way it runs (B minus A), never which is better
    return f"{number:+.3f}" if number is not None else "None"


def _some(names: tuple[str, ...], shown: int = 5) -> str:
    more = f", and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
