"""One evaluation column of a track read as a whole: every shown run's score column aligned by
task (``memrank.board.tables``), each cell's mean and 95% interval, the all-pairs test that
ranks the rows, and the same per category.

Everything comes from the verified scores files (one column of numbers per measure, with each
task's group and category), never from a result file: the board reads what is signed and
small. Pairs are tested with the fast analytic clustered test over all rows at once, so the
cost grows with the rows' task columns, not with a page per pair.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

import numpy as np

from memrank._forked import in_order, shared
from memrank.artifacts import VerifiedRun
from memrank.board.config import Column, Direction
from memrank.board.memo import NO_MEMO, Memo
from memrank.board.model import Interval, Rank
from memrank.board.pair_memo import PairsKept, afresh, keep_pairs, kept_pairs, tested_pairs
from memrank.board.tables import UNCATEGORISED, TaskTable, table_of
from memrank.board.text import category_order
from memrank.measure import Decider, Value
from memrank.measures.kinds import declared_range
from memrank.stats import (
    FEW_CLUSTERS,
    MeanInterval,
    PairMatrices,
    PairTests,
    RankRange,
    mean_intervals,
    pair_spans,
    tie_aware_ranks,
)
from memrank.stats._dist import distinct

__all__ = [
    "PAIRS_APART_LEAST",
    "ColumnReading",
    "Headline",
    "read_column",
    "read_columns",
]

Made = TypeVar("Made")


@dataclass(frozen=True)
class Headline:
    """One run's number on a column, and its interval when it has task values to rest on."""

    value: Value
    interval: Interval | None
    tasks: int = 0
    """The tasks the value is a mean over (0 for a whole-run value)."""


@dataclass(frozen=True)
class ColumnReading:
    """A column over the rows that have a run on it (``positions`` into the track's rows)."""

    column: Column
    positions: tuple[int, ...]
    runs: tuple[VerifiedRun, ...]
    headlines: tuple[Headline, ...]
    ranks: tuple[Rank | None, ...]
    ranked: tuple[int, ...]
    """Indices (into ``runs``) of the runs that take part in the paired tests."""
    p_values: np.ndarray
    """Two-sided p of every two ranked runs, ``ranked`` order; 1 on the diagonal."""
    differences: np.ndarray
    """Mean over shared tasks of column minus row, ``ranked`` order."""
    tasks: int
    clusters: int
    notice: str | None
    """Why the column cannot separate much, when it cannot."""
    categories: tuple[tuple[str, str], ...]
    """(category, label) in order, when the evaluation's tasks carry categories."""
    category_tasks: tuple[int, ...]
    """How many of the column's tasks each category holds, in the same order."""
    by_category: tuple[tuple[Headline | None, ...], ...]
    """Per run, per category, its headline on that category's tasks: None where the run has
    no value of the measure; a value of None, with the reason, where it decided none."""


PAIRS_APART_LEAST = 600
"""The fewest runs a board's columns hold together for their pair tests to run in a forked
worker while this process reads them: below it, forking costs more than it saves."""


def read_column(
    column: Column, placed: Sequence[VerifiedRun | None], memo: Memo = NO_MEMO
) -> ColumnReading:
    """Read ``column`` over the track's rows; ``placed`` holds each row's run (or None).
    ``memo`` may hold the all-pairs matrices of the same signed scores from an earlier build."""
    return read_columns([(column, placed)], lambda _, reading: reading, memo)[0]


