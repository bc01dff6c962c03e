"""Canonical bytes: RFC 8785 (JCS) JSON, the only bytes memrank signs or accepts as signed."""

from __future__ import annotations

import re
from typing import Any

import orjson
import rfc8785

from memrank.errors import NonCanonicalPayload, NotCanonicalizable

__all__ = ["canonical_bytes", "parse_canonical"]

_PLAIN_LOW, _PLAIN_HIGH = 1e-4, 1e16
_MAX_SAFE = 2**53 - 1
# orjson's sorted encoding, refusing integers beyond 2^53 - 1 as RFC 8785 does.
_ORJSON_SORTED_SAFE = orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER
# What orjson writes for an integral float (``5.0``, ``-0.0``) short of its last token, and
# the part of an exponent (``1e+16``, ``1e-7``) that is easy to find; see _plainly_alike.
_INTEGRAL_FLOAT = re.compile(rb"\.0[,\]}]")
_EXPONENT_SIGN = re.compile(rb"e[-+]")
_EXPONENT = re.compile(rb"[0-9]e[-+]")
# Every byte but the UTF-8 lead bytes of characters beyond U+FFFF (and bytes no UTF-8 text
# holds): what is left of a text without them is what RFC 8785 orders otherwise than orjson.
_WITHIN_THE_BMP = bytes(range(0xF0))


def canonical_bytes(data: Any, *, what: str = "the statement") -> bytes:
    """The RFC 8785 canonical JSON of ``data`` (already JSON-shaped: dicts, lists, str, numbers).

    Refuses what canonical JSON cannot carry exactly: NaN, infinities, integers beyond
    2^53 - 1 (a verifier in another language would read back a different number), and floats
    so large they print as such an integer. What it returns, ``parse_canonical`` accepts.
    """
    fast = _fast_canonical(data)
    if fast is not None:
        return fast
    try:
        encoded = rfc8785.dumps(data)
        parse_canonical(encoded, source=what)
    except UnicodeError as exc:  # a lone surrogate: no UTF-8 (nor UTF-16 to sort keys by)
        raise NotCanonicalizable(
            f"{what} cannot be signed: {exc}; text must be valid Unicode, without lone surrogates"
        ) from None
    except (rfc8785.CanonicalizationError, NonCanonicalPayload) as exc:
        raise NotCanonicalizable(
            f"{what} cannot be signed: {exc}; canonical JSON carries only finite numbers and "
            "integers within +/-(2^53 - 1), so record such a number as a string"
        ) from None
    return encoded


def _fast_canonical(data: Any) -> bytes | None:
    """orjson's sorted encoding, when it is already RFC 8785's (see ``parse_canonical``); None
    when a number or a key needs the RFC's own rules (the reference encoder is slow)."""
    encoded = _orjson_sorted(data)
    # Number by number: orjson writes NaN and the infinities as null, which no screen of its
    # bytes can tell from a null (parsed JSON, as parse_canonical has, holds neither).
    if encoded is not None and _within_the_bmp(encoded) and _each_number_agrees(data):
        return encoded
    return None


def _orjson_sorted(data: Any) -> bytes | None:
    """orjson's sorted encoding of ``data``; None when it holds what orjson will not encode
    or an integer beyond 2^53 - 1 (the reference encoder then says which)."""
    try:
        return orjson.dumps(data, option=_ORJSON_SORTED_SAFE)
    except orjson.JSONEncodeError:
        return None


def parse_canonical(raw: bytes, *, source: str, parsed: Any = None) -> Any:
    """Parse signed bytes, refusing them unless they are exactly their own canonical form.

    Re-encoding what the bytes parse to must give the bytes back. That one comparison refuses
    whitespace, key order, ``1.0`` for ``1``, escaped unicode that could be literal, and
    duplicate keys (a parser keeps one of them; the canonical form of the result is shorter).
    ``parsed``: what ``orjson.loads(raw)`` gave, when the caller has it (None: not yet).
    """
    try:
        data = orjson.loads(raw) if parsed is None else parsed
    except orjson.JSONDecodeError as exc:
        raise NonCanonicalPayload(
            f"{source}: the payload is not JSON ({exc}); sign with `memrank attest`, which "
            "writes RFC 8785 bytes"
        ) from None
    # orjson (compiled) re-encodes exactly as RFC 8785 does unless a number or a key needs
    # the RFC's own rules; only then is the slower reference encoder asked.
    if (
        _orjson_sorted(data) == raw
        and _within_the_bmp(raw)
        and (_plainly_alike(raw) or _each_number_agrees(data))
    ):
        return data
    try:
        again = rfc8785.dumps(data)
    except rfc8785.CanonicalizationError as exc:
        raise NonCanonicalPayload(
            f"{source}: the payload holds a number canonical JSON cannot carry ({exc})"
        ) from None
    if again != raw:
        at = next((i for i, (a, b) in enumerate(zip(raw, again, strict=False)) if a != b), None)
        where = f"byte {at}" if at is not None else f"length {len(raw)} vs {len(again)}"
        raise NonCanonicalPayload(
            f"{source}: the payload is valid JSON but not its RFC 8785 canonical form (first "
            f"difference at {where}); re-sign it with `memrank attest` rather than editing it"
        )
    return data


def _within_the_bmp(encoded: bytes) -> bool:
    """Whether the UTF-8 text ``encoded`` holds no character beyond U+FFFF."""
    return encoded.isascii() or not encoded.translate(None, _WITHIN_THE_BMP)


def _plainly_alike(encoded: bytes) -> bool:
    """Whether orjson's text ``encoded`` of parsed JSON holds no float RFC 8785 might print
    otherwise (see ``_each_number_agrees``): none integral (orjson writes ``5.0``, the RFC
    ``5``) and none with an exponent.

    Two scans of the bytes, where asking a signed file's thousands of numbers one by one took
    several times as long; text inside a string that looks like such a float only sends the
    data to that slower walk. Integers beyond 2^53 - 1 never reach here (``_orjson_sorted``)."""
    if encoded.endswith(b".0") or _INTEGRAL_FLOAT.search(encoded):
        return False
    return not (_EXPONENT_SIGN.search(encoded) and _EXPONENT.search(encoded))


def _each_number_agrees(data: Any) -> bool:
    """Whether every number in ``data`` prints the same in orjson and in RFC 8785.

    The two escape every string alike and, within the Basic Multilingual Plane, order keys
    alike; they differ on floats (``1e+16``, ``-0.0``, ``5.0``) and on integers beyond 2^53.
    (Keys beyond U+FFFF, which RFC 8785 orders by UTF-16, are checked on the raw bytes.)
    Each distinct float is asked once, and only when it is not plainly alike in both.
    """
    floats: set[float] = set()
    pending = [data]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is dict:
            pending.extend(item.values())
        elif kind is list:
            pending.extend(item)
        elif kind is float:
            floats.add(item)
        elif kind is int and abs(item) > _MAX_SAFE:
            return False
    for number in floats:
        # Both print the shortest digits that round-trip; they part only on exponents (below
        # 1e-4 or from 1e16 on) and on integral floats (5.0, -0.0).
        if _PLAIN_LOW <= abs(number) < _PLAIN_HIGH and not number.is_integer():
            continue
        try:
            if rfc8785.dumps(number) != orjson.dumps(number):
                return False
        except rfc8785.CanonicalizationError:
            return False
    return True
