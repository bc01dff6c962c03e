"""What a table cell holds (a value with its interval and rank) and what a track's Overall
column is: the pieces of the Board that every table shares, kept apart from the pages."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from memrank.measure import Value

__all__ = ["OVERALL_MEASURE", "Cell", "Interval", "Overall", "Rank"]

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
