"""A run page from a verified run, the links that point at it, and the bytes it offers for
download."""

from __future__ import annotations

from collections.abc import Sequence

from memrank.artifacts import VerifiedRun
from memrank.board import urls
from memrank.board.model import RunLink, RunPage, TaskRow
from memrank.measure import Value

__all__ = ["downloads", "run_link", "run_page"]


def run_page(run: VerifiedRun, superseded_by: str | None, pairs: tuple[RunLink, ...]) -> RunPage:
    """The page of ``run``; ``superseded_by`` is the artifact id that corrects it, if any."""
    values = run.result.values
    task_measures = tuple(dict.fromkeys(v.measure for v in values if v.task_id is not None))
    supersedes = run.predicate.supersedes
    return RunPage(
        artifact_id=run.artifact_id,
        path=urls.run(run.artifact_id),
        predicate=run.predicate,
        key_ids=run.keyids,
        values=tuple(v for v in values if v.task_id is None),
        task_measures=task_measures,
        tasks=_task_rows(run, task_measures),
        envelope_path=urls.envelope(run.artifact_id),
        result_path=urls.result_file(run.artifact_id),
        supersedes=urls.run(supersedes) if supersedes else None,
        superseded_by=urls.run(superseded_by) if superseded_by else None,
        pairs=pairs,
    )


def run_link(run: VerifiedRun, *, path: str | None = None, note: str = "") -> RunLink:
    """How other pages point at ``run``: its run page, unless ``path`` says where instead."""
    p = run.predicate
    return RunLink(
        path=path or urls.run(run.artifact_id),
        system=p.system.name,
        version=p.system.version,
        evaluation=p.evaluation.name,
        issued_at=p.issued_at,
        note=note,
    )


def _task_rows(run: VerifiedRun, measures: tuple[str, ...]) -> tuple[TaskRow, ...]:
    """One row per task, in the order the run put them, one value (or None) per measure."""
    by_task: dict[str, dict[str, Value]] = {}
    for value in run.result.values:
        if value.task_id is not None:
            by_task.setdefault(value.task_id, {})[value.measure] = value
    order = dict.fromkeys([*(t.task.id for t in run.result.traces), *by_task])
    return tuple(
        TaskRow(task_id=task, values=tuple(by_task.get(task, {}).get(m) for m in measures))
        for task in order
    )


def downloads(runs: Sequence[VerifiedRun]) -> dict[str, bytes]:
    """Each run's envelope and result file, byte for byte, beside its page."""
    files: dict[str, bytes] = {}
    for run in runs:
        files[urls.envelope(run.artifact_id)] = run.path.read_bytes()
        files[urls.result_file(run.artifact_id)] = run.result_bytes
    return files
