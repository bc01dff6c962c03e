"""Reading a judge's reply: each protocol's rule, with a malformed reply undecided, never WRONG.

Each reader returns ``(value, why)``: the score (1.0 or 0.0; Mem-Gallery's graded 0, 0.5 or 1)
with the judge's reply as the why, or None with the reason the reply could not be read (and the
reply itself). Where a source counted an unreadable reply as wrong, retried it, or stopped the run
on it, memrank records "could not decide" instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

__all__ = [
    "MEM_GALLERY_RUBRIC",
    "READERS",
    "Verdict",
    "aml_label",
    "graded_score",
    "json_label",
    "yes_no",
]

Verdict = tuple[float | None, str]
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)
_FIRST_OBJECT = re.compile(r"\{.*?\}", re.S)
MEM_GALLERY_RUBRIC = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The scores Mem-Gallery's judge prompt allows."""
# upstream's parse_judge_response keeps three levels: below 0.25 is 0, below 0.75 is 0.5, else 1
_MEM_GALLERY_READING = {0.0: 0.0, 0.25: 0.5, 0.5: 0.5, 0.75: 1.0, 1.0: 1.0}


def json_label(reply: str) -> Verdict:
    """Mem0: the JSON object's ``label`` (fenced or bare); 1 for CORRECT, 0 for WRONG."""
    return _label(_outer_object(reply), reply, exact_case=True)


def graded_score(reply: str) -> Verdict:
    """Mem-Gallery: the JSON object's (fenced or bare) numeric ``score``, one of 0, 0.25, 0.5,
    0.75 or 1, read as upstream's ``parse_judge_response`` reads it: 0.25 counts 0.5 and 0.75
    counts 1. A reply with no object, no numeric score or a score off the rubric is undecided
    (upstream would round any number and retry an unreadable reply)."""
    data = _parsed(_outer_object(reply), reply)
    if isinstance(data, str):
        return None, data
    score = data.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return None, f"malformed verdict: no numeric 'score' in the judge's reply: {reply!r}"
    if score not in MEM_GALLERY_RUBRIC:
        return None, f"malformed verdict: score {score!r} is not 0, 0.25, 0.5, 0.75 or 1: {reply!r}"
    value = _MEM_GALLERY_READING[score]
    if value == score:
        return value, reply
    return value, f"score {score:g} counts {value:g}, as upstream reads it: {reply}"


def aml_label(reply: str) -> Verdict:
    """AML: the first ``{...}`` in the reply, its ``label`` upper-cased, CORRECT or WRONG."""
    found = _FIRST_OBJECT.search(reply)
    if found is None:
        return None, f"malformed verdict: no JSON object in the judge's reply: {reply!r}"
    return _label(found.group(0), reply, exact_case=False)


def yes_no(reply: str) -> Verdict:
    """LongMemEval: yes when ``'yes' in reply.lower()``; a reply with neither word is undecided
    (LongMemEval would count it as no)."""
    lowered = reply.lower()
    if "yes" in lowered:
        return 1.0, reply
    if "no" in lowered:
        return 0.0, reply
    return None, f"malformed verdict: neither yes nor no in the judge's reply: {reply!r}"


def _outer_object(reply: str) -> str | None:
    """From the first ``{`` to the last ``}`` of the reply (of its fenced block, if any)."""
    fenced = _FENCE.search(reply)
    text = fenced.group(1) if fenced else reply
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else None


def _parsed(candidate: str | None, reply: str) -> dict[str, object] | str:
    """The JSON object, or why there is none."""
    if candidate is None:
        return f"malformed verdict: no JSON object in the judge's reply: {reply!r}"
    try:
        data = json.loads(candidate)
    except ValueError:
        return f"malformed verdict: the JSON object does not parse: {reply!r}"
    if not isinstance(data, dict):
        return f"malformed verdict: the judge's reply is not a JSON object: {reply!r}"
    return data


def _label(candidate: str | None, reply: str, *, exact_case: bool) -> Verdict:
    data = _parsed(candidate, reply)
    if isinstance(data, str):
        return None, data
    label = data.get("label")
    if not isinstance(label, str):
        return None, f"malformed verdict: no string 'label' in the judge's reply: {reply!r}"
    if not exact_case:
        label = label.upper()
    if label == "CORRECT":
        return 1.0, reply
    if label == "WRONG":
        return 0.0, reply
    return None, f"malformed verdict: label {label!r} is neither CORRECT nor WRONG: {reply!r}"


READERS: dict[str, Callable[[str], Verdict]] = {
    "json-label": json_label,
    "aml-label": aml_label,
    "yes-no": yes_no,
    "mem-gallery-score": graded_score,
}
"""Verdict readers by the name a protocol gives."""
