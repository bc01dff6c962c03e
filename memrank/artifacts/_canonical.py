"""Canonical bytes: RFC 8785 (JCS) JSON, the only bytes memrank signs or accepts as signed."""

from __future__ import annotations

from typing import Any

import orjson
import rfc8785

from memrank.errors import NonCanonicalPayload, NotCanonicalizable

__all__ = ["canonical_bytes", "parse_canonical"]


def canonical_bytes(data: Any, *, what: str = "the statement") -> bytes:
    """The RFC 8785 canonical JSON of ``data`` (already JSON-shaped: dicts, lists, str, numbers).

    Refuses what canonical JSON cannot carry exactly: NaN, infinities, and integers beyond
    2^53 - 1, which a verifier in another language would read back as a different number.
    """
    try:
        return rfc8785.dumps(data)
    except rfc8785.CanonicalizationError as exc:
        raise NotCanonicalizable(
            f"{what} cannot be signed: {exc}; canonical JSON carries only finite numbers and "
            "integers within +/-(2^53 - 1), so record such a number as a string"
        ) from None


def parse_canonical(raw: bytes, *, source: str) -> Any:
    """Parse signed bytes, refusing them unless they are exactly their own canonical form.

    Re-encoding what the bytes parse to must give the bytes back. That one comparison refuses
    whitespace, key order, ``1.0`` for ``1``, escaped unicode that could be literal, and
    duplicate keys (a parser keeps one of them; the canonical form of the result is shorter).
    """
    try:
        data = orjson.loads(raw)
        again = rfc8785.dumps(data)
    except (orjson.JSONDecodeError, rfc8785.CanonicalizationError) as exc:
        raise NonCanonicalPayload(
            f"{source}: the payload is not canonical JSON ({exc}); sign with `memrank attest`, "
            "which writes RFC 8785 bytes"
        ) from None
    if again != raw:
        at = next((i for i, (a, b) in enumerate(zip(raw, again, strict=False)) if a != b), None)
        where = f"byte {at}" if at is not None else f"length {len(raw)} vs {len(again)}"
        raise NonCanonicalPayload(
            f"{source}: the payload is valid JSON but not its RFC 8785 canonical form (first "
            f"difference at {where}); re-sign it with `memrank attest` rather than editing it"
        )
    return data
