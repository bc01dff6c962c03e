"""A run the registry tracks: journaled as it goes, resumable, its result kept in its folder.

``run_tracked(plan)`` owns a run's life and its exit code, as pytest's ``wrap_session`` does a
session's: it marks the record running, runs the stages (load → journal → run → retry-merge →
write → headline), and maps every way out to the record and an exit code. Ctrl-C, SIGTERM and
SIGHUP keep the journal and raise ``Interrupted`` (exit 128 + the signal's number) with the
command that resumes, every original option in it. ``memrank run`` and the background process
of ``memrank submit`` both come here with a plan (memrank.runs.plan).
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memrank._apply import measures_of
from memrank._basics import now_utc
from memrank._drive import Observer
from memrank._files import check_writable, write_atomic
from memrank._system_options import typed_options
from memrank.catalog import evaluation as evaluation_named
from memrank.catalog import system as system_named
from memrank.errors import (
    HungUp,
    Interrupted,
    MemrankError,
    RefusedRun,
    RunSuspect,
    TasksFailedInRun,
    Terminated,
    UsageError,
)
from memrank.evaluation import Evaluation
from memrank.result import Result
from memrank.run import run
from memrank.runs.answering import answer_plan, judge_failure
from memrank.runs.causes import failure_causes, said
from memrank.runs.journal import Journal
from memrank.runs.merge import earlier_result, failed_part, retried
from memrank.runs.narrow import limited, with_tasks
from memrank.runs.plan import RunPlan
from memrank.runs.probe import with_probe
from memrank.runs.progress import Progress, watching
from memrank.runs.registry import (
    HOME_VARIABLE,
    JOURNAL,
    RESULT,
    RunRecord,
    RunState,
    all_records,
    find,
    run_folder,
    runs_dir,
    save_record,
    tasks_done,
)
from memrank.runs.request import Request, resume_command
from memrank.runs.shards import shard_of
from memrank.runs.summary import headline
from memrank.runs.tolerance import FailureWatch, parse_failure_limit
from memrank.system import Memory, System

if TYPE_CHECKING:
    from memrank.answer import AnswerStage

__all__ = ["Finished", "run_tracked"]

Say = Callable[[str], None]
"""Told what is happening as it starts (one line each), so nothing is silent for long."""


@dataclass(frozen=True)
class Finished:
    """A tracked run that made its result."""

    result: Result
    record: RunRecord
    """Its record, done, with the exit code ``ending`` gives."""
    stage: AnswerStage | None
    """The answer stage it ran, if any (what it spent is told after the result)."""
    ending: MemrankError | None
    """What the command exits with once the result is shown (refused 3, judge failed 8,
    suspect 11, tasks failed 7); None: it exits 0."""


@dataclass(frozen=True)
class _Loaded:
    """What the plan names, made: the system, the part of the evaluation it runs (measured as
    it will be), the answer stage, and the retried run's result."""

    system: System
    evaluation: Evaluation
    stage: AnswerStage | None
    earlier: Result | None


def run_tracked(plan: RunPlan, *, progress: bool = False, say: Say | None = None) -> Finished:
    """Run ``plan`` under a journal; its record ends done, failed or interrupted.

    ``progress`` draws the progress line on stderr (redrawn on a terminal, a line per unit
    elsewhere); ``say`` is told each stage as it starts (the run id, loading, running,
    measuring, saving) and the answer stage's cost estimate.
    """
    tell = say or (lambda _: None)
    check_writable(
        runs_dir(), option=f"the run registry (move it with {HOME_VARIABLE})", folder=True
    )
    _check_save_is_free(plan.record.id, plan.save)
    record = save_record(
        plan.record.model_copy(
            update={
                "state": RunState.RUNNING,
                "pid": os.getpid(),
                "error": None,
                "saved": str(plan.save) if plan.save is not None else None,
            }
        )
    )
    tell(f"run:        {record.id}")
    try:
        with _signals_as_interrupts():
            return _main(plan, record, progress, tell)
    except KeyboardInterrupt as exc:
        raise _stopped(find(record.id), getattr(exc, "signal_number", signal.SIGINT)) from None
    except UsageError:
        if plan.fresh:  # a usage error is the command's, not a run's: it leaves no record behind
            shutil.rmtree(run_folder(record.id), ignore_errors=True)
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


