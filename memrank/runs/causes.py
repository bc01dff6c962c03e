"""Why tasks failed, in a few words each, grouped: ``197 × HTTP 500 on retrieve``.

A failure's message names what failed where (a URL, a user id, the attempts made), which
differs from task to task; its cause is what is left once those are set aside: the status an
endpoint answered, a deadline or budget passed, an endpoint unreachable or treated as down, a
connection dropped, else the exception's class and the message's first clause with the
particulars (ids and paths quoted, addresses, numbers) masked. Each cause names the step it
broke at.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from memrank.result import Result
from memrank.trace import Failure, Trace

__all__ = ["cause_of", "failure_causes", "grouped", "left_out", "said"]

_KNOWN: tuple[tuple[re.Pattern[str], str], ...] = (
    # first: the breaker's message names the last failure it saw, which is not this task's
    (re.compile(r"treated as down"), "not sent: the endpoint was treated as down"),
    (re.compile(r"answered HTTP (\d{3})"), r"HTTP \1"),
    (re.compile(r"within the \S+ s deadline"), "deadline exceeded"),
    (re.compile(r"within the call's \S+ s budget"), "call budget exceeded"),
    (re.compile(r"could not be reached"), "endpoint unreachable"),
    (re.compile(r"dropped the connection"), "connection dropped"),
    (re.compile(r"response cap"), "answer past the response cap"),
)
"""What the shared HTTP client says of a failure (memrank.systems.http), as its cause, in the
order tried."""
_QUOTED = re.compile(r"'[^']*[\d:/][^']*'|\"[^\"]*[\d:/][^\"]*\"")
"""Quoted text holding a digit, ``:`` or ``/``: an id, a path (a quoted word is kept)."""
_ADDRESS = re.compile(r"\b\w+://\S+")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_CLAUSE_CAP = 80
_SHOWN = 4
"""Causes named in full on one line; the rest are counted."""


def cause_of(failure: Failure) -> str:
    """A failure's cause and the step it broke at: ``HTTP 500 on retrieve``."""
    message = failure.message
    for pattern, words in _KNOWN:
        found = pattern.search(message)
        if found:
            return f"{found.expand(words)} on {failure.step.value}"
    return f"{failure.type}: {_first_clause(message)} on {failure.step.value}"


def _first_clause(message: str) -> str:
    """The message without what it named (the part before its first ``: ``), to its first
    ``;`` or ``: ``, particulars masked, capped."""
    masked = _NUMBER.sub("N", _ADDRESS.sub("URL", _QUOTED.sub("'…'", message)))
    head, _, rest = masked.partition(": ")
    clause = re.split(r"; |: ", rest or head, maxsplit=1)[0].strip() or masked
    return clause if len(clause) <= _CLAUSE_CAP else clause[: _CLAUSE_CAP - 1] + "…"


def grouped(labels: Iterable[str]) -> list[tuple[int, str]]:
    """Each label with how often it came, most often first (ties in the order first met)."""
    counted = Counter(labels)
    return sorted(((n, label) for label, n in counted.items()), key=lambda pair: -pair[0])


def failure_causes(traces: Iterable[Trace]) -> list[tuple[int, str]]:
    """The causes of the failed traces, grouped, most frequent first."""
    return grouped(cause_of(t.error) for t in traces if t.error is not None)


def said(groups: list[tuple[int, str]], most: int = _SHOWN) -> str:
    """``197 × HTTP 500 on retrieve; 2 × deadline exceeded on retrieve``; past ``most``
    causes, the rest counted (``and 3 more causes (5 tasks)``)."""
    shown = "; ".join(f"{n} × {label}" for n, label in groups[:most])
    rest = groups[most:]
    if rest:
        shown += f"; and {len(rest)} more cause(s) ({sum(n for n, _ in rest)} task(s))"
    return shown


def left_out(result: Result, measure: str) -> tuple[int, list[tuple[int, str]]] | None:
    """How many tasks the task-scope values of ``measure`` decided, and why the others were
    left out, grouped: a failed task by its failure's cause, any other by its value's why (to
    its first ``: ``), a task with no value of ``measure`` as such. None when ``measure`` has
    no task-scope value (a whole-run value is not over tasks)."""
    failed = {t.task.id: t.error for t in result.traces if t.error is not None}
    decided, reasons, valued = 0, [], set()
    for value in result.values:
        if value.measure != measure or value.task_id is None:
            continue
        valued.add(value.task_id)
        if value.value is not None:
            decided += 1
            continue
        failure = failed.get(value.task_id)
        reasons.append(f"failed: {cause_of(failure)}" if failure else _first_words(value.why))
    if not valued:
        return None
    reasons += [f"no {measure} value"] * (result.evaluation.task_count - len(valued))
    return decided, grouped(reasons)


def _first_words(why: str) -> str:
    clause = why.split(": ", 1)[0].strip() or why
    return clause if len(clause) <= _CLAUSE_CAP else clause[: _CLAUSE_CAP - 1] + "…"
