"""The byte-level parts of the second verifier, standard library only, written from
docs/artifacts.md: Ed25519 (RFC 8032), canonical JSON (RFC 8785), the result file's sorted-key
JSON, strict JSON parsing, canonical base64 and the DSSE pre-authentication encoding."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
from typing import Any

# -- Ed25519 verification, RFC 8032 section 5.1.7, in integers ---------------------------------

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)


def _add(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, int, int, int]:
    """Points in extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z, xy = T/Z."""
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % P
    bb = (y1 + x1) * (y2 + x2) % P
    cc = 2 * t1 * t2 * D % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return e * f % P, g * h % P, f * g % P, e * h % P


def _mul(scalar: int, point: tuple[int, ...]) -> tuple[int, ...]:
    result: tuple[int, ...] = (0, 1, 1, 0)
    while scalar:
        if scalar & 1:
            result = _add(result, point)
        point = _add(point, point)
        scalar >>= 1
    return result


def _encode(point: tuple[int, ...]) -> bytes:
    x, y, z, _ = point
    zinv = pow(z, P - 2, P)
    x, y = x * zinv % P, y * zinv % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def _decode(raw: bytes) -> tuple[int, ...] | None:
    if len(raw) != 32:
        return None
    y = int.from_bytes(raw, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    if y >= P:
        return None
    u, v = (y * y - 1) % P, (D * y * y + 1) % P
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    if v * x * x % P == (-u) % P:
        x = x * SQRT_M1 % P
    elif v * x * x % P != u:
        return None
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = P - x
    return x, y, 1, x * y % P


_BY = 4 * pow(5, P - 2, P) % P
BASE = _decode(_BY.to_bytes(32, "little"))


def ed25519_verify(public: bytes, signature: bytes, message: bytes) -> bool:
    """Whether ``signature`` is ``public``'s over ``message``: [S]B == R + [k]A."""
    point = _decode(public)
    if point is None or len(signature) != 64 or BASE is None:
        return False
    r, s = signature[:32], int.from_bytes(signature[32:], "little")
    if s >= L or _decode(r) is None:
        return False
    k = int.from_bytes(hashlib.sha512(r + public + message).digest(), "little") % L
    negated = ((P - point[0]) % P, point[1], point[2], (P - point[3]) % P)
    return _encode(_add(_mul(s, BASE), _mul(k, negated))) == r


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding."""
    kind = payload_type.encode()
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(body), body)


def canonical_b64(text: object) -> bytes | None:
    """Standard base64 with padding in its one canonical spelling, else None."""
    if not isinstance(text, str) or not text.isascii():
        return None
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if base64.b64encode(raw).decode() == text else None


# -- JSON: strict parsing, RFC 8785, the result file's sorted-key form -------------------------


class JSONRefused(ValueError):
    """Not JSON a signer could have written: a syntax error, a duplicate key, NaN."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    made = dict(pairs)
    if len(made) != len(pairs):
        raise JSONRefused("a duplicate key")
    return made


def _constant(name: str) -> Any:
    raise JSONRefused(f"{name} is not JSON")


def parse(raw: bytes) -> Any:
    """UTF-8 JSON with no duplicate keys and no NaN or infinities."""
    try:
        return json.loads(raw.decode("utf-8"), object_pairs_hook=_pairs, parse_constant=_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise JSONRefused(str(exc)) from None


def es_number(x: float | int) -> str:
    """ECMAScript Number::toString, which RFC 8785 prints numbers with."""
    if isinstance(x, int):
        return str(x)
    if x == 0:
        return "0"
    if x < 0:
        return "-" + es_number(-x)
    mantissa, _, exp = repr(x).replace("e+", "e").partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    # n: the position of the decimal point relative to the digits (ECMAScript's n).
    n = (
        len(whole) + int(exp or 0)
        if whole != "0"
        else int(exp or 0) - (len(frac) - len(frac.lstrip("0")))
    )
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    e = n - 1
    sign = "+" if e >= 0 else "-"
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{head}e{sign}{abs(e)}"


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _utf16(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def jcs(value: Any) -> str:
    """RFC 8785: no whitespace, keys sorted by UTF-16 code units, minimal string escapes."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            raise JSONRefused("a number canonical JSON cannot carry")
        if isinstance(value, int) and abs(value) > 2**53 - 1:
            raise JSONRefused("an integer beyond 2^53 - 1")
        return es_number(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ",".join(jcs(item) for item in value) + "]"
    keys = sorted(value, key=_utf16)
    return "{" + ",".join(f"{_string(key)}:{jcs(value[key])}" for key in keys) + "}"


def canonical(value: Any) -> bytes:
    return jcs(value).encode("utf-8", "surrogatepass")


def parse_canonical(raw: bytes) -> Any:
    """The value ``raw`` is the canonical JSON of; JSONRefused when it is not exactly that."""
    value = parse(raw)
    try:
        again = canonical(value)
    except (JSONRefused, UnicodeEncodeError) as exc:
        raise JSONRefused(str(exc)) from None
    if again != raw:
        raise JSONRefused("not the canonical JSON of what it parses to")
    return value


def _sorted_number(x: float | int) -> str:
    """A number as the result file writes it: Python's repr of the double, except that an
    exponent of -5 is written out (0.00001) and an exponent has no leading zeros (1e-7)."""
    if isinstance(x, int):
        return str(x)
    text = repr(x)
    if "e" not in text:
        return text
    mantissa, _, exp = text.partition("e")
    power = int(exp)
    if power == -5:
        sign, digits = ("-", mantissa[1:]) if mantissa.startswith("-") else ("", mantissa)
        return f"{sign}0.0000{digits.replace('.', '')}"
    return f"{mantissa}e{'+' if power > 0 else '-'}{abs(power)}"


def sorted_json(value: Any) -> str:
    """The result file's form: keys sorted by code point, no whitespace, non-ASCII literal."""
    if value is None or value is True or value is False:
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, (int, float)):
        return _sorted_number(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ",".join(sorted_json(item) for item in value) + "]"
    return "{" + ",".join(f"{_string(k)}:{sorted_json(value[k])}" for k in sorted(value)) + "}"
