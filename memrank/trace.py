"""The trace: what happened to one task in one attempt, recorded whether or not it went well."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from memrank._basics import FROZEN, UTCDateTime
from memrank.budget import Budget, TraceCut, counter_for, cut_to_budget
from memrank.system import Document, Recall
from memrank.task import Task

__all__ = ["Answered", "Answering", "Declared", "Failure", "Given", "Step", "Trace", "hold_traces"]


class Step(StrEnum):
    """The call a task was at when something happened."""

    PREPARE = "prepare"
    INGEST = "ingest"
    RETRIEVE = "retrieve"
    RANK = "rank"
    COMPLETE = "complete"
    RESPOND = "respond"
    ANSWER = "answer"
    """memrank's answer stage, after a memory or retriever recalled."""


class Given(BaseModel):
    """What the system had been told when the task was put to it."""

    model_config = FROZEN
    unit: str
    """The isolation unit the task ran in (also the user_id it was asked under)."""
    document_ids: tuple[str, ...]
    """The documents given to that unit, once, in order."""


class Answering(BaseModel):
    """How memrank's answer stage answered from what a memory or retriever recalled."""

    model_config = FROZEN
    protocol: str
    """The protocol id (``mem0@v1``) whose answer prompt and parameters were used."""
    protocol_sha256: str
    """The protocol bundle's fingerprint."""
    model: str
    """The answer model as configured (``openai:gpt-4o-mini``)."""
    reported_model: str
    """The model the endpoint said answered."""
    prompt_id: str
    prompt_sha256: str
    """sha256 of the prompt text's pinned bytes."""
    request_sha256: str
    """sha256 over the endpoint, the model and the exact request body (parameters and
    messages), as ``memrank.systems.models.cache_key`` computes it."""
    seed: int | None = None
    """The seed the run asked for (sent where the API accepts one); None when none was given."""
    tokenizer: str
    """The tokenizer the budget is counted in, with ``tokenizer_sha256`` its BPE file's hash."""
    tokenizer_sha256: str
    budget_tokens: int | None
    """The context budget; None when uncapped."""
    context_tokens: int
    """Tokens of the documents' context as sent (never above the budget)."""
    context_sha256: str
    """sha256 of that context text."""
    documents_sent: tuple[str, ...]
    """Ids of the recalled documents sent, in rank order (whole documents only)."""
    documents_cut: tuple[str, ...]
    """Ids of the recalled documents the budget left out, in rank order."""
    usage: dict[str, float]
    """What the answer call consumed, as the endpoint reported it (absent when not reported)."""


class Answered(BaseModel):
    """The text a model or assistant answered, or memrank's answer stage did."""

    model_config = FROZEN
    text: str
    answering: Answering | None = None
    """Set when memrank's answer stage produced the text; None when the system answered."""

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> Any:
        # A system's own answer is written as before, so result files of model and
        # assistant runs keep their bytes.
        data = handler(self)
        if self.answering is None and isinstance(data, dict):
            data.pop("answering", None)
        return data


class Declared(BaseModel):
    """What the system stated about itself for this task; None is "did not state", never zero."""

    model_config = FROZEN
    usage: dict[str, float] | None = None
    """What the calls consumed or were billed (tokens, cost)."""
    engine_timings_ms: dict[str, float] | None = None
    """Milliseconds only the system can see."""
    state_fingerprint: str | None = None
    """A fingerprint of what the system held when asked."""


class Failure(BaseModel):
    """Where a task broke and what the system said."""

    model_config = FROZEN
    step: Step
    message: str
    type: str
    """The exception's class name."""


class Trace(BaseModel):
    """One task, one attempt: what was given, what came back, what each step took."""

    model_config = FROZEN
    task: Task
    """The task as put, without its context (the documents are in ``given``)."""
    attempt: int = 1
    given: Given | None = None
    recalled: Recall | None = None
    answered: Answered | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)
    """Milliseconds on memrank's own clock, per step that completed for this task."""
    declared: Declared = Field(default_factory=Declared)
    error: Failure | None = None
    started: UTCDateTime
    finished: UTCDateTime
    cut: TraceCut | None = None
    """The cut the evaluation's context budget made to ``recalled`` (kept whole: measures read
    it at k and at the budget); None when the evaluation declares no capped budget."""
    foreign: tuple[int, ...] = ()
    """1-based ranks of the recalled documents that were never told to this task's isolation
    unit in this run (memrank.integrity): they earn no credit. Empty, and left out of the
    result file, when every recalled document was told."""
    planted: tuple[int, ...] = ()
    """For a benchmark task of an endpoint run: the 1-based ranks, in the recall as the service
    returned it, of the turns memrank planted (canary facts and their look-alikes), which
    ``recalled`` leaves out so the question is read as if they had never been told. Empty,
    and left out of the result file, when none came back."""

    @model_serializer(mode="wrap")
    def _omit_no_foreign(self, handler: SerializerFunctionWrapHandler) -> Any:
        # Result files of runs where every recalled document was told, and no planted turn
        # came back for a benchmark question, keep their bytes.
        data = handler(self)
        if isinstance(data, dict):
            if not self.foreign:
                data.pop("foreign", None)
            if not self.planted:
                data.pop("planted", None)
        return data

    @property
    def task_id(self) -> str:
        return self.task.id

    @property
    def credited(self) -> tuple[Document, ...]:
        """The recalled documents a measure may credit, in rank order: each foreign one (never
        told to this task's unit) stands replaced by an empty document that holds and names
        nothing, so it keeps its rank and earns nothing."""
        documents = self.recalled.documents if self.recalled is not None else ()
        if not self.foreign:
            return documents
        foreign = set(self.foreign)
        return tuple(
            Document(id=f"foreign:{rank}", content="") if rank in foreign else document
            for rank, document in enumerate(documents, start=1)
        )

    @property
    def ok(self) -> bool:
        return self.error is None


TRACE_FIELDS: tuple[str, ...] = tuple(Trace.model_fields)


def hold_traces(traces: list[Trace], budget: Budget | None) -> list[Trace]:
    """Every trace that recalled something, with the cut its evaluation's budget makes."""
    if budget is None or not budget.capped:
        return traces
    counter = counter_for(budget)
    # a run recalls the same documents for many tasks: each text is counted once
    counted: dict[str, int] = {}

    def count(text: str) -> int:
        size = counted.get(text)
        if size is None:
            size = counted[text] = counter(text)
        return size

    return [
        trace
        if trace.recalled is None
        else trace.model_copy(
            update={"cut": cut_to_budget(trace.recalled.documents, budget, count).on_trace()}
        )
        for trace in traces
    ]