def read_columns(
    wanted: Sequence[tuple[Column, Sequence[VerifiedRun | None]]],
    then: Callable[[int, ColumnReading], Made],
    memo: Memo = NO_MEMO,
) -> list[Made]:
    """``then(i, read_column(...))`` of the ``i``-th (column, placed) of ``wanted``.

    The pair tests, most of a large column's work, need no Python object of a run: on a large
    board each column's tests are cut in parts (``pair_spans``), and a forked worker takes the
    parts in order, reading only the task matrices, while this process works out every
    column's means, then what ``then`` makes of each column as soon as its
    parts are tested. Whenever this process would wait for a part, it tests the next one no
    process has taken (``in_order``), so neither idles: which one is ahead depends on the
    machine (this process's share costs about what the tests of one column do, and a test
    runs slower here, where every page of memory the fork shares is copied as it is first
    written). A pair is tested the same way wherever it falls, so the bytes are the same. A
    column whose pairs the memo mostly holds (``memrank.board.pair_memo``) is tested here,
    and so is a lone column: a fork would only wait."""
    tables = {i: table_of(column, placed) for i, (column, placed) in enumerate(wanted)}
    kept = [
        kept_pairs(memo, table.column, table.binary, table.task_ids, table.clusters)
        for table in tables.values()
    ]
    costly = [
        i
        for i, table in tables.items()
        if kept[i].untested(table.digests) * _FEW_UNTESTED > len(table.decided)
    ]
    held = sum(len(tables[i].runs) for i in costly)
    worth = held >= PAIRS_APART_LEAST and len(costly) > 1
    apart = costly if worth else []
    # The worker leaves its matrices in memory shared with this process: 16 MB a column at
    # 1,000 runs, which through a pipe kept this process waiting a tenth of a second.
    tested = {i: _shared_pairs(len(tables[i].decided)) for i in apart}
    parts = [part for i in apart for part in _parts(i, tables[i], kept[i])]
    tests: dict[int, PairTests] = {}  # each process's own, made as it first tests a column

    def test_part(part: _PairPart) -> None:
        table, into = tables[part.column], tested[part.column]
        if part.span is None:  # the memo holds some of its pairs: the column's tests at once
            into.p_values[...], into.differences[...] = _tested(table, kept[part.column], memo)
            return
        if part.column not in tests:
            tests.clear()  # an earlier column's parts are all taken
            tests[part.column] = PairTests(
                table.matrix[table.decided], table.clusters, binary=table.binary
            )
        tests[part.column].test(*part.span, into)

    made: list[Made] = []
    with in_order(test_part, parts) as tested_through:
        measured = [_measured(table) for table in tables.values()]
        for i in range(len(wanted)):
            if i in apart:
                tested_through(sum(1 for part in parts if part.column <= i))
                if afresh(kept[i], tables[i].digests):
                    keep_pairs(memo, kept[i], tables[i].digests, tested[i])
            # Let go of the column's task matrix (16 MB at 1,000 runs) before ``then`` makes
            # its pages: the reading holds all they need.
            table = tables.pop(i)
            pairs = (
                (tested[i].p_values, tested[i].differences)
                if i in apart
                else _tested(table, kept[i], memo)
            )
            reading = _reading(table, measured[i], pairs)
            del table
            made.append(then(i, reading))
    return made


class _PairPart(NamedTuple):
    """A part of a column's pair tests: the rows whose later pairs it tests
    (``PairTests.test``), or None for all of the column's tests at once."""

    column: int
    span: tuple[int, int] | None


_PARTS = 8
"""Parts a column's pair tests are cut in (each some 60 ms at 1,000 runs): small enough that
the process left waiting takes the next, large enough that each process makes a column ready
for tests (some 20-50 ms) once."""


def _parts(column: int, table: TaskTable, kept: PairsKept) -> list[_PairPart]:
    if not afresh(kept, table.digests):
        return [_PairPart(column, None)]
    return [_PairPart(column, span) for span in pair_spans(len(table.decided), _PARTS)]


def _shared_pairs(rows: int) -> PairMatrices:
    """A p value and a difference matrix of ``rows`` x ``rows``, as no pair is tested yet, in
    memory a worker forked after this call fills (``memrank._forked.shared``)."""
    both = np.frombuffer(shared(2 * rows * rows * 8), dtype=np.float64).reshape(2, rows, rows)
    both[0].fill(np.nan)
    return PairMatrices(both[0], both[1])


_FEW_UNTESTED = 10
"""A column the memo lacks the pairs of a tenth of its runs or fewer for is tested here."""


@dataclass(frozen=True)
class _Measured:
    """What a column's means give: each run's headline, and per category."""

    headlines: tuple[Headline, ...]
    labels: tuple[tuple[str, str], ...]
    """(category, label) of every category the tasks carry, in order."""
    named: np.ndarray
    """Each task's category."""
    by_category: tuple[tuple[Headline | None, ...], ...]


def _measured(table: TaskTable) -> _Measured:
    column, matrix, clusters = table.column, table.matrix, table.clusters
    everything = np.ones(len(table.task_ids), dtype=bool)
    whole = _means(column.measure, table.deciders, matrix, clusters, everything, table.undecided)
    headlines = tuple(
        whole[row] if row in whole else _uncarried(column, run)
        for row, run in enumerate(table.runs)
    )
    labels = tuple(
        (c, column.categories.get(c, "")) for c in sorted(set(table.categories), key=category_order)
    )
    named = np.asarray(table.categories)
    per_category = [
        _means(column.measure, table.deciders, matrix, clusters, named == name, table.undecided)
        for name, _ in labels
    ]
    by_category = tuple(
        tuple(found.get(row) for found in per_category) for row in range(len(table.runs))
    )
    return _Measured(headlines, labels, named, by_category)


