"""The run journal: a run's traces appended as its tasks finish, so a stopped run resumes.

One JSON object per line (``memrank.journal/v2``):

- first, ``{"journal": "memrank.journal/v2", "evaluation": NAME, "version": V, "started": T}``;
- ``{"begin": NAME}`` as an isolation unit starts (a unit begun again drops what it had);
- ``{"ref": REF, "given": GIVEN}`` and ``{"ref": REF, "document": DOCUMENT}``, each given and
  each recalled document once, before the first trace that names it (the tasks of a unit share
  one given, and a document is recalled for many tasks: written in every trace, they were most
  of a journal and of the time spent writing it);
- ``{"trace": TRACE, "given": REF, "documents": [REF, ...]}`` as each task finishes: a
  ``memrank.Trace`` as JSON without its given and recalled documents, and the references to
  them (``documents`` only when it recalled);
- ``{"unit": NAME, "observed": true|false|null, "problem": TEXT|null}`` when an isolation
  unit's tasks and cleanup are all done.

A ``memrank.journal/v1`` journal (each trace whole, with its given and documents) still resumes.

Each line is written whole and flushed as it is made, so killing the process loses at most
the line being written; each completed unit is also fsync'd, so a machine that stops loses at
most the units in flight. Resuming keeps every completed unit and runs the others again from
the start (a unit's tasks share what the system was told, so half a unit cannot be kept).
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import orjson

from memrank._drive import UnitOutcome
from memrank.errors import UsageError
from memrank.system import Document
from memrank.trace import Given, Trace

__all__ = [
    "JOURNAL_SCHEMA",
    "Journal",
    "JournalContents",
    "kept_tasks",
    "read_journal",
    "trace_line",
]

JOURNAL_SCHEMA = "memrank.journal/v2"
_READABLE = ("memrank.journal/v1", JOURNAL_SCHEMA)
_APART: dict[str, bool | set[str]] = {"given": True, "recalled": {"documents"}}
"""What a trace line leaves out of its trace: written once each, referenced."""


def trace_line(trace: Trace, given: str | None, documents: list[str]) -> bytes:
    """One trace as one journal line (newline included), naming its given and recalled
    documents by reference."""
    line = b'{"trace":' + trace.__pydantic_serializer__.to_json(trace, exclude=_APART)
    line += b',"given":' + orjson.dumps(given)
    if trace.recalled is not None:
        line += b',"documents":' + orjson.dumps(documents)
    return line + b"}\n"


def _part_line(kind: str, part: Document | Given) -> tuple[str, bytes]:
    """A given or document's reference and the line that writes it."""
    dumped = part.__pydantic_serializer__.to_json(part)
    ref = hashlib.blake2b(dumped, digest_size=16).hexdigest()
    return ref, b'{"ref":"' + ref.encode() + b'","' + kind.encode() + b'":' + dumped + b"}\n"


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
    parts: dict[str, Document | Given] = {}  # each validated once, shared by its traces
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
        elif "ref" in entry:
            kind = Document if "document" in entry else Given
            parts[entry["ref"]] = kind.model_validate(entry.get("document", entry.get("given")))
        elif "trace" in entry:
            trace = Trace.model_validate(_whole(entry, parts))
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


def _whole(entry: dict[str, Any], parts: dict[str, Any]) -> dict[str, Any]:
    """A trace line's trace with its given and documents put back (a v1 line holds them)."""
    trace: dict[str, Any] = entry["trace"]
    if "given" in entry:
        trace["given"] = None if entry["given"] is None else parts[entry["given"]]
    if "documents" in entry and trace.get("recalled") is not None:
        trace["recalled"]["documents"] = [parts[ref] for ref in entry["documents"]]
    return trace


def kept_tasks(path: Path) -> int:
    """How many tasks a resume keeps: those of the units the journal holds complete (what the
    Ctrl-C message, ``runs ls`` and ``runs show`` all count). Reads the lines as plain JSON,
    without validating traces; 0 for a journal that is not there."""
    try:
        raw = path.read_bytes()
    except OSError:
        return 0
    waiting: dict[str, int] = {}
    units: dict[str, str] = {}  # a given's reference -> its unit
    kept = 0
    for line in raw.splitlines(keepends=True)[1:]:
        if not line.endswith(b"\n"):
            break
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            break
        if "ref" in entry:
            if "given" in entry:
                units[entry["ref"]] = entry["given"].get("unit", "")
        elif "trace" in entry:
            given = entry["given"] if "given" in entry else entry["trace"].get("given")
            unit = units.get(given, "") if isinstance(given, str) else (given or {}).get("unit", "")
            waiting[unit] = waiting.get(unit, 0) + 1
        elif "begin" in entry:
            waiting[entry["begin"]] = 0
        elif "unit" in entry:
            kept += waiting.pop(entry["unit"], 0)
    return kept


def _header(entry: Any, path: Path) -> JournalContents:
    if not isinstance(entry, dict) or entry.get("journal") not in _READABLE:
        raise UsageError(f"{path}: not a {JOURNAL_SCHEMA} run journal")
    return JournalContents(
        evaluation=entry["evaluation"],
        version=entry["version"],
        started=datetime.fromisoformat(entry["started"]),
    )


class Journal:
    """Appends a run's traces to its journal and hands completed units back on resume.

    The one file memrank appends to rather than writes through ``write_atomic``: rewriting
    the whole journal atomically at every task would cost the run quadratic time, and a
    journal only ever grows by whole lines, so what a crash can leave is one torn last line,
    which ``read_journal`` leaves out and ``resume`` truncates before appending."""

    def __init__(self, path: Path, handle: IO[bytes], earlier: JournalContents) -> None:
        self.path = path
        self.earlier = earlier
        self._handle = handle
        self._lock = threading.Lock()
        # id() of each given and document written -> it (kept, so its id is not reused) and its
        # reference: a run hands the same objects to many traces, each is written once
        self._written: dict[int, tuple[object, str]] = {}

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
        with self._lock:  # a trace's parts are written before it, whatever other units do
            given = None if trace.given is None else self._ref("given", trace.given)
            recalled = trace.recalled.documents if trace.recalled is not None else ()
            documents = [self._ref("document", d) for d in recalled]
            self._handle.write(trace_line(trace, given, documents))
            self._handle.flush()

    def _ref(self, kind: str, part: Document | Given) -> str:
        known = self._written.get(id(part))
        if known is None:
            ref, line = _part_line(kind, part)
            self._handle.write(line)
            known = self._written[id(part)] = (part, ref)
        return known[1]

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
