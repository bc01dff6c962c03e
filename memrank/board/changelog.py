"""The board's history from its artifacts: each run as it was added, each correction, and an
Atom feed of the same lines and of the trust root's versions (``memrank.board.roots``).

Everything is read off the signed runs (``issued_at`` and ``supersedes``) and the verified
trust-root chain, never off a clock, so the history is the same in every build of the same
artifacts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from xml.sax.saxutils import escape, quoteattr

from memrank.artifacts import VerifiedRun
from memrank.board import urls
from memrank.board.model import Board
from memrank.board.pages import RunLinks
from memrank.board.record import Change, RootVersion, Words
from memrank.board.text import visible

__all__ = ["FEED_ENTRIES", "changes", "feed"]

FEED_ENTRIES = 100
"""The newest entries the feed carries (runs and trust-root versions); the changelog page has
them all."""


def changes(runs: Sequence[VerifiedRun], links: RunLinks) -> tuple[Change, ...]:
    """One line per run added and one per run it corrects, newest first; each system by its
    display name where the systems file gives one (its signed class name otherwise)."""
    found = []
    for run in runs:
        p = run.predicate
        link = links(run)
        what = (
            f"{link.display} ({link.version_shown}) on {p.evaluation.name} {p.evaluation.version}"
        )
        found.append(
            Change(
                at=p.issued_at,
                what="corrected" if p.supersedes else "added",
                text=(
                    f"{what}, correcting run {urls.id16(p.supersedes)}"
                    if p.supersedes
                    else f"{what}, {p.division.value}, {p.evidence.value.replace('_', ' ')}"
                ),
                path=urls.run(run.artifact_id),
            )
        )
    return tuple(sorted(found, key=lambda c: (c.at, c.path or ""), reverse=True))


def feed(board: Board) -> bytes:
    """An Atom 1.0 feed of the newest changes and trust-root versions; dated by the newest of
    them, not the build."""
    entries = sorted(
        [*map(_run_entry, board.changes), *map(_root_entry, board.roots)],
        key=lambda entry: (entry.at, entry.order),
        reverse=True,
    )[:FEED_ENTRIES]
    updated = entries[0].at if entries else board.updated
    stamp = _atom(updated) if updated else "1970-01-01T00:00:00Z"
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<feed xmlns="http://www.w3.org/2005/Atom">',
        f"  <title>{escape(board.title)}: changes</title>",
        f"  <id>{escape(board.base_url + urls.CHANGELOG)}</id>",
        f'  <link rel="alternate" href={quoteattr(board.base_url + urls.CHANGELOG)}/>',
        f'  <link rel="self" href={quoteattr(board.base_url + urls.FEED)}/>',
        f"  <updated>{stamp}</updated>",
        f"  <author><name>{escape(board.title)}</name></author>",
    ]
    for entry in entries:
        lines += [
            "  <entry>",
            f"    <title>{escape(entry.title)}</title>",
            f"    <id>{escape(board.base_url + entry.ident)}</id>",
            f"    <link href={quoteattr(board.base_url + entry.link)}/>",
            f"    <updated>{_atom(entry.at)}</updated>",
            *([f"    <summary>{escape(entry.summary)}</summary>"] if entry.summary else []),
            "  </entry>",
        ]
    lines.append("</feed>")
    return ("\n".join(lines) + "\n").encode("utf-8")


@dataclass(frozen=True)
class _Entry:
    """One entry of the feed, its addresses root-relative."""

    at: datetime
    order: str
    """Breaks ties of ``at`` the same way in every build."""
    link: str
    ident: str
    """The entry's id, unique in the feed."""
    title: str
    summary: str = ""


def _run_entry(change: Change) -> _Entry:
    link = change.path or urls.CHANGELOG
    return _Entry(
        at=change.at,
        order=f"run {link}",
        link=link,
        ident=f"{link}#{change.what}",
        title=f"{change.what}: {visible(change.text)}",
    )


def _root_entry(version: RootVersion) -> _Entry:
    """A trust-root version, dated as the changelog page explains; its changes as summary."""
    link = f"{urls.CHANGELOG}#{version.anchor}"
    return _Entry(
        at=version.dated,
        order=f"root {version.version:012d}",
        link=link,
        ident=link,
        title=f"trust root: version {version.version}",
        summary="; ".join(_said(line) for line in version.edits),
    )


def _said(line: tuple[Words, ...]) -> str:
    """A line as plain text: signed parts with their invisible characters written out."""
    return "".join(visible(words.text) if words.signed else words.text for words in line)


def _atom(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
