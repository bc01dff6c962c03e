"""Answers read with limits: an endpoint's JSON is parsed only as far as memrank can hold it.

The response cap bounds an answer's bytes, not what parsing makes of them: a million tiny
items fit in 29 MB and take some 700 MB as Python objects. So an answer's JSON values are
counted before it is parsed (every element of an array and every member of an object,
wherever it sits, fields memrank ignores included), and one holding more than
``MAX_VALUES`` is refused unparsed. A Search answer holds at most top_k items, and each
item's id, text, images and created_at are held to the limits below, so no answer can make
a trace large. Past any limit the call fails with a ContractError naming it.

Breaches the contract forbids but that leave an answer usable (a score that is not a finite
number, an id repeated within one answer, empty content) are taken as sent, a bad score left
out, and counted by name: a run states them per task (``Recall.declared["breaches"]``) and
in all, and ``memrank check`` names them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pydantic_core
from pydantic import BaseModel, ValidationError

from memrank.system import Content, ImagePart, TextPart, text_of
from memrank.wire.schema import RESPONSE_CONFIG, AddResponse, SearchItem, problems_of

__all__ = [
    "BREACHES",
    "DUPLICATE_ID",
    "EMPTY_CONTENT",
    "MAX_CREATED_AT_CHARACTERS",
    "MAX_ID_CHARACTERS",
    "MAX_IMAGE_URL_CHARACTERS",
    "MAX_TEXT_CHARACTERS",
    "MAX_VALUES",
    "NON_FINITE_SCORE",
    "NON_NUMERIC_SCORE",
    "ReadItem",
    "Refuse",
    "SearchAnswer",
    "breaches_in",
    "read_add",
    "read_json",
    "read_search",
    "within_values",
]

MAX_VALUES = 100_000
"""The most JSON values one answer may hold: far above top_k items with rich metadata (even
an embedding per item), far below what would strain memory (about 25 MB parsed)."""
MAX_ID_CHARACTERS = 1_000
"""The longest id of a returned item: an identifier, not a payload."""
MAX_TEXT_CHARACTERS = 100_000
"""The longest text of one returned item (a string, or its text parts together): seven
times the longest document any shipped evaluation tells."""
MAX_IMAGE_URL_CHARACTERS = 4_000_000
"""The longest ``image_url`` of one image part: a ``data:`` URI of a 3 MB image."""
MAX_CREATED_AT_CHARACTERS = 100
"""The longest ``created_at`` given as text: a timestamp, however it is spelled."""

BREACHES = "breaches"
"""The key of ``Recall.declared`` under which a client states the breaches of one answer."""
NON_FINITE_SCORE = "non-finite score"
NON_NUMERIC_SCORE = "non-numeric score"
DUPLICATE_ID = "duplicate id"
EMPTY_CONTENT = "empty content"

Refuse = Callable[[str], Exception]
"""Makes the error a refused answer raises, from why (``is not JSON: ...``)."""

# With escapes taken out, every quote opens or closes a string, so this pattern runs in
# linear time whatever the bytes (an unrolled pattern over escapes can go quadratic).
_TOKENS = re.compile(rb'"[^"]*"|[,\[{]')


class ReadItem(SearchItem):
    """A Search item as memrank reads it: as the contract declares it, except that empty
    content and any score are taken, for the reader to count as breaches."""

    content: Content
    """The remembered text (parts on the multimodal track); the contract says non-empty."""
    score: Any = None
    """As sent; ``read_search`` keeps it only when it is a finite number."""


class _ReadResponse(BaseModel):
    """A Search answer as memrank reads it."""

    model_config = RESPONSE_CONFIG
    data: tuple[ReadItem, ...]
    """Best first."""


@dataclass(frozen=True)
class SearchAnswer:
    """A Search answer read: its items (each score a finite number or None) and its breaches."""

    items: tuple[ReadItem, ...]
    breaches: dict[str, int]
    """Name -> how many times this answer commits it; empty when it commits none."""


def read_json(content: bytes, refuse: Refuse) -> Any:
    """The JSON value of an answer (NaN and Infinity read as numbers), or ``refuse(why)``
    raised when it holds more than MAX_VALUES values or is not JSON."""
    within_values(content, refuse)
    try:
        return pydantic_core.from_json(content, allow_inf_nan=True)
    except ValueError as exc:
        raise refuse(f"is not JSON: {exc}") from None


def read_add(content: bytes, refuse: Refuse) -> AddResponse:
    """An Add answer, or ``refuse(why)`` raised when it is past a limit or off the contract."""
    within_values(content, refuse)
    try:
        return AddResponse.model_validate_json(content)
    except ValidationError as exc:
        raise refuse(f"breaks the contract: {problems_of(exc)}") from None


def read_search(content: bytes, top_k: int, refuse: Refuse) -> SearchAnswer:
    """A Search answer with its breaches counted, or ``refuse(why)`` raised when it is past a
    limit (values, top_k items, an item's id, text, image or created_at) or off the contract."""
    within_values(content, refuse)
    try:
        data = _ReadResponse.model_validate_json(content).data
    except ValidationError as exc:
        raise refuse(f"breaks the contract: {problems_of(exc)}") from None
    if len(data) > top_k:
        raise refuse(
            f"returned {len(data)} items for top_k={top_k}; the contract allows at most top_k "
            f"(ids: {', '.join(item.id[:40] for item in data[:20])[:300]})"
        )
    for position, item in enumerate(data):
        _within_item(item, position, refuse)
    items = tuple(item.model_copy(update={"score": _finite(item.score)}) for item in data)
    return SearchAnswer(items, breaches_in(data))


def breaches_in(items: Sequence[ReadItem | Any]) -> dict[str, int]:
    """The breaches of one answer's items, by name: each score that is not a finite number,
    each id that repeats one before it, each item with neither text nor an image. Items are
    read models, or the JSON values a lenient reader holds."""
    found: Counter[str] = Counter()
    seen: set[Any] = set()
    for item in items:
        identity, content, score = _fields(item)
        if score is not None and _finite(score) is None:
            number = isinstance(score, int | float) and not isinstance(score, bool)
            found[NON_FINITE_SCORE if number else NON_NUMERIC_SCORE] += 1
        if identity is not None and identity in seen:
            found[DUPLICATE_ID] += 1
        seen.add(identity)
        if not any(_shows(part) for part in _parts(content)):
            found[EMPTY_CONTENT] += 1
    return dict(found)


def _fields(item: Any) -> tuple[Any, Any, Any]:
    """An item's id, content and score; a bare value read leniently is content alone."""
    if isinstance(item, ReadItem):
        return item.id, item.content, item.score
    if isinstance(item, dict):
        return item.get("id"), item.get("content"), item.get("score")
    return None, item, None


def _finite(score: Any) -> float | None:
    """The score as a float when it is a finite number, else None."""
    if isinstance(score, bool) or not isinstance(score, int | float):
        return None
    try:
        number = float(score)
    except OverflowError:  # an integer beyond any float
        return None
    return number if math.isfinite(number) else None


def _parts(content: Any) -> list[Any]:
    """Content as parts: a string (or anything not a list) is one."""
    return list(content) if isinstance(content, list | tuple) else [content]


def _shows(part: Any) -> bool:
    """Whether a part holds text or an image (as a model, or as JSON read leniently)."""
    if isinstance(part, ImagePart):
        return True
    if isinstance(part, TextPart):
        return bool(part.text)
    if isinstance(part, dict):
        return part.get("type") == "image_url" or bool(part.get("text"))
    return isinstance(part, str) and bool(part)


def within_values(content: bytes, refuse: Refuse) -> None:
    """Refuse an answer holding more than MAX_VALUES values, without parsing it."""
    # Each value past an array's or object's first follows a comma, and each first follows a
    # bracket or brace: their count, inside strings too, bounds the values from above.
    if sum(content.count(mark) for mark in (b",", b"[", b"{")) <= MAX_VALUES:
        return
    plain = content.replace(b"\\\\", b"").replace(b'\\"', b"")
    counted = 0
    for token in _TOKENS.finditer(plain):
        if token.group()[0] != ord('"'):
            counted += 1
            if counted > MAX_VALUES:
                raise refuse(
                    f"holds more than {MAX_VALUES:,} JSON values; memrank parsed none of it"
                )


def _within_item(item: ReadItem, position: int, refuse: Refuse) -> None:
    """Refuse an item whose id, text, an image or created_at is past its limit."""
    parts = () if isinstance(item.content, str) else item.content
    images = [len(part.image_url.url) for part in parts if isinstance(part, ImagePart)]
    created = item.created_at if isinstance(item.created_at, str) else ""
    for field, size, limit in (
        ("id", len(item.id), MAX_ID_CHARACTERS),
        ("text", len(text_of(item.content)), MAX_TEXT_CHARACTERS),
        ("image_url", max(images, default=0), MAX_IMAGE_URL_CHARACTERS),
        ("created_at", len(created), MAX_CREATED_AT_CHARACTERS),
    ):
        if size > limit:
            raise refuse(
                f"holds at data.{position} an item whose {field} is {size:,} characters long, "
                f"past memrank's limit of {limit:,}"
            )
