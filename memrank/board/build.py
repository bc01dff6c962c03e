"""The build's fifth stage: the Board, assembled from the placed runs and their columns: rows
with their cells and tie-aware ranks, tracks, evaluation pages, run pages and the board's
history.

Nothing here runs a system or reads an unverified byte: every number comes from a verified
run's scores, read by the stage before (``memrank.board.columns``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from memrank.artifacts import Division, VerifiedRun
from memrank.board import urls
from memrank.board.changelog import changes
from memrank.board.columns import ColumnPart, standing
from memrank.board.load import Inputs
from memrank.board.model import Board, DocPage, RefusedRun, Row, Shown, Track
from memrank.board.overall import overall_of
from memrank.board.pages import RunLinks, histories, run_link, run_page, version_shown
from memrank.board.roots import root_history
from memrank.board.rows import Placed, TrackRows
from memrank.errors import BoardConfigError
from memrank.provenance import Evidence

__all__ = ["assemble", "source_date"]


def assemble(
    inputs: Inputs,
    placed: Placed,
    columns: Mapping[str, Sequence[ColumnPart]],
    docs: tuple[DocPage, ...],
    updated: datetime | None,
) -> Board:
    """The Board of the ``placed`` runs, each track's ``columns`` read (by track name), with
    the documentation pages ``docs``; ``updated`` is the build's date (None: the newest run's)."""
    config, identities, runs = inputs.config, inputs.identities, placed.runs
    tracks, evaluations = [], []
    shown: dict[str, Shown] = {}
    for rows in placed.tracks:
        parts = columns[rows.name]
        tracks.append(_track(rows, parts, placed.links))
        evaluations += [part.evaluation for part in parts if part.evaluation is not None]
        for part in parts:
            shown.update(part.shown)
    pages = tuple(
        run_page(
            run,
            identities.get(run.predicate.system.name),
            placed.superseded.get(run.artifact_id),
            shown.get(run.artifact_id),
            config.site.results_store,
            inputs.stored,
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
        changes=changes(runs, placed.links),
        unlisted=tuple(
            run_link(run, identities, note=placed.notes[run.artifact_id])
            for run in runs
            if run.artifact_id in placed.notes
        ),
        refused=tuple(
            RefusedRun(
                system=run.predicate.system.name,
                version_shown=version_shown(run),
                evaluation=run.predicate.evaluation.name,
                issued_at=run.predicate.issued_at,
                why=why,
            )
            for run, why in sorted(placed.refused, key=lambda r: r[0].predicate.issued_at)
        ),
        docs=docs,
        trust=inputs.trust.root,
        roots=root_history(inputs.trust.chain),
        histories=histories(pages, [placed.links(run) for run in runs]),
        field=inputs.field,
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


def _track(placing: TrackRows, parts: Sequence[ColumnPart], links: RunLinks) -> Track:
    """The track's table: its rows in the ranking column's standing, each with its cells."""
    name, track, keys, row_keys = placing.name, placing.config, placing.keys, placing.slugs
    placed = placing.placed
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
        standing(cells[ranked_by], track.columns[ranked_by], row_keys)
        if ranked_by is not None
        else standing(None, None, row_keys)
    )
    evaluations = [part.evaluation for part in parts if part.evaluation is not None]
    overall, overall_cells = overall_of(
        track, rows, {page.column.evaluation: page for page in evaluations}
    )
    rows = [
        row.model_copy(update={"overall": cell})
        for row, cell in zip(rows, overall_cells, strict=True)
    ]
    return Track(
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
