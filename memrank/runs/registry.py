"""The local run registry: one folder per run under the user data dir, holding its record, its
journal, its result and (for a submitted run) its log.

``MEMRANK_HOME`` moves the whole data dir (tests point it at a temporary folder); otherwise it
is ``$XDG_DATA_HOME/memrank`` or ``~/.local/share/memrank``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ValidationError

from memrank._basics import FROZEN, UTCDateTime, now_utc
from memrank._files import write_atomic
from memrank.errors import UsageError
from memrank.runs import RunState

__all__ = [
    "HOME_VARIABLE",
    "Corrupt",
    "entry_of",
    "listing",
    "remove",
    "RunRecord",
    "RunState",
    "all_records",
    "find",
    "home",
    "process_of",
    "tasks_done",
    "new_run_id",
    "run_folder",
    "runs_dir",
    "save_record",
]

HOME_VARIABLE = "MEMRANK_HOME"
RECORD, JOURNAL, RESULT, LOG, PID = "record.json", "journal.jsonl", "result.json", "log.txt", "pid"


class RunRecord(BaseModel):
    """What the registry knows about one run."""

    model_config = FROZEN
    id: str
    """``<UTC date>-<time>__<evaluation>__<6 hex>``: sorts by start, names what ran."""
    target: str
    """The catalog name of the system."""
    evaluation: str
    """The evaluation as named on the command line, slice included (``locomo:smoke``)."""
    options: tuple[str, ...] = ()
    """The ``--option KEY=VALUE`` texts, as given."""
    arguments: tuple[str, ...] = ()
    """Every option given to ``memrank run`` (``--save``, ``--limit``, judge options ...), as
    command-line words: what the resume command repeats and a resume falls back on."""
    shard: str | None = None
    """``I/N`` when only that shard of the evaluation runs (``--shard``)."""
    slice: str | None = None
    """The slice that ran (``limit 10``, ``tasks q1,q2``, ``shard 2/3``, ``smoke``), once the
    evaluation is loaded; None for the whole evaluation."""
    place: str = "local"
    """Where the system ran: ``local`` (in this machine's memrank) or ``none`` (already running)."""
    state: RunState = RunState.RUNNING
    pid: int | None = None
    """The process running it, while it runs."""
    created: UTCDateTime
    finished: UTCDateTime | None = None
    exit_code: int | None = None
    tasks: int | None = None
    """How many tasks the evaluation has, once it is known."""
    headline: float | None = None
    """The mean of the evaluation's headline value, once finished."""
    headline_measure: str | None = None
    """The evaluation's headline value name (the one its board column reads)."""
    saved: str | None = None
    """Where ``--save`` also wrote the result."""
    error: str | None = None
    """Why it failed or stopped, in one line."""
    approved: str | None = None
    """The artifact id it was published as, once approved."""
    envelopes: tuple[str, ...] = ()
    """Every artifact id signed for it, oldest first: the approval, then each correction.
    A withdrawal takes them all off the board."""
    approval: str | None = None
    """Who approved it, for which track and division, when."""

    @property
    def part(self) -> str:
        """The evaluation as named, with the slice that ran marked (``demo [limit 10]``): a
        slice is not a measurement, and no listing may pass one off as the whole."""
        if self.slice is None or self.evaluation.endswith(f":{self.slice}"):
            return self.evaluation
        return f"{self.evaluation} [{self.slice}]"


def home() -> Path:
    """The user data dir memrank keeps its runs in."""
    given = os.environ.get(HOME_VARIABLE)
    if given:
        return Path(given)
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "memrank"


def runs_dir() -> Path:
    return home() / "runs"


def run_folder(run_id: str) -> Path:
    return runs_dir() / run_id


def new_run_id(evaluation: str, now: datetime | None = None) -> str:
    moment = now or now_utc()
    named = evaluation.rpartition("/")[2]  # an evaluation file by its name, not its whole path
    name = "".join(c if c.isalnum() or c in "-_" else "-" for c in named)
    return f"{moment:%Y%m%d-%H%M%S}__{name}__{os.urandom(3).hex()}"


def save_record(record: RunRecord) -> RunRecord:
    write_atomic(run_folder(record.id) / RECORD, record.model_dump_json(indent=2).encode())
    return record


def find(run_id: str) -> RunRecord:
    """The run ``run_id`` names, or the one run whose id starts with it; a run whose record
    cannot be read is refused, saying how to remove it."""
    entry = entry_of(run_id)
    if isinstance(entry, Corrupt):
        raise UsageError(f"run {entry.id}: {entry.reason}; `memrank runs rm {entry.id}` removes it")
    return entry


@dataclass(frozen=True)
class Corrupt:
    """A run folder whose record cannot be read, or that has none: listed, never skipped
    without a word, and removable."""

    id: str
    reason: str


def entry_of(run_id: str) -> RunRecord | Corrupt:
    """The run folder ``run_id`` names (or the one whose id starts with it): its record, or
    why it cannot be read."""
    ids = _ids()
    if run_id in ids:
        return _entry(run_id)
    matches = [r for r in ids if r.startswith(run_id)] if run_id else []
    if len(matches) == 1:
        return _entry(matches[0])
    if matches:
        raise UsageError(f"{run_id!r} names {len(matches)} runs; give more of the id")
    raise UsageError(f"no run {run_id!r} in {runs_dir()}; `memrank runs ls` lists them")


def listing() -> list[RunRecord | Corrupt]:
    """Every run folder, oldest first: its record, or why it cannot be read."""
    return [_entry(run_id) for run_id in _ids()]


def _entry(run_id: str) -> RunRecord | Corrupt:
    path = run_folder(run_id) / RECORD
    if not path.is_file():
        return Corrupt(
            run_id, "no record.json (its run was cut off before it began, or the file was lost)"
        )
    try:
        return _observed(RunRecord.model_validate_json(path.read_bytes()))
    except (OSError, ValidationError) as exc:
        return Corrupt(run_id, f"record.json unreadable: {str(exc).splitlines()[0]}")


def remove(entry: RunRecord | Corrupt) -> None:
    """Delete a stopped or finished run's folder, or an unreadable one; a running run is
    refused."""
    import shutil

    if isinstance(entry, RunRecord) and entry.state is RunState.RUNNING:
        raise UsageError(f"run {entry.id} is running; `memrank kill {entry.id}` it first")
    shutil.rmtree(run_folder(entry.id))


def all_records() -> list[RunRecord]:
    """Every run whose record can be read, oldest first (``listing`` names the others)."""
    return [entry for entry in listing() if isinstance(entry, RunRecord)]


def _ids() -> list[str]:
    folder = runs_dir()
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir())


def process_of(record: RunRecord) -> int | None:
    """The process running ``record``: its own word, or the one ``submit`` started for it."""
    if record.pid is not None:
        return record.pid
    try:
        return int((run_folder(record.id) / PID).read_text())
    except (OSError, ValueError):
        return None


def tasks_done(record: RunRecord) -> int:
    """Tasks done: all of them for a finished run, else those a resume keeps (the tasks of
    the units its journal holds complete)."""
    if record.state is RunState.DONE:
        return record.tasks or 0
    from memrank.runs.journal import kept_tasks

    return kept_tasks(run_folder(record.id) / JOURNAL)


def _observed(record: RunRecord) -> RunRecord:
    """A run recorded as running whose process is gone is lost, whatever the record says."""
    pid = process_of(record)
    if record.state is RunState.RUNNING and pid is not None and not _alive(pid):
        return record.model_copy(update={"state": RunState.LOST})
    return record


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _not_zombie(pid)


def _not_zombie(pid: int) -> bool:
    """A child that exited but was not reaped still answers kill(0); /proc says it is a zombie."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return status.rpartition(")")[2].split()[0] != "Z"
