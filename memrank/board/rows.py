"""The build's third stage: who each verified run is, and which row and column shows it.

A row is a system version in a division with a class of evidence (``RowKey``); a column is an
evaluation at one version. Each row shows, per column, the newest run of that row and column;
every other run is kept off the tables with the reason its run page and the changes page
state: corrected by a later artifact, a look-alike of a system published earlier, a track or
evaluation the board does not show, another version of the column's evaluation, or an older
run of the same row and column.

Two systems whose names read alike are never both on a board: "BM25Adapter" and "BM25Adаpter"
(a Cyrillic "а") would be two rows that read as one, the second borrowing the first's
reputation. Names are compared by their TR39 confusable skeleton (``memrank._unicode_security``), as
the board shows them (a character that draws nothing written ``⟨U+XXXX⟩``): the system first
published on the board keeps its name, and every run of a later look-alike is listed as not
shown, naming both.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from memrank._unicode_security import skeleton
from memrank.artifacts import VerifiedRun
from memrank.board import urls
from memrank.board.config import BoardConfig, TrackConfig
from memrank.board.load import Inputs
from memrank.board.model import Identity
from memrank.board.pages import RunLinks
from memrank.board.text import visible

__all__ = ["Placed", "RowKey", "TrackRows", "place"]

RowKey = tuple[str, str, str, str]
"""System name, version ("" when unstated), division, evidence: what makes a row."""


@dataclass(frozen=True)
class TrackRows:
    """A track's rows, sorted by row key, and the run each shows in each column."""

    name: str
    config: TrackConfig
    keys: tuple[RowKey, ...]
    slugs: tuple[str, ...]
    """Each row's key as pages and anchors write it, by position."""
    placed: Mapping[RowKey, Mapping[str, VerifiedRun]]
    """By row: the run shown in each column, by evaluation name."""

    def column_runs(self, evaluation: str) -> list[VerifiedRun | None]:
        """Each row's run on the column of ``evaluation`` (None where the row has none)."""
        return [self.placed[key].get(evaluation) for key in self.keys]


@dataclass(frozen=True)
class Placed:
    """Every verified run, where the tables show it, and why the others are not shown."""

    runs: tuple[VerifiedRun, ...]
    """Every verified run, by artifact id."""
    tracks: tuple[TrackRows, ...]
    """In board.toml's order."""
    notes: Mapping[str, str]
    """By artifact id: why no table shows the run."""
    superseded: Mapping[str, str]
    """By artifact id: the artifact id that corrects it."""
    links: RunLinks


def place(inputs: Inputs, verified: Sequence[VerifiedRun]) -> Placed:
    """Where each of the ``verified`` runs is shown, as ``inputs.config`` lays the board out."""
    runs = tuple(sorted(verified, key=lambda run: run.artifact_id))
    superseded = {
        run.predicate.supersedes: run.artifact_id for run in runs if run.predicate.supersedes
    }
    notes: dict[str, str] = {
        old: "corrected by a later artifact, which the table shows instead" for old in superseded
    }
    notes |= _look_alikes([run for run in runs if run.artifact_id not in notes], inputs.identities)
    current = [run for run in runs if run.artifact_id not in notes]
    tracks = []
    for name, track in inputs.config.tracks.items():
        rows, left_out = _rows(name, track, current)
        tracks.append(rows)
        notes |= left_out
    notes |= _off_board(current, inputs.config)
    return Placed(runs, tuple(tracks), notes, superseded, RunLinks(inputs.identities))


def _off_board(runs: Sequence[VerifiedRun], config: BoardConfig) -> dict[str, str]:
    return {
        run.artifact_id: f"track {run.predicate.track!r} is not in board.toml"
        for run in runs
        if run.predicate.track not in config.tracks
    }


def _row_key(run: VerifiedRun) -> RowKey:
    p = run.predicate
    return (p.system.name, p.system.version or "", p.division.value, p.evidence.value)


def _rows(
    name: str, track: TrackConfig, runs: Sequence[VerifiedRun]
) -> tuple[TrackRows, dict[str, str]]:
    """The run each row shows in each column (by evaluation), and why the track's other runs
    are not shown."""
    notes: dict[str, str] = {}
    placed: dict[RowKey, dict[str, VerifiedRun]] = defaultdict(dict)
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
        row = placed[_row_key(run)]
        if column.evaluation in row:
            notes[row[column.evaluation].artifact_id] = (
                "the same system version has a newer run of this evaluation, which the table shows"
            )
        row[column.evaluation] = run
    keys = tuple(sorted(placed))
    slugs = tuple(urls.slug(" ".join(key)) for key in keys)
    return TrackRows(name, track, keys, slugs, dict(placed)), notes


def _look_alikes(runs: Sequence[VerifiedRun], identities: Mapping[str, Identity]) -> dict[str, str]:
    """Artifact id -> why it is not shown, for each run of a system whose display name has the
    skeleton of an earlier-published system's."""
    first: dict[str, datetime] = {}
    for run in runs:
        name = run.predicate.system.name
        first[name] = min(first.get(name, run.predicate.issued_at), run.predicate.issued_at)

    def shown(name: str) -> str:
        identity = identities.get(name)
        return identity.display_name if identity else name

    kept: dict[str, str] = {}
    hidden: dict[str, str] = {}
    for name in sorted(first, key=lambda n: (first[n], n)):
        earlier = kept.setdefault(skeleton(visible(shown(name))), name)
        if earlier != name:
            hidden[name] = earlier
    return {
        run.artifact_id: (
            f"its system {visible(shown(run.predicate.system.name))!r} reads like "
            f"{visible(shown(hidden[run.predicate.system.name]))!r}, published earlier on this "
            "board (one Unicode confusable skeleton); sign it under a distinct name"
        )
        for run in runs
        if run.predicate.system.name in hidden
    }
