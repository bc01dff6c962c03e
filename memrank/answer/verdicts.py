"""Reading a judge's reply: each protocol's rule, with a malformed reply undecided, never WRONG.

Each reader returns ``(value, why)``: 1.0 or 0.0 with the judge's reply as the why, or None with
the reason the reply could not be read (and the reply itself). Where a source counted an
unreadable reply as wrong, or stopped the run on it, memrank records "could not decide" instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

__all__ = ["READERS", "Verdict", "aml_label", "json_label", "yes_no"]

Verdict = tuple[float | None, str]
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)
_FIRST_OBJECT = re.compile(r"\{.*?\}", re.S)


def json_label(reply: str) -> Verdict:
    """Mem0: the JSON object's ``label`` (fenced or bare); 1 for CORRECT, 0 for WRONG."""
    fenced = _FENCE.search(reply)
    text = fenced.group(1) if fenced else reply
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None, f"malformed verdict: no JSON object in the judge's reply: {reply!r}"
    return _label(text[start : end + 1], reply, exact_case=True)


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


def _label(candidate: str, reply: str, *, exact_case: bool) -> Verdict:
    try:
        data = json.loads(candidate)
    except ValueError:
        return None, f"malformed verdict: the JSON object does not parse: {reply!r}"
    label = data.get("label") if isinstance(data, dict) else None
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
}
"""Verdict readers by the name a protocol gives."""
