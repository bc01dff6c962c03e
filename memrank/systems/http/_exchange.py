"""One HTTP exchange, read whole and alone: the answer streamed under the response cap and
inflated under it when it came encoded, or refused naming why.

An answer must be all that comes for its request: bytes waiting on a connection before a
request is sent on it (``_transport``), or coming after a complete answer (``_lanes``), fail
the call by name, and the connection is closed, never to carry another request.

memrank asks for ``Accept-Encoding: identity``; a service may compress anyway. A gzip or
deflate layer is inflated with a hard output cap, layer by layer, so an answer compressed
once or many times (a few kilobytes that would inflate to gigabytes) never holds more than
the cap in memory; any other coding is refused, as memrank cannot bound what it would make.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

import httpx

from memrank.errors import ContractError
from memrank.systems.http._transport import Unasked

__all__ = ["exchange"]

Refuse = Callable[[str], ContractError]

_STEP = 1 << 20
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


def exchange(
    client: httpx.Client, request: httpx.Request, cap: int, refuse: Refuse
) -> tuple[int, httpx.Headers, bytes]:
    """Send ``request`` and read its answer (status, headers, body as sent, inflated), or
    raise ``refuse(why)``: past ``cap`` bytes, or with bytes nobody asked for around it."""
    try:
        response = client.send(request, stream=True)
        try:
            content = _body(response, cap, refuse)
        finally:
            response.close()
    except Unasked as unasked:
        raise refuse(_unasked(unasked)) from None
    codings = _codings_of(response.headers.get("Content-Encoding"))
    if codings:
        content = _inflated(content, codings, cap, refuse)
    return response.status_code, response.headers, content


def _body(response: httpx.Response, cap: int, refuse: Refuse) -> bytes:
    """The body as sent (httpx inflates nothing here), refused past ``cap`` bytes."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > cap:
        raise refuse(f"declares {int(declared):,} bytes, past the {cap:,}-byte response cap")
    parts, size = [], 0
    for part in response.iter_raw():
        size += len(part)
        if size > cap:
            raise refuse(f"kept sending past the {cap:,}-byte response cap")
        parts.append(part)
    return b"".join(parts)


def _unasked(unasked: Unasked) -> str:
    if unasked.after:
        return (
            f"was followed by {unasked.size:,} more bytes on the connection, sent for no "
            "request (a second response?); memrank closed the connection and kept nothing of "
            "this exchange"
        )
    return (
        f"was preceded by {unasked.size:,} bytes waiting on the connection before the request "
        "was sent: an answer to no request; memrank closed the connection and read none of it"
    )


def _codings_of(header: str | None) -> list[str]:
    """The codings of a Content-Encoding header, in the order they were applied."""
    codings = [c.strip().lower() for c in (header or "").split(",")]
    return [c for c in codings if c and c != "identity"]


def _inflated(body: bytes, codings: list[str], cap: int, refuse: Refuse) -> bytes:
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


def _one(body: bytes, coding: str, cap: int, layer: str, refuse: Refuse) -> bytes:
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
