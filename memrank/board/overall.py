"""A track's Overall column, as the Agent Memory Leaderboard shows one: HELM's mean win rate
over the track's ranking columns.

On each ranking column a system wins against another when the column's paired test (the one
its rank labels read, ``memrank.stats.wins``) separates the two at the 5% level and its mean is
the better; a tie is not a win. Only the systems with a decided value on every ranking column
are ranked overall, each against the others, so every one of them meets the same opponents on
every column; its Overall is its wins over all the columns it could have won. Nothing is drawn
or weighted: the number follows from the tests the evaluation pages already show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from memrank.board.cells import OVERALL_MEASURE, Cell, Overall
from memrank.board.config import Column, Direction, TrackConfig
from memrank.board.model import EvaluationPage, Row
from memrank.measure import Decider, Value
from memrank.stats import wins

__all__ = ["overall_of"]


def overall_of(
    track: TrackConfig, rows: Sequence[Row], pages: Mapping[str, EvaluationPage]
) -> tuple[Overall, list[Cell | None]]:
    """The track's Overall column and each row's cell in it (None for every row of a track
    that has no Overall); ``pages`` are the track's evaluation pages by evaluation name."""
    ranking = track.ranking_columns
    titles = tuple(column.title for column in ranking)
    if len(ranking) < 2:
        return Overall(columns=titles, rows=len(rows), none=_no_overall(titles)), [None] * len(rows)
    at = [track.columns.index(column) for column in ranking]
    covered = [i for i, row in enumerate(rows) if all(_ranked(row.cells[k]) for k in at)]
    ranked = set(covered)
    per_column = []
    for column, k in zip(ranking, at, strict=True) if covered else ():
        page = pages[column.evaluation]  # a column with a ranked cell has its page
        index = {cell.run: n for n, cell in enumerate(page.cells)}
        picked = [index[_run(rows[i].cells[k])] for i in covered]
        means = np.array([page.cells[n].value.value for n in picked], dtype=float)
        p_values = np.array(page.p_values, dtype=float)[np.ix_(picked, picked)]
        found = wins(means, p_values, higher_is_better=column.direction is Direction.HIGHER)
        per_column.append(found)
    opponents = len(covered) - 1
    values = {i: _uncovered(rows[i], ranking, at) for i in range(len(rows)) if i not in ranked}
    for slot, i in enumerate(covered):
        values[i] = _won(titles, [int(found[slot]) for found in per_column], opponents)
    largest = max((v.value for v in values.values() if v.value is not None), default=0.0)
    cells: list[Cell | None] = [
        Cell(
            value=value,
            bar=value.value / largest if value.value is not None and largest else 0.0,
            run=None,
        )
        for value in (values[i] for i in range(len(rows)))
    ]
    return Overall(columns=titles, covers=len(covered), rows=len(rows)), cells


def _no_overall(titles: Sequence[str]) -> str:
    """Why a track with fewer than two ranking columns has no Overall column."""
    if not titles:
        return "No Overall column: this track has no ranking column."
    return (
        f"No Overall column: this track has one ranking column ({titles[0]}), so its rank is "
        "the standing; an Overall combines two or more."
    )


def _ranked(cell: Cell | None) -> bool:
    """Whether the column's paired tests ranked this cell (a decided mean over its tasks)."""
    return cell is not None and cell.value.value is not None and cell.rank is not None


def _run(cell: Cell | None) -> str | None:
    return None if cell is None else cell.run


def _won(titles: Sequence[str], won: Sequence[int], opponents: int) -> Value:
    """A covered row's Overall: its wins on each ranking column over the wins it could have."""
    if not opponents:
        return _none(
            "no other system has a value on every ranking column, so there is no one to win against"
        )
    parts = ", ".join(
        f"{n} of {opponents} on {title}" for n, title in zip(won, titles, strict=True)
    )
    return Value(
        measure=OVERALL_MEASURE,
        decider=Decider.RULE,
        value=sum(won) / (opponents * len(titles)),
        count=sum(won),
        total=opponents * len(titles),
        why=f"won {parts}: the mean win rate over the {len(titles)} ranking columns, against "
        f"the {opponents} other systems with a value on all of them (a win: the paired test "
        "separates the two at the 5% level and this one's mean is the better; a tie is not a "
        "win)",
    )


def _uncovered(row: Row, ranking: Sequence[Column], at: Sequence[int]) -> Value:
    """Why ``row`` is not ranked overall: the first ranking column it has no ranked value on."""
    missing = next(
        (column, row.cells[k])
        for column, k in zip(ranking, at, strict=True)
        if not _ranked(row.cells[k])
    )
    column, cell = missing
    lacks = "no accepted run" if cell is None else "no value its paired test ranks"
    return _none(f"{lacks} on {column.title}, so it is not ranked overall")


def _none(why: str) -> Value:
    return Value(measure=OVERALL_MEASURE, decider=Decider.RULE, value=None, why=why)
