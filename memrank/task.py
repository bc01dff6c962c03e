"""The task: one question put to a system, what a correct outcome looks like, and the units
of tasks that share a store (the clearing rule says how an evaluation groups them).

These are the values the trace records and the measures read, so they sit below both
(memrank.trace, memrank.measure); memrank.evaluation bundles them with measures.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from memrank._basics import FROZEN, UTCDateTime
from memrank.system import Content, Document

__all__ = ["Clearing", "Expected", "Task", "Unit"]


class Clearing(StrEnum):
    """When memrank clears the system's state."""

    PER_GROUP = "per-group"
    """A fresh store per group of tasks: its documents given once, cleared after its last task."""
    PER_TASK = "per-task"
    """A fresh store per task, holding that task's own context."""
    AT_END = "at-end"
    """One store for the whole run: every document given once, cleared after the last task."""


class Expected(BaseModel):
    """What a correct outcome looks like; read by measures, never shown to the system."""

    model_config = FROZEN
    answers: tuple[str, ...] = ()
    """Reference answers, for measures that judge answers."""
    required_spans: tuple[str, ...] = ()
    """Spans that must appear verbatim (case-insensitive) in something recalled."""
    evidence_doc_ids: tuple[str, ...] = ()
    """Documents that hold the evidence."""
    abstain: bool = False
    """The material never says: the right outcome is to find nothing that answers it."""


class Task(BaseModel):
    """One question put to the system, with the documents it may be told first."""

    model_config = FROZEN
    id: str = Field(min_length=1)
    prompt: Content
    """The question, as put to the system."""
    group: str | None = None
    """Tasks that share state carry the same group; their documents are given once."""
    context: tuple[Document, ...] = ()
    """Documents the system is told before the question."""
    expected: Expected = Field(default_factory=Expected)
    category: str | None = None
    """The material's own category label, when it has one."""
    options: tuple[str, ...] | None = None
    """Choice text for multiple-choice questions."""
    asked_at: UTCDateTime | None = None
    """When the question is asked, for systems that reason about time."""
    metadata: dict[str, Any] = Field(default_factory=dict)


class Unit(BaseModel):
    """One isolation unit: the tasks that share a store and the documents given to it once."""

    model_config = FROZEN
    name: str
    tasks: tuple[Task, ...]
    documents: tuple[Document, ...]