def _main(plan: RunPlan, record: RunRecord, progress: bool, tell: Say) -> Finished:
    """The stages of a run, in order, each handed what the one before made."""
    loaded = _load(plan, tell)
    part = loaded.evaluation
    record = save_record(record.model_copy(update={"tasks": len(part.tasks), "slice": part.slice}))
    journal = _journal(plan, record, loaded)
    result = _run(plan, record, loaded, journal, progress, tell)
    result = _merged(loaded, result)
    if loaded.earlier is not None:
        record = record.model_copy(update={"tasks": len(result.traces)})
    tell("saving:     the result")
    _write(plan, record, result)
    return _finished(record, loaded, result)


def _load(plan: RunPlan, tell: Say) -> _Loaded:
    request = plan.request
    tell(f"loading:    the system {request.target}")
    made = system_named(request.target, **typed_options(request.target, request.options))
    tell(f"loading:    the evaluation {request.evaluation}")
    evaluation = _part_asked(request, evaluation_named(request.evaluation))
    earlier = None
    if plan.retry_source is not None:
        earlier = earlier_result(plan.retry_source)
        evaluation = failed_part(evaluation, earlier)
    stage, evaluation = answer_plan(plan.answering, evaluation, made.kind)
    if stage is not None:
        # the answer stage's code loads only for a run that answers: a plain run is spared
        # httpx, rich and the wire (a third of a CPU-second of a LoCoMo run)
        from memrank.answer import estimate

        tell(estimate(stage, evaluation.tasks).line())
    return _Loaded(made, evaluation, stage, earlier)


def _journal(plan: RunPlan, record: RunRecord, loaded: _Loaded) -> Journal:
    path = run_folder(record.id) / JOURNAL
    if plan.resuming and path.is_file():
        return Journal.resume(path, loaded.evaluation.version)
    return Journal.start(
        path,
        plan.request.evaluation,
        loaded.evaluation.version,
        now_utc(),
        keeps_tasks=isinstance(loaded.system, Memory),  # a memory's units can resume part way
        secret=_secret_for(loaded.earlier),
    )


def _run(
    plan: RunPlan,
    record: RunRecord,
    loaded: _Loaded,
    journal: Journal,
    progress: bool,
    tell: Say,
) -> Result:
    evaluation = loaded.evaluation
    observer = _observer(plan.request, record, evaluation, journal, progress)
    limits = loaded.system.time_limits()
    if limits is not None:  # over the wire: how long anything can take, said before it does
        print(limits, file=sys.stderr, flush=True)
    tell(f"running:    {len(evaluation.tasks)} task(s) in {evaluation.unit_count()} unit(s)")
    shown = observer.inner if isinstance(observer, FailureWatch) else observer
    redraw = shown.redraw if isinstance(shown, Progress) else None

    def after_the_units(line: str) -> None:  # a stage's line goes below the progress line
        if isinstance(shown, Progress):
            shown.finish()
        tell(line)

    try:
        with watching(sys.stderr, redraw):
            return run(
                loaded.system,
                evaluation,
                concurrency=plan.request.concurrency,
                observer=observer,
                started=journal.earlier.started,
                secret=journal.earlier.secret,
                canaries=loaded.earlier is None or loaded.earlier.integrity is None,
                answer=loaded.stage,
                tell=after_the_units,
            )
    finally:
        journal.close()
        if isinstance(shown, Progress):
            shown.finish()


