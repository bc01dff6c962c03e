"""A run page from a verified run, the links that point at it, the bytes it offers for
download (the signed envelope only: the result file stays in the results store), and each
system's history of runs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

from memrank.artifacts import VerifiedRun
from memrank.board import urls
from memrank.board.memo import key
from memrank.board.model import (
    HistoryEntry,
    Identity,
    RunLink,
    RunPage,
    Shown,
    SystemHistory,
    Undecided,
)
from memrank.board.text import category_order

__all__ = [
    "EXAMPLES",
    "RunLinks",
    "downloads",
    "histories",
    "run_link",
    "run_page",
    "signed_version",
    "undecided_of",
    "version_shown",
]

EXAMPLES = 5
"""Task ids a run page lists per reason a value is missing; the scores file has them all."""
_BUILT_IN = "in-process"


def run_page(
    run: VerifiedRun,
    identity: Identity | None,
    superseded_by: str | None,
    shown: Shown | None,
    results_store: str | None,
    stored: frozenset[str] = frozenset(),
) -> RunPage:
    """The page of ``run``; ``superseded_by`` is the artifact id that corrects it, if any,
    ``shown`` what the table says of it, ``stored`` the result files the store is known to
    hold (the page links its result file only when it is one of them)."""
    supersedes = run.predicate.supersedes
    sha256 = run.statement.result_subject.digest.sha256
    result_url = _store_url(results_store, sha256) if sha256 in stored else None
    return RunPage(
        artifact_id=run.artifact_id,
        path=urls.run(run.artifact_id),
        predicate=run.predicate,
        key_ids=run.keyids,
        identity=identity,
        version_shown=version_shown(run),
        headline=shown.cell if shown else None,
        column=shown.column if shown else None,
        categories=shown.categories if shown else (),
        questions=_questions(run, shown),
        # a shown run's comes with its column (kept in the memo with it), so that the run
        # pages of an unchanged column never parse their scores files
        undecided=shown.undecided if shown else undecided_of(run),
        envelope_path=urls.envelope(run.artifact_id),
        result_sha256=sha256,
        result_url=result_url,
        result_in_git=run.result_path is not None,
        supersedes=urls.run(supersedes) if supersedes else None,
        superseded_by=urls.run(superseded_by) if superseded_by else None,
        comparisons=shown.comparisons if shown else (),
        more_better=shown.more_better if shown else 0,
        more_worse=shown.more_worse if shown else 0,
        more_tied=shown.more_tied if shown else 0,
        evaluation_path=shown.evaluation if shown else None,
        history_path=urls.system(run.predicate.system.name),
        made_from=key(
            run.artifact_id,
            *run.keyids,
            identity.model_dump_json() if identity else "",
            shown.source if shown else "",
            result_url or "",
            str(run.result_path is not None),
            superseded_by or "",
        ),
    )


def histories(runs: Sequence[RunPage], links: Sequence[RunLink]) -> tuple[SystemHistory, ...]:
    """Per signed system name, its runs oldest first with what the table shows of each;
    ``links`` are the runs' links, in the order of ``runs``."""
    by_system: dict[str, list[HistoryEntry]] = {}
    for run, link in sorted(
        zip(runs, links, strict=True), key=lambda r: (r[1].issued_at, r[1].path)
    ):
        by_system.setdefault(link.system, []).append(
            HistoryEntry(link=link, column=run.column, headline=run.headline)
        )
    return tuple(
        SystemHistory(
            path=urls.system(system),
            system=system,
            display=entries[-1].link.display,
            entries=tuple(entries),
        )
        for system, entries in sorted(by_system.items())
    )


def _questions(run: VerifiedRun, shown: Shown | None) -> tuple[tuple[str, str, int], ...]:
    """The dataset bundle's question counts in natural order, each with the label the
    column it is shown in gives its category."""
    labels = {row.category: row.label for row in shown.categories} if shown else {}
    counts = run.predicate.dataset_bundle.question_counts
    return tuple(
        (category, labels.get(category, ""), counts[category])
        for category in sorted(counts, key=category_order)
    )


def _store_url(results_store: str | None, sha256: str) -> str | None:
    """The result file's address in the results store, when the store is on the web; a
    local store directory has no address a reader could follow."""
    if results_store is None or not results_store.startswith("https://"):
        return None
    return results_store.replace("{sha256}", sha256)


def signed_version(run: VerifiedRun) -> str:
    """The version the run records of its system: the one it was run as, else its engine's,
    else the one the running system reported about itself (an engine over the wire often
    reports only that); "" when it records none."""
    system = run.predicate.system
    return system.version or system.engine_version or system.declared_version or ""


def version_shown(run: VerifiedRun) -> str:
    """The version as pages write it: a system built into memrank signs ``in-process``,
    which is where it ran, not a version; its version is memrank's. An engine's or a
    self-reported version says which it is."""
    system = run.predicate.system
    if system.version == _BUILT_IN:
        return f"built into memrank {run.predicate.pipeline.memrank_version}"
    if system.version:
        return system.version
    if system.engine_version:
        return f"engine {system.engine_version}"
    if system.declared_version:
        return f"{system.declared_version} (self-reported)"
    return "version not stated"


def run_link(run: VerifiedRun, identities: Mapping[str, Identity], *, note: str = "") -> RunLink:
    """How other pages point at ``run``."""
    p = run.predicate
    identity = identities.get(p.system.name)
    return RunLink(
        path=urls.run(run.artifact_id),
        system=p.system.name,
        display=identity.display_name if identity else p.system.name,
        version=p.system.version,
        version_shown=version_shown(run),
        evaluation=p.evaluation.name,
        issued_at=p.issued_at,
        note=note,
        control=identity.control if identity else False,
    )


class RunLinks:
    """``run_link`` of each run, made once a build: a run is pointed at from its column's run
    pages, its evaluation page, the changelog and its system's history."""

    def __init__(self, identities: Mapping[str, Identity]) -> None:
        self.identities = identities
        """Who each system is, by signed name (artifacts/systems.toml)."""
        self._made: dict[str, RunLink] = {}

    def __call__(self, run: VerifiedRun) -> RunLink:
        found = self._made.get(run.artifact_id)
        if found is None:
            found = self._made[run.artifact_id] = run_link(run, self.identities)
        return found


def undecided_of(run: VerifiedRun) -> tuple[Undecided, ...]:
    """Every reason a task value of ``run`` is missing, per measure, with how many tasks it
    covers."""
    task_ids = run.scores.task_ids
    found = []
    for measure, column in run.scores.measures.items():
        reasons: dict[str, list[int]] = defaultdict(list)
        for index, why in sorted(column.why.items()):
            reasons[why].append(index)
        for why, indices in sorted(reasons.items(), key=lambda item: (-len(item[1]), item[0])):
            found.append(
                Undecided(
                    measure=measure,
                    why=why,
                    tasks=len(indices),
                    examples=tuple(task_ids[i] for i in indices[:EXAMPLES]),
                )
            )
    return tuple(found)


def downloads(runs: Sequence[VerifiedRun]) -> dict[str, Path]:
    """Each run's signed envelope file, by the path of its download beside the run page (a
    copy, byte for byte)."""
    return {urls.envelope(run.artifact_id): run.path for run in runs}
