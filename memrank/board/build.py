"""Verified runs + board.toml -> the Board: rows, cells, ranks, run pages and pair pages.

Nothing here runs a system or reads an unverified byte: every fact comes from a ``VerifiedRun``
(the statement and result file whose signature and digest checked out). Ranks and pair pages
use the same paired kernels, with the same seed, so a rank and the reading behind it agree.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np

from memrank.artifacts import Division, Root, VerifiedRun
from memrank.board import urls
from memrank.board.config import BoardConfig, Column, Direction, TrackConfig
from memrank.board.model import Board, Cell, DocPage, Row, Track
from memrank.board.pages import run_link, run_page
from memrank.board.pairs import pair_pages
from memrank.errors import BoardConfigError
from memrank.measure import Decider, Value
from memrank.measures.kinds import declared_binary
from memrank.provenance import Evidence
from memrank.stats import cluster_codes, pairwise_p_values, tie_aware_ranks

__all__ = ["build_board", "source_date"]


def build_board(
    config: BoardConfig,
    runs: Sequence[VerifiedRun],
    trust: Root,
    docs: tuple[DocPage, ...],
    updated: datetime | None,
) -> Board:
    """The Board for ``runs`` (already verified) as ``config`` lays it out."""
    runs = sorted(runs, key=lambda run: run.artifact_id)
    superseded = {
        run.predicate.supersedes: run.artifact_id for run in runs if run.predicate.supersedes
    }
    current = [run for run in runs if run.artifact_id not in superseded]
    pairs, pair_links = pair_pages(current)
    notes: dict[str, str] = {
        old: "corrected by a later artifact, which the table shows instead" for old in superseded
    }
    tracks = []
    for name, track in config.tracks.items():
        built, track_notes = _track(name, track, current)
        tracks.append(built)
        notes.update(track_notes)
    for run in current:
        if run.predicate.track not in config.tracks:
            notes[run.artifact_id] = f"track {run.predicate.track!r} is not in board.toml"
    return Board(
        title=config.site.title,
        description=config.site.description,
        base_url=config.site.base_url,
        updated=updated or max((run.predicate.issued_at for run in runs), default=None),
        tracks=tuple(tracks),
        runs=tuple(
            run_page(run, superseded.get(run.artifact_id), pair_links.get(run.artifact_id, ()))
            for run in runs
        ),
        pairs=pairs,
        unlisted=tuple(
            run_link(run, note=notes[run.artifact_id]) for run in runs if run.artifact_id in notes
        ),
        docs=docs,
        trust=trust,
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


def _row_key(run: VerifiedRun) -> RowKey:
    p = run.predicate
    return (p.system.name, p.system.version or "", p.division.value, p.evidence.value)


def _track(
    name: str, track: TrackConfig, runs: Sequence[VerifiedRun]
) -> tuple[Track, dict[str, str]]:
    """The track's table, and a note for each of its runs the table does not show."""
    shown, notes = _place(name, track, runs)
    keys = sorted(shown)
    headlines = {
        column.evaluation: [_headline(shown[key].get(column.evaluation), column) for key in keys]
        for column in track.columns
    }
    overall = [
        _overall(track, [headlines[c.evaluation][i] for c in track.columns])
        for i in range(len(keys))
    ]
    ranking = track.ranking_column
    ranks = (
        _ranks(ranking, [shown[key].get(ranking.evaluation) for key in keys])
        if ranking
        else [None] * len(keys)
    )
    cells = [
        _cells(headlines[column.evaluation], [shown[key].get(column.evaluation) for key in keys])
        for column in track.columns
    ]
    overall_cells = _cells(overall, [None] * len(keys))
    rows = [
        Row(
            key=urls.slug(" ".join(key)),
            rank=ranks[position],
            system=key[0],
            version=key[1] or None,
            division=Division(key[2]),
            evidence=Evidence(key[3]),
            cells=tuple(column[position] for column in cells),
            overall=overall_cells[position],
            published=max(run.predicate.issued_at for run in shown[key].values()),
        )
        for position, key in enumerate(keys)
    ]
    ranked_by = headlines[ranking.evaluation] if ranking else [None] * len(keys)
    order = sorted(range(len(keys)), key=lambda i: _order(ranks[i], ranked_by[i], ranking, keys[i]))
    return (
        Track(
            name=name,
            title=track.title,
            description=track.description,
            path=urls.track(name),
            csv_path=urls.track_data(name, "csv"),
            json_path=urls.track_data(name, "json"),
            columns=track.columns,
            overall=track.overall,
            ranking_column=ranking.title if ranking else None,
            rows=tuple(rows[i] for i in order),
        ),
        notes,
    )


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


