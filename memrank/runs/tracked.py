"""A run the registry tracks: journaled as it goes, resumable, its result kept in its folder.

``memrank run`` and the background process of ``memrank submit`` both go through
``run_tracked``. Ctrl-C keeps the journal and raises ``Interrupted`` (exit 130) with the
command that resumes; an output path is checked before the system is touched.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memrank._clock import now_utc
from memrank._files import check_writable
from memrank.errors import Interrupted, MemrankError, UsageError
from memrank.evaluation import Evaluation
from memrank.result import Result
from memrank.runs.journal import Journal
from memrank.runs.progress import Progress
from memrank.runs.registry import (
    HOME_VARIABLE,
    JOURNAL,
    RESULT,
    RunRecord,
    RunState,
    all_records,
    find,
    new_run_id,
    run_folder,
    runs_dir,
    save_record,
)
from memrank.runs.shards import Shard, shard_of
from memrank.runs.summary import headline
from memrank.runs.watch import watching

if TYPE_CHECKING:
    from memrank.answer import AnswerStage

__all__ = ["Answering", "Request", "resume_command", "run_tracked"]

Answering = Callable[[Evaluation, str], "tuple[AnswerStage | None, Evaluation]"]
"""Given the evaluation and the system's kind: the answer stage to run and the evaluation."""

_RESUMABLE = (RunState.INTERRUPTED, RunState.KILLED, RunState.LOST, RunState.FAILED)


@dataclass(frozen=True)
class Request:
    """What to run, as named on the command line."""

    target: str
    evaluation: str
    options: tuple[str, ...] = ()
    concurrency: int = 4
    save: Path | None = None
    place: str | None = None
    """``local`` or ``none`` (``--on``); None: whatever the system is."""
    shard: Shard | None = None
    """Run only this shard of the evaluation (``--shard I/N``); None: all of it."""


def run_tracked(
    request: Request,
    *,
    run_id: str | None = None,
    resume: str | None = None,
    progress: bool = False,
    answering: Answering | None = None,
) -> tuple[Result, RunRecord]:
    """Run ``request`` under a journal; ``resume`` is a run id or ``""`` for the latest match.

    ``run_id`` names a record made beforehand (by ``memrank submit``). ``progress`` draws the
    progress line on stderr (redrawn on a terminal, a line per unit elsewhere). ``answering``
    turns the evaluation and the system's kind into the answer stage to run (or None) and the
    evaluation as it will be measured.
    """
    if request.save is not None:
        check_writable(request.save, option="--save")
    check_writable(
        runs_dir(), option=f"the run registry (move it with {HOME_VARIABLE})", folder=True
    )
    record = _record(request, run_id, resume)
    folder = run_folder(record.id)
    record = save_record(
        record.model_copy(update={"state": RunState.RUNNING, "pid": os.getpid(), "error": None})
    )
    try:
        result, record = _go(
            request,
            record,
            folder,
            resuming=resume is not None,
            progress=progress,
            answering=answering,
        )
    except KeyboardInterrupt:
        raise _stopped(find(record.id)) from None
    except MemrankError as exc:
        save_record(_ended(find(record.id), RunState.FAILED, exc.exit_code, error=exc.message))
        raise
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        save_record(_ended(find(record.id), RunState.FAILED, 1, error=error))
        raise
    return result, record


def resume_command(record: RunRecord) -> str:
    import shlex

    more = [f"--option {shlex.quote(option)}" for option in record.options]
    if record.shard:
        more.append(f"--shard {record.shard}")
    return " ".join(["memrank run", record.target, record.evaluation, *more, "--resume", record.id])


def _shard_text(request: Request) -> str | None:
    return str(request.shard) if request.shard is not None else None


