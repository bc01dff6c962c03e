"""What a result file records of its run beside the traces: its schema, the system and the
evaluation. Apart from memrank.result so a reader of a few fields (a paired reading of two
files) validates them without defining every model of a result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from memrank._basics import FROZEN
from memrank.budget import Budget
from memrank.errors import ResultFileError
from memrank.measure import binary_names
from memrank.task import Clearing

if TYPE_CHECKING:
    from memrank.evaluation import Evaluation
    from memrank.measure import Measure

__all__ = [
    "PUBLISHED_RESULT_SCHEMA",
    "RESULT_SCHEMA",
    "EvaluationRecord",
    "SystemRecord",
    "run_file_data",
]

RESULT_SCHEMA: Literal["memrank.result/v1"] = "memrank.result/v1"
"""A run file: what ``save`` writes, every fact of the run."""

PUBLISHED_RESULT_SCHEMA = "memrank.result/v2"
"""A result file as an artifact names it: a run file without what the clock and the machine
said (memrank.artifacts splits them into the timings file)."""


def run_file_data(raw: bytes, source: str) -> dict[str, Any]:
    """The top level of the run file ``raw``, parsed; ResultFileError naming ``source`` when it
    is not JSON, is a published result file (no timings), or is of another schema."""
    import orjson

    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ResultFileError(
            f"{source}: not JSON ({exc}); is this a memrank result file?"
        ) from None
    if isinstance(data, dict) and data.get("schema") == PUBLISHED_RESULT_SCHEMA:
        raise ResultFileError(
            f"{source}: a published result file holds no timings; join it with its timings "
            "file (memrank.artifacts.join) to read it as a result"
        )
    if not isinstance(data, dict) or data.get("schema") != RESULT_SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise ResultFileError(
            f"{source}: schema is {found!r}, expected {RESULT_SCHEMA!r}; "
            "save it again with this memrank version"
        )
    return data


class SystemRecord(BaseModel):
    """The system as it was run."""

    model_config = FROZEN
    name: str
    """The class that ran: what results print and the board shows."""
    declared_name: str | None = None
    """The short name the class gives itself (its ``name`` attribute), when it sets one."""
    kind: str
    """memory, model, retriever or assistant: the class it subclasses."""
    version: str | None = None
    """The version the caller gave; None when it did not say."""
    engine_version: str | None = None
    declared_version: str | None = None
    """The version the running system reported about itself; None when it did not say."""
    transport: str = "in-process"
    components: dict[str, str] = Field(default_factory=dict)
    options: dict[str, str] = Field(default_factory=dict)
    """The catalog options it was made with, as ``--option KEY=VALUE`` text (a value that may
    hold a secret as ``<withheld>``); empty when it was not made by catalog name."""


class EvaluationRecord(BaseModel):
    """The evaluation as it was run."""

    model_config = FROZEN
    name: str
    version: str
    task_count: int
    clearing: Clearing
    track: str
    k: int
    measures: tuple[str, ...]
    """The names of the measures applied, in order."""
    slice: str | None = None
    budget: Budget | None = None
    """The context budget the run's recalls were cut to, as the evaluation declared it."""
    binary: tuple[str, ...] | None = None
    """The value names the measures declare binary (0 or 1); a paired reading tests them as
    binary outcomes and every other value as continuous. None: saved before measures declared
    their type (memrank.measures.kinds.declared_binary reads it)."""

    @classmethod
    def of(cls, evaluation: Evaluation, measures: Sequence[Measure]) -> EvaluationRecord:
        """The record of ``evaluation`` run with ``measures`` (in the order applied)."""
        return cls(
            name=evaluation.name,
            version=evaluation.version,
            task_count=len(evaluation.tasks),
            clearing=evaluation.clearing,
            track=evaluation.track,
            k=evaluation.k,
            measures=tuple(m.name for m in measures),
            slice=evaluation.slice,
            binary=binary_names(measures),
            budget=evaluation.budget,
        )
