"""Verified runs + board.toml -> the Board: rows, cells with intervals, tie-aware ranks,
evaluation pages, run pages and the board's history.

Nothing here runs a system or reads an unverified byte: every number comes from a verified
run's scores (``memrank.board.reading``), and each column is read once for all its rows, so
the work grows with the runs, never with their pairs.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from memrank.artifacts import Division, Root, VerifiedRun
from memrank.board import urls
from memrank.board.changelog import changes
from memrank.board.columns import column_parts
from memrank.board.compare import Shown
from memrank.board.config import BoardConfig, Column, Direction, TrackConfig
from memrank.board.field import FieldPage
from memrank.board.lookalikes import look_alikes
from memrank.board.memo import NO_MEMO, Memo
from memrank.board.model import Board, Cell, DocPage, EvaluationPage, Identity, Row, Track
from memrank.board.overall import overall_of
from memrank.board.pages import RunLinks, histories, run_link, run_page, version_shown
from memrank.board.roots import root_history
from memrank.errors import BoardConfigError
from memrank.provenance import Evidence

__all__ = ["build_board", "source_date"]


def build_board(
    config: BoardConfig,
    runs: Sequence[VerifiedRun],
    trust: Root,
    docs: tuple[DocPage, ...],
    updated: datetime | None,
    identities: Mapping[str, Identity] | None = None,
    memo: Memo = NO_MEMO,
    roots: Sequence[Root] = (),
    stored: frozenset[str] = frozenset(),
    field: FieldPage | None = None,
) -> Board:
    """The Board for ``runs`` (already verified) as ``config`` lays it out; ``memo`` may hold
    each column's all-pairs matrices from an earlier build; ``stored`` lists the result files
    the results store is known to hold (only those are linked); ``field`` is the page of the
    field's published numbers, shown beside the board as it is."""
    identities = identities or {}
    links = RunLinks(identities)
    runs = sorted(runs, key=lambda run: run.artifact_id)
    superseded = {
        run.predicate.supersedes: run.artifact_id for run in runs if run.predicate.supersedes
    }
    notes: dict[str, str] = {
        old: "corrected by a later artifact, which the table shows instead" for old in superseded
    }
    notes |= look_alikes([run for run in runs if run.artifact_id not in notes], identities)
    current = [run for run in runs if run.artifact_id not in notes]
    tracks, evaluations = [], []
    shown: dict[str, Shown] = {}
    for name, track in config.tracks.items():
        built = _track(name, track, current, links, memo)
        tracks.append(built.track)
        evaluations += built.evaluations
        notes.update(built.notes)
        shown.update(built.shown)
    for run in current:
        if run.predicate.track not in config.tracks:
            notes[run.artifact_id] = f"track {run.predicate.track!r} is not in board.toml"
    pages = tuple(
        run_page(
            run,
            identities.get(run.predicate.system.name),
            superseded.get(run.artifact_id),
            shown.get(run.artifact_id),
            config.site.results_store,
            stored,
        )
        for run in runs
    )
    return Board(
        title=config.site.title,
        description=config.site.description,
        base_url=config.site.base_url,
        updated=updated or max((run.predicate.issued_at for run in runs), default=None),
        tracks=tuple(tracks),
        runs=pages,
        evaluations=tuple(evaluations),
        changes=changes(runs, links),
        unlisted=tuple(
            run_link(run, identities, note=notes[run.artifact_id])
            for run in runs
            if run.artifact_id in notes
        ),
        docs=docs,
        trust=trust,
        roots=root_history(roots),
        histories=histories(pages, [links(run) for run in runs]),
        field=field,
    )


def source_date() -> datetime | None:
    """SOURCE_DATE_EPOCH as a UTC instant, when it is set (reproducible-builds.org)."""
    raw = os.environ.get("SOURCE_DATE_EPOCH")
    if raw is None:
        return None
    try:
        return datetime.fromtimestamp(int(raw), UTC)
    except (ValueError, OverflowError):
        raise BoardConfigError(
            f"SOURCE_DATE_EPOCH={raw!r} is not a count of seconds since 1970; unset it or fix it"
        ) from None


# -- tracks -------------------------------------------------------------------------------------


RowKey = tuple[str, str, str, str]
"""System name, version ("" when unstated), division, evidence: what makes a row."""


@dataclass(frozen=True)
class _Built:
    track: Track
    evaluations: list[EvaluationPage]
    notes: dict[str, str]
    """Why each of the track's runs that no row shows is left out."""
    shown: dict[str, Shown]
    """Per artifact id shown in a row: its cell, column and comparisons."""


def _row_key(run: VerifiedRun) -> RowKey:
    p = run.predicate
    return (p.system.name, p.system.version or "", p.division.value, p.evidence.value)


