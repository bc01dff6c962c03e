"""What a signed run may hold: the checks of its numbers and text, at attestation and again at
verification, each refusal its own class (docs/artifacts.md, "What a signed run may hold").

A valid signature says who vouched for the bytes, not that a board can show them: a
binary-declared measure holding 0.759, a value of 1e308 whose mean overflows, a share above
one or a name of ten thousand characters would each break or fool every page built after it.
attest refuses to sign such a run, and verify refuses it when someone else's memrank signed it,
so the board only ever meets runs it can show. The ranges numbers are held to, and the check
of a group's values (in the result file alone), are ``_ranges``'.

Columns are checked whole (numpy), so the checks cost a fraction of reading the file.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import orjson

from memrank._unicode_security import first_invisible
from memrank.artifacts._ranges import UNIT, check_group_values, check_numbers, declared_range
from memrank.artifacts._scores import ScoreColumn, Scores, read_scores
from memrank.artifacts._statement import Statement
from memrank.artifacts._subjects import MAX_SCORES_BYTES
from memrank.errors import (
    AttestRefused,
    OversizeField,
    SemanticRefused,
    ShareInconsistent,
    TaskIdsRepeat,
    ValueNotFinite,
)
from memrank.measure import Value
from memrank.measures.kinds import declared_binary
from memrank.result import Result, SystemRecord

__all__ = [
    "COMPONENTS_LIMIT",
    "COMPONENT_KEY_LIMIT",
    "COMPONENT_VALUE_LIMIT",
    "LIST_LIMIT",
    "MAX_ENVELOPE_BYTES",
    "NAME_LIMIT",
    "REASON_LIMIT",
    "TEXT_LIMIT",
    "VERSION_LIMIT",
    "check_result_values",
    "check_scores",
    "check_shown_text",
    "check_statement",
    "check_to_sign",
    "check_verified",
]

MAX_ENVELOPE_BYTES = 1 << 20
"""An envelope holds a statement and its signatures: a megabyte is far beyond any real one."""
NAME_LIMIT = 80
"""Characters at most in a system's name as the board shows it (class and declared name)."""
VERSION_LIMIT = 100
"""Characters at most in a version (the system's, its engine's, the one it declared)."""
COMPONENTS_LIMIT = 64
"""Components at most a system lists (each a name and its version)."""
COMPONENT_KEY_LIMIT = 80
"""Characters at most in a component's name."""
COMPONENT_VALUE_LIMIT = 200
"""Characters at most in a component's version or description."""
TEXT_LIMIT = 1_000
"""Characters at most in any other text of a statement or scores file (ids, names, groups)."""
REASON_LIMIT = 4_000
"""Characters at most in a reason (a value's ``why``): it may quote what the system said."""
LIST_LIMIT = 200_000
"""Entries at most in any list or mapping of a statement or scores file (tasks, measures)."""


# -- text --------------------------------------------------------------------------------------


def check_shown_text(system: SystemRecord) -> None:
    """Refuse names, versions and components a board would show that hide characters or run
    too long (at attestation; the board also shows such characters visibly, for artifacts
    signed before this check).

    A zero-width character, a variation selector or a combining grapheme joiner would let one
    system's row read exactly like another's, and a direction override would reorder the words
    around it; an endless name would swamp a page."""
    fields = {
        "system name": (system.name, NAME_LIMIT),
        "declared name": (system.declared_name, NAME_LIMIT),
        "version": (system.version, VERSION_LIMIT),
        "engine version": (system.engine_version, VERSION_LIMIT),
        "declared version": (system.declared_version, VERSION_LIMIT),
    }
    for key, value in system.components.items():
        fields[f"component name {key[:40]!r}"] = (key, COMPONENT_KEY_LIMIT)
        fields[f"component {key[:40]!r}"] = (value, COMPONENT_VALUE_LIMIT)
    _bounded("the system's components", len(system.components), COMPONENTS_LIMIT, "entries")
    for what, (text, limit) in fields.items():
        if text is None:
            continue
        hidden = first_invisible(text)
        if hidden is not None:
            raise AttestRefused(
                f"the {what} {text[:40]!r} holds U+{ord(hidden):04X}, a character that draws "
                "nothing or steers text direction; a board would show it as a name. Give the "
                "system plain text"
            )
        _bounded(f"the {what}", len(text), limit, "characters")


