"""evidence-recall@k and session-recall@k: did what holds the evidence come back?

An evaluation states each task's evidence in ``task.metadata["evidence"]``: the turns, each with
its document id, its session and its text (``evidence_metadata`` writes it; the system never sees
task metadata). An evidence turn counts as recalled within the first k documents when one of
them stands for it **by id** (``metadata["doc_id"]`` for a chunk, else its own id; or one of
``metadata["doc_ids"]`` for a document joined from several whole ones) or holds it **by
content**: the turn's text, normalised, is a run of whole words of the document's text,
normalised (``normalised``: Unicode NFKC, case folded, every punctuation mark a space, runs of
whitespace one space). The id keeps a long turn a system split into chunks findable, and
evidence an evaluation names by id alone (whole sessions); content keeps a system that stores
text its own way (its own record ids, punctuation or spacing dropped) from scoring as a miss.
Each task's values say which attributed what was found (``by id``, ``by content`` or both).

A session counts as recalled when one of the first k documents names it (``metadata
["session_id"]``, as the document was returned or as a client attributed it) or contains one
of its evidence turns. When a session is missing and one of the first k documents names no
session and holds no evidence turn, the value is None ("session unknown"), not a miss.

A negative task (``metadata["negative"]``, e.g. LoCoMo's adversarial questions) asks about
something the material does not say as asked: its values are reported under the ``-negative``
names and the headline names record None for it, so it is never mixed into a headline mean.
"""

from __future__ import annotations

import unicodedata
import weakref
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, NamedTuple

import regex
from pydantic import BaseModel

from memrank._types import FROZEN
from memrank.budget import Budget
from memrank.evaluation import Task
from memrank.measure import Decider, Measure, Scope, Value
from memrank.measures.word_match import recalled_doc_id
from memrank.system import Document
from memrank.trace import Trace

__all__ = [
    "HIT_AT",
    "KS",
    "EvidenceRecall",
    "EvidenceTurn",
    "Found",
    "SessionRecall",
    "evidence_metadata",
    "evidence_of",
    "first_ranks",
    "is_negative",
    "normalised",
    "session_of",
]

KS = (5, 10, 20)
"""The cut-offs evidence is scored at; an evaluation scored by them sets ``k`` to at least 20."""
HIT_AT = 10
"""The cut-off of the binary ``evidence-hit@10``."""


class EvidenceTurn(BaseModel):
    """One turn that holds (part of) a task's evidence."""

    model_config = FROZEN
    id: str
    """The document id the evaluation gave the turn."""
    session: str
    """The session the turn belongs to."""
    text: str
    """What was said, as the material has it."""


def evidence_metadata(turns: Sequence[EvidenceTurn], *, negative: bool = False) -> dict[str, Any]:
    """The task metadata these measures read: the evidence turns, and whether the task is negative."""
    metadata: dict[str, Any] = {"evidence": [turn.model_dump() for turn in turns]}
    if negative:
        metadata["negative"] = True
    return metadata


def evidence_of(task: Task) -> list[EvidenceTurn]:
    """The evidence turns a task's metadata states (none when it states none)."""
    return [EvidenceTurn.model_validate(turn) for turn in task.metadata.get("evidence", ())]


def is_negative(task: Task) -> bool:
    return bool(task.metadata.get("negative", False))


_PUNCTUATION = regex.compile(r"\p{P}+")


def normalised(text: str) -> str:
    """What content attribution compares: NFKC, case folded, each run of punctuation a space
    and each run of whitespace one space."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_PUNCTUATION.sub(" ", folded).split())


def session_of(document: Document) -> str | None:
    """The session a recalled document names, if it names one."""
    session = (document.metadata or {}).get("session_id")
    return None if session is None else str(session)


class Found(NamedTuple):
    """Where an evidence turn was first found among the recalled documents, and how."""

    rank: int
    """1-based rank of the first document holding the turn."""
    by: str
    """``"id"`` when that document stands for the turn by id, else ``"content"``."""


Scored = tuple[str, float | None, str]
"""A task's value before it is made a Value: its name, its number (None: undecided), its why."""

Read = dict[int, tuple[set[str], str]]
"""id() of a document -> the ids it holds and its normalised text (padded with a space each
side, so a containment test is by whole words), for the documents of traces alive while it is
used: a run recalls the same Document objects for many tasks."""


