"""A run the registry tracks: journaled as it goes, resumable, its result kept in its folder.

``memrank run`` and the background process of ``memrank submit`` both go through
``run_tracked``. Ctrl-C, SIGTERM and SIGHUP keep the journal and raise ``Interrupted`` (exit
128 + the signal's number) with the command that resumes, every original option in it; an
output path is checked before the system is touched.
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memrank._basics import now_utc
from memrank._drive import Observer
from memrank._files import check_writable, write_atomic
from memrank.errors import Interrupted, MemrankError, UsageError
from memrank.evaluation import Evaluation
from memrank.result import Result
from memrank.runs.journal import Journal
from memrank.runs.narrow import limited, with_tasks
from memrank.runs.probe import with_probe
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
    tasks_done,
)
from memrank.runs.retry import earlier_result, failed_part, retried
from memrank.runs.shards import Shard, shard_of
from memrank.runs.signals import signals_as_interrupts, stopped_by
from memrank.runs.summary import headline
from memrank.runs.tolerance import FailureWatch, parse_failure_limit
from memrank.runs.watch import watching
from memrank.system import Memory

if TYPE_CHECKING:
    from memrank.answer import AnswerStage

__all__ = [
    "Answering",
    "Request",
    "check_request",
    "new_record",
    "resume_command",
    "run_tracked",
    "stopped_run",
]

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
    limit: int | None = None
    """Run only the first this many tasks (``--limit``), recorded as a slice."""
    task_ids: tuple[str, ...] | None = None
    """Run only these tasks (``--tasks``), recorded as a slice."""
    max_failures: str | None = None
    """Stop early past this many failed tasks, a count or a share (``--max-failures``)."""
    retry_failed: str | None = None
    """The finished run whose failed tasks are run again (``--retry-failed``)."""
    arguments: tuple[str, ...] = ()
    """Every option as command-line words: what a resume command repeats."""


def run_tracked(
    request: Request,
    *,
    run_id: str | None = None,
    resume: str | None = None,
    progress: bool = False,
    answering: Answering | None = None,
    say: Callable[[str], None] | None = None,
) -> tuple[Result, RunRecord]:
    """Run ``request`` under a journal; ``resume`` is a run id or ``""`` for the latest match.

    ``run_id`` names a record made beforehand (by ``memrank submit``). ``progress`` draws the
    progress line on stderr (redrawn on a terminal, a line per unit elsewhere). ``answering``
    turns the evaluation and the system's kind into the answer stage to run (or None) and the
    evaluation as it will be measured. ``say`` is told what is happening as it starts (the
    run id, loading the evaluation, the system), so nothing is silent for long.
    """
    tell = say or (lambda _: None)
    check_request(request)
    check_writable(
        runs_dir(), option=f"the run registry (move it with {HOME_VARIABLE})", folder=True
    )
    record = _record(request, run_id, resume)
    new = resume is None and run_id is None
    saved = str(request.save.absolute()) if request.save is not None else None
    _check_save_is_free(record.id, saved)
    folder = run_folder(record.id)
    record = save_record(
        record.model_copy(
            update={"state": RunState.RUNNING, "pid": os.getpid(), "error": None, "saved": saved}
        )
    )
    tell(f"run:        {record.id}")
    try:
        with signals_as_interrupts():
            result, record = _go(
                request,
                record,
                folder,
                resuming=resume is not None,
                progress=progress,
                answering=answering,
                tell=tell,
            )
    except KeyboardInterrupt as exc:
        raise _stopped(find(record.id), getattr(exc, "signal_number", signal.SIGINT)) from None
    except UsageError:
        if new:  # a usage error is the command's, not a run's: it leaves no record behind
            import shutil

            shutil.rmtree(folder, ignore_errors=True)
        else:
            save_record(_ended(find(record.id), RunState.FAILED, 2, error="usage error"))
        raise
    except MemrankError as exc:
        save_record(_ended(find(record.id), RunState.FAILED, exc.exit_code, error=exc.message))
        raise
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        save_record(_ended(find(record.id), RunState.FAILED, 1, error=error))
        raise
    return result, record


def check_request(request: Request) -> None:
    """What can be refused before anything starts, refused now (exit 2): ``memrank run`` and
    ``memrank submit`` check exactly this, so a submission never fails later on a usage error."""
    from memrank._system_options import typed_options
    from memrank.catalog import system_factory

    typed_options(request.target, request.options)
    _check_place(request, getattr(system_factory(request.target), "transport", "in-process"))
    if request.max_failures is not None:
        parse_failure_limit(request.max_failures, 1)
    if request.save is not None:
        check_writable(request.save, option="--save")


def resume_command(record: RunRecord) -> str:
    """The command that goes on with ``record``, every option it was started with in it."""
    import shlex

    if record.arguments:
        more = [shlex.quote(word) for word in record.arguments]
    else:  # a record from before runs kept their arguments
        more = [f"--option {shlex.quote(option)}" for option in record.options]
        if record.shard:
            more.append(f"--shard {record.shard}")
    words = [record.target, record.evaluation]
    return " ".join(["memrank run", *map(shlex.quote, words), *more, "--resume", record.id])


def stopped_run(request: Request, resume: str) -> RunRecord:
    """The stopped run ``--resume`` names: ``resume`` itself, or for ``""`` the latest stopped
    run of the same system, evaluation, options and shard."""
    return find(resume) if resume else _record(request, None, resume)


def _check_save_is_free(run_id: str, saved: str | None) -> None:
    """Two runs saving to one path would clobber each other's result silently."""
    if saved is None:
        return
    for other in all_records():
        if other.id != run_id and other.state is RunState.RUNNING and other.saved == saved:
            raise UsageError(
                f"--save {saved}: run {other.id} (still running) saves its result there; "
                "give another path"
            )


