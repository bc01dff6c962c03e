"""The tasks of a scores file, read once for every file that names them: every run of an
evaluation names the same tasks in the same order, and they are most of a scores file's bytes
(the ids, groups and categories of LoCoMo's 1,986 tasks: 55 KB of its 59).

A board holds thousands of runs' scores at once: the runs of an evaluation share one list of
each (a parsed string per task and field would be most of a LoCoMo run's 0.6 MB), and the tasks
object whose canonical bytes a file that passed every check carried is not parsed again.
"""

from __future__ import annotations

from typing import Any

import orjson

from memrank.artifacts._canonical import parse_canonical
from memrank.errors import NonCanonicalPayload

__all__ = ["checked_fields", "known_good_fields", "remember_tasks"]

_SEEN_MOST = 64
"""Task lists, and tasks objects, kept at most (a cache: emptied when full)."""
_TASKS_KEY = b',"tasks":'
_OTHER_FIELDS = frozenset({"schema", "result_sha256", "result_size", "evaluation", "measures"})
"""A scores file's fields but its tasks: each sorts before ``tasks``, so in canonical bytes the
tasks object comes last."""

_seen: dict[tuple[int, Any, Any], list[Any]] = {}
"""Task columns read so far, by length, first and last name."""
_tasks_read: dict[tuple[int, bytes, bytes], tuple[bytes, dict[str, Any], bool]] = {}
"""Tasks objects read so far, by length, first and last bytes: their bytes to compare, what
they parse to, and whether a file that passed every check carried them (else a known-good
file did, which only a build's memo says)."""


def checked_fields(raw: bytes, source: str) -> Any:
    """``parse_canonical(raw)``, its task lists shared. When the bytes of its tasks object are
    those a file that passed every check carried, only the document of its other fields is
    parsed; when that is canonical and holds exactly those fields, ``raw`` is the canonical
    form of it with those tasks (each field sorting before ``tasks``). Otherwise ``raw`` is
    parsed whole, and refused as it always was."""
    parts = _split(raw)
    tasks = None if parts is None else _tasks_known(parts[1], checked=True)
    if parts is not None and tasks is not None:
        try:
            others = parse_canonical(parts[0], source=source)
        except NonCanonicalPayload:
            others = None
        if isinstance(others, dict) and set(others) == _OTHER_FIELDS:
            return {**others, "tasks": tasks}
    return _tasks_shared(parse_canonical(raw, source=source))


def known_good_fields(raw: bytes) -> dict[str, Any]:
    """The fields of a file known to pass every check (a build's memo says so), its tasks
    object parsed once for all the files that carry the same bytes of it."""
    parts = _split(raw)
    assert parts is not None  # a known-good file passed every check
    others, tasks_bytes = parts
    tasks = _tasks_known(tasks_bytes, checked=False)
    if tasks is None:
        tasks = _tasks_shared({"tasks": orjson.loads(tasks_bytes)})["tasks"]
        _keep(tasks_bytes, tasks, checked=False)
    data: dict[str, Any] = orjson.loads(others)
    data["tasks"] = tasks
    return data


def remember_tasks(raw: bytes, tasks: dict[str, Any]) -> None:
    """Keep the tasks object ``tasks`` of ``raw``, a file that just passed every check."""
    parts = _split(raw)
    if parts is not None and _tasks_known(parts[1], checked=True) is None:
        _keep(parts[1], tasks, checked=True)


def _split(raw: bytes) -> tuple[bytes, bytes] | None:
    """``raw`` as the document of its other fields and the bytes of its tasks object, such
    that ``raw`` is the one with ``,"tasks":`` and the other spliced in before its closing
    brace; None when it is not so made. In a file that passes the checks the last
    ``,"tasks":`` is that key: a string writes a quote escaped, and the tasks object holds
    only lists of strings."""
    at = raw.rfind(_TASKS_KEY)
    if at < 0 or not raw.endswith(b"}"):
        return None
    return raw[:at] + b"}", raw[at + len(_TASKS_KEY) : -1]


def _tasks_known(tasks: bytes, *, checked: bool) -> dict[str, Any] | None:
    """What the tasks object ``tasks`` parses to, when a file read before carried its bytes
    (``checked``: a file that passed every check here)."""
    found = _tasks_read.get((len(tasks), tasks[:64], tasks[-64:]))
    if found is None or found[0] != tasks or (checked and not found[2]):
        return None
    return found[1]


def _keep(tasks_bytes: bytes, tasks: dict[str, Any], *, checked: bool) -> None:
    if len(_tasks_read) >= _SEEN_MOST:
        _tasks_read.clear()
    _tasks_read[len(tasks_bytes), tasks_bytes[:64], tasks_bytes[-64:]] = (
        tasks_bytes,
        tasks,
        checked,
    )


def _tasks_shared(data: Any) -> Any:
    """``data`` with each of the tasks' id, group and category lists replaced by the one
    equal list read before. A list whose first or last entry is a list or a dict stays as
    read, for the checks to refuse."""
    tasks = data.get("tasks") if isinstance(data, dict) else None
    if isinstance(tasks, dict):
        for field, names in tasks.items():
            if isinstance(names, list) and names:
                try:
                    tasks[field] = _shared(names)
                except TypeError:  # unhashable: not a scores file
                    continue
    return data


def _shared(names: list[Any]) -> list[Any]:
    """The list read before that equals ``names``, else ``names`` (kept for the next file):
    comparing two lists name by name costs a fraction of interning each name again. Nothing
    changes a Scores' lists, so its runs may share them."""
    key = (len(names), names[0], names[-1])
    seen = _seen.get(key)
    if seen == names:
        return seen
    if len(_seen) >= _SEEN_MOST:
        _seen.clear()
    _seen[key] = names
    return names