def _record(request: Request, run_id: str | None, resume: str | None) -> RunRecord:
    if resume is None:
        if run_id is not None:
            return find(run_id)
        return RunRecord(
            id=new_run_id(request.evaluation),
            target=request.target,
            evaluation=request.evaluation,
            options=request.options,
            shard=_shard_text(request),
            created=now_utc(),
            place=request.place or "local",
        )
    if resume:
        record = find(resume)
        asked = (request.target, request.evaluation, request.options, _shard_text(request))
        if (record.target, record.evaluation, record.options, record.shard) != asked:
            raise UsageError(
                f"run {record.id} is {record.target} on {record.evaluation} with options "
                f"{list(record.options)}; resume it with: {resume_command(record)}"
            )
    else:
        matching = [
            r
            for r in all_records()
            if (r.target, r.evaluation, r.options, r.shard)
            == (request.target, request.evaluation, request.options, _shard_text(request))
            and r.state in _RESUMABLE
        ]
        if not matching:
            raise UsageError(
                f"no stopped run of {request.target} on {request.evaluation} to resume; "
                "`memrank runs ls` lists runs"
            )
        record = matching[-1]
    if record.state is RunState.DONE:
        raise UsageError(f"run {record.id} is done; `memrank runs show {record.id}` shows it")
    if record.state is RunState.RUNNING:
        raise UsageError(
            f"run {record.id} is still running (pid {record.pid}); `memrank kill` it first"
        )
    return record


def _go(
    request: Request,
    record: RunRecord,
    folder: Path,
    *,
    resuming: bool,
    progress: bool,
    answering: Answering | None,
) -> tuple[Result, RunRecord]:
    from memrank._system_options import typed_options
    from memrank.catalog import evaluation as evaluation_named
    from memrank.catalog import system
    from memrank.run import run

    made = system(request.target, **typed_options(request.target, request.options))
    _check_place(request, made)
    evaluation = evaluation_named(request.evaluation)
    if request.shard is not None:
        evaluation = shard_of(evaluation, request.shard)
    stage, evaluation = answering(evaluation, made.kind) if answering else (None, evaluation)
    record = save_record(record.model_copy(update={"tasks": len(evaluation.tasks)}))
    journal_path = folder / JOURNAL
    if resuming and journal_path.is_file():
        journal = Journal.resume(journal_path, evaluation.version)
    else:
        journal = Journal.start(journal_path, request.evaluation, evaluation.version, now_utc())
    observer = (
        Progress(
            sys.stderr,
            tasks=len(evaluation.tasks),
            units=sum(1 for _ in evaluation.units()),
            label=f"{request.target} × {request.evaluation}",
            inner=journal,
            live=progress and sys.stderr.isatty(),
        )
        if progress
        else journal
    )
    limits = made.time_limits()
    if limits is not None:  # over the wire: how long anything can take, said before it does
        print(limits, file=sys.stderr, flush=True)
    redraw = observer.redraw if isinstance(observer, Progress) else None
    try:
        with watching(sys.stderr, redraw):
            result = run(
                made,
                evaluation,
                concurrency=request.concurrency,
                observer=observer,
                started=journal.earlier.started,
                answer=stage,
            )
    finally:
        journal.close()
        if isinstance(observer, Progress):
            observer.finish()
    result.save(folder / RESULT)
    if request.save is not None:
        result.save(request.save)
    journal_path.unlink()  # the result holds every trace now; the journal was for resuming
    measure, mean = headline(result)
    done = _ended(
        record,
        RunState.DONE,
        3 if result.refusal is not None else 7 if result.failed else 0,
        headline=mean,
        headline_measure=measure,
        saved=str(request.save) if request.save is not None else None,
    )
    return result, save_record(done)


def _check_place(request: Request, made: object) -> None:
    """``--on none`` is for a system already running; an in-process system runs right here."""
    transport = getattr(made, "transport", "in-process")
    if request.place == "none" and transport == "in-process":
        raise UsageError(
            f"--on none: {request.target} runs inside memrank, there is nothing already running "
            "to reach; leave --on out"
        )
    if request.place == "local" and transport != "in-process":
        raise UsageError(
            f"--on local: memrank does not start {request.target}; start it yourself and "
            "pass --on none"
        )


def _ended(record: RunRecord, state: RunState, exit_code: int, **more: object) -> RunRecord:
    return record.model_copy(
        update={"state": state, "exit_code": exit_code, "finished": now_utc(), "pid": None, **more}
    )


def _stopped(record: RunRecord) -> Interrupted:
    """Record the run as interrupted; the error says what it kept and how to resume."""
    from memrank.runs.journal import read_journal

    try:
        kept = read_journal(run_folder(record.id) / JOURNAL).tasks_done
    except UsageError:  # stopped before its journal had a header: nothing was kept
        kept = 0
    save_record(_ended(record, RunState.INTERRUPTED, 130, error="interrupted"))
    total = f" of {record.tasks}" if record.tasks else ""
    return Interrupted(
        f"interrupted: run {record.id} kept {kept}{total} task(s) in its journal; "
        f"resume with: {resume_command(record)}"
    )
