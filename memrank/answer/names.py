"""Value names of the answer measures: what a column is, readable back from its name.

A name carries the protocol, who answered and (for the judge) the judge model, so runs that
differ in any of them are different columns and are never ranked as one:

- ``judge:mem0@v1:answer=openai:gpt-4o-mini:judge=openai:gpt-4o-mini``
- ``answer-f1:mem0@v1:answer=openai:gpt-4o-mini``

Model specs may hold colons (``openai-compatible:http://127.0.0.1:8080/v1:llama3:8b``), so the
parts are marked (``answer=``, ``judge=``) rather than counted. Run-scope names are a
column's name with a dotted suffix (``.mean``). This module imports nothing heavy: the board
reads column names with it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = [
    "ANSWER_MEASURES",
    "SYSTEM_ANSWERS",
    "AnswerName",
    "answer_name",
    "judged_name",
    "model_label",
]

SYSTEM_ANSWERS = "system"
"""Who answered when the system under test answered on its own (a model or an assistant)."""
ANSWER_MEASURES = ("judge", "answer-f1", "bleu-1", "locomo-f1", "instructions-followed")
"""The measures whose values are scores of answers."""
_ANSWER, _JUDGE = ":answer=", ":judge="
_COMPATIBLE = re.compile(r"^openai-compatible:https?://[^/\s]+(?:/[^:\s]*)?:(.+)$")


class AnswerName(NamedTuple):
    """The parts of an answer measure's value name."""

    measure: str
    protocol: str
    answerer: str
    """The answer model's spec, or ``system``."""
    judge: str | None
    """The judge model's spec; None for a rule score."""


def answer_name(measure: str, protocol: str, answerer: str, judge: str | None = None) -> str:
    """The task-scope value name of an answer measure (a column)."""
    name = f"{measure}:{protocol}{_ANSWER}{answerer}"
    return name if judge is None else f"{name}{_JUDGE}{judge}"


def judged_name(name: str) -> AnswerName | None:
    """The parts of a task-scope answer measure name; None for any other name."""
    measure, colon, rest = name.partition(":")
    protocol, marked, who = rest.partition(_ANSWER)
    if not colon or measure not in ANSWER_MEASURES or not marked or "@" not in protocol:
        return None
    if measure != "judge":
        return AnswerName(measure, protocol, who, None) if who else None
    answerer, marked, judge = who.rpartition(_JUDGE)
    if not marked or not answerer or not judge:
        return None
    return AnswerName(measure, protocol, answerer, judge)


def model_label(spec: str) -> str:
    """A model as a column title shows it: the model name without its provider or URL
    (``openai:gpt-4o-mini`` -> ``gpt-4o-mini``); ``system`` stays ``system``."""
    compatible = _COMPATIBLE.match(spec)
    if compatible is not None:
        return compatible.group(1)
    provider, colon, model = spec.partition(":")
    return model if colon and model else spec
