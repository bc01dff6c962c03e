"""memrank submit, watch, runs ls, runs show, kill: runs in the background and the registry."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memrank.errors import UsageError
from memrank.runs import RunState

if TYPE_CHECKING:
    from memrank.runs.registry import RunRecord

__all__ = ["kill_command", "runs_group", "submit_command", "watch_command"]


@click.command("submit")
@click.argument("system_name", metavar="SYSTEM")
@click.argument("evaluation_name", metavar="EVALUATION")
@click.option(
    "--option",
    "options",
    metavar="KEY=VALUE",
    multiple=True,
    help="An option of SYSTEM (repeatable), typed as its constructor declares.",
)
@click.option("--concurrency", default=4, show_default=True, type=click.IntRange(min=1))
@click.option(
    "--save",
    "save_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the result file here when the run ends.",
)
@click.option(
    "--on",
    "place",
    type=click.Choice(["local", "none"]),
    help="Where SYSTEM runs: local (inside memrank) or none (already running).",
)
def submit_command(
    system_name: str,
    evaluation_name: str,
    options: tuple[str, ...],
    concurrency: int,
    save_path: Path | None,
    place: str | None,
) -> None:
    """Start SYSTEM on EVALUATION in the background and print its run id at once.

    The run is an ordinary `memrank run`, tracked in the run registry: follow it with
    `memrank watch ID`, list runs with `memrank runs ls`, stop it with `memrank kill ID`.
    """
    from memrank.catalog import evaluation
    from memrank.runs.request import Request, check_request, evaluation_argument
    from memrank.runs.submit import submit

    # What can be refused now is refused now, not found later in a log nobody reads: the very
    # checks `memrank run` makes before it starts, and the evaluation's name and material.
    evaluation_name = evaluation_argument(evaluation_name)
    request = Request(system_name, evaluation_name, options, concurrency, save_path, place)
    check_request(request)
    evaluation(evaluation_name)
    record = submit(request)
    click.echo(f"run {record.id}  ({system_name} × {evaluation_name})")
    click.echo(f"track: memrank watch {record.id}")


@click.command("watch")
@click.argument("run_id", metavar="ID")
@click.option(
    "--interval",
    default=0.5,
    show_default=True,
    type=click.FloatRange(0.01, 3600),
    help="Seconds between looks.",
)
def watch_command(run_id: str, interval: float) -> None:
    """Follow run ID until it ends: progress on stderr, then its result; exits as it did."""
    from memrank.runs.registry import LOG, RESULT, RunState, find, run_folder, tasks_done

    shown = ""
    while True:
        record = find(run_id)
        line = f"{record.id}  {record.state.value}  {_done(record, tasks_done(record))}"
        if record.state is RunState.RUNNING:  # the run's own progress line: rate, time left
            line = _last_progress(run_folder(record.id) / LOG) or line
        if line != shown:
            click.echo(line, err=True)
            shown = line
        if record.state is not RunState.RUNNING:
            break
        time.sleep(interval)
    result_file = run_folder(record.id) / RESULT
    if record.state is RunState.DONE and result_file.is_file():
        from memrank.result import Result
        from memrank.runs.summary import summary_text

        click.echo(summary_text(Result.load(result_file), record.headline_measure))
    elif record.error:
        click.echo(f"{record.state.value}: {record.error}", err=True)
    if record.state in (RunState.INTERRUPTED, RunState.KILLED, RunState.LOST):
        from memrank.runs.request import resume_command

        click.echo(f"resume with: {resume_command(record)}", err=True)
    code = record.exit_code if record.exit_code is not None else 1
    click.get_current_context().exit(code)


@click.group("runs")
def runs_group() -> None:
    """The run registry: every run memrank run or submit made on this machine."""


@runs_group.command("ls")
@click.option(
    "--state",
    "states",
    multiple=True,
    type=click.Choice([state.value for state in RunState] + ["corrupt"]),
    help="Only runs in this state (repeatable).",
)
@click.option("--system", "target", help="Only runs of this system.")
@click.option("--evaluation", help="Only runs of this evaluation (as named, slice included).")
@click.option("--json", "as_json", is_flag=True, help="Print the runs as JSON.")
def ls_command(
    states: tuple[str, ...], target: str | None, evaluation: str | None, as_json: bool
) -> None:
    """List runs, oldest first: id, target, evaluation, place, state, age, done %, headline.

    A run folder whose record cannot be read, or that has none, is listed as corrupt, with
    the reason; `memrank runs rm ID` removes it.
    """
    from memrank._basics import now_utc
    from memrank.runs.registry import Corrupt, listing, tasks_done

    now = now_utc()
    rows: list[dict[str, Any]] = []
    shown: dict[str, str] = {}  # the evaluation column: the slice that ran marked
    for record in listing():
        if isinstance(record, Corrupt):
            if (not states or "corrupt" in states) and target is None and evaluation is None:
                rows.append({"id": record.id, "state": "corrupt", "error": record.reason})
            continue
        if states and record.state.value not in states:
            continue
        if target not in (None, record.target) or evaluation not in (None, record.evaluation):
            continue
        shown[record.id] = record.part
        rows.append(
            {
                "id": record.id,
                "target": record.target,
                "evaluation": record.evaluation,
                "slice": record.slice,
                "place": record.place,
                "state": record.state.value,
                "age": _age(now, record.created),
                "done": tasks_done(record),
                "tasks": record.tasks,
                "headline": {"measure": record.headline_measure, "mean": record.headline},
                "error": record.error,
            }
        )
    if as_json:
        import json

        click.echo(json.dumps(rows, indent=2))
        return
    header = ("ID", "TARGET", "EVAL", "PLACE", "STATE", "AGE", "DONE", "SCORE")
    table = [header]
    for row in rows:
        if row["state"] == "corrupt":
            table.append((row["id"], "-", "-", "-", "corrupt", "-", "-", _cut(row["error"], 60)))
            continue
        mean = row["headline"]["mean"]
        table.append(
            (
                row["id"],
                _cut(row["target"]),
                _cut_path(shown[row["id"]]),
                row["place"],
                row["state"],
                row["age"],
                _share(row["state"], row["done"], row["tasks"]),
                "" if mean is None else f"{mean:.4f}",
            )
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    right = {5, 6}  # age and done read best aligned on the right
    for line in table:
        cells = [
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(line, widths, strict=True))
        ]
        click.echo("  ".join(cells).rstrip())


@runs_group.command("rm")
@click.argument("run_ids", metavar="ID...", nargs=-1, required=True)
def rm_command(run_ids: tuple[str, ...]) -> None:
    """Delete runs from the registry: their records, journals, results and logs (a --save
    copy elsewhere is kept), and run folders whose record is damaged or missing. A running run
    is refused: `memrank kill` it first."""
    from memrank.runs.registry import entry_of, remove

    entries = [entry_of(run_id) for run_id in run_ids]  # every id checked before any is removed
    for entry in entries:
        remove(entry)
        click.echo(f"removed {entry.id}")


@runs_group.command("prune")
@click.option(
    "--older-than",
    metavar="AGE",
    help="Only runs created longer ago than AGE: 30d, 12h, 45m.",
)
@click.option(
    "--state",
    "states",
    multiple=True,
    type=click.Choice([state.value for state in RunState if state is not RunState.RUNNING]),
    help="Only runs in this state (repeatable; default: every state but running).",
)
@click.option("--dry-run", is_flag=True, help="List what would be removed; remove nothing.")
def prune_command(older_than: str | None, states: tuple[str, ...], dry_run: bool) -> None:
    """Delete the runs that match (never a running one), oldest first, each named."""
    from memrank._basics import now_utc
    from memrank.runs.registry import all_records, remove

    if older_than is None and not states:
        raise UsageError("runs prune: give --older-than AGE, --state STATE, or both")
    cutoff = _cutoff(now_utc(), older_than) if older_than else None
    for record in all_records():
        if record.state is RunState.RUNNING or (states and record.state.value not in states):
            continue
        if cutoff is not None and record.created > cutoff:
            continue
        if not dry_run:
            remove(record)
        click.echo(f"{'would remove' if dry_run else 'removed'} {record.id}")


@runs_group.command("show")
@click.argument("run_id", metavar="ID")
@click.option("--result", "with_result", is_flag=True, help="Then print its result again.")
def show_command(run_id: str, with_result: bool) -> None:
    """The full record of run ID: state, where it ran, exit code, files, approval."""
    from memrank.runs.registry import (
        JOURNAL,
        LOG,
        RESULT,
        find,
        process_of,
        run_folder,
        tasks_done,
    )
    from memrank.runs.request import resume_command

    record = find(run_id)
    folder = run_folder(record.id)
    fields = [
        ("run", record.id),
        ("target", record.target),
        ("evaluation", record.evaluation),
        ("slice", f"{record.slice} (a slice is not a measurement)" if record.slice else "-"),
        ("options", " ".join(record.options) or "none"),
        ("place", record.place),
        ("state", record.state.value),
        ("process", str(process_of(record)) if record.state.value == "running" else "-"),
        ("created", f"{record.created:%Y-%m-%d %H:%M:%S} UTC"),
        ("finished", f"{record.finished:%Y-%m-%d %H:%M:%S} UTC" if record.finished else "-"),
        ("exit code", "-" if record.exit_code is None else str(record.exit_code)),
        ("done", f"{tasks_done(record)} of {record.tasks or '?'} task(s)"),
        (
            "headline",
            "-" if record.headline is None else f"{record.headline_measure} {record.headline:.4f}",
        ),
        ("result", str(folder / RESULT) if (folder / RESULT).is_file() else "-"),
        ("saved", record.saved or "-"),
        ("journal", str(folder / JOURNAL) if (folder / JOURNAL).is_file() else "-"),
        ("log", str(folder / LOG) if (folder / LOG).is_file() else "-"),
        ("artifact", record.approved or "-"),
        ("envelopes", " ".join(record.envelopes) or "-"),
        ("approval", record.approval or "-"),
    ]
    if record.error:
        fields.append(("error", record.error))
    if record.state.value in ("interrupted", "killed", "lost", "failed"):
        fields.append(("resume", resume_command(record)))
    for name, value in fields:
        click.echo(f"{name + ':':<12}{value}")
    if with_result:
        from memrank.result import Result

        if not (folder / RESULT).is_file():
            raise UsageError(f"run {record.id} is {record.state.value} and has no result yet")
        click.echo("")
        click.echo(str(Result.load(folder / RESULT)))


@click.command("kill")
@click.argument("run_id", metavar="ID")
def kill_command(run_id: str) -> None:
    """Stop running run ID (Ctrl-C first, so its journal keeps what it did; then for good)."""
    from memrank.runs.request import resume_command
    from memrank.runs.submit import stop

    record = stop(run_id)
    click.echo(f"killed {record.id}; resume with: {resume_command(record)}")


def _done(record: RunRecord, done: int) -> str:
    return _share(record.state.value, done, record.tasks)


def _share(state: str, done: int, tasks: int | None) -> str:
    if state == RunState.DONE.value:
        return "100%"
    if not tasks:
        return "-"
    return f"{100 * done // tasks}%"


_CELL = 32
"""The widest a name is shown in a table; a longer one is cut, saying so with an ellipsis."""


def _cut(text: str, width: int = _CELL) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _cut_path(text: str, width: int = _CELL) -> str:
    """An evaluation file's path keeps its end (its name, the slice marked after it)."""
    if "/" not in text or len(text) <= width:
        return _cut(text, width)
    return "…" + text[-(width - 1) :]


def _cutoff(now: datetime, text: str) -> datetime:
    """The moment ``30d``, ``12h`` or ``45m`` before ``now``; a one-line UsageError otherwise,
    also for an age reaching back before the calendar's first day."""
    units = {"d": "days", "h": "hours", "m": "minutes"}
    number, unit = text[:-1], text[-1:]
    if unit not in units or not number.isdigit():
        raise UsageError(f"--older-than {text!r}: give a whole number and d, h or m, e.g. 30d")
    try:
        return now - timedelta(**{units[unit]: int(number)})
    except OverflowError:
        raise UsageError(
            f"--older-than {text!r}: reaches back before the year 1; give a shorter age, e.g. 3650d"
        ) from None


def _age(now: datetime, then: datetime) -> str:
    seconds = max(int((now - then).total_seconds()), 0)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _last_progress(log: Path) -> str | None:
    """The newest progress line a submitted run wrote to its log (one per finished unit)."""
    try:
        with log.open("rb") as handle:
            handle.seek(0, 2)
            handle.seek(max(handle.tell() - 4096, 0))
            tail = handle.read().decode(errors="replace")
    except OSError:
        return None
    lines = [line for line in tail.splitlines() if " tasks (" in line and " units  " in line]
    return lines[-1] if lines else None
