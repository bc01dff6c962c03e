"""The run journal: a run's traces appended as its tasks finish, so a stopped run resumes.

One JSON object per line (``memrank.journal/v3``):

- first, ``{"journal": "memrank.journal/v3", "evaluation": NAME, "version": V, "started": T,
  "keeps": "tasks"|"units", "secret": HEX}`` (the run's secret, memrank.integrity: a resume
  names things on the wire and plants canaries as the stopped attempt did);
- ``{"begin": NAME, "kept": N}`` as an isolation unit starts: a unit begun again keeps the
  first N traces it had (the tasks an earlier attempt finished) and drops any others;
- ``{"ref": REF, "given": GIVEN}`` and ``{"ref": REF, "document": DOCUMENT}``, each given and
  each recalled document once, before the first trace that names it (the tasks of a unit share
  one given, and a document is recalled for many tasks: written in every trace, they were most
  of a journal and of the time spent writing it);
- ``{"trace": TRACE, "given": REF, "documents": [REF, ...]}`` as each task finishes: a
  ``memrank.Trace`` as JSON without its given and recalled documents, and the references to
  them (``documents`` only when it recalled);
- ``{"unit": NAME, "observed": true|false|null, "problem": TEXT|null}`` when an isolation
  unit's tasks and cleanup are all done.

``keeps`` says what a resume keeps. ``tasks`` (a memory's run): every task that finished; a
unit stopped part way is handed back part done (``PartOutcome``) and only its other tasks are
run, on its documents told afresh (a memory's answers depend only on what the unit was told,
so the tasks run after the stop answer as they would have). ``units`` (a system that keeps no
state, driven unit by unit without a way to skip tasks): the tasks of completed units; the
others run again from the start. A ``memrank.journal/v2`` journal (no ``keeps``, no ``kept``:
units) and a ``v1`` journal (each trace whole, with its given and documents) still resume.

Each line is written whole and flushed as it is made, so killing the process loses at most
the line being written; each completed unit is also fsync'd, so a machine that stops loses at
most what was written since the last completed unit. A journal closed by a stopped run takes
no more lines: a unit abandoned by the stop may still finish a call, and its trace waits for
the resume.
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
from memrank.integrity.canaries import CANARY_CATEGORY
from memrank.system import Document
from memrank.trace import Given, Trace

__all__ = [
    "JOURNAL_SCHEMA",
    "Journal",
    "JournalContents",
    "PartOutcome",
    "kept_tasks",
    "read_journal",
    "trace_line",
]

JOURNAL_SCHEMA = "memrank.journal/v3"
_READABLE = ("memrank.journal/v1", "memrank.journal/v2", JOURNAL_SCHEMA)
_KEEPS_TASKS = "tasks"
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


class PartOutcome(UnitOutcome):
    """A unit's outcome as an earlier attempt left it, stopped part way: the traces of its
    first tasks (``memrank._units.PartDone``)."""

    __slots__ = ()

    @property
    def task_ids(self) -> tuple[str, ...]:
        return tuple(trace.task.id for trace in self.traces)

    def completed(self, rest: UnitOutcome) -> UnitOutcome:
        return UnitOutcome([*self.traces, *rest.traces], rest.observed, rest.problem)


@dataclass
class JournalContents:
    """What a journal holds: its header, the outcome of every unit it saw complete, and (when
    it keeps tasks) the traces of the units it saw begun but not complete."""

    evaluation: str
    version: str
    started: datetime
    keeps_tasks: bool = False
    """Whether a resume keeps every finished task (``keeps: tasks``), or only completed units."""
    secret: bytes | None = None
    """The run's secret (memrank.integrity), so a resume names units on the wire and plants
    canaries as the stopped attempt did; None in a journal from before runs had one."""
    units: dict[str, UnitOutcome] = field(default_factory=dict)
    part: dict[str, list[Trace]] = field(default_factory=dict)
    """Unit -> the traces of its first tasks, for each unit begun and not complete (kept when
    ``keeps_tasks``)."""
    pending: int = 0
    """Traces of units that had not completed and are not kept (run again on resume)."""
    good_bytes: int = 0
    """Length of the journal up to its last whole line; anything after is a torn write."""

    @property
    def tasks_done(self) -> int:
        return sum(len(o.traces) for o in self.units.values()) + sum(
            len(traces) for traces in self.part.values()
        )


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
            unit = entry["begin"]
            waiting[unit] = waiting.get(unit, [])[: entry.get("kept", 0)]
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
    if contents.keeps_tasks:
        contents.part = {unit: traces for unit, traces in waiting.items() if traces}
    else:
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
    """How many of the evaluation's tasks a resume keeps (canaries, memrank.integrity, are not
    the evaluation's): every finished one when the journal keeps tasks, else those of the
    units it holds complete (what the Ctrl-C message, ``runs ls`` and ``runs show`` all
    count). Reads the lines as plain JSON, without validating traces; 0 for a journal that
    is not there."""
    try:
        raw = path.read_bytes()
    except OSError:
        return 0
    waiting: dict[str, list[bool]] = {}  # unit -> per finished task, whether it is the evaluation's
    units: dict[str, str] = {}  # a given's reference -> its unit
    kept = 0
    keeps_tasks = False
    for number, line in enumerate(raw.splitlines(keepends=True)):
        if not line.endswith(b"\n"):
            break
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            break
        if number == 0:
            keeps_tasks = isinstance(entry, dict) and entry.get("keeps") == _KEEPS_TASKS
        elif "ref" in entry:
            if "given" in entry:
                units[entry["ref"]] = entry["given"].get("unit", "")
        elif "trace" in entry:
            given = entry["given"] if "given" in entry else entry["trace"].get("given")
            unit = units.get(given, "") if isinstance(given, str) else (given or {}).get("unit", "")
            canary = entry["trace"]["task"].get("metadata", {}).get(CANARY_CATEGORY, False)
            waiting.setdefault(unit, []).append(not canary)
        elif "begin" in entry:
            waiting[entry["begin"]] = waiting.get(entry["begin"], [])[: entry.get("kept", 0)]
        elif "unit" in entry:
            kept += sum(waiting.pop(entry["unit"], []))
    return kept + (sum(sum(flags) for flags in waiting.values()) if keeps_tasks else 0)


def _header(entry: Any, path: Path) -> JournalContents:
    if not isinstance(entry, dict) or entry.get("journal") not in _READABLE:
        raise UsageError(f"{path}: not a {JOURNAL_SCHEMA} run journal")
    return JournalContents(
        evaluation=entry["evaluation"],
        version=entry["version"],
        started=datetime.fromisoformat(entry["started"]),
        keeps_tasks=entry.get("keeps") == _KEEPS_TASKS,
        secret=bytes.fromhex(entry["secret"]) if "secret" in entry else None,
    )


class Journal:
    """Appends a run's traces to its journal and hands back on resume what finished.

    The one file memrank appends to rather than writes through ``write_atomic``: rewriting
    the whole journal atomically at every task would cost the run quadratic time, and a
    journal only ever grows by whole lines, so what a crash can leave is one torn last line,
    which ``read_journal`` leaves out and ``resume`` truncates before appending."""

    def __init__(self, path: Path, handle: IO[bytes], earlier: JournalContents) -> None:
        self.path = path
        self.earlier = earlier
        self._handle = handle
        self._lock = threading.Lock()
        self._kept: dict[str, int] = {}
        """Unit -> how many of its first tasks were handed back part done (its begin line)."""
        # id() of each given and document written -> it (kept, so its id is not reused) and its
        # reference: a run hands the same objects to many traces, each is written once
        self._written: dict[int, tuple[object, str]] = {}

    @classmethod
    def start(
        cls,
        path: Path,
        evaluation: str,
        version: str,
        started: datetime,
        *,
        keeps_tasks: bool = False,
        secret: bytes | None = None,
    ) -> Journal:
        """A new journal; an existing one at ``path`` is never overwritten. ``keeps_tasks``:
        a resume keeps every finished task, handing a unit stopped part way back part done
        (for a memory's run, whose units ``memrank._units`` drives); else completed units.
        ``secret``: the run's, kept for its resume."""
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = path.open("xb")
        header = {"journal": JOURNAL_SCHEMA, "evaluation": evaluation, "version": version}
        header["started"] = started.isoformat()
        header["keeps"] = _KEEPS_TASKS if keeps_tasks else "units"
        if secret is not None:
            header["secret"] = secret.hex()
        handle.write(orjson.dumps(header) + b"\n")
        handle.flush()
        os.fsync(handle.fileno())
        contents = JournalContents(evaluation, version, started, keeps_tasks, secret)
        return cls(path, handle, contents)

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
        """A completed unit's outcome; a unit stopped part way, once, as a ``PartOutcome`` (the
        driver then asks again for the rest of it); else None, and the unit begins."""
        earlier = self.earlier.units.get(unit)
        if earlier is not None:
            return earlier
        part = self.earlier.part.pop(unit, None)
        if part:
            self._kept[unit] = len(part)
            return PartOutcome(part, None, None)
        self._append(orjson.dumps({"begin": unit, "kept": self._kept.pop(unit, 0)}) + b"\n")
        return None

    def task_finished(self, trace: Trace) -> None:
        with self._lock:  # a trace's parts are written before it, whatever other units do
            if self._handle.closed:
                return
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
            if self._handle.closed:
                return
            self._handle.write(line + b"\n")
            self._handle.flush()
            os.fsync(self._handle.fileno())

    def _append(self, line: bytes) -> None:
        with self._lock:
            if not self._handle.closed:
                self._handle.write(line)
                self._handle.flush()

    def close(self) -> None:
        """Stop taking lines: a unit a stop abandoned may still finish a call after this."""
        with self._lock:
            self._handle.close()
