"""What the readers of published benchmarks (LoCoMo, LongMemEval, BEAM, Mem-Gallery,
MemoryCode) share, so each reads alike: a file read in its format, what a task expects, slices,
and what an evidence benchmark measures.

A file that trips the parser is DatasetMalformed, naming the file, which format it is not in
and what broke, rather than a stray KeyError.

Each benchmark annotates a reference answer and the turns that hold it, not spans; from those
come the answers, the evidence ids and the required span: the reference answer, when it appears
word for word (case aside) in one of its evidence turns, is a span a recall must contain to
hold the answer, and word-match can decide; otherwise the task names no span and word-match
records None with the reason.

A slice is a documented subset for debugging plumbing cheaply, not a measurement: the first
conversations are not a fair sample of a benchmark, so a sliced evaluation carries its slice
name into every result, and is never publishable.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import orjson

from memrank.errors import DatasetMalformed, UsageError
from memrank.measure import Measure
from memrank.measures import (
    EvidenceMeans,
    EvidenceRecall,
    EvidenceTurn,
    RecalledWords,
    SessionRecall,
    WordMatch,
)
from memrank.task import Expected, Task

__all__ = [
    "check_slice",
    "evidence_measures",
    "expected_of",
    "first_groups",
    "first_per_category",
    "in_format",
]

_PARSE_ERRORS: tuple[type[Exception], ...] = (
    orjson.JSONDecodeError,
    KeyError,
    TypeError,
    ValueError,
)
"""What a file off its format raises while it is read: bad JSON, a missing key, a wrong type."""


@contextmanager
def in_format(
    path: Path, format_name: str, *, also: tuple[type[Exception], ...] = ()
) -> Iterator[None]:
    """Read ``path`` inside this block; a parse error (or one of ``also``) becomes
    DatasetMalformed saying the file is not in ``format_name``."""
    try:
        yield
    except (*_PARSE_ERRORS, *also) as exc:
        raise DatasetMalformed(
            f"{path}: not in {format_name} ({type(exc).__name__}: {exc})"
        ) from None


def expected_of(
    answer: str | None,
    evidence: Sequence[EvidenceTurn],
    *,
    spans: bool = True,
    abstain: bool = False,
) -> Expected:
    """The reference answer (none when the file gives none), its span when ``spans`` and an
    evidence turn holds it verbatim, and the evidence turns' ids in order.

    ``spans=False`` for tasks whose answer must not be found (negative or abstention tasks
    whose benchmark says so): there is no span a recall should hold.
    """
    span = (answer or "").strip()
    verbatim = spans and bool(span) and any(span.lower() in e.text.lower() for e in evidence)
    return Expected(
        answers=() if answer is None else (answer,),
        required_spans=(span,) if verbatim else (),
        evidence_doc_ids=tuple(e.id for e in evidence),
        abstain=abstain,
    )


def evidence_measures(categories: Sequence[str]) -> tuple[Measure, ...]:
    """What LoCoMo, BEAM and Mem-Gallery measure: evidence recall at k and by session,
    word-match, the words recalled, and the evidence means over ``categories``."""
    return (
        EvidenceRecall(),
        SessionRecall(),
        WordMatch(),
        RecalledWords(),
        EvidenceMeans(categories=categories),
    )


def check_slice(evaluation: str, slice: str | None, known: Mapping[str, str]) -> None:
    """Refuse a slice name the evaluation does not document."""
    if slice is not None and slice not in known:
        listed = "; ".join(f"{name}: {what}" for name, what in known.items())
        raise UsageError(
            f"evaluation {evaluation!r} has no slice {slice!r}; its slices are {listed}"
        )


def first_groups(tasks: Sequence[Task], count: int) -> tuple[Task, ...]:
    """The tasks of the first ``count`` groups, in order."""
    groups: list[str | None] = []
    kept = []
    for task in tasks:
        if task.group not in groups:
            if len(groups) == count:
                continue
            groups.append(task.group)
        kept.append(task)
    return tuple(kept)


def first_per_category(tasks: Sequence[Task], count: int) -> tuple[Task, ...]:
    """The first ``count`` tasks of each category, in their order: a stratified slice."""
    seen: dict[str | None, int] = {}
    kept = []
    for task in tasks:
        if seen.get(task.category, 0) < count:
            seen[task.category] = seen.get(task.category, 0) + 1
            kept.append(task)
    return tuple(kept)
