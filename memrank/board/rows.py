"""The build's third stage: who each verified run is, and which row and column shows it.

A row is a system version in a division with a class of evidence (``RowKey``); a column is an
evaluation at one version. Each row shows, per column, the newest run of that row and column;
every other run is kept off the tables with the reason its run page and the changes page
state: corrected by a later artifact, a track or evaluation the board does not show, another
version of the column's evaluation, or an older run of the same row and column.

Two systems whose names read alike are never both on a board: "BM25Adapter" and "BM25Adаpter"
(a Cyrillic "а") would be two rows that read as one, the second borrowing the first's
reputation. Names are compared as the board shows them (a character that draws nothing written
``⟨U+XXXX⟩``), by the confusable skeleton of their compatibility form
(``memrank._unicode_security``: "ＢＭ２５" reads as "BM25"), both the signed class name and
the display name the systems file gives it: the system first published on the board keeps its
names. Versions of one system are compared the same way (a fullwidth "２" is a "2"), and a
name or version mixing scripts no one writes together (Latin with one Cyrillic letter) is
refused outright. A refused run is not a run of the board: no table, run page, history, change
or feed entry shows it, only the list of refused runs, with why.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from memrank._unicode_security import mixed_scripts, skeleton
from memrank.artifacts import VerifiedRun
from memrank.board import urls
from memrank.board.config import BoardConfig, TrackConfig
from memrank.board.load import Inputs
from memrank.board.model import Identity
from memrank.board.pages import RunLinks, signed_version
from memrank.board.text import visible

__all__ = ["Placed", "RowKey", "TrackRows", "place"]

RowKey = tuple[str, str, str, str]
"""System name, version (``signed_version``: "" when the run records none), division, evidence:
what makes a row."""


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
    """Every verified run the board shows (the refused aside), by artifact id."""
    refused: tuple[tuple[VerifiedRun, str], ...]
    """The verified runs whose system's name or version reads like another's or mixes
    scripts, by artifact id, each with why: nothing but the list of refused runs shows them."""
    tracks: tuple[TrackRows, ...]
    """In board.toml's order."""
    notes: Mapping[str, str]
    """By artifact id: why no table shows the run."""
    superseded: Mapping[str, str]
    """By artifact id: the artifact id that corrects it."""
    links: RunLinks


def place(inputs: Inputs, verified: Sequence[VerifiedRun]) -> Placed:
    """Where each of the ``verified`` runs is shown, as ``inputs.config`` lays the board out."""
    ordered = sorted(verified, key=lambda run: run.artifact_id)
    refusals = _refusals(ordered, inputs.identities)
    refused = tuple(
        (run, refusals[run.artifact_id]) for run in ordered if run.artifact_id in refusals
    )
    runs = tuple(run for run in ordered if run.artifact_id not in refusals)
    superseded = {
        run.predicate.supersedes: run.artifact_id for run in runs if run.predicate.supersedes
    }
    notes: dict[str, str] = {
        old: "corrected by a later artifact, which the table shows instead" for old in superseded
    }
    current = [run for run in runs if run.artifact_id not in notes]
    tracks = []
    for name, track in inputs.config.tracks.items():
        rows, left_out = _rows(name, track, current)
        tracks.append(rows)
        notes |= left_out
    notes |= _off_board(current, inputs.config)
    return Placed(runs, refused, tuple(tracks), notes, superseded, RunLinks(inputs.identities))


def _off_board(runs: Sequence[VerifiedRun], config: BoardConfig) -> dict[str, str]:
    return {
        run.artifact_id: f"track {run.predicate.track!r} is not in board.toml"
        for run in runs
        if run.predicate.track not in config.tracks
    }


def _row_key(run: VerifiedRun) -> RowKey:
    p = run.predicate
    return (p.system.name, signed_version(run), p.division.value, p.evidence.value)


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


def _refusals(runs: Sequence[VerifiedRun], identities: Mapping[str, Identity]) -> dict[str, str]:
    """Artifact id -> why the board refuses the run: its system's name or version mixes
    scripts, or reads like another system's (or another version's) published earlier."""
    first: dict[str, datetime] = {}
    versions: dict[str, dict[str, datetime]] = defaultdict(dict)
    for run in runs:
        name, at, version = run.predicate.system.name, run.predicate.issued_at, signed_version(run)
        first[name] = min(first.get(name, at), at)
        versions[name][version] = min(versions[name].get(version, at), at)

    def names(name: str) -> tuple[str, ...]:
        identity = identities.get(name)
        return (visible(name), *([visible(identity.display_name)] if identity else []))

    why: dict[tuple[str, str | None], str] = {}  # by system name, and version (None: every)
    systems: dict[str, tuple[str, str]] = {}
    for name in sorted(first, key=lambda n: (first[n], n)):
        said = _mixed("system name", name) or _alike(
            systems, name, names(name), "system", "a system"
        )
        if said:
            why[name, None] = f"its {said}; sign it under a distinct name, in one script"
            continue
        kept: dict[str, tuple[str, str]] = {}
        for version in sorted(versions[name], key=lambda v: (versions[name][v], v)):
            said = _mixed("version", version) or _alike(
                kept, version, (visible(version),), "version", "a version of the same system"
            )
            if said:
                why[name, version] = f"its {said}; sign it as that version, in one script"
    return {
        run.artifact_id: found
        for run in runs
        if (
            found := why.get((run.predicate.system.name, None))
            or why.get((run.predicate.system.name, signed_version(run)))
        )
    }


def _mixed(what: str, text: str) -> str:
    """Why ``text`` (a system name or version) is refused for mixing scripts, or ''."""
    scripts = mixed_scripts(text)
    if not scripts:
        return ""
    return (
        f"{what} {visible(text)!r} mixes {' and '.join(scripts)} letters, which no one writes "
        "together: it can read as a name in one of them"
    )


def _alike(
    claimed: dict[str, tuple[str, str]], owner: str, texts: Sequence[str], what: str, whose: str
) -> str:
    """Why ``owner`` (``what``: a system, a version) is refused when one of its ``texts`` reads
    like a text of another owner (``claimed``: skeleton -> owner and text), ``whose`` was
    published earlier; or '' once their skeletons are claimed for it."""
    for text in texts:
        other, theirs = claimed.get(skeleton(text), (owner, text))
        if other != owner:
            return (
                f"{what} {text!r} reads like {theirs!r}, {whose} published earlier on this board "
                "(one Unicode confusable skeleton)"
            )
    claimed.update({skeleton(text): (owner, text) for text in texts})
    return ""