def _reading(
    table: TaskTable, measured: _Measured, tested: tuple[np.ndarray, np.ndarray]
) -> ColumnReading:
    p_values, differences = tested
    higher = table.column.direction is Direction.HIGHER
    means = np.nanmean(table.matrix[table.decided], axis=1).tolist() if table.decided else []
    ranges = tie_aware_ranks(means, p_values, higher_is_better=higher) if table.decided else []
    ranks: list[Rank | None] = [None] * len(table.runs)
    for row, placed_at in zip(table.decided, ranges, strict=True):
        ranks[row] = _rank(placed_at, len(table.decided))
    labels, named = measured.labels, measured.named
    n_clusters = len(distinct(table.clusters))
    shown = labels if len(labels) > 1 or labels[:1] != ((UNCATEGORISED, ""),) else ()
    return ColumnReading(
        column=table.column,
        positions=table.positions,
        runs=table.runs,
        headlines=measured.headlines,
        ranks=tuple(ranks),
        ranked=tuple(table.decided),
        p_values=p_values,
        differences=differences,
        tasks=len(table.task_ids),
        clusters=n_clusters,
        notice=_notice(len(table.task_ids), n_clusters, ranges),
        categories=shown,
        category_tasks=tuple(int((named == name).sum()) for name, _ in shown),
        by_category=measured.by_category,
    )


def _uncarried(column: Column, run: VerifiedRun) -> Headline:
    """A run whose scores carry no column of the measure: its signed summary value, if any."""
    whole = [v for v in run.predicate.summary if v.measure == column.measure]
    if len(whole) == 1:
        return Headline(whole[0], None)
    return Headline(
        Value(
            measure=column.measure,
            decider=Decider.MEMRANK,
            value=None,
            why=f"the run carries no value named {column.measure}",
        ),
        None,
    )


def _means(
    measure: str,
    deciders: dict[int, Decider],
    matrix: np.ndarray,
    clusters: np.ndarray,
    mask: np.ndarray,
    undecided: Callable[[int, np.ndarray], str],
) -> dict[int, Headline]:
    """Per row of ``deciders``, its mean over the decided tasks in ``mask``, with counts for a
    share and its interval: every row at once. A row that decided none of them says why
    (``undecided``)."""
    rows = list(deciders)  # distinct row numbers, in order: all of them are every row
    if len(rows) == len(matrix) and mask.all():  # the whole column: no copy of it
        picked = matrix
    else:
        picked = matrix[np.ix_(np.asarray(rows, dtype=np.intp), np.flatnonzero(mask))]
    valid = ~np.isnan(picked)
    decided = valid.sum(axis=1)
    # a share (0/1 values) carries its count, so "12 of 40" can be shown beside 0.300
    shares = np.all(~valid | (picked == 0.0) | (picked == 1.0), axis=1)
    counts = np.where(valid, picked, 0.0).sum(axis=1)
    intervals = mean_intervals(picked, clusters[mask], declared_range(measure))
    found: dict[int, Headline] = {}
    for at, row in enumerate(rows):
        n = int(decided[at])
        if not n:
            why = f"none of its {picked.shape[1]} task values could be decided"
            why += undecided(row, mask)
            found[row] = Headline(
                Value(measure=measure, decider=deciders[row], value=None, why=why), None
            )
            continue
        why = f"mean over {n} task(s)"
        if n < picked.shape[1]:
            why += f"; {picked.shape[1] - n} could not be decided and are left out"
        count = int(counts[at]) if shares[at] else None
        value = Value(
            measure=measure,
            decider=deciders[row],
            value=count / n if count is not None else float(picked[at][valid[at]].mean()),
            why=why,
            count=count,
            total=n if count is not None else None,
        )
        found[row] = Headline(value, _interval(intervals[at]), n)
    return found


def _interval(found: MeanInterval) -> Interval | None:
    if found.mean is None or found.low is None or found.high is None:
        return None
    return Interval(low=found.low, high=found.high, method=found.method, clusters=found.n_clusters)


def _rank(found: RankRange, ranked: int) -> Rank:
    return Rank(best=found.best, worst=found.worst, of=ranked)


def _tested(table: TaskTable, kept: PairsKept, memo: Memo) -> tuple[np.ndarray, np.ndarray]:
    """Every two decided rows' p value and mean difference: the column's only work that grows
    with the square of its runs, so the memo keeps it (``tested_pairs``)."""
    matrix = table.matrix[table.decided]
    return tested_pairs(matrix, table.clusters, table.binary, table.digests, kept, memo)


def _notice(tasks: int, clusters: int, ranks: Sequence[RankRange]) -> str | None:
    """What a reader must know before comparing ranks on the column, if anything."""
    if len(ranks) < 2:
        return None
    if clusters < 2:
        return (
            f"All {tasks} tasks are in one cluster, so no interval can be drawn and no two "
            "systems can be told apart: every rank is shared."
        )
    if all(rank.best == 1 and rank.worst == len(ranks) for rank in ranks):
        return (
            f"On these {tasks} tasks in {clusters} clusters the paired test separates no two "
            "systems: every rank is shared."
        )
    if clusters < FEW_CLUSTERS:
        return (
            f"{tasks} tasks in only {clusters} clusters: intervals and tests rest on "
            f"{clusters} independent units, so read close ranks with care."
        )
    return None
