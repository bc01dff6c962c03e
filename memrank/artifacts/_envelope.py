"""DSSE envelopes: the signed wrapper around a payload, and the bytes each signature covers."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from memrank.artifacts._canonical import canonical_bytes
from memrank.artifacts._keys import Ed25519PrivateKey, keyid_of
from memrank.errors import MalformedEnvelope

__all__ = ["IN_TOTO_PAYLOAD_TYPE", "Opened", "open_envelope", "pae", "seal"]

IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json"
_ENVELOPE_KEYS = frozenset({"payload", "payloadType", "signatures"})
_SIGNATURE_KEYS = frozenset({"keyid", "sig"})


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding: what a signature is computed over."""
    kind = payload_type.encode()
    return b"DSSEv1 %d %b %d %b" % (len(kind), kind, len(body), body)


def seal(payload_type: str, payload: bytes, keys: Sequence[Ed25519PrivateKey]) -> bytes:
    """The envelope file: canonical JSON with one signature per key, in the order given."""
    message = pae(payload_type, payload)
    signatures = [
        {"keyid": keyid_of(key.public_key()), "sig": _encode(key.sign(message))} for key in keys
    ]
    envelope = {"payload": _encode(payload), "payloadType": payload_type, "signatures": signatures}
    return canonical_bytes(envelope, what="the envelope")


@dataclass(frozen=True)
class Opened:
    """An envelope's parts, decoded but not yet verified."""

    payload_type: str
    payload: bytes
    signatures: tuple[tuple[str, bytes], ...]
    """(keyid as written, signature bytes), in the order written."""


def open_envelope(raw: bytes, *, source: str) -> Opened:
    """Parse an envelope strictly: JSON object, no duplicate or unknown keys, standard base64."""
    data = _parsed(raw, source)
    _require_keys(data, _ENVELOPE_KEYS, source, "the envelope")
    payload_type, signatures = data["payloadType"], data["signatures"]
    if not isinstance(payload_type, str):
        raise MalformedEnvelope(f"{source}: payloadType is not a string")
    if not isinstance(signatures, list) or not signatures:
        raise MalformedEnvelope(f"{source}: signatures must be a non-empty list")
    decoded = []
    for position, signature in enumerate(signatures):
        where = f"signatures[{position}]"
        _require_keys(signature, _SIGNATURE_KEYS, source, where)
        if not isinstance(signature["keyid"], str):
            raise MalformedEnvelope(f"{source}: {where}.keyid is not a string")
        decoded.append((signature["keyid"], _decode(signature["sig"], source, f"{where}.sig")))
    return Opened(
        payload_type=payload_type,
        payload=_decode(data["payload"], source, "payload"),
        signatures=tuple(decoded),
    )


def _parsed(raw: bytes, source: str) -> Any:
    """The envelope's JSON, refusing an object that names one key twice."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        data = None
    # Bytes orjson writes back exactly hold no key twice (orjson keeps one of two, so the
    # writing would be shorter): the envelope memrank writes is read at C speed.
    if data is not None and orjson.dumps(data, option=orjson.OPT_SORT_KEYS) == raw:
        return data
    try:
        return json.loads(raw, object_pairs_hook=_refuse_duplicates)
    except (ValueError, RecursionError) as exc:
        raise MalformedEnvelope(f"{source}: not a DSSE envelope: {exc}") from None


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"the key {key!r} appears twice in one object")
        seen[key] = value
    return seen


def _require_keys(data: object, keys: frozenset[str], source: str, what: str) -> None:
    if not isinstance(data, dict):
        raise MalformedEnvelope(f"{source}: {what} is not a JSON object")
    if set(data) != keys:
        unknown, missing = sorted(set(data) - keys), sorted(keys - set(data))
        raise MalformedEnvelope(
            f"{source}: {what} must have exactly {', '.join(sorted(keys))}"
            + (f"; unknown {', '.join(unknown)}" if unknown else "")
            + (f"; missing {', '.join(missing)}" if missing else "")
        )


def _encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _decode(text: object, source: str, field: str) -> bytes:
    """Standard base64 with padding, in its one canonical spelling."""
    if not isinstance(text, str):
        raise MalformedEnvelope(f"{source}: {field} is not a base64 string")
    try:
        # Strict decoding in C; its errors are told as the standard library's validation
        # tells them.
        data = binascii.a2b_base64(text, strict_mode=True)
    except (binascii.Error, ValueError):
        data = None
    try:
        if data is None:
            data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise MalformedEnvelope(f"{source}: {field} is not valid base64 ({exc})") from None
    if _encode(data) != text:
        raise MalformedEnvelope(
            f"{source}: {field} is not canonical base64 (standard alphabet, padded, no stray bits)"
        )
    return data
