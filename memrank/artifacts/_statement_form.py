"""What a statement's fields may hold beyond their types, as docs/artifacts.md writes them.

The statement shares its records (system, evaluation, pipeline, values) with the run file,
where a missing field takes its default and a system may be any class. What is signed is
read more strictly: every field present at every level (null when optional), timestamps in
their one spelling, the system a documented kind over a documented transport, digests as
lowercase hex, and the summary whole-run values only. attest builds statements through the
same model, so it never signs what this refuses.
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime
from typing import Annotated, Any, get_args, get_origin

from pydantic import BaseModel, BeforeValidator

from memrank._basics import UTCDateTime

__all__ = ["KINDS", "SHA256", "TRANSPORTS", "SignedInstant", "missing_field"]

KINDS = ("memory", "model", "retriever", "assistant")
"""The kinds of system a statement names: the classes a system subclasses."""
TRANSPORTS = ("in-process", "http")
"""How memrank reached the system."""
_INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z")
SHA256 = re.compile(r"[0-9a-f]{64}")


def _instant(value: object) -> object:
    """A timestamp as signed: ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z`` (RFC 3339, UTC), read as a
    datetime; a datetime (a statement being built) is left to the datetime validation."""
    if not isinstance(value, str):
        return value
    if not _INSTANT.fullmatch(value):
        raise ValueError(
            f"{value[:40]!r} is not a timestamp as signed: YYYY-MM-DDTHH:MM:SS[.ffffff]Z "
            "(RFC 3339, in UTC, written with Z)"
        )
    return datetime.fromisoformat(value[:-1]).replace(tzinfo=UTC)


SignedInstant = Annotated[UTCDateTime, BeforeValidator(_instant)]
"""A timestamp of a statement: only its one spelling is read."""


def missing_field(model: BaseModel, where: str) -> str | None:
    """The first field of ``model``, or of a record inside it, that its input left out."""
    names, record_names = _fields(type(model))
    given = model.model_fields_set
    if len(given) != len(names):  # extra fields are refused, so fewer: one is missing
        return f"{where}.{next(name for name in names if name not in given)}"
    for name in record_names:
        value = getattr(model, name)
        items = enumerate(value) if isinstance(value, tuple) else ((None, value),)
        for index, item in items:
            if isinstance(item, BaseModel):
                at = f"{where}.{name}" if index is None else f"{where}.{name}[{index}]"
                missing = missing_field(item, at)
                if missing is not None:
                    return missing
    return None


@functools.cache
def _fields(kind: type[BaseModel]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The fields of ``kind``, and those of them that may hold records (a record, records, or
    a record or None)."""
    fields = kind.model_fields
    holding = tuple(name for name, field in fields.items() if _holds_records(field.annotation))
    return tuple(fields), holding


def _holds_records(annotation: Any) -> bool:
    if get_origin(annotation) is None and isinstance(annotation, type):
        return issubclass(annotation, BaseModel)
    return any(_holds_records(argument) for argument in get_args(annotation))
