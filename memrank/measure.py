"""Measures and the values they produce.

A measure declares, before it runs, its scope (one task, one group, or the whole run), the
trace fields and value names it reads, and who decides. It turns stored traces into named
``Value`` objects and never calls a system, which is why a measure thought of later can run
over traces already stored.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel, Field, model_validator

from memrank._basics import FROZEN

if TYPE_CHECKING:
    from memrank.trace import Trace

__all__ = ["Decider", "Measure", "Scope", "Value", "binary_names"]


class Scope(StrEnum):
    """What one value of a measure is about."""

    TASK = "task"
    GROUP = "group"
    RUN = "run"


class Decider(StrEnum):
    """Who decided a value."""

    MEMRANK = "memrank"
    """memrank's own clock and bookkeeping."""
    RULE = "rule"
    """A fixed rule applied to what the system returned."""
    MODEL = "model"
    """A model that adjudicated."""
    SYSTEM = "system"
    """The system's own word."""


class Value(BaseModel):
    """One named number, with the measure that produced it and who decided it."""

    model_config = FROZEN
    measure: str = Field(min_length=1)
    """The name of the number (a multi-number measure names each: latency.retrieve.p50)."""
    decider: Decider
    """Who decided it."""
    task_id: str | None = None
    """The task it is about, for task-scope values."""
    group: str | None = None
    """The group it is about, for group-scope values."""
    value: float | None
    """The number; None means "could not decide" and then ``why`` says why. Never 0 for absent."""
    why: str = ""
    """How it was decided, or why it could not be."""
    count: int | None = Field(default=None, ge=0)
    """For a share: the count it is of, so that ``value == count / total``; None otherwise."""
    total: int | None = Field(default=None, ge=1)
    """For a share: out of how many."""

    @model_validator(mode="after")
    def _none_carries_a_reason(self) -> Value:
        if self.value is None and not self.why.strip():
            raise ValueError(f"value of {self.measure!r} is None without a reason: give `why`")
        if self.value is not None and not math.isfinite(self.value):
            raise ValueError(f"value of {self.measure!r} is {self.value}; use None with a reason")
        return self

    @model_validator(mode="after")
    def _share_matches_its_counts(self) -> Value:
        if self.count is None and self.total is None:
            return self
        if self.count is None or self.total is None or self.count > self.total:
            raise ValueError(
                f"value of {self.measure!r} has count={self.count}, total={self.total}; "
                "give both, with count at most total"
            )
        if self.value != self.count / self.total:
            raise ValueError(
                f"value of {self.measure!r} is {self.value}, not count/total = "
                f"{self.count}/{self.total}"
            )
        return self

    @property
    def scope_label(self) -> str:
        """What the value is about, as printed: a task id, a group, or the whole run."""
        return self.task_id or self.group or "whole run"


class Measure:
    """Turns traces (and earlier values) into values. Subclass it and set the four declarations."""

    name: ClassVar[str]
    scope: ClassVar[Scope]
    reads: ClassVar[tuple[str, ...]]
    """Trace fields (``recalled``, ``timings_ms`` ...) and value names this measure reads."""
    decider: ClassVar[Decider]
    produces: ClassVar[tuple[str, ...]] = ()
    """The value names it produces when they are not just ``name``."""
    binary: ClassVar[tuple[str, ...]] = ()
    """The value names that are 0 or 1 by construction (a hit, a match): read side by side with
    a test for binary outcomes. Every other value name is read as continuous; the type is
    declared here, never guessed from the values."""

    def names(self) -> tuple[str, ...]:
        """Every value name this measure produces."""
        return self.produces or (self.name,)

    @abstractmethod
    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        """Produce values from the traces and the values measured before this one.

        A task-scope measure is handed only the traces that did not fail; memrank records
        None with the failure's reason for the others, so no measure has to.
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def binary_names(measures: Sequence[Measure]) -> tuple[str, ...]:
    """Every value name the measures declare binary, in measure order."""
    return tuple(name for m in measures for name in m.binary)