def _bounded(what: str, size: int, limit: int, unit: str) -> None:
    if size > limit:
        raise OversizeField(
            f"{what} is {size:,} {unit} long; at most {limit:,} are signed. Make it shorter"
        )


def _strings(data: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every string in parsed JSON (keys too) with where it is; lists and mappings bounded."""
    if isinstance(data, str):
        yield path, data
    elif isinstance(data, dict):
        _bounded(path or "the statement", len(data), LIST_LIMIT, "entries")
        for key, value in data.items():
            yield f"{path}.{key}" if path else key, key
            yield from _strings(value, f"{path}.{key}" if path else key)
    elif isinstance(data, list | tuple):
        _bounded(path, len(data), LIST_LIMIT, "entries")
        for position, value in enumerate(data):
            yield from _strings(value, f"{path}[{position}]")


def _text_bounded(where: str, payload: bytes) -> None:
    """Every string of the canonical JSON ``payload`` within its bound (a reason, ``why``,
    within ``REASON_LIMIT``), and every list and mapping within ``LIST_LIMIT``."""
    # A string of more than TEXT_LIMIT characters is more than TEXT_LIMIT bytes between two
    # quotes (an escaped quote aside): the common payload is answered without parsing it.
    if b'\\"' not in payload and _no_run_between_quotes_over(payload, TEXT_LIMIT):
        return
    for path, text in _strings(orjson.loads(payload), ""):
        limit = REASON_LIMIT if path.endswith(".why") else TEXT_LIMIT
        _bounded(f"{where}: {path}", len(text), limit, "characters")


def _no_run_between_quotes_over(text: bytes, limit: int) -> bool:
    """Whether ``max(map(len, text.split(b'"'))) <= limit``, answered for the common text by a
    quote in every block of ``limit // 2`` bytes (blocks starting at most that far apart,
    the last ending where ``text`` does): then no run without one is longer than
    ``limit - 2``."""
    step = max(limit // 2, 1)
    starts = [*range(0, len(text) - step, step), max(len(text) - step, 0)]
    if all(text.find(b'"', start, start + step) >= 0 for start in starts):
        return True
    return max(map(len, text.split(b'"'))) <= limit


# -- numbers -----------------------------------------------------------------------------------


def check_result_values(result: Result) -> None:
    """Refuse a result holding a NaN or infinite value (at attestation: a result file writes
    them as null, so the scores would silently read "undecided"), or a group's value outside
    its declared range (no other file holds a group's value: a ``demo-score`` of 1.7)."""
    for value in result.values:
        if value.value is not None and not math.isfinite(value.value):
            raise ValueNotFinite(
                f"the value of {value.measure!r} for {value.scope_label!r} is {value.value}; "
                "a value is a finite number, or None with a reason"
            )
    check_group_values((value.model_dump() for value in result.values), "the result")


def _check_summary(where: str, summary: Sequence[Value], binary: frozenset[str]) -> None:
    """The run-scope values (the schema already holds a share's value to count/total): a few
    dozen numbers, checked one by one; the first that fails is described by ``check_numbers``."""
    for value in summary:
        number = value.value
        if number is None:
            continue
        low, high = UNIT if value.count is not None else declared_range(value.measure)
        plain = math.isfinite(number) and low <= number <= high
        if not plain or (value.measure in binary and number not in (0.0, 1.0)):
            check_numbers(
                f"{where}: the summary's {value.measure!r}",
                value.measure,
                [number],
                binary,
                share=value.count is not None,
            )


def check_statement(payload: bytes, statement: Statement, source: str) -> None:
    """Refuse a statement (parsed from the canonical ``payload``) whose text or summary
    values break the bounds above."""
    predicate = statement.predicate
    _text_bounded(source, payload)
    _bounded(
        f"{source}: the system's components",
        len(predicate.system.components),
        COMPONENTS_LIMIT,
        "entries",
    )
    _check_summary(source, predicate.summary, frozenset(declared_binary(predicate.evaluation)))


def check_scores(scores: Scores, statement: Statement, source: str) -> None:
    """Refuse a scores file whose task ids repeat, whose text is beyond its bounds, or whose
    values are not what their measures declare."""
    _bounded(f"{source}: tasks", len(scores.task_ids), LIST_LIMIT, "entries")
    _bounded(f"{source}: measures", len(scores.measures), LIST_LIMIT, "entries")
    tasks = (scores.task_ids, scores.groups, scores.categories)
    checked = _tasks_checked.get(id(scores.task_ids))
    if checked is None or any(a is not b for a, b in zip(checked, tasks, strict=True)):
        _check_tasks(scores, source)
        if len(_tasks_checked) >= _TASKS_CHECKED_MOST:
            _tasks_checked.clear()
        _tasks_checked[id(scores.task_ids)] = tasks
    longest = max(map(len, filter(None, scores.measures)), default=0)
    _bounded(f"{source}: one of the measure names", longest, TEXT_LIMIT, "characters")
    binary = frozenset(declared_binary(statement.predicate.evaluation))
    for name, column in scores.measures.items():
        longest = max(map(len, column.why.values()), default=0)
        _bounded(f"{source}: a reason of {name!r}", longest, REASON_LIMIT, "characters")
        _check_column(f"{source}: measure {name!r}", name, column, binary)


_TASKS_CHECKED_MOST = 64
_tasks_checked: dict[int, tuple[list[str], list[str | None], list[str | None]]] = {}
"""id() of a task id list -> the task lists that passed ``_check_tasks`` together, held so no
id is reused while it is here: the runs of an evaluation share their lists (``read_scores``),
and the checks are a function of them alone."""


def _check_tasks(scores: Scores, source: str) -> None:
    """The task lists: no task id twice, and no name beyond its bound."""
    if len(set(scores.task_ids)) != len(scores.task_ids):
        twice = next(t for t, k in Counter(scores.task_ids).items() if k > 1)
        raise TaskIdsRepeat(
            f"{source}: task id {twice[:80]!r} names two tasks; each task of a run has its own id"
        )
    texts: dict[str, Iterable[str | None]] = {
        "task ids": scores.task_ids,
        "groups": scores.groups,
        "categories": scores.categories,
    }
    for what, found in texts.items():
        longest = max(map(len, filter(None, found)), default=0)  # None and "" aside
        _bounded(f"{source}: one of the {what}", longest, TEXT_LIMIT, "characters")


def _check_column(where: str, name: str, column: ScoreColumn, binary: frozenset[str]) -> None:
    share = column.count is not None and column.total is not None
    if share:
        _check_shares(where, column, np.array(column.values, dtype=np.float64))  # None is NaN
    check_numbers(where, name, column.values, binary, share=share)


def _check_shares(where: str, column: ScoreColumn, values: np.ndarray[Any, Any]) -> None:
    """Each task's share: a count of at most its total, and its value count/total."""
    count = np.array(column.count, dtype=np.float64)
    total = np.array(column.total, dtype=np.float64)
    given = ~np.isnan(count) | ~np.isnan(total)
    whole = (count >= 0) & (total >= 1) & (count <= total)
    bad = given & ~(whole & (values == count / np.where(whole, total, 1.0)))
    if bad.any():
        at = int(np.argmax(bad))
        raise ShareInconsistent(
            f"{where}: task {at} is a share of {values[at]!r} with count {count[at]:g} of total "
            f"{total[at]:g}; a share's count is at most its total and its value is count/total"
        )


# -- the two hooks -----------------------------------------------------------------------------


def check_to_sign(
    result: Result, statement: Statement, payload: bytes, scores: bytes, envelope: bytes
) -> None:
    """At attestation, before anything is written: everything ``check_verified`` will check,
    and the shown text, refused as AttestRefused naming the check."""
    try:
        check_shown_text(result.system)
        check_result_values(result)
        _bounded("the envelope", len(envelope), MAX_ENVELOPE_BYTES, "bytes")
        _bounded("the scores file", len(scores), MAX_SCORES_BYTES, "bytes")
        check_statement(payload, statement, "the statement")
        parsed = read_scores(scores, source="the scores file")
        check_scores(parsed, statement, "the scores file")
    except SemanticRefused as exc:
        raise AttestRefused(f"{type(exc).__name__}: {exc.message}") from None


def check_verified(
    payload: bytes,
    statement: Statement,
    scores: Scores | None,
    source: str,
    known_good: set[str] | None,
    artifact_id: str,
) -> None:
    """At verification, after the subjects' digests: the statement (and its canonical
    ``payload``), and the scores file unless
    it is known good (it passed these very checks in an earlier build by this code). A refused
    run is taken out of ``known_good``, so no memo remembers it as good."""
    try:
        check_statement(payload, statement, source)
        if scores is not None:
            check_scores(scores, statement, source)
    except SemanticRefused:
        if known_good is not None:
            known_good.discard(artifact_id)
        raise
