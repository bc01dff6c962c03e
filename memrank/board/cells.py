"""What a table cell holds (a value with its interval and rank), what a track's Overall column
is, and what a run page says about the column its run is shown in (its categories, the runs
it is compared with, its undecided values): the pieces of the Board that tables and pages
share, kept apart from the pages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from memrank._basics import UTCDateTime
from memrank.measure import Value

__all__ = [
    "OVERALL_MEASURE",
    "CategoryRow",
    "Cell",
    "Comparison",
    "Interval",
    "Overall",
    "Rank",
    "RunLink",
    "Shown",
    "Undecided",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")

OVERALL_MEASURE = "mean-win-rate"
"""The name an Overall cell's value goes by."""


class Interval(BaseModel):
    """A 95% interval of a mean, clustered: tasks of one group move together."""

    model_config = _FROZEN
    low: float
    high: float
    method: str
    """How it was computed, in words."""
    clusters: int
    """How many independent clusters it rests on."""


class Rank(BaseModel):
    """A tie-aware rank: ``best`` counts the rows significantly better, ``worst`` the rows
    significantly worse from the bottom. Equal when the tests place the row exactly."""

    model_config = _FROZEN
    best: int
    worst: int
    of: int
    """How many rows were ranked together."""

    @property
    def shared(self) -> bool:
        """Whether other rows could hold the same place: the tests do not separate them."""
        return self.best != self.worst

    @property
    def label(self) -> str:
        return str(self.best) if self.best == self.worst else f"{self.best}–{self.worst}"


class Cell(BaseModel):
    """One column's headline for one row: the number, who decided it, and how."""

    model_config = _FROZEN
    value: Value
    """The headline value, with its measure, decider and why."""
    interval: Interval | None = None
    """Its 95% interval; None for a whole-run number or one with fewer than two clusters."""
    bar: float
    """The value's share of the column's largest magnitude, 0 to 1: the score bar's length."""
    run: str | None
    """The run page the value comes from; None for an overall, which combines several."""
    rank: Rank | None = None
    """The row's rank on this column's paired tests."""
    note: str = ""
    """Why a value a reader would take for a bug is what it is (a whole-conversation
    document that no word budget can hold reads 0); empty when nothing needs saying."""


class Overall(BaseModel):
    """A track's Overall column, HELM's mean win rate over its ranking columns (each win
    decided by the column's paired test), or why the track has none."""

    model_config = _FROZEN
    title: str = "Overall"
    measure: str = OVERALL_MEASURE
    columns: tuple[str, ...]
    """The titles of the track's ranking columns, which the Overall combines."""
    covers: int = 0
    """The rows with a decided value on every ranking column: only they are ranked overall,
    each against the others."""
    rows: int = 0
    """Every row of the track."""
    none: str = ""
    """Why the track has no Overall column (one ranking column, or none); empty when it has."""

    @property
    def shown(self) -> bool:
        return not self.none


class RunLink(BaseModel):
    """A run as other pages point at it."""

    model_config = _FROZEN
    path: str
    """The run page."""
    system: str
    """The system's name, as signed."""
    display: str
    """What pages call it: the systems file's display name, else the signed name."""
    version_shown: str
    """The version as pages write it (see ``Row.version_shown``)."""
    version: str | None
    """The system's version; None when the run did not state one."""
    evaluation: str
    issued_at: UTCDateTime
    note: str = ""
    """Why the run is listed where it is, when that needs saying."""
    control: bool = False
    """The run is of a control arm (systems.toml's ``control``), not of a system."""


class Undecided(BaseModel):
    """Tasks of one measure left without a value for one reason (absent is not zero)."""

    model_config = _FROZEN
    measure: str
    why: str
    tasks: int
    """How many tasks this reason covers."""
    examples: tuple[str, ...]
    """The first few of them, by task id."""


class Comparison(NamedTuple):
    """This run against another run of the same column, from the all-pairs test.

    A plain tuple, not a model: a column of 1,000 runs makes some 30,000 of them, each made
    here from numbers the test already checked, and sent between processes: a model costs
    eight times as much to make and more than twice as much to send."""

    other: RunLink
    other_value: float
    difference: float
    """The other's mean minus this run's, over the tasks both decided."""
    p_value: float | None
    """None where no test is possible (no task both decided)."""
    verdict: str
    """``better`` or ``worse`` (the other, at the 5% level), or ``tie`` (not separated)."""


class CategoryRow(BaseModel):
    """A run's headline on one category's tasks."""

    model_config = _FROZEN
    category: str
    label: str
    cell: Cell | None
    """None where the run decided none of the category's tasks (``why`` says why)."""
    tasks: int = 0
    """The category's tasks the mean is over."""
    of: int = 0
    """The category's tasks in the evaluation."""
    why: str = ""
    """Why there is no value, where there is none."""


@dataclass(frozen=True)
class Shown:
    """What a run page says about the column its run is shown in."""

    cell: Cell
    column: str
    categories: tuple[CategoryRow, ...]
    comparisons: tuple[Comparison, ...]
    more_better: int
    """Runs significantly better that the page does not list (beyond the nearest)."""
    more_worse: int
    more_tied: int
    """Runs tied with it that the page does not list (beyond the nearest)."""
    evaluation: str
    undecided: tuple[Undecided, ...] = ()
    """The run's undecided values, per measure and reason (``pages.undecided_of``)."""
    source: str = ""
    """The digest of the column reading it comes from (``ColumnPart.key``)."""