def first_ranks(
    turns: Sequence[EvidenceTurn], documents: Sequence[Document], read: Read | None = None
) -> list[Found | None]:
    """For each evidence turn, the first document holding it (by id, else by content), or None.

    ``read`` keeps what each document was read as, so a document recalled for many tasks is
    normalised once; it must not outlive the documents it names."""
    read = {} if read is None else read
    held: list[tuple[set[str], str]] = []
    for d in documents:
        known = read.get(id(d))
        if known is None:
            known = read[id(d)] = (
                {recalled_doc_id(d), *(d.metadata or {}).get("doc_ids", ())},
                f" {normalised(d.text)} ",
            )
        held.append(known)
    found: list[Found | None] = []
    for turn in turns:
        wanted = normalised(turn.text)
        padded = f" {wanted} "
        first = None
        for rank, (ids, text) in enumerate(held, start=1):
            if turn.id in ids:
                first = Found(rank, "id")
                break
            if wanted and padded in text:
                first = Found(rank, "content")
                break
        found.append(first)
    return found


def attributed_by(found: Sequence[Found | None], k: int) -> str:
    """How the turns found within the first k were attributed: ``by id``, ``by content`` or
    ``by id and by content`` (empty when none was found)."""
    ways = {f.by for f in found if f is not None and f.rank <= k}
    return " and ".join(f"by {way}" for way in ("id", "content") if way in ways)


_FOUND: dict[int, tuple[weakref.ref[Trace], list[EvidenceTurn], list[Found | None]]] = {}
"""id() of a trace read -> its evidence turns and where each was first found: both levels read
the same traces, and the second need not read every recalled document again. An entry leaves
with its trace (its weak reference's callback), so an id is never reused while it is here."""


def _found_in(trace: Trace, read: Read) -> tuple[list[EvidenceTurn], list[Found | None]]:
    """A trace's evidence turns and ``first_ranks`` of them among its recalled documents."""
    key = id(trace)
    known = _FOUND.get(key)
    if known is not None and known[0]() is trace:
        return known[1], known[2]
    turns = evidence_of(trace.task)
    documents = trace.recalled.documents if trace.recalled else ()
    found = first_ranks(turns, documents, read) if turns else []

    def forget(_: weakref.ref[Trace]) -> None:
        _FOUND.pop(key, None)

    _FOUND[key] = (weakref.ref(trace, forget), turns, found)
    return turns, found


class _EvidenceMeasure(Measure):
    """What the two levels share: which tasks are scored, and under which names."""

    scope, reads, decider = Scope.TASK, ("recalled",), Decider.RULE

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        produced = []
        read: Read = {}  # the traces hold every document it names until this returns
        for trace in traces:
            turns, found = _found_in(trace, read)
            if not turns:
                produced += self._undecided(trace, _no_evidence(trace.task))
                continue
            documents = trace.recalled.documents if trace.recalled else ()
            scored = self._scored(trace, turns, documents, found)
            if is_negative(trace.task):
                produced += self._undecided(
                    trace,
                    "a negative task (the material does not answer it as asked): reported "
                    "under the -negative names, never in the headline",
                )
                scored = [(_negative(name), value, why) for name, value, why in scored]
            produced += [self._value(trace, name, value, why) for name, value, why in scored]
        return produced

    @abstractmethod
    def _scored(
        self,
        trace: Trace,
        turns: list[EvidenceTurn],
        documents: Sequence[Document],
        found: list[Found | None],
    ) -> list[Scored]:
        """The task's values under the headline names, from the documents recalled (``found``:
        where each turn was first found among them, as ``first_ranks`` gives it)."""

    def _headline(self) -> tuple[str, ...]:
        return tuple(n for n in self.names() if "-negative" not in n)

    def _undecided(self, trace: Trace, why: str) -> list[Value]:
        return [self._value(trace, name, None, why) for name in self._headline()]

    def _value(self, trace: Trace, name: str, value: float | None, why: str) -> Value:
        return Value(
            measure=name, decider=self.decider, task_id=trace.task.id, value=value, why=why
        )


