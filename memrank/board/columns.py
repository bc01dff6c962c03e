"""One column of a track as the build needs it: each row's cell, what each run page says about
the column, and the column's evaluation page.

A column is read from its runs' verified scores (``memrank.board.reading``), or taken from the
memo when an earlier build read the very same runs: its key is a digest of the track and column
as board.toml states them and, per row, the row's key, the run's artifact id (the sha256 of its
signed statement, which names its scores file by digest) and the system's identity. Adding a
run to one column leaves the other columns' keys as they were, so a rebuild reads one column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from pydantic import BaseModel

from memrank._forked import in_shares, split
from memrank.artifacts import VerifiedRun
from memrank.board import urls
from memrank.board.compare import Shown, cell_of, evaluation_page, shown_in
from memrank.board.config import Column
from memrank.board.memo import Memo
from memrank.board.model import Cell, Comparison, EvaluationPage, Identity, RunLink
from memrank.board.notes import budget_note
from memrank.board.reading import ColumnReading, read_column

__all__ = ["COLUMNS_LEAST", "ColumnPart", "column_part", "column_parts", "evaluation_of"]

COLUMNS_LEAST = 600
"""The fewest runs a track's columns hold together for them to be read side by side in
forked workers: below it, forking costs more than it saves."""


@dataclass(frozen=True)
class ColumnPart:
    """A column over the track's rows (positions into the sorted row keys)."""

    key: str
    """The digest of everything the column is made from."""
    column: Column
    placed: tuple[VerifiedRun | None, ...]
    """Each row's run on the column, or None."""
    cells: tuple[Cell | None, ...]
    shown: dict[str, Shown]
    """By artifact id: what the run's page says about the column."""
    notice: str | None
    has_runs: bool
    reading: ColumnReading | None
    """The reading, when this build made it (None when the part came from the memo)."""


_Compared = tuple[int, float, float, float | None, str]
"""A comparison as the memo keeps it: (index into the part's links, the other's value, the
difference, p, verdict). A column of 200 runs lists some 12,000 comparisons; each naming its
run by index, not by a whole RunLink, keeps the entry small and quick to read back."""


class _StoredShown(BaseModel):
    """``Shown`` with its comparisons as ``_Compared``."""

    shown: Shown
    """Everything but the comparisons (left empty)."""
    compared: list[_Compared]


class _Stored(BaseModel):
    """A part as the memo keeps it: cells by row key, so a row added elsewhere moves nothing."""

    cells: dict[str, Cell]
    links: list[RunLink]
    shown: dict[str, _StoredShown]
    notice: str | None
    has_runs: bool

    @classmethod
    def of(cls, part: ColumnPart, rows: Sequence[str]) -> _Stored:
        every: dict[str, RunLink] = {}
        for shown in part.shown.values():
            for c in shown.comparisons:
                every.setdefault(c.other.path, c.other)
        links = {path: at for at, path in enumerate(every)}
        return cls(
            cells={row: c for row, c in zip(rows, part.cells, strict=True) if c is not None},
            links=list(every.values()),
            shown={
                artifact: _StoredShown(
                    shown=replace(shown, comparisons=()),
                    compared=[
                        (links[c.other.path], c.other_value, c.difference, c.p_value, c.verdict)
                        for c in shown.comparisons
                    ],
                )
                for artifact, shown in part.shown.items()
            },
            notice=part.notice,
            has_runs=part.has_runs,
        )

    def shown_again(self) -> dict[str, Shown]:
        return {
            artifact: replace(
                stored.shown,
                comparisons=tuple(
                    Comparison(
                        other=self.links[link],
                        other_value=value,
                        difference=difference,
                        p_value=p_value,
                        verdict=verdict,
                    )
                    for link, value, difference, p_value, verdict in stored.compared
                ),
            )
            for artifact, stored in self.shown.items()
        }


