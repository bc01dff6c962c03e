"""Every path on the board, built in one place, and the relative links between them.

Paths are relative to the site's root and always name a file (``runs/<id16>/index.html``),
so the site reads the same from any web server, from a sub-path such as a project's pages
URL, and from disk. Artifact text never reaches a path unchanged: names pass through
``slug``, runs are addressed by their artifact id.
"""

from __future__ import annotations

import hashlib
import re

__all__ = [
    "CHANGELOG",
    "FEED",
    "FIELD",
    "INDEX",
    "MANIFEST",
    "NOT_FOUND",
    "ROBOTS",
    "SITEMAP",
    "TRUST",
    "beside",
    "doc",
    "envelope",
    "href",
    "evaluation",
    "evaluation_file",
    "id16",
    "run",
    "slug",
    "static",
    "system",
    "track",
    "track_data",
]

INDEX = "index.html"
NOT_FOUND = "404.html"
MANIFEST = "manifest.json"
TRUST = "trust.json"
SITEMAP = "sitemap.xml"
ROBOTS = "robots.txt"
CHANGELOG = "changes/index.html"
FEED = "changes/feed.xml"
FIELD = "field/index.html"
"""The field's published answer-accuracy numbers, beside the board's columns."""

_SAFE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_UNSAFE_RUN = re.compile(r"[^a-z0-9]+")
_HEX = re.compile(r"[0-9a-f]{64}")


def slug(text: str) -> str:
    """A path segment for ``text``: the text itself when it is already lower-case words joined
    by hyphens, else a readable part plus 8 hex digits of its sha256.

    The hash keeps two names that read alike apart ("Mem 0" and "mem-0" are different systems)
    and depends on nothing but the text, so a page's address never moves when others appear.
    """
    if _SAFE.fullmatch(text):
        return text
    readable = _UNSAFE_RUN.sub("-", text.lower()).strip("-")[:48].strip("-")
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    return f"{readable}-{digest}" if readable else digest


def id16(artifact_id: str) -> str:
    """The first 16 hex digits of an artifact id: its permalink on the board."""
    if not _HEX.fullmatch(artifact_id):
        raise ValueError(f"artifact id {artifact_id!r} is not 64 lower-case hex digits")
    return artifact_id[:16]


def track(name: str) -> str:
    return f"{slug(name)}/index.html"


def track_data(name: str, extension: str) -> str:
    """``results.csv`` or ``results.json`` of a track."""
    return f"{slug(name)}/results.{extension}"


def run(artifact_id: str) -> str:
    return f"runs/{id16(artifact_id)}/index.html"


def envelope(artifact_id: str) -> str:
    """The signed envelope, as a download beside the run page."""
    return f"runs/{id16(artifact_id)}/envelope.json"


def evaluation(track_name: str, evaluation_name: str) -> str:
    """A track column's own page: categories, plots, compare-two."""
    return evaluation_file(track_name, evaluation_name, "index.html")


def evaluation_file(track_name: str, evaluation_name: str, name: str) -> str:
    """A file beside a column's page (its plots and its compare-two data)."""
    return f"{slug(track_name)}/{slug(evaluation_name)}/{name}"


def system(name: str) -> str:
    """A system's history: every published run of it, by signed system name."""
    return f"systems/{slug(name)}/index.html"


def doc(name: str) -> str:
    return f"docs/{slug(name)}/index.html"


def static(name: str) -> str:
    return f"static/{name}"


def beside(target: str, page: str) -> str:
    """The shortest link from the page at ``page`` to ``target`` (``../<id16>/index.html``
    between two run pages), for lists that hold a link per run."""
    # The same answer as posixpath.relpath for the site's root-relative paths (no "." or ".."
    # parts), without its absolute-path round trips: it runs once per link in a list.
    here, there = page.split("/")[:-1], target.split("/")
    shared = 0
    while shared < min(len(here), len(there) - 1) and here[shared] == there[shared]:
        shared += 1
    return "../" * (len(here) - shared) + "/".join(there[shared:])


def href(page: str, target: str) -> str:
    """The link from the page at ``page`` to ``target``, both root-relative paths."""
    return "../" * page.count("/") + target
