"""The trace: what happened to one task in one attempt, recorded whether or not it went well."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from memrank._types import FROZEN, UTCDateTime
from memrank.budget import TraceCut
from memrank.evaluation import Task
from memrank.system import Recall

__all__ = ["Answered", "Declared", "Failure", "Given", "Step", "Trace"]


class Step(StrEnum):
    """The call a task was at when something happened."""

    PREPARE = "prepare"
    INGEST = "ingest"
    RETRIEVE = "retrieve"
    RANK = "rank"
    COMPLETE = "complete"
    RESPOND = "respond"


class Given(BaseModel):
    """What the system had been told when the task was put to it."""

    model_config = FROZEN
    unit: str
    """The isolation unit the task ran in (also the user_id it was asked under)."""
    document_ids: tuple[str, ...]
    """The documents given to that unit, once, in order."""


class Answered(BaseModel):
    """The text a model or assistant answered."""

    model_config = FROZEN
    text: str


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

    @property
    def task_id(self) -> str:
        return self.task.id

    @property
    def ok(self) -> bool:
        return self.error is None


TRACE_FIELDS: tuple[str, ...] = tuple(Trace.model_fields)