def column_part(
    track: str,
    column: Column,
    rows: Sequence[str],
    placed: Sequence[VerifiedRun | None],
    identities: Mapping[str, Identity],
    memo: Memo,
) -> ColumnPart:
    """The column ``column`` of ``track``; ``rows`` are the track's row keys, ``placed`` each
    row's run on the column."""
    key = memo.entry(
        "column",
        track,
        column.model_dump_json(),
        *(
            f"{row}\x1f{run.artifact_id}\x1f{_identity(run, identities)}"
            for row, run in zip(rows, placed, strict=True)
            if run is not None
        ),
    )
    found = memo.get(key)
    if found is not None:
        stored = _Stored.model_validate_json(found)
        return ColumnPart(
            key=key,
            column=column,
            placed=tuple(placed),
            cells=tuple(stored.cells.get(row) for row in rows),
            shown=stored.shown_again(),
            notice=stored.notice,
            has_runs=stored.has_runs,
            reading=None,
        )
    reading = read_column(column, placed, memo)
    cells = _cells(reading, len(rows))
    part = ColumnPart(
        key=key,
        column=column,
        placed=tuple(placed),
        cells=tuple(cells),
        shown={
            artifact: replace(shown, source=key)
            for artifact, shown in shown_in(reading, cells, identities, track).items()
        },
        notice=reading.notice,
        has_runs=bool(reading.runs),
        reading=reading,
    )
    if memo.active:
        memo.put(key, _Stored.of(part, rows).model_dump_json().encode())
    return part


def column_parts(
    track: str,
    columns: Sequence[Column],
    rows: Sequence[str],
    placed: Sequence[Sequence[VerifiedRun | None]],
    identities: Mapping[str, Identity],
    memo: Memo,
) -> list[ColumnPart]:
    """``column_part`` of each of ``columns``, ``placed`` holding each one's runs by row. A
    column's reading is independent of the others', so a large track reads its columns side
    by side, a share per core (``memrank._forked``)."""
    everything = list(range(len(columns)))
    held = sum(run is not None for runs in placed for run in runs)
    shares = split(everything, 1) if held >= COLUMNS_LEAST else [everything]

    def read(share: Sequence[int]) -> list[ColumnPart]:
        # Sent back without the runs: this process holds them already, and pickled, a run
        # carries its whole scores file.
        return [
            _without_runs(column_part(track, columns[i], rows, placed[i], identities, memo))
            for i in share
        ]

    made = [part for parts in in_shares(read, shares) for part in parts]
    return [_with_runs(part, runs) for part, runs in zip(made, placed, strict=True)]


def _without_runs(part: ColumnPart) -> ColumnPart:
    reading = part.reading and replace(part.reading, runs=())
    return replace(part, placed=(), reading=reading)


def _with_runs(part: ColumnPart, placed: Sequence[VerifiedRun | None]) -> ColumnPart:
    """``part`` with its runs again (as ``read_column`` keeps them: placed, Nones left out)."""
    runs = tuple(run for run in placed if run is not None)
    reading = part.reading and replace(part.reading, runs=runs)
    return replace(part, placed=tuple(placed), reading=reading)


def evaluation_of(
    track: str,
    part: ColumnPart,
    order: Sequence[int],
    identities: Mapping[str, Identity],
    memo: Memo,
) -> EvaluationPage:
    """The column's evaluation page, its runs in ``order`` (row positions, best first)."""
    if not memo.active:  # nothing to keep it for: spare the page's trip through JSON
        return evaluation_page(track, _reading(part, memo), part.cells, order, identities)
    made = memo.through(
        lambda: (
            "evaluation page",
            part.key,
            *(run.artifact_id for run in (part.placed[p] for p in order) if run is not None),
        ),
        lambda: (
            evaluation_page(track, _reading(part, memo), part.cells, order, identities)
            .model_dump_json()
            .encode()
        ),
    )
    return EvaluationPage.model_validate_json(made)


def _reading(part: ColumnPart, memo: Memo) -> ColumnReading:
    """The part's reading: this build's, or read again (a part from the memo whose
    evaluation page changed: the pair matrices come from the memo)."""
    return part.reading or read_column(part.column, part.placed, memo)


def _identity(run: VerifiedRun, identities: Mapping[str, Identity]) -> str:
    identity = identities.get(run.predicate.system.name)
    return identity.model_dump_json() if identity else ""


def _cells(reading: ColumnReading, rows: int) -> list[Cell | None]:
    """A column's cells by row position, each bar its share of the column's largest magnitude."""
    largest = max(
        (abs(h.value.value) for h in reading.headlines if h.value.value is not None), default=0.0
    )
    cells: list[Cell | None] = [None] * rows
    for position, run, headline, rank in zip(
        reading.positions, reading.runs, reading.headlines, reading.ranks, strict=True
    ):
        note = budget_note(reading.column.measure, headline.value.value, run.predicate.summary)
        cells[position] = cell_of(headline, largest, urls.run(run.artifact_id), rank, note)
    return cells
