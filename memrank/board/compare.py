"""How a column's runs stand against each other: cells, each run's comparison with every other
run of the column, and the column's evaluation page.

All of it is read off one ``ColumnReading``: the all-pairs test is run once per column, and a
run page's comparison table and the compare-two data are rows of its matrices.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memrank.board import urls
from memrank.board.config import Direction
from memrank.board.model import (
    CategoryRow,
    Cell,
    Comparison,
    EvaluationPage,
    Rank,
    RunLink,
    Shown,
)
from memrank.board.pages import RunLinks, undecided_of
from memrank.board.reading import ColumnReading, Headline
from memrank.stats import LEVEL

__all__ = ["NEAREST", "cell_of", "evaluation_page", "shown_in"]

NEAREST = 10
"""Separated runs a run page lists on each side of it, nearest first; and the tied runs it
lists, nearest in standing first (more ties are counted, not listed: on a crowded board most
close systems tie, and a page listing them all grows with the board)."""


def cell_of(
    headline: Headline, largest: float, run: str | None, rank: Rank | None, note: str = ""
) -> Cell:
    value = headline.value
    return Cell(
        value=value,
        interval=headline.interval,
        bar=abs(value.value) / largest if value.value is not None and largest else 0.0,
        run=run,
        rank=rank,
        note=note,
    )


def evaluation_page(
    track: str,
    reading: ColumnReading,
    cells: Sequence[Cell | None],
    order: Sequence[int],
    links: RunLinks,
    made_from: str,
) -> EvaluationPage:
    """The column's page: its ranked runs best first, per category, with the pair matrices;
    ``made_from`` is the digest of what it is made from (``EvaluationPage.made_from``)."""
    at = {position: index for index, position in enumerate(reading.positions)}
    ranked = set(reading.ranked)
    shown = [at[p] for p in order if p in at and at[p] in ranked]
    slot = {index: k for k, index in enumerate(reading.ranked)}
    keep = [slot[i] for i in shown]
    column = reading.column
    by_category = []
    for i in shown:
        found = reading.by_category[i]
        largest = max(
            (abs(h.value.value) for h in found if h is not None and h.value.value is not None),
            default=0.0,
        )
        by_category.append(
            tuple(None if h is None else cell_of(h, largest, None, None) for h in found)
        )
    return EvaluationPage(
        path=urls.evaluation(track, column.evaluation),
        track=track,
        column=column,
        rows=tuple(links(reading.runs[i]) for i in shown),
        cells=tuple(c for c in (cells[reading.positions[i]] for i in shown) if c is not None),
        categories=reading.categories,
        category_tasks=reading.category_tasks,
        by_category=tuple(by_category),
        notice=reading.notice,
        tasks=reading.tasks,
        clusters=reading.clusters,
        forest_path=urls.evaluation_file(track, column.evaluation, "forest.svg"),
        matrix_path=urls.evaluation_file(track, column.evaluation, "matrix.svg"),
        forest_narrow_path=urls.evaluation_file(track, column.evaluation, "forest-narrow.svg"),
        matrix_narrow_path=urls.evaluation_file(track, column.evaluation, "matrix-narrow.svg"),
        data_path=urls.evaluation_file(track, column.evaluation, "compare.json"),
        pair_differences=_pairs_of(reading.differences, keep),
        pair_p_values=_pairs_of(reading.p_values, keep),
        made_from=made_from,
    )


def shown_in(
    reading: ColumnReading,
    cells: Sequence[Cell | None],
    links: RunLinks,
    track: str,
) -> dict[str, Shown]:
    """What each run of ``reading`` shows on its page, by artifact id."""
    linked = [links(run) for run in reading.runs]
    page = urls.evaluation(track, reading.column.evaluation)
    higher = reading.column.direction is Direction.HIGHER
    # The ranked runs best first (then by link), once: every run page lists its others in it.
    standing = np.array(
        sorted(
            range(len(reading.ranked)),
            key=lambda m: (_signed_value(reading, m, higher), linked[reading.ranked[m]].path),
        ),
        dtype=np.intp,
    )
    slots = {index: k for k, index in enumerate(reading.ranked)}
    listed = _listed(reading, linked, standing)
    shown = {}
    for index, run in enumerate(reading.runs):
        cell = cells[reading.positions[index]]
        assert cell is not None  # every run of a reading has its cell
        k = slots.get(index)
        comparisons, more_better, more_worse, more_tied = (
            listed[k] if k is not None else ((), 0, 0, 0)
        )
        shown[run.artifact_id] = Shown(
            cell=cell,
            column=reading.column.title,
            categories=_categories(reading, index),
            comparisons=comparisons,
            more_better=more_better,
            more_worse=more_worse,
            more_tied=more_tied,
            evaluation=page,
            undecided=undecided_of(run),
        )
    return shown


def _signed_value(reading: ColumnReading, m: int, higher: bool) -> float:
    """The ``m``-th ranked run's headline, negated where higher is better: best sorts first."""
    return -_value(reading, m) if higher else _value(reading, m)


