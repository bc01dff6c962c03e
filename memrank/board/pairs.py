"""A paired reading of every two runs of one evaluation and version, each on its own page.

The reading is ``memrank.paired`` itself, run on the two verified result files: the board adds
no judgement of its own, and the closing line travels with the numbers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from itertools import combinations

from memrank.artifacts import VerifiedRun
from memrank.board import urls
from memrank.board.model import PairPage, RunLink
from memrank.board.pages import run_link
from memrank.errors import PairingRefused
from memrank.paired import paired

__all__ = ["pair_pages"]


def pair_pages(
    runs: Sequence[VerifiedRun],
) -> tuple[tuple[PairPage, ...], dict[str, tuple[RunLink, ...]]]:
    """Every pair page (A is the run attested first), and per artifact id the links its run
    page lists: to each pair page, or, where the two cannot be paired, to the other run."""
    groups: dict[tuple[str, str], list[VerifiedRun]] = defaultdict(list)
    for run in runs:
        groups[(run.predicate.evaluation.name, run.predicate.evaluation.version)].append(run)
    pages: list[PairPage] = []
    links: dict[str, list[RunLink]] = defaultdict(list)
    for (evaluation, _), members in sorted(groups.items()):
        ordered = sorted(members, key=lambda r: (r.predicate.issued_at, r.artifact_id))
        for a, b in combinations(ordered, 2):
            try:
                reading = paired(a.result, b.result)
            except PairingRefused as exc:
                links[a.artifact_id].append(run_link(b, note=f"not paired: {exc.message}"))
                links[b.artifact_id].append(run_link(a, note=f"not paired: {exc.message}"))
                continue
            path = urls.pair(evaluation, a.artifact_id, b.artifact_id)
            pages.append(
                PairPage(
                    path=path,
                    track=a.predicate.track,
                    a=run_link(a),
                    b=run_link(b),
                    reading=reading,
                )
            )
            links[a.artifact_id].append(run_link(b, path=path))
            links[b.artifact_id].append(run_link(a, path=path))
    return tuple(pages), {artifact: tuple(found) for artifact, found in links.items()}