def _merged(loaded: _Loaded, result: Result) -> Result:
    """A retry merged into the run it retries (whose record stands, probe and all); any other
    run with its probe answers."""
    if loaded.earlier is not None:
        return retried(loaded.earlier, result, measures_of(loaded.evaluation, loaded.stage))
    return with_probe(loaded.system, result)


def _write(plan: RunPlan, record: RunRecord, result: Result) -> None:
    folder = run_folder(record.id)
    file_bytes = result.to_bytes()  # made once, written to both places
    write_atomic(folder / RESULT, file_bytes)
    if plan.save is not None:
        write_atomic(plan.save, file_bytes)
    (folder / JOURNAL).unlink()  # the result holds every trace now; the journal was for resuming


def _finished(record: RunRecord, loaded: _Loaded, result: Result) -> Finished:
    """The record done, with the headline and the exit code the result gives."""
    measure, mean = headline(result, loaded.evaluation.headline)
    ending = _ending(result, loaded.stage)
    done = _ended(
        record,
        RunState.DONE,
        0 if ending is None else ending.exit_code,
        headline=mean,
        headline_measure=measure,
    )
    return Finished(result, save_record(done), loaded.stage, ending)


def _ending(result: Result, stage: AnswerStage | None) -> MemrankError | None:
    """The first of: refused, the judge failed every call, suspect, tasks failed."""
    if result.refusal is not None:
        return RefusedRun(result.refusal)
    judged = judge_failure(stage.made) if stage is not None else None
    if judged is not None:
        return judged
    if result.integrity is not None and result.integrity.verdict == "suspect":
        return RunSuspect(
            f"the run was saved, and its {result.integrity.line}; it cannot be published "
            "(docs/integrity.md)"
        )
    if result.failed:
        return TasksFailedInRun(
            f"{len(result.failed)} of {len(result.traces)} task(s) failed: "
            f"{said(failure_causes(result.failed))}; each failure is recorded on its trace"
        )
    return None


def _check_save_is_free(run_id: str, save: Path | None) -> None:
    """Two runs saving to one path would clobber each other's result silently."""
    if save is None:
        return
    for other in all_records():
        if other.id != run_id and other.state is RunState.RUNNING and other.saved == str(save):
            raise UsageError(
                f"--save {save}: run {other.id} (still running) saves its result there; "
                "give another path"
            )


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
    # SIGTERM and SIGHUP exit as Ctrl-C does, each with its own number: 143, 129 (Ctrl-C 130)
    by_signal: dict[int, type[Interrupted]] = {signal.SIGTERM: Terminated, signal.SIGHUP: HungUp}
    return by_signal.get(signal_number, Interrupted)(
        f"{how}: run {record.id} kept {kept}{total} task(s) in its journal; "
        f"resume with: {resume_command(record)}"
    )


class _Signalled(KeyboardInterrupt):
    """SIGTERM or SIGHUP, stopping the run as Ctrl-C does."""

    def __init__(self, signal_number: int) -> None:
        super().__init__(signal_number)
        self.signal_number = signal_number


def _raise_signalled(signal_number: int, frame: object) -> None:
    raise _Signalled(signal_number)


@contextmanager
def _signals_as_interrupts() -> Iterator[None]:
    """What CI cancellation, ``docker stop`` and systemd send (SIGTERM) and a closed terminal
    (SIGHUP) stop the run as Ctrl-C does: its journal kept, its record stopped."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = (signal.SIGTERM, signal.SIGHUP)
    earlier = {number: signal.signal(number, _raise_signalled) for number in wanted}
    try:
        yield
    finally:
        for number, handler in earlier.items():
            signal.signal(number, handler)


def _secret_for(earlier: Result | None) -> bytes:
    """A fresh secret, or the earlier run's when this retries its failed tasks: the retry
    names what it sends as the run did, and that run's canaries stand for both."""
    if earlier is not None and earlier.integrity is not None:
        return bytes.fromhex(earlier.integrity.secret)
    return secrets.token_bytes(16)