def _categories(reading: ColumnReading, index: int) -> tuple[CategoryRow, ...]:
    found = reading.by_category[index]
    return tuple(
        CategoryRow(
            category=name,
            label=label,
            cell=None
            if headline is None or headline.value.value is None
            else cell_of(headline, 0.0, None, None),
            tasks=0 if headline is None else headline.tasks,
            of=of,
            why=_why_none(headline, reading.column.measure),
        )
        for (name, label), headline, of in zip(
            reading.categories, found, reading.category_tasks, strict=False
        )
    )


def _why_none(headline: Headline | None, measure: str) -> str:
    """Why a category shows no value: the reason its values gave, or that the run has none."""
    if headline is None:
        return f"the run carries no {measure} values"
    return headline.value.why if headline.value.value is None else ""


def _listed(
    reading: ColumnReading, links: Sequence[RunLink], standing: np.ndarray
) -> list[tuple[tuple[Comparison, ...], int, int, int]]:
    """What the page of each ranked run (by its place in ``reading.ranked``) lists against the
    others of ``standing`` (best first), in standing order: the ``NEAREST`` ties nearest to it in
    standing (of two as near, the one above), and the ``NEAREST`` separated ones nearest on each
    side; then how many better, worse and tied ones it leaves out. Listing every other run on
    every run page would grow the site with the square of the runs; the evaluation page's
    compare-two and matrix hold every pair. Array operations over the whole column at once:
    every run of a column of a thousand asks this of the other 999."""
    runs = len(standing)
    higher = reading.column.direction is Direction.HIGHER
    differences = reading.differences[np.ix_(standing, standing)]  # in standing order
    p_values = reading.p_values[np.ix_(standing, standing)]
    with np.errstate(invalid="ignore"):  # NaN p (nothing to test) is never separated
        separated = (p_values < LEVEL) & (differences != 0)
    better_side = (differences > 0) == higher
    others = ~np.eye(runs, dtype=bool)
    better = separated & better_side & others
    worse = separated & ~better_side & others
    tied = ~separated & others
    place = np.arange(runs)
    # a tie's nearness: twice its distance in standing, plus one below (unique in a row)
    nearness = np.where(
        tied,
        2 * np.abs(place[None, :] - place[:, None]) + (place[None, :] > place[:, None]),
        runs * 2,
    )
    # the NEAREST-th nearest tie of each row (2 * runs where it has fewer: then all of them)
    nearest_tie = (
        np.partition(nearness, NEAREST - 1, axis=1)[:, NEAREST - 1]
        if runs > NEAREST
        else np.full(runs, runs * 2)
    )
    kept = (
        (better & (np.cumsum(better[:, ::-1], axis=1)[:, ::-1] <= NEAREST))
        | (worse & (np.cumsum(worse, axis=1) <= NEAREST))
        | (tied & (nearness <= nearest_tie[:, None]))
    )
    rows, columns = np.nonzero(kept)  # row by row, each in standing order
    verdicts = np.where(
        separated[rows, columns], np.where(better_side[rows, columns], "better", "worse"), "tie"
    )
    values = [_value(reading, m) for m in range(runs)]
    made = [
        Comparison(
            other=links[reading.ranked[m]],
            other_value=values[m],
            difference=difference,
            p_value=None if p != p else p,  # NaN: no test possible
            verdict=verdict,
        )
        for m, difference, p, verdict in zip(
            standing[columns].tolist(),
            differences[rows, columns].tolist(),
            p_values[rows, columns].tolist(),
            verdicts.tolist(),
            strict=True,
        )
    ]
    bounds = np.searchsorted(rows, np.arange(runs + 1)).tolist()
    left_out = [
        np.maximum(found.sum(axis=1) - NEAREST, 0).tolist() for found in (better, worse, tied)
    ]
    listed: list[tuple[tuple[Comparison, ...], int, int, int]] = [((), 0, 0, 0)] * runs
    for i, k in enumerate(standing.tolist()):
        comparisons = tuple(made[bounds[i] : bounds[i + 1]])
        listed[k] = (comparisons, left_out[0][i], left_out[1][i], left_out[2][i])
    return listed


def _value(reading: ColumnReading, m: int) -> float:
    value = reading.headlines[reading.ranked[m]].value.value
    assert value is not None  # a ranked run decided at least one task
    return value


def _pairs_of(matrix: np.ndarray, keep: Sequence[int]) -> bytes:
    """The rows and columns ``keep`` of a pair matrix, in that order, as float64 bytes."""
    return np.ascontiguousarray(matrix[np.ix_(keep, keep)], dtype=np.float64).tobytes()
