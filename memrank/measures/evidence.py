"""evidence-recall@k and session-recall@k: did what holds the evidence come back, and how much
of it was shown?

An evaluation states each task's evidence in ``task.metadata["evidence"]``: the turns, each with
its document id, its session and its text (``evidence_metadata`` writes it; the system never sees
task metadata). Text is compared **normalised** (``normalised``: Unicode NFKC, case folded, every
run of punctuation a space, runs of whitespace one space); its words are what lies between the
spaces. Within the first k documents (a cut-off, or the documents a budget kept), an evidence
turn earns:

- **1** when one of them stands for it **by id** (``metadata["doc_id"]`` for a chunk, else its
  own id; or one of ``metadata["doc_ids"]`` for a document joined from several whole ones) or
  holds it **by content**: the turn's normalised text is a run of whole words of the document's
  normalised text (``" " + turn + " "`` occurs in ``" " + document + " "``). The id keeps a long
  turn a system split into chunks findable, and evidence an evaluation names by id alone (whole
  sessions); content keeps a system that stores text its own way (its own record ids,
  punctuation or spacing dropped, a prefix added, turns merged) from scoring as a miss.
- else **the share of its words shown by pieces of it**: a piece is a document among them
  whose normalised text is not empty and is a run of whole words of the turn's (``" " +
  piece + " "`` occurs in ``" " + turn + " "``). Every place a piece occurs in the turn covers
  the words there; a word counts once however many pieces, or copies of one, cover it; the
  turn earns words covered / words of the turn, so at most 1 and never more for a repeated
  fragment. A document that only overlaps a turn's edge, or holds part of it among other
  text, is no piece and earns nothing.

A document whose rank is in ``trace.foreign`` (never told to the task's unit in this run) is
skipped: it stands for nothing, holds nothing, is a piece of nothing and names no session, but
keeps its rank (it still fills a cut-off and spends the budget). ``evidence-recall@k`` is the
mean of the task's turns' credit; ``evidence-hit@10`` is 1 when some turn is held whole within
the first 10 (a piece never counts). Each task's values say which turns were held and how (``by
id``, ``by content`` or both), which were shown in part and how many of their words, and how
many foreign documents earned nothing.

A session counts as recalled when one of the first k documents names it (``metadata
["session_id"]``, as the document was returned or as a client attributed it) or holds one of
its evidence turns whole. When a session is missing and one of the first k documents (foreign
ones aside) names no session and holds no evidence turn, the value is None ("session
unknown"), not a miss.

A negative task (``metadata["negative"]``, e.g. LoCoMo's adversarial questions) asks about
something the material does not say as asked: its values are reported under the ``-negative``
names and the headline names record None for it, so it is never mixed into a headline mean.
"""

from __future__ import annotations

import weakref
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, NamedTuple

from pydantic import BaseModel

from memrank._basics import FROZEN
from memrank.budget import Budget
from memrank.measure import Decider, Measure, Scope, Value
from memrank.measures.containment import (
    Found,
    Read,
    Shown,
    first_of,
    held_of,
    normalised,
    padded,
    shown_of,
)
from memrank.system import Document
from memrank.task import Task
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


def session_of(document: Document) -> str | None:
    """The session a recalled document names, if it names one."""
    session = (document.metadata or {}).get("session_id")
    return None if session is None else str(session)


Scored = tuple[str, float | None, str]
"""A task's value before it is made a Value: its name, its number (None: undecided), its why."""


def first_ranks(
    turns: Sequence[EvidenceTurn], documents: Sequence[Document], read: Read | None = None
) -> list[Found | None]:
    """For each evidence turn, the first document holding it whole (by id, else by content),
    or None.

    ``read`` keeps what each document was read as, so a document recalled for many tasks is
    normalised once; it must not outlive the documents it names."""
    held = held_of(documents, {} if read is None else read)
    return [first_of(turn.id, padded(turn.text), held) for turn in turns]


def attributed_by(found: Sequence[Found | None], k: int) -> str:
    """How the turns found within the first k were attributed: ``by id``, ``by content`` or
    ``by id and by content`` (empty when none was found)."""
    ways = {f.by for f in found if f is not None and f.rank <= k}
    return " and ".join(f"by {way}" for way in ("id", "content") if way in ways)


class _Reading(NamedTuple):
    """A trace's evidence turns, where each was first found whole, and what pieces showed of
    each before that."""

    turns: list[EvidenceTurn]
    found: list[Found | None]
    shown: list[Shown]


_FOUND: dict[int, tuple[weakref.ref[Trace], _Reading]] = {}
"""id() of a trace read -> its reading: both levels read the same traces, and the second need
not read every recalled document again. An entry leaves with its trace (its weak reference's
callback), so an id is never reused while it is here."""


def _found_in(trace: Trace, read: Read) -> _Reading:
    """A trace's evidence turns, ``first_ranks`` of them among its recalled documents (the
    foreign ones skipped), and what pieces showed of each turn before it was found whole."""
    key = id(trace)
    known = _FOUND.get(key)
    if known is not None and known[0]() is trace:
        return known[1]
    turns = evidence_of(trace.task)
    documents = trace.recalled.documents if trace.recalled else ()
    held = held_of(documents, read, trace.foreign) if turns else []
    found: list[Found | None] = []
    shown: list[Shown] = []
    for turn in turns:
        text = padded(turn.text)
        first = first_of(turn.id, text, held)
        found.append(first)
        shown.append(shown_of(text, held, first.rank if first else len(held) + 1))
    reading = _Reading(turns, found, shown)

    def forget(_: weakref.ref[Trace]) -> None:
        _FOUND.pop(key, None)

    _FOUND[key] = (weakref.ref(trace, forget), reading)
    return reading


