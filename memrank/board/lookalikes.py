"""Two systems whose names read alike are never both on a board.

A row is found by its name: "BM25Adapter" and "BM25Adаpter" (a Cyrillic "а") would be two
rows that read as one, the second borrowing the first's reputation. Names are compared by
their TR39 confusable skeleton (``memrank._unicode_security``), as the board shows them (a character
that draws nothing written ``⟨U+XXXX⟩``): the system first published on the board
keeps its name, and every run of a later look-alike is listed as not shown, naming both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from memrank._unicode_security import skeleton
from memrank.artifacts import VerifiedRun
from memrank.board.model import Identity
from memrank.board.text import visible

__all__ = ["look_alikes"]


def look_alikes(runs: Sequence[VerifiedRun], identities: Mapping[str, Identity]) -> dict[str, str]:
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
