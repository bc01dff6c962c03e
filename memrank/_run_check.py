"""Why a run or a measure cannot go ahead, decided before the system is touched."""

from __future__ import annotations

from collections.abc import Sequence

from memrank.evaluation import Evaluation
from memrank.measure import Measure
from memrank.system import Assistant, Memory, Model, Retriever
from memrank.trace import TRACE_FIELDS

__all__ = ["refusal", "unreadable"]

_ALWAYS_PRODUCED = frozenset(TRACE_FIELDS) - {"given", "recalled", "answered"}
_PRODUCED_BY_KIND = {
    "memory": {"given", "recalled"},
    "retriever": {"given", "recalled"},
    "model": {"answered"},
    "assistant": {"given", "answered"},
}


def refusal(
    system: object, evaluation: Evaluation, measures: Sequence[Measure], *, answered: bool = False
) -> str | None:
    """Why ``system`` cannot be run on ``evaluation`` with ``measures``; None when it can
    (``answered``: memrank's answer stage answers what the system recalled)."""
    kinds = (Memory, Model, Retriever, Assistant)
    if not isinstance(system, kinds):
        return (
            f"{type(system).__name__} is not a kind memrank knows; subclass memrank.Memory, "
            "memrank.Model, memrank.Retriever or memrank.Assistant"
        )
    missing = [verb for verb in system.verbs if _lacks(type(system), verb)]
    if missing:
        return (
            f"{type(system).__name__} is a {system.kind} but does not implement "
            f"{', '.join(missing)}; a {system.kind} needs {', '.join(system.verbs)}"
        )
    if evaluation.has_documents and not system.can_be_told:
        return (
            f"evaluation {evaluation.name!r} carries documents and a {system.kind} has no verb "
            "to be told things with; use a Memory, Retriever or Assistant"
        )
    return unreadable(measures, system.kind, set(), answered=answered)


def _lacks(cls: type, verb: str) -> bool:
    method = getattr(cls, verb, None)
    return not callable(method) or getattr(method, "__isabstractmethod__", False)


def unreadable(
    measures: Sequence[Measure], kind: str, value_names: set[str], *, answered: bool = False
) -> str | None:
    """Why a measure cannot run: it reads a name nothing in the run produces before it
    (``answered`` too when memrank's answer stage answers, or answered, for the system)."""
    fields = (
        _ALWAYS_PRODUCED
        | _PRODUCED_BY_KIND.get(kind, set())
        | ({"answered"} if answered else set())
    )
    available = set(value_names)
    for m in measures:
        unknown = [name for name in m.reads if name not in fields and name not in available]
        if unknown:
            return (
                f"measure {m.name!r} reads {', '.join(map(repr, unknown))}, which nothing in this "
                f"run produces; a {kind} run has trace fields {', '.join(sorted(fields))}"
                + (
                    f" and values {', '.join(sorted(available))}"
                    if available
                    else " and no values yet"
                )
            )
        available.update(m.names())
    return None