def _foreign_within(trace: Trace, k: int) -> str:
    """The why's note of the foreign documents within the first k (empty when there are none)."""
    if not trace.foreign:
        return ""
    skipped = sum(rank <= k for rank in trace.foreign)
    return f"; {skipped} foreign document(s) earned nothing" if skipped else ""


class _EvidenceMeasure(Measure):
    """What the two levels share: which tasks are scored, and under which names."""

    scope, reads, decider = Scope.TASK, ("recalled",), Decider.RULE

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        produced = []
        read: Read = {}  # the traces hold every document it names until this returns
        for trace in traces:
            reading = _found_in(trace, read)
            if not reading.turns:
                produced += self._undecided(trace, _no_evidence(trace.task))
                continue
            documents = trace.recalled.documents if trace.recalled else ()
            scored = self._scored(trace, reading, documents)
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
        self, trace: Trace, reading: _Reading, documents: Sequence[Document]
    ) -> list[Scored]:
        """The task's values under the headline names, from the documents recalled (``reading``:
        where each turn was first found whole among them and what pieces showed of it)."""

    def _headline(self) -> tuple[str, ...]:
        return tuple(n for n in self.names() if "-negative" not in n)

    def _undecided(self, trace: Trace, why: str) -> list[Value]:
        return [self._value(trace, name, None, why) for name in self._headline()]

    def _value(self, trace: Trace, name: str, value: float | None, why: str) -> Value:
        return Value(
            measure=name, decider=self.decider, task_id=trace.task.id, value=value, why=why
        )


class EvidenceRecall(_EvidenceMeasure):
    """Turn level: the mean credit of a task's evidence turns within the first k, k in 5, 10, 20
    (1 for a turn held whole, else the share of its words pieces of it show; see the module);
    and ``evidence-hit@10``, 1 when at least one evidence turn is held whole within the first 10.

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
        self, trace: Trace, reading: _Reading, documents: Sequence[Document]
    ) -> list[Scored]:
        produced = self._at_budget(trace, reading) if self.budget else []
        for k in KS:
            share, why = _within(trace, reading, k, f"within the first {k}")
            produced.append((f"evidence-recall@{k}", share, why))
        best = min((f.rank for f in reading.found if f), default=None)
        hit = best is not None and best <= HIT_AT
        why = (
            f"first evidence turn at rank {best}"
            if best is not None
            else f"no evidence turn among the {len(documents)} recalled"
        )
        produced.append((f"evidence-hit@{HIT_AT}", float(hit), why))
        return produced

    def _at_budget(self, trace: Trace, reading: _Reading) -> list[Scored]:
        assert self.budget is not None
        name = f"evidence-recall@{self.budget.label}"
        if trace.cut is None or trace.cut.budget != self.budget:
            why = f"the run was not held to the budget of {self.budget}, so it cannot be read there"
            return [(name, None, why)]
        kept = trace.cut.kept
        where = f"within the {kept} document(s) that fit {self.budget} ({trace.cut.used} used)"
        share, why = _within(trace, reading, kept, where)
        return [(name, share, why)]


def _within(trace: Trace, reading: _Reading, k: int, where: str) -> tuple[float, str]:
    """The mean credit of the turns within the first k, and the why that says which turns
    were held whole and how, which were shown in part, and what the foreign documents got."""
    turns, found, shown = reading
    held = [turn.id for turn, f in zip(turns, found, strict=True) if f and f.rank <= k]
    parts = [
        (turn.id, covered, s.words)
        for turn, f, s in zip(turns, found, shown, strict=True)
        if s.grew and not (f and f.rank <= k) and (covered := s.covered(k))
    ]
    why = f"{len(held)} of {len(turns)} evidence turn(s) {where}"
    if held:
        why += f": {', '.join(held)} ({attributed_by(found, k)})"
    if parts:
        why += "; shown in part: " + ", ".join(f"{i} {c} of {w} words" for i, c, w in parts)
    credit = len(held) + sum(covered / words for _, covered, words in parts)
    return credit / len(turns), why + _foreign_within(trace, k)


class SessionRecall(_EvidenceMeasure):
    """Session level: the share of the sessions holding a task's evidence that a document within
    the first k comes from, k in 5, 10, 20."""

    name = "session-recall"
    produces = (
        *(f"session-recall@{k}" for k in KS),
        *(f"session-recall-negative@{k}" for k in KS),
    )

    def _scored(
        self, trace: Trace, reading: _Reading, documents: Sequence[Document]
    ) -> list[Scored]:
        turns = reading.turns
        turn_ranks = [f.rank if f else None for f in reading.found]
        foreign = set(trace.foreign)
        sessions_named = [session_of(document) for document in documents]
        for rank in foreign:
            sessions_named[rank - 1] = None
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
        # A foreign document was never told, so it comes from no evidence session.
        holding = {rank for rank in turn_ranks if rank is not None} | foreign
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
                produced.append((name, None, why + _foreign_within(trace, k)))
                continue
            why = f"{len(sessions)} of {len(first)} evidence session(s) within the first {k}" + (
                f": {', '.join(sessions)}" if sessions else ""
            )
            produced.append((name, len(sessions) / len(first), why + _foreign_within(trace, k)))
        return produced


def _negative(name: str) -> str:
    stem, _, cut = name.partition("@")
    return f"{stem}-negative@{cut}"


def _no_evidence(task: Task) -> str:
    if task.expected.abstain:
        return "an abstention task: the material holds no evidence for it"
    return "the task names no evidence turns, so evidence recall cannot be decided"