def _track(
    name: str,
    track: TrackConfig,
    runs: Sequence[VerifiedRun],
    links: RunLinks,
    memo: Memo,
) -> _Built:
    """The track's table, its evaluation pages, and a note for each run the table leaves out."""
    placed, notes = _place(name, track, runs)
    keys = sorted(placed)
    rows_named = ["\x1f".join(key) for key in keys]
    row_keys = [urls.slug(" ".join(key)) for key in keys]
    # Each evaluation page in its own column's standing, best first: for the ranking column
    # that is the track's order, and a column's page depends on nothing but the column.
    parts = column_parts(
        name,
        track.columns,
        rows_named,
        [[placed[key].get(column.evaluation) for key in keys] for column in track.columns],
        links,
        memo,
        lambda part: _standing(part.cells, part.column, row_keys),
    )
    cells = [part.cells for part in parts]
    ranking = track.ranking_column
    ranked_by = next(
        (i for i, column in enumerate(track.columns) if ranking and column == ranking), None
    )
    rows = []
    for position, key in enumerate(keys):
        first = next(iter(placed[key].values()))
        rank_cell = cells[ranked_by][position] if ranked_by is not None else None
        identity = links.identities.get(key[0])
        measured = placed[key].get(ranking.evaluation if ranking else "", first)
        rows.append(
            Row(
                key=row_keys[position],
                rank=rank_cell.rank if rank_cell else None,
                system=key[0],
                version=key[1] or None,
                version_shown=version_shown(first),
                identity=identity,
                division=Division(key[2]),
                evidence=Evidence(key[3]),
                cells=tuple(column[position] for column in cells),
                overall=None,
                control=identity.control if identity else False,
                published=max(run.predicate.issued_at for run in placed[key].values()),
                latency_ms=_summary(measured, LATENCY),
                tokens=_summary(measured, TOKENS),
                cost_usd=_summary(measured, COST),
            )
        )
    order = (
        _standing(cells[ranked_by], track.columns[ranked_by], row_keys)
        if ranked_by is not None
        else _standing(None, None, row_keys)
    )
    evaluations = [part.evaluation for part in parts if part.evaluation is not None]
    overall, overall_cells = overall_of(
        track, rows, {page.column.evaluation: page for page in evaluations}
    )
    rows = [
        row.model_copy(update={"overall": cell})
        for row, cell in zip(rows, overall_cells, strict=True)
    ]
    shown: dict[str, Shown] = {}
    for part in parts:
        shown.update(part.shown)
    return _Built(
        track=Track(
            name=name,
            title=track.title,
            description=track.description,
            path=urls.track(name),
            csv_path=urls.track_data(name, "csv"),
            json_path=urls.track_data(name, "json"),
            columns=track.columns,
            evaluations=tuple(
                urls.evaluation(name, part.column.evaluation) if part.has_runs else None
                for part in parts
            ),
            notices=tuple(f"{part.column.title}: {part.notice}" for part in parts if part.notice),
            overall=overall,
            ranking_column=ranking.title if ranking else None,
            rows=tuple(rows[i] for i in order),
            usage=any(row.tokens is not None or row.cost_usd is not None for row in rows),
        ),
        evaluations=evaluations,
        notes=notes,
        shown=shown,
    )


LATENCY = "latency.retrieve.p50"
"""The run summary's value a row's Latency column shows (memrank's clock, ms)."""
TOKENS = "usage.tokens"
"""The run summary's value a row's Tokens column shows (``memrank.answer.usage``)."""
COST = "usage.cost-usd"
"""The run summary's value a row's Cost column shows (``memrank.answer.usage``)."""


def _summary(run: VerifiedRun, name: str) -> float | None:
    """The run's signed whole-run value ``name``, or None when it records none."""
    found = [v.value for v in run.predicate.summary if v.measure == name]
    return found[0] if len(found) == 1 else None


def _place(
    name: str, track: TrackConfig, runs: Sequence[VerifiedRun]
) -> tuple[dict[RowKey, dict[str, VerifiedRun]], dict[str, str]]:
    """The run each row shows in each column (by evaluation), and why the track's other runs
    are not shown."""
    notes: dict[str, str] = {}
    shown: dict[RowKey, dict[str, VerifiedRun]] = defaultdict(dict)
    columns = {column.evaluation: column for column in track.columns}
    mine = [run for run in runs if run.predicate.track == name]
    # Oldest first, so a newer run of the same row and column replaces an older one.
    for run in sorted(mine, key=lambda r: (r.predicate.issued_at, r.artifact_id)):
        evaluation = run.predicate.evaluation
        column = columns.get(evaluation.name)
        if column is None:
            notes[run.artifact_id] = f"{evaluation.name} is not a column of the {name} track"
            continue
        if evaluation.version != column.version:
            notes[run.artifact_id] = (
                f"the {column.title} column shows {column.version}; this run is of "
                f"{evaluation.version}"
            )
            continue
        row = shown[_row_key(run)]
        if column.evaluation in row:
            notes[row[column.evaluation].artifact_id] = (
                "the same system version has a newer run of this evaluation, which the table shows"
            )
        row[column.evaluation] = run
    return shown, notes


def _standing(
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
