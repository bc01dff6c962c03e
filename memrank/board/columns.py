"""The build's fourth stage: every column read, each row's cell, what each run page says about
the column, and the column's evaluation page (``columns_of``).

A column is read from its runs' verified scores (``memrank.board.reading``), or taken from the
memo when an earlier build read the very same runs: its key is a digest of the track and column
as board.toml states them and, per row, the row's key, the run's artifact id (the sha256 of its
signed statement, which names its scores file by digest) and the system's identity. Adding a
run to one column leaves the other columns' keys as they were, so a rebuild reads one column.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from pydantic import BaseModel

from memrank.artifacts import VerifiedRun
from memrank.board import urls
from memrank.board.compare import cell_of, evaluation_page, shown_in
from memrank.board.config import Column, Direction
from memrank.board.memo import Memo, key, pack_files, unpack_files
from memrank.board.model import Cell, Comparison, EvaluationPage, Identity, RunLink, Shown
from memrank.board.notes import budget_note
from memrank.board.pages import RunLinks
from memrank.board.reading import ColumnReading, read_column, read_columns
from memrank.board.rows import Placed, TrackRows

__all__ = ["ColumnPart", "columns_of", "standing"]


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
    evaluation: EvaluationPage | None = None
    """The column's evaluation page, when it has runs."""


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


def columns_of(placed: Placed, memo: Memo) -> dict[str, list[ColumnPart]]:
    """By track name, the part of each of its columns, in board.toml's order."""
    return {rows.name: _parts_of(rows, placed.links, memo) for rows in placed.tracks}


def _parts_of(rows: TrackRows, links: RunLinks, memo: Memo) -> list[ColumnPart]:
    # Each evaluation page in its own column's standing, best first: for the ranking column
    # that is the track's order, and a column's page depends on nothing but the column.
    return column_parts(
        rows.name,
        rows.config.columns,
        ["\x1f".join(key) for key in rows.keys],
        [rows.column_runs(column.evaluation) for column in rows.config.columns],
        links,
        memo,
        lambda part: standing(part.cells, part.column, rows.slugs),
    )


def standing(
    cells: Sequence[Cell | None] | None, column: Column | None, keys: Sequence[str]
) -> list[int]:
    """Row positions best first on ``column`` (its ``cells`` by position; None: no column):
    best rank first, then the better value, then by row key (``keys``, by position), the
    same order every build."""
    higher = column is None or column.direction is Direction.HIGHER

    def standing(position: int) -> tuple[bool, int, bool, float, str]:
        cell = cells[position] if cells is not None else None
        number = cell.value.value if cell is not None else None
        rank = cell.rank if cell is not None else None
        better_first = 0.0 if number is None else (-number if higher else number)
        return (
            rank is None,
            rank.best if rank else 0,
            number is None,
            better_first,
            keys[position],
        )

    return sorted(range(len(keys)), key=standing)


def column_parts(
    track: str,
    columns: Sequence[Column],
    rows: Sequence[str],
    placed: Sequence[Sequence[VerifiedRun | None]],
    links: RunLinks,
    memo: Memo,
    standing: Callable[[ColumnPart], Sequence[int]],
) -> list[ColumnPart]:
    """The part of each of ``columns`` of ``track``, with its evaluation page (its runs in the
    order ``standing`` gives: row positions, best first); ``rows`` are the track's row keys,
    ``placed`` each column's run by row. A column the memo holds is taken from it; the others
    are read together (``read_columns``: a large board tests their pairs side by side), and
    each column's page is made as soon as the column is read, while the next one's pairs may
    still be in test."""
    keys = [
        _key(track, column, rows, runs, links.identities, memo)
        for column, runs in zip(columns, placed, strict=True)
    ]
    found = [memo.get(entry) for entry in keys]
    unread = [i for i, stored in enumerate(found) if stored is None]

    def paged(part: ColumnPart) -> ColumnPart:
        if not part.has_runs:
            return part
        page = evaluation_of(track, part, standing(part), links, memo)
        return replace(part, evaluation=page)

    made = {
        i: paged(_remembered(keys[i], columns[i], rows, placed[i], stored))
        for i, stored in enumerate(found)
        if stored is not None
    }
    read = read_columns(
        [(columns[i], placed[i]) for i in unread],
        lambda at, reading: paged(
            _read(keys[unread[at]], track, reading, rows, placed[unread[at]], links, memo)
        ),
        memo,
    )
    made.update(zip(unread, read, strict=True))
    return [made[i] for i in range(len(columns))]


def _key(
    track: str,
    column: Column,
    rows: Sequence[str],
    placed: Sequence[VerifiedRun | None],
    identities: Mapping[str, Identity],
    memo: Memo,
) -> str:
    return memo.entry(
        "column",
        track,
        column.model_dump_json(),
        *(
            f"{row}\x1f{run.artifact_id}\x1f{_identity(run, identities)}"
            for row, run in zip(rows, placed, strict=True)
            if run is not None
        ),
    )


def _remembered(
    key: str,
    column: Column,
    rows: Sequence[str],
    placed: Sequence[VerifiedRun | None],
    found: bytes,
) -> ColumnPart:
    """The part an earlier build read from the very same runs (``found`` in the memo)."""
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


def _read(
    key: str,
    track: str,
    reading: ColumnReading,
    rows: Sequence[str],
    placed: Sequence[VerifiedRun | None],
    links: RunLinks,
    memo: Memo,
) -> ColumnPart:
    """The part made of this build's reading of the column (kept in the memo for the next)."""
    cells = _cells(reading, len(rows))
    part = ColumnPart(
        key=key,
        column=reading.column,
        placed=tuple(placed),
        cells=tuple(cells),
        shown={
            artifact: replace(shown, source=key)
            for artifact, shown in shown_in(reading, cells, links, track).items()
        },
        notice=reading.notice,
        has_runs=bool(reading.runs),
        reading=reading,
    )
    if memo.active:
        memo.put(key, _Stored.of(part, rows).model_dump_json().encode())
    return part


def evaluation_of(
    track: str,
    part: ColumnPart,
    order: Sequence[int],
    links: RunLinks,
    memo: Memo,
) -> EvaluationPage:
    """The column's evaluation page, its runs in ``order`` (row positions, best first)."""
    made_from = key(
        "evaluation page",
        part.key,
        *(run.artifact_id for run in (part.placed[p] for p in order) if run is not None),
    )
    entry = memo.entry(made_from)
    if part.reading is None:  # a part from the memo: its page too, unless the order changed
        found = memo.get(entry)
        if found is not None:
            return _unpacked(found)
    page = evaluation_page(track, _reading(part, memo), part.cells, order, links, made_from)
    if memo.active:  # nothing to keep it for otherwise: spare packing 16 MB
        memo.put(entry, _packed(page))
    return page


_PAIRS = ("pair_differences", "pair_p_values")
"""The page's pair matrices: 16 MB of float64 at 1,000 runs, kept beside its JSON as they
are, not in it as base64 (a third more bytes, each encoded and decoded)."""


def _packed(page: EvaluationPage) -> bytes:
    rest = page.model_copy(update=dict.fromkeys(_PAIRS, b"")).model_dump_json().encode()
    return pack_files({"page.json": rest, **{name: getattr(page, name) for name in _PAIRS}})


def _unpacked(packed: bytes) -> EvaluationPage:
    files = unpack_files(packed)
    page = EvaluationPage.model_validate_json(files["page.json"])
    return page.model_copy(update={name: files[name] for name in _PAIRS})


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
