"""A run as asked for: the system, the evaluation and the options named on the command line,
checked before anything starts, and the record a new run (or a resume) runs under.

``memrank run`` and ``memrank submit`` check exactly what ``check_request`` checks, so a
submission never fails later on a usage error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memrank._basics import now_utc
from memrank.errors import UsageError
from memrank.runs.registry import RunRecord, RunState, all_records, find, new_run_id
from memrank.runs.shards import Shard
from memrank.runs.tolerance import parse_failure_limit

__all__ = [
    "Request",
    "check_request",
    "chosen_record",
    "evaluation_argument",
    "new_record",
    "resume_command",
    "stopped_run",
]

_RESUMABLE = (RunState.INTERRUPTED, RunState.KILLED, RunState.LOST, RunState.FAILED)


@dataclass(frozen=True)
class Request:
    """What to run, as named on the command line."""

    target: str
    """The catalog name of the system."""
    evaluation: str
    """The evaluation as named (slice included), or the evaluation file's path."""
    options: tuple[str, ...] = ()
    """The ``--option KEY=VALUE`` texts, as given."""
    concurrency: int = 4
    """Isolation units run at once, for systems that serve units at once."""
    save: Path | None = None
    """Where ``--save`` also writes the result file."""
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


def check_request(request: Request) -> None:
    """What can be refused before anything starts, refused now (exit 2)."""
    from memrank._files import check_writable
    from memrank._system_options import typed_options
    from memrank.catalog import system_factory

    typed_options(request.target, request.options)
    _check_place(request, getattr(system_factory(request.target), "transport", "in-process"))
    _check_evaluation(request.evaluation)
    if request.max_failures is not None:
        parse_failure_limit(request.max_failures, 1)
    if request.save is not None:
        check_writable(request.save, option="--save")
        _check_save_is_no_input(request, request.save)


def evaluation_argument(text: str) -> str:
    """EVALUATION as a run records it: a file by its absolute, resolved path (so the command
    that resumes it works from any folder), a shipped evaluation by its name."""
    from memrank.evaluations.from_file import is_evaluation_file

    return str(Path(text).resolve()) if is_evaluation_file(text) else text


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


def stopped_run(request: Request, resume: str) -> RunRecord:
    """The stopped run ``--resume`` names: ``resume`` itself, or for ``""`` the latest stopped
    run of the same system, evaluation, options and shard."""
    return find(resume) if resume else chosen_record(request, None, resume)


def chosen_record(request: Request, run_id: str | None, resume: str | None) -> RunRecord:
    """The record the run goes under: a new one (not saved yet), the one ``run_id`` names
    (made beforehand by ``memrank submit`` or a run set), or the stopped run ``resume`` names
    (``""``: the latest stopped run of the same system, evaluation, options and shard)."""
    if resume is None:
        return find(run_id) if run_id is not None else new_record(request)
    asked = (request.target, request.evaluation, request.options, _shard_text(request))
    if resume:
        record = find(resume)
        if (record.target, record.evaluation, record.options, record.shard) != asked:
            raise UsageError(
                f"run {record.id} is {record.target} on {record.evaluation} with options "
                f"{list(record.options)}; resume it with: {resume_command(record)}"
            )
    else:
        matching = [
            r
            for r in all_records()
            if (r.target, r.evaluation, r.options, r.shard) == asked and r.state in _RESUMABLE
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


def _shard_text(request: Request) -> str | None:
    return str(request.shard) if request.shard is not None else None


def _check_evaluation(name: str) -> None:
    """An evaluation that is not there is refused now, not when its turn in a run set comes:
    a file that does not exist, a name nothing ships under (its material is not loaded yet)."""
    from memrank.catalog import catalog, evaluation
    from memrank.evaluations.from_file import is_evaluation_file

    if is_evaluation_file(name):
        if not Path(name).is_file():
            raise UsageError(
                f"EVALUATION {name}: no such file; give the path of a .jsonl or .yaml evaluation"
            )
    elif name.partition(":")[0] not in {entry.name for entry in catalog().evaluations}:
        evaluation(name)  # an unknown name: UnknownName, with a near miss, before any loading


def _check_save_is_no_input(request: Request, save: Path) -> None:
    """``--save`` never overwrites what the run reads: the evaluation file, or the result of
    the run whose failed tasks it retries (compared as resolved paths, links followed)."""
    from memrank.evaluations.from_file import is_evaluation_file
    from memrank.runs.registry import RESULT, run_folder

    inputs: list[tuple[Path, str]] = []
    if is_evaluation_file(request.evaluation):
        inputs.append((Path(request.evaluation), "the evaluation file this run reads"))
    if request.retry_failed is not None:
        retried = find(request.retry_failed).id
        inputs.append(
            (run_folder(retried) / RESULT, f"the result of run {retried}, which it retries")
        )
    for path, what in inputs:
        if _same_file(save, path):
            raise UsageError(f"--save {save}: is {what}; give another path")


def _same_file(one: Path, other: Path) -> bool:
    if one.exists() and other.exists():
        return one.samefile(other)
    return one.resolve() == other.resolve()


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
