"""The Agent Memory Leaderboard Add/Search contract, field by field.

Requests are what a client sends and a server must accept: strict types, no field the
contract does not name. Responses are what a server returns and a client must validate:
strict on every field the contract declares, while undeclared fields are ignored, as the
contract says the platform ignores them. Content is a non-empty string, or a non-empty
ordered array of ``text`` and ``image_url`` parts (the multimodal track).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memrank.system import ContentPart

__all__ = [
    "RESPONSE_CONFIG",
    "AddRequest",
    "AddResponse",
    "ErrorReason",
    "ErrorResponse",
    "Message",
    "SearchItem",
    "SearchRequest",
    "SearchResponse",
    "WireContent",
    "echo_mismatches",
    "from_unix_ms",
    "problems_of",
    "unix_ms",
]

_REQUEST = ConfigDict(frozen=True, strict=True, extra="forbid")
RESPONSE_CONFIG = ConfigDict(frozen=True, strict=True, extra="ignore")
"""How every response model reads: strict on declared fields, undeclared ones ignored."""

NonEmpty = Annotated[str, Field(min_length=1)]
WireContent = NonEmpty | Annotated[tuple[ContentPart, ...], Field(min_length=1)]
"""A non-empty string, or a non-empty ordered array of text and image_url parts."""


class Message(BaseModel):
    """One message of an Add."""

    model_config = _REQUEST
    role: NonEmpty
    """Who said it (``user`` unless the material says otherwise)."""
    content: WireContent
    """The message: a string on the textual and coding tracks; parts may be used on multimodal."""
    timestamp: Annotated[int, Field(ge=0)] | None = None
    """When it was said, in Unix milliseconds."""


class AddRequest(BaseModel):
    """``POST`` Add: one chunk of one source session, for one user_id."""

    model_config = _REQUEST
    request_id: NonEmpty
    """Unique per chunk; a success response must echo it exactly, and a retry repeats it."""
    messages: Annotated[tuple[Message, ...], Field(min_length=1)]
    """The chunk's messages, in order."""
    user_id: NonEmpty
    """The sole isolation field: Search must use the identical value."""
    session_id: NonEmpty
    """The source session; for grouping only, never a Search filter."""


class AddResponse(BaseModel):
    """What Add answers with HTTP 200, only after the chunk is persisted and searchable."""

    model_config = RESPONSE_CONFIG
    success: Literal[True]
    """Must be the boolean true."""
    request_id: str
    """The request's request_id, byte for byte."""
    user_id: str
    """The request's user_id, byte for byte."""
    session_id: str
    """The request's session_id, byte for byte."""


class SearchRequest(BaseModel):
    """``POST`` Search: one question, for one user_id."""

    model_config = _REQUEST
    query: WireContent
    """The original question (parts on the multimodal track)."""
    options: tuple[str, ...] | None = None
    """Choice texts of a multiple-choice question; omitted for open questions."""
    user_id: NonEmpty
    """Retrieve only from memory stored under exactly this value."""
    top_k: Annotated[int, Field(ge=1)]
    """The most items the response may hold."""


class SearchItem(BaseModel):
    """One remembered item, as Search returns it."""

    model_config = RESPONSE_CONFIG
    id: NonEmpty
    """Stably identifies the memory."""
    content: WireContent
    """The remembered text (parts on the multimodal track)."""
    score: float | None = None
    """Optional relevance; higher is more relevant."""
    created_at: str | float | None = None
    """Optional source or persistence timestamp, as the service gives it."""


class SearchResponse(BaseModel):
    """What Search answers: a JSON object whose ``data`` is a relevance-ordered array."""

    model_config = RESPONSE_CONFIG
    data: tuple[SearchItem, ...]
    """Best first, never more than top_k; empty when nothing is found."""


class ErrorReason(BaseModel):
    """The reason of a business error."""

    model_config = _REQUEST
    reason: str


class ErrorResponse(BaseModel):
    """A business error: ``{"detail": {"reason": ...}}``."""

    model_config = _REQUEST
    detail: ErrorReason


def echo_mismatches(request: AddRequest, response: AddResponse) -> list[str]:
    """Every id the response does not echo byte for byte, with what was sent and received."""
    return [
        f"{field} came back as {got!r}, sent {sent!r}"
        for field, sent, got in (
            ("request_id", request.request_id, response.request_id),
            ("user_id", request.user_id, response.user_id),
            ("session_id", request.session_id, response.session_id),
        )
        if got != sent
    ]


def problems_of(error: ValidationError) -> str:
    """A validation error as ``field.path: message`` lines joined by ``; ``."""
    return "; ".join(
        f"{'.'.join(str(part) for part in e['loc']) or '(body)'}: {e['msg']}"
        for e in error.errors(include_url=False)
    )


def unix_ms(moment: datetime) -> int:
    """A timezone-aware datetime as Unix milliseconds."""
    return round(moment.timestamp() * 1000)


def from_unix_ms(milliseconds: int) -> datetime:
    """Unix milliseconds as a UTC datetime."""
    return datetime.fromtimestamp(milliseconds / 1000, tz=UTC)
