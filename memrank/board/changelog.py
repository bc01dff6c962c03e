"""The board's history from its artifacts: each run as it was added, each correction, and an
Atom feed of the same lines.

Everything is read off the signed runs (``issued_at`` and ``supersedes``), never off a clock,
so the history is the same in every build of the same artifacts.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape, quoteattr

from memrank.artifacts import VerifiedRun
from memrank.board import urls
from memrank.board.model import Board, Change
from memrank.board.pages import version_shown
from memrank.board.text import visible

__all__ = ["FEED_ENTRIES", "changes", "feed"]

FEED_ENTRIES = 100
"""The newest lines the feed carries; the changelog page has them all."""


def changes(runs: Sequence[VerifiedRun]) -> tuple[Change, ...]:
    """One line per run added and one per run it corrects, newest first."""
    found = []
    for run in runs:
        p = run.predicate
        what = (
            f"{p.system.name} ({version_shown(run)}) on {p.evaluation.name} {p.evaluation.version}"
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
    """An Atom 1.0 feed of the newest changes; dated by the newest change, not the build."""
    updated = board.changes[0].at if board.changes else board.updated
    stamp = (updated.strftime("%Y-%m-%dT%H:%M:%SZ")) if updated else "1970-01-01T00:00:00Z"
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
    for change in board.changes[:FEED_ENTRIES]:
        link = board.base_url + (change.path or urls.CHANGELOG)
        at = change.at.strftime("%Y-%m-%dT%H:%M:%SZ")
        lines += [
            "  <entry>",
            f"    <title>{escape(change.what)}: {escape(visible(change.text))}</title>",
            f"    <id>{escape(link)}#{change.what}</id>",
            f"    <link href={quoteattr(link)}/>",
            f"    <updated>{at}</updated>",
            "  </entry>",
        ]
    lines.append("</feed>")
    return ("\n".join(lines) + "\n").encode("utf-8")