class EvidenceRecall(_EvidenceMeasure):
    """Turn level: the share of a task's evidence turns found within the first k, k in 5, 10, 20;
    and ``evidence-hit@10``, 1 when at least one evidence turn is within the first 10.

    Given a capped ``budget`` it also reads the share at the budget, ``evidence-recall@500w``:
    within the documents the run's budget cut kept (``trace.cut``), so every arm is read with
    the same amount of text.
    """

    name = "evidence-recall"
    produces = (
        *(f"evidence-recall@{k}" for k in KS),
        f"evidence-hit@{HIT_AT}",
        *(f"evidence-recall-negative@{k}" for k in KS),
        f"evidence-hit-negative@{HIT_AT}",
    )
    binary = (f"evidence-hit@{HIT_AT}", f"evidence-hit-negative@{HIT_AT}")

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget if budget is not None and budget.capped else None

    def names(self) -> tuple[str, ...]:
        if self.budget is None:
            return self.produces
        at = self.budget.label
        return (*self.produces, f"evidence-recall@{at}", f"evidence-recall-negative@{at}")

    def __repr__(self) -> str:
        return f"EvidenceRecall(budget={self.budget!r})" if self.budget else "EvidenceRecall()"

    def _scored(
        self,
        trace: Trace,
        turns: list[EvidenceTurn],
        documents: Sequence[Document],
        found: list[Found | None],
    ) -> list[Scored]:
        produced = self._at_budget(trace, turns, found) if self.budget else []
        for k in KS:
            share, why = _within(turns, found, k, f"within the first {k}")
            produced.append((f"evidence-recall@{k}", share, why))
        best = min((f.rank for f in found if f), default=None)
        hit = best is not None and best <= HIT_AT
        why = (
            f"first evidence turn at rank {best}"
            if best is not None
            else f"no evidence turn among the {len(documents)} recalled"
        )
        produced.append((f"evidence-hit@{HIT_AT}", float(hit), why))
        return produced

    def _at_budget(
        self, trace: Trace, turns: list[EvidenceTurn], found: list[Found | None]
    ) -> list[Scored]:
        assert self.budget is not None
        name = f"evidence-recall@{self.budget.label}"
        if trace.cut is None or trace.cut.budget != self.budget:
            why = f"the run was not held to the budget of {self.budget}, so it cannot be read there"
            return [(name, None, why)]
        kept = trace.cut.kept
        where = f"within the {kept} document(s) that fit {self.budget} ({trace.cut.used} used)"
        share, why = _within(turns, found, kept, where)
        return [(name, share, why)]


def _within(
    turns: list[EvidenceTurn], found: list[Found | None], k: int, where: str
) -> tuple[float, str]:
    """The share of turns found within the first k, and the why that says which and how."""
    ids = [turn.id for turn, f in zip(turns, found, strict=True) if f and f.rank <= k]
    why = f"{len(ids)} of {len(turns)} evidence turn(s) {where}"
    if ids:
        why += f": {', '.join(ids)} ({attributed_by(found, k)})"
    return len(ids) / len(turns), why


class SessionRecall(_EvidenceMeasure):
    """Session level: the share of the sessions holding a task's evidence that a document within
    the first k comes from, k in 5, 10, 20."""

    name = "session-recall"
    produces = (
        *(f"session-recall@{k}" for k in KS),
        *(f"session-recall-negative@{k}" for k in KS),
    )

    def _scored(
        self,
        trace: Trace,
        turns: list[EvidenceTurn],
        documents: Sequence[Document],
        found: list[Found | None],
    ) -> list[Scored]:
        turn_ranks = [f.rank if f else None for f in found]
        sessions_named = [session_of(document) for document in documents]
        first: dict[str, int | None] = dict.fromkeys(turn.session for turn in turns)
        for rank, session in enumerate(sessions_named, start=1):
            if session in first and first[session] is None:
                first[session] = rank
        for turn, turn_rank in zip(turns, turn_ranks, strict=True):
            known = first[turn.session]
            if turn_rank is not None and (known is None or turn_rank < known):
                first[turn.session] = turn_rank
        # A document that names no session and holds no evidence turn may still come from an
        # evidence session: where one is within the cut and a session is missing, the value
        # cannot be decided, and counting it a miss would score the transport, not the system.
        holding = {rank for rank in turn_ranks if rank is not None}
        unknown = [
            rank
            for rank, session in enumerate(sessions_named, start=1)
            if session is None and rank not in holding
        ]
        produced: list[Scored] = []
        for k in KS:
            sessions = [s for s, rank in first.items() if rank is not None and rank <= k]
            blind = sum(rank <= k for rank in unknown)
            name = f"session-recall@{k}"
            if blind and len(sessions) < len(first):
                why = (
                    f"session unknown: {blind} of the first {k} recalled document(s) name no "
                    f"session and hold no evidence turn; {len(sessions)} of {len(first)} evidence "
                    "session(s) found among the rest"
                )
                produced.append((name, None, why))
                continue
            why = f"{len(sessions)} of {len(first)} evidence session(s) within the first {k}" + (
                f": {', '.join(sessions)}" if sessions else ""
            )
            produced.append((name, len(sessions) / len(first), why))
        return produced


def _negative(name: str) -> str:
    stem, _, cut = name.partition("@")
    return f"{stem}-negative@{cut}"


def _no_evidence(task: Task) -> str:
    if task.expected.abstain:
        return "an abstention task: the material holds no evidence for it"
    return "the task names no evidence turns, so evidence recall cannot be decided"