def _shard_text(request: Request) -> str | None:
    return str(request.shard) if request.shard is not None else None


def new_record(request: Request) -> RunRecord:
    """The record of a new run of ``request`` (not saved yet)."""
    return RunRecord(
        id=new_run_id(request.evaluation),
        target=request.target,
        evaluation=request.evaluation,
        options=request.options,
        arguments=request.arguments,
        shard=_shard_text(request),
        created=now_utc(),
        place=request.place or "local",
    )


def _record(request: Request, run_id: str | None, resume: str | None) -> RunRecord:
    if resume is None:
        return find(run_id) if run_id is not None else new_record(request)
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
    tell: Callable[[str], None],
) -> tuple[Result, RunRecord]:
    from memrank._apply import measures_of
    from memrank._system_options import typed_options
    from memrank.catalog import evaluation as evaluation_named
    from memrank.catalog import system
    from memrank.run import run

    tell(f"loading:    the system {request.target}")
    made = system(request.target, **typed_options(request.target, request.options))
    tell(f"loading:    the evaluation {request.evaluation}")
    evaluation = _part_asked(request, evaluation_named(request.evaluation))
    earlier = None
    if request.retry_failed is not None:
        earlier = earlier_result(find(request.retry_failed))
        evaluation = failed_part(evaluation, earlier)
    stage, evaluation = answering(evaluation, made.kind) if answering else (None, evaluation)
    record = save_record(record.model_copy(update={"tasks": len(evaluation.tasks)}))
    journal_path = folder / JOURNAL
    if resuming and journal_path.is_file():
        journal = Journal.resume(journal_path, evaluation.version)
    else:
        journal = Journal.start(
            journal_path,
            request.evaluation,
            evaluation.version,
            now_utc(),
            keeps_tasks=isinstance(made, Memory),  # a memory's units can be resumed part way
            secret=_secret_for(earlier),
        )
    observer = _observer(request, record, evaluation, journal, progress)
    limits = made.time_limits()
    if limits is not None:  # over the wire: how long anything can take, said before it does
        print(limits, file=sys.stderr, flush=True)
    tell(f"running:    {len(evaluation.tasks)} task(s) in {evaluation.unit_count()} unit(s)")
    shown = observer.inner if isinstance(observer, FailureWatch) else observer
    redraw = shown.redraw if isinstance(shown, Progress) else None
    try:
        with watching(sys.stderr, redraw):
            result = run(
                made,
                evaluation,
                concurrency=request.concurrency,
                observer=observer,
                started=journal.earlier.started,
                secret=journal.earlier.secret,
                canaries=earlier is None or earlier.integrity is None,
                answer=stage,
            )
    finally:
        journal.close()
        if isinstance(shown, Progress):
            shown.finish()
    if earlier is not None:  # the earlier run's record stands, probe and all
        result = retried(earlier, result, measures_of(evaluation, stage))
        record = record.model_copy(update={"tasks": len(result.traces)})
    else:
        result = with_probe(made, result)
    file_bytes = result.to_bytes()  # made once, written to both places
    write_atomic(folder / RESULT, file_bytes)
    if request.save is not None:
        write_atomic(request.save, file_bytes)
    journal_path.unlink()  # the result holds every trace now; the journal was for resuming
    measure, mean = headline(result, evaluation.headline)
    done = _ended(
        record,
        RunState.DONE,
        3 if result.refusal is not None else 7 if result.failed else 0,
        headline=mean,
        headline_measure=measure,
    )
    return result, save_record(done)


def _part_asked(request: Request, evaluation: Evaluation) -> Evaluation:
    """The part of ``evaluation`` the request runs: a shard, named tasks, the first N."""
    if request.shard is not None:
        evaluation = shard_of(evaluation, request.shard)
    if request.task_ids is not None:
        evaluation = with_tasks(evaluation, request.task_ids)
    if request.limit is not None:
        evaluation = limited(evaluation, request.limit)
    return evaluation


def _observer(
    request: Request,
    record: RunRecord,
    evaluation: Evaluation,
    journal: Journal,
    progress: bool,
) -> Observer:
    observer: Observer = journal
    if progress:
        observer = Progress(
            sys.stderr,
            tasks=len(evaluation.tasks),
            units=evaluation.unit_count(),
            label=f"{request.target} × {request.evaluation}",
            inner=journal,
            live=sys.stderr.isatty(),
        )
    if request.max_failures is not None:
        limit = parse_failure_limit(request.max_failures, len(evaluation.tasks))
        stopped = f"its journal is kept; resume with: {resume_command(record)}"
        observer = FailureWatch(observer, limit, stopped)
    return observer


def _check_place(request: Request, transport: str) -> None:
    """``--on none`` is for a system already running; an in-process system runs right here."""
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


def _stopped(record: RunRecord, signal_number: int) -> Interrupted:
    """Record the run as interrupted; the error says what it kept and how to resume."""
    kept = tasks_done(record)
    how = "interrupted" if signal_number == signal.SIGINT else signal.Signals(signal_number).name
    save_record(_ended(record, RunState.INTERRUPTED, 128 + signal_number, error=how))
    total = f" of {record.tasks}" if record.tasks else ""
    return stopped_by(signal_number)(
        f"{how}: run {record.id} kept {kept}{total} task(s) in its journal; "
        f"resume with: {resume_command(record)}"
    )


def _secret_for(earlier: Result | None) -> bytes:
    """A fresh secret, or the earlier run's when this retries its failed tasks: the retry
    names what it sends as the run did, and that run's canaries stand for both."""
    if earlier is not None and earlier.integrity is not None:
        return bytes.fromhex(earlier.integrity.secret)
    return secrets.token_bytes(16)