def _unit_values(run: VerifiedRun, measure: str) -> tuple[list[Value], dict[str, float]]:
    """The run's values named ``measure``, and the decided ones per task (or group)."""
    named = [value for value in run.result.values if value.measure == measure]
    units = {
        value.task_id or value.group or "": value.value
        for value in named
        if value.value is not None and (value.task_id or value.group)
    }
    return named, units


def _headline(run: VerifiedRun | None, column: Column) -> Value | None:
    """The number a cell shows: a whole-run value as it is, else the mean over tasks (or
    groups) the run could decide, the mean a paired reading reports."""
    if run is None:
        return None
    named, units = _unit_values(run, column.measure)
    whole = [value for value in named if value.task_id is None and value.group is None]
    if len(whole) == 1:
        return whole[0]
    if not named:
        return Value(
            measure=column.measure,
            decider=Decider.MEMRANK,
            value=None,
            why=f"the run carries no value named {column.measure}",
        )
    undecided = len(named) - len(units)
    scope = "task" if any(value.task_id for value in named) else "group"
    if not units:
        return Value(
            measure=column.measure,
            decider=named[0].decider,
            value=None,
            why=f"none of its {len(named)} {scope} values could be decided",
        )
    why = f"mean over {len(units)} {scope}(s)"
    if undecided:
        why += f"; {undecided} could not be decided and are left out"
    share = all(value in (0.0, 1.0) for value in units.values())
    count = int(sum(units.values())) if share else None
    return Value(
        measure=column.measure,
        decider=named[0].decider,
        value=count / len(units) if count is not None else sum(units.values()) / len(units),
        why=why,
        count=count,
        total=len(units) if share else None,
    )


def _cells(column: Sequence[Value | None], runs: Sequence[VerifiedRun | None]) -> list[Cell | None]:
    """A column of headlines as cells, each bar its share of the column's largest magnitude;
    an overall cell has no single run to link to."""
    largest = max(
        (abs(v.value) for v in column if v is not None and v.value is not None), default=0.0
    )
    return [
        None
        if value is None
        else Cell(
            value=value,
            bar=abs(value.value) / largest if value.value is not None and largest else 0.0,
            run=urls.run(run.artifact_id) if run is not None else None,
        )
        for value, run in zip(column, runs, strict=True)
    ]


def _overall(track: TrackConfig, headlines: list[Value | None]) -> Value | None:
    """The combining column's value for one row, as board.toml says (``how = "mean"``)."""
    if track.overall is None:
        return None
    parts = []
    for column, headline in zip(track.columns, headlines, strict=True):
        if headline is None or headline.value is None:
            missing = "no accepted run" if headline is None else "no decided value"
            return Value(
                measure=track.overall.measure,
                decider=Decider.RULE,
                value=None,
                why=f"{missing} on {column.title}, so there is nothing to combine",
            )
        parts.append((column.title, headline.value))
    return Value(
        measure=track.overall.measure,
        decider=Decider.RULE,
        value=sum(value for _, value in parts) / len(parts),
        why="mean of "
        + ", ".join(f"{title} {value:.3f}" for title, value in parts)
        + " (board.toml: how = mean)",
    )


def _ranks(column: Column, runs: Sequence[VerifiedRun | None]) -> list[int | None]:
    """1 + rows significantly better on the column, from the same cluster-aware paired tests
    a paired reading uses (memrank.stats).

    Rows whose headline is one whole-run number (or has no decided value) have nothing to
    pair, so they are not ranked.
    """
    positions: list[int] = []
    rows: list[dict[str, float]] = []
    groups: dict[str, str | None] = {}
    binary = True
    for position, run in enumerate(runs):
        if run is None:
            continue
        _, units = _unit_values(run, column.measure)
        if units:
            positions.append(position)
            rows.append(units)
            groups.update({trace.task.id: trace.task.group for trace in run.result.traces})
            binary = binary and column.measure in declared_binary(run.result.evaluation)
    ranks: list[int | None] = [None] * len(runs)
    if not rows:
        return ranks
    keys = list(dict.fromkeys(key for row in rows for key in row))
    matrix = np.array([[row.get(key, np.nan) for key in keys] for row in rows], dtype=float)
    codes = cluster_codes([groups.get(key) for key in keys])
    p_values = pairwise_p_values(matrix, codes, binary=binary)
    means = np.nanmean(matrix, axis=1)
    higher = column.direction is Direction.HIGHER
    for position, rank in zip(positions, tie_aware_ranks(means, p_values, higher), strict=True):
        ranks[position] = rank.best
    return ranks


def _order(
    rank: int | None, headline: Value | None, column: Column | None, key: RowKey
) -> tuple[bool, int, bool, float, RowKey]:
    """Best rank first, then the better headline, then by name: the same order every build."""
    number = headline.value if headline is not None else None
    higher = column is None or column.direction is Direction.HIGHER
    better_first = 0.0 if number is None else (-number if higher else number)
    return (rank is None, rank or 0, number is None, better_first, key)
