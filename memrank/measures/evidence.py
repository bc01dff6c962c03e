"""evidence-recall@k and session-recall@k: did what holds the evidence come back?

An evaluation states each task's evidence in ``task.metadata["evidence"]``: the turns, each with
its document id, its session and its text (``evidence_metadata`` writes it; the system never sees
task metadata). An evidence turn counts as recalled within the first k documents when one of
them contains its text (case and runs of whitespace aside) or stands for it by id
(``metadata["doc_id"]`` for a chunk, else its own id; or one of ``metadata["doc_ids"]`` for a
document joined from several whole ones). Containment makes the measure robust to chunking and
to systems that return records of their own; the id keeps a long turn that a system split into
chunks findable, and evidence an evaluation names by id alone (whole sessions) findable.

A session counts as recalled when one of the first k documents names it (``metadata
["session_id"]``, as the document was returned or as a client attributed it) or contains one
of its evidence turns. When a session is missing and one of the first k documents names no
session and holds no evidence turn, the value is None ("session unknown"), not a miss.

A negative task (``metadata["negative"]``, e.g. LoCoMo's adversarial questions) asks about
something the material does not say as asked: its values are reported under the ``-negative``
names and the headline names record None for it, so it is never mixed into a headline mean.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

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


def normalised(text: str) -> str:
    """Lower-cased, with every run of whitespace made one space: what containment compares."""
    return " ".join(text.lower().split())


def session_of(document: Document) -> str | None:
    """The session a recalled document names, if it names one."""
    session = (document.metadata or {}).get("session_id")
    return None if session is None else str(session)


Read = dict[int, tuple[set[str], str]]
"""id() of a document -> the ids it holds and its normalised text, for the documents of traces
alive while it is used: a run recalls the same Document objects for many tasks."""


def first_ranks(
    turns: Sequence[EvidenceTurn], documents: Sequence[Document], read: Read | None = None
) -> list[int | None]:
    """For each evidence turn, the 1-based rank of the first document holding it, or None.

    ``read`` keeps what each document was read as, so a document recalled for many tasks is
    normalised once; it must not outlive the documents it names."""
    read = {} if read is None else read
    ids, texts = [], []
    for d in documents:
        known = read.get(id(d))
        if known is None:
            known = read[id(d)] = (
                {recalled_doc_id(d), *(d.metadata or {}).get("doc_ids", ())},
                normalised(d.text),
            )
        ids.append(known[0])
        texts.append(known[1])
    ranks: list[int | None] = []
    for turn in turns:
        wanted = normalised(turn.text)
        ranks.append(
            next(
                (
                    rank
                    for rank, (held, text) in enumerate(zip(ids, texts, strict=True), start=1)
                    if turn.id in held or (wanted and wanted in text)
                ),
                None,
            )
        )
    return ranks


class _EvidenceMeasure(Measure):
    """What the two levels share: which tasks are scored, and under which names."""

    scope, reads, decider = Scope.TASK, ("recalled",), Decider.RULE

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        produced = []
        read: Read = {}  # the traces hold every document it names until this returns
        for trace in traces:
            turns = evidence_of(trace.task)
            if not turns:
                produced += self._undecided(trace, _no_evidence(trace.task))
                continue
            documents = trace.recalled.documents if trace.recalled else ()
            scored = self._scored(trace, turns, documents, first_ranks(turns, documents, read))
            if is_negative(trace.task):
                produced += self._undecided(
                    trace,
                    "a negative task (the material does not answer it as asked): reported "
                    "under the -negative names, never in the headline",
                )
                scored = [v.model_copy(update={"measure": _negative(v.measure)}) for v in scored]
            produced += scored
        return produced

    @abstractmethod
    def _scored(
        self,
        trace: Trace,
        turns: list[EvidenceTurn],
        documents: Sequence[Document],
        ranks: list[int | None],
    ) -> list[Value]:
        """The task's values under the headline names, from the documents recalled (``ranks``:
        each turn's first rank among them, as ``first_ranks`` gives it)."""

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
        ranks: list[int | None],
    ) -> list[Value]:
        produced = self._at_budget(trace, turns, ranks) if self.budget else []
        for k in KS:
            found = [turn.id for turn, rank in zip(turns, ranks, strict=True) if rank and rank <= k]
            why = f"{len(found)} of {len(turns)} evidence turn(s) within the first {k}" + (
                f": {', '.join(found)}" if found else ""
            )
            produced.append(
                self._value(trace, f"evidence-recall@{k}", len(found) / len(turns), why)
            )
        best = min((rank for rank in ranks if rank), default=None)
        hit = best is not None and best <= HIT_AT
        why = (
            f"first evidence turn at rank {best}"
            if best is not None
            else f"no evidence turn among the {len(documents)} recalled"
        )
        produced.append(self._value(trace, f"evidence-hit@{HIT_AT}", float(hit), why))
        return produced

    def _at_budget(
        self, trace: Trace, turns: list[EvidenceTurn], ranks: list[int | None]
    ) -> list[Value]:
        assert self.budget is not None
        name = f"evidence-recall@{self.budget.label}"
        if trace.cut is None or trace.cut.budget != self.budget:
            why = f"the run was not held to the budget of {self.budget}, so it cannot be read there"
            return [self._value(trace, name, None, why)]
        kept = trace.cut.kept
        found = [turn.id for turn, rank in zip(turns, ranks, strict=True) if rank and rank <= kept]
        why = (
            f"{len(found)} of {len(turns)} evidence turn(s) within the {kept} document(s) that "
            f"fit {self.budget} ({trace.cut.used} used)"
            + (f": {', '.join(found)}" if found else "")
        )
        return [self._value(trace, name, len(found) / len(turns), why)]


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
        turn_ranks: list[int | None],
    ) -> list[Value]:
        first: dict[str, int | None] = dict.fromkeys(turn.session for turn in turns)
        for rank, document in enumerate(documents, start=1):
            session = session_of(document)
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
            for rank, document in enumerate(documents, start=1)
            if session_of(document) is None and rank not in holding
        ]
        produced = []
        for k in KS:
            found = [s for s, rank in first.items() if rank is not None and rank <= k]
            blind = sum(rank <= k for rank in unknown)
            name = f"session-recall@{k}"
            if blind and len(found) < len(first):
                why = (
                    f"session unknown: {blind} of the first {k} recalled document(s) name no "
                    f"session and hold no evidence turn; {len(found)} of {len(first)} evidence "
                    "session(s) found among the rest"
                )
                produced.append(self._value(trace, name, None, why))
                continue
            why = f"{len(found)} of {len(first)} evidence session(s) within the first {k}" + (
                f": {', '.join(found)}" if found else ""
            )
            produced.append(self._value(trace, name, len(found) / len(first), why))
        return produced


def _negative(name: str) -> str:
    stem, _, cut = name.partition("@")
    return f"{stem}-negative@{cut}"


def _no_evidence(task: Task) -> str:
    if task.expected.abstain:
        return "an abstention task: the material holds no evidence for it"
    return "the task names no evidence turns, so evidence recall cannot be decided"
