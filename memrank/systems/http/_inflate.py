"""An encoded answer inflated under the response cap, or refused naming its encoding.

memrank asks for ``Accept-Encoding: identity``; a service may compress anyway. A gzip or
deflate layer is inflated with a hard output cap, layer by layer, so an answer compressed
once or many times (a few kilobytes that would inflate to gigabytes) never holds more than
the cap in memory; any other coding is refused, as memrank cannot bound what it would make.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

from memrank.errors import ContractError

__all__ = ["codings_of", "inflated"]

_STEP = 1 << 20
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


def codings_of(header: str | None) -> list[str]:
    """The codings of a Content-Encoding header, in the order they were applied."""
    codings = [c.strip().lower() for c in (header or "").split(",")]
    return [c for c in codings if c and c != "identity"]


def inflated(
    body: bytes, codings: list[str], cap: int, refuse: Callable[[str], ContractError]
) -> bytes:
    """``body`` with every coding undone, last applied first; ``refuse(why)`` is raised when a
    coding is not gzip or deflate, a layer does not inflate, or one would pass ``cap`` bytes."""
    for number, coding in enumerate(reversed(codings), start=1):
        layer = f"layer {number} of {len(codings)} ({coding!r})"
        if coding not in _WBITS:
            raise refuse(
                f"is sent under Content-Encoding {coding!r}, which memrank does not inflate "
                "(it asks for identity and inflates only gzip and deflate)"
            )
        body = _one(body, coding, cap, layer, refuse)
    return body


def _one(
    body: bytes, coding: str, cap: int, layer: str, refuse: Callable[[str], ContractError]
) -> bytes:
    inflater = zlib.decompressobj(_WBITS[coding])
    parts, size, left = [], 0, body
    try:
        while True:
            # a mebibyte at a time: what is held never passes the cap by more than that
            part = inflater.decompress(left, _STEP)
            size += len(part)
            if size > cap:
                raise refuse(f"inflates past the {cap:,}-byte response cap at {layer}")
            parts.append(part)
            left = inflater.unconsumed_tail
            if not left:
                break
        parts.append(inflater.flush())
    except zlib.error as exc:
        raise refuse(f"does not inflate at {layer}: {exc}") from None
    if size + len(parts[-1]) > cap:
        raise refuse(f"inflates past the {cap:,}-byte response cap at {layer}")
    if not inflater.eof:
        raise refuse(f"ends before its compressed stream does, at {layer}")
    return b"".join(parts)
