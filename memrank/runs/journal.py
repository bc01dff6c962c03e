"""The run journal: a run's traces appended as its tasks finish, so a stopped run resumes.

One JSON object per line (``memrank.journal/v1``):

- first, ``{"journal": "memrank.journal/v1", "evaluation": NAME, "version": V, "started": T}``;
- ``{"begin": NAME}`` as an isolation unit starts (a unit begun again drops what it had);
- ``{"trace": TRACE}`` as each task finishes (a ``memrank.Trace`` as JSON, the same per-task
  form wherever traces travel line by line);
- ``{"unit": NAME, "observed": true|false|null, "problem": TEXT|null}`` when an isolation
  unit's tasks and cleanup are all done.

Each line is written whole and flushed as it is made, so killing the process loses at most
the line being written; each completed unit is also fsync'd, so a machine that stops loses at
most the units in flight. Resuming keeps every completed unit and runs the others again from
the start (a unit's tasks share what the system was told, so half a unit cannot be kept).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import orjson

from memrank._drive import UnitOutcome
from memrank.errors import UsageError
from memrank.trace import Trace

__all__ = [
    "JOURNAL_SCHEMA",
    "Journal",
    "JournalContents",
    "kept_tasks",
    "read_journal",
    "trace_line",
]

JOURNAL_SCHEMA = "memrank.journal/v1"


def trace_line(trace: Trace) -> bytes:
    """One trace as one journal line (newline included)."""
    return b'{"trace":' + trace.__pydantic_serializer__.to_json(trace) + b"}\n"


@dataclass
class JournalContents:
    """What a journal holds: its header, and the outcome of every unit it saw complete."""

    evaluation: str
    version: str
    started: datetime
    units: dict[str, UnitOutcome] = field(default_factory=dict)
    pending: int = 0
    """Traces of units that had not completed (run again on resume)."""
    good_bytes: int = 0
    """Length of the journal up to its last whole line; anything after is a torn write."""

    @property
    def tasks_done(self) -> int:
        return sum(len(o.traces) for o in self.units.values())


def read_journal(path: Path) -> JournalContents:
    """Read a journal, keeping every whole line; a torn last line is left out."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the run journal ({exc.strerror})") from None
    contents: JournalContents | None = None
    waiting: dict[str, list[Trace]] = {}
    offset = 0
    for line in raw.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break  # the write that was cut short
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            break
        offset += len(line)
        if contents is None:
            contents = _header(entry, path)
        elif "begin" in entry:
            waiting[entry["begin"]] = []
        elif "trace" in entry:
            trace = Trace.model_validate(entry["trace"])
            waiting.setdefault(trace.given.unit if trace.given else "", []).append(trace)
        elif "unit" in entry:
            contents.units[entry["unit"]] = UnitOutcome(
                waiting.pop(entry["unit"], []), entry.get("observed"), entry.get("problem")
            )
    if contents is None:
        raise UsageError(f"{path}: an empty run journal; start the run again without --resume")
    contents.pending = sum(len(t) for t in waiting.values())
    contents.good_bytes = offset
    return contents


def kept_tasks(path: Path) -> int:
    """How many tasks a resume keeps: those of the units the journal holds complete (what the
    Ctrl-C message, ``runs ls`` and ``runs show`` all count). Reads the lines as plain JSON,
    without validating traces; 0 for a journal that is not there."""
    try:
        raw = path.read_bytes()
    except OSError:
        return 0
    waiting: dict[str, int] = {}
    kept = 0
    for line in raw.splitlines(keepends=True)[1:]:
        if not line.endswith(b"\n"):
            break
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            break
        if "trace" in entry:
            given = entry["trace"].get("given") or {}
            unit = given.get("unit", "")
            waiting[unit] = waiting.get(unit, 0) + 1
        elif "begin" in entry:
            waiting[entry["begin"]] = 0
        elif "unit" in entry:
            kept += waiting.pop(entry["unit"], 0)
    return kept


def _header(entry: Any, path: Path) -> JournalContents:
    if not isinstance(entry, dict) or entry.get("journal") != JOURNAL_SCHEMA:
        raise UsageError(f"{path}: not a {JOURNAL_SCHEMA} run journal")
    return JournalContents(
        evaluation=entry["evaluation"],
        version=entry["version"],
        started=datetime.fromisoformat(entry["started"]),
    )


class Journal:
    """Appends a run's traces to its journal and hands completed units back on resume."""

    def __init__(self, path: Path, handle: IO[bytes], earlier: JournalContents) -> None:
        self.path = path
        self.earlier = earlier
        self._handle = handle
        self._lock = threading.Lock()

    @classmethod
    def start(cls, path: Path, evaluation: str, version: str, started: datetime) -> Journal:
        """A new journal; an existing one at ``path`` is never overwritten."""
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = path.open("xb")
        header = {"journal": JOURNAL_SCHEMA, "evaluation": evaluation, "version": version}
        handle.write(orjson.dumps({**header, "started": started.isoformat()}) + b"\n")
        handle.flush()
        os.fsync(handle.fileno())
        return cls(path, handle, JournalContents(evaluation, version, started))

    @classmethod
    def resume(cls, path: Path, version: str) -> Journal:
        """Reopen a journal to go on where it stopped; refused for another evaluation version."""
        earlier = read_journal(path)
        if earlier.version != version:
            raise UsageError(
                f"{path}: the journal is of {earlier.evaluation} at {earlier.version}, and the "
                f"evaluation is now at {version}; start a new run"
            )
        handle = path.open("r+b")
        handle.truncate(earlier.good_bytes)  # drop a torn last line before appending after it
        handle.seek(earlier.good_bytes)
        return cls(path, handle, earlier)

    # -- the run's observer ------------------------------------------------------------------

    def done(self, unit: str) -> UnitOutcome | None:
        earlier = self.earlier.units.get(unit)
        if earlier is None:
            self._append(orjson.dumps({"begin": unit}) + b"\n")
        return earlier

    def task_finished(self, trace: Trace) -> None:
        self._append(trace_line(trace))

    def unit_finished(self, unit: str, outcome: UnitOutcome) -> None:
        line = orjson.dumps(
            {"unit": unit, "observed": outcome.observed, "problem": outcome.problem}
        )
        with self._lock:
            self._handle.write(line + b"\n")
            self._handle.flush()
            os.fsync(self._handle.fileno())

    def _append(self, line: bytes) -> None:
        with self._lock:
            self._handle.write(line)
            self._handle.flush()

    def close(self) -> None:
        with self._lock:
            self._handle.close()
