"""One HTTP exchange, read whole and alone: the answer streamed under the response cap and
inflated under it when it came encoded, or refused naming why.

An answer must be all that comes for its request: bytes waiting on a connection before a
request is sent on it (``_transport``), or coming after a complete answer (``_lanes``), fail
the call by name, and the connection is closed, never to carry another request.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx

from memrank.errors import ContractError
from memrank.systems.http._inflate import codings_of, inflated
from memrank.systems.http._transport import Unasked

__all__ = ["exchange"]

Refuse = Callable[[str], ContractError]


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
    codings = codings_of(response.headers.get("Content-Encoding"))
    if codings:
        content = inflated(content, codings, cap, refuse)
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
