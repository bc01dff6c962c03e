"""Hostile Add/Search servers on loopback: a real ContractService behind each, with one abuse.

``Rewriting`` sends every Search answer through a function of the real answer and the request
(a flood of items, padding, breaches, a refusal for chosen queries); ``Doubling`` follows
each Search answer with a second complete response that answers nothing; ``HalfKeeping``
stores only every other message of each Add. Each logs the requests it received with the
client port they came on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import orjson

from memrank.wire._service import Answer, ContractService
from tests.loopback import Canned, Logged, _Handler, _Loopback

Rewrite = Callable[[Answer, bytes], Answer]
"""The answer sent, from the real one and the Search request's body."""


@dataclass(frozen=True)
class Received:
    """A request as it came: on which client port, to which path, with which body."""

    port: int
    path: str
    body: bytes


class _Hostile(_Loopback):
    def __init__(self, service: ContractService) -> None:
        super().__init__()
        self.service = service
        self.received: list[Received] = []

    def answer(self, handler: _Handler, body: bytes) -> None:
        self.record(Logged(handler.command, handler.path, handler.lowered_headers(), body))
        with self.lock:
            self.received.append(Received(handler.client_address[1], handler.path, body))
        if handler.command == "GET":
            handler.reply(Canned(200, b'{"status":"ok"}'))
            return
        call = self.service.add if handler.path == "/add" else self.service.search
        self.send(handler, handler.path, body, call(body, handler.lowered_headers()))

    def send(self, handler: _Handler, path: str, body: bytes, answer: Answer) -> None:
        handler.reply(Canned(answer.status, answer.body))


class Rewriting(_Hostile):
    """Every Search answer is ``rewrite(real answer, request body)``."""

    def __init__(self, service: ContractService, rewrite: Rewrite) -> None:
        super().__init__(service)
        self.rewrite = rewrite

    def send(self, handler: _Handler, path: str, body: bytes, answer: Answer) -> None:
        if path == "/search":
            answer = self.rewrite(answer, body)
        handler.reply(Canned(answer.status, answer.body))


FORGED = {"data": [{"id": "forged", "content": "an answer made for another request"}]}


def response_bytes(status: int, body: bytes) -> bytes:
    """A complete HTTP/1.1 response, as one run of bytes."""
    head = f"HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\n"
    return f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body


class Doubling(_Hostile):
    """After each Search answer, a second complete response (``FORGED``), in the same write
    as the answer or in a write of its own right after it."""

    def __init__(self, service: ContractService, *, same_write: bool) -> None:
        super().__init__(service)
        self.same_write = same_write
        self.doubled_on: list[int] = []
        """The client ports each second response went to, in order."""

    def send(self, handler: _Handler, path: str, body: bytes, answer: Answer) -> None:
        if path != "/search":
            handler.reply(Canned(answer.status, answer.body))
            return
        real, extra = (
            response_bytes(answer.status, answer.body),
            response_bytes(200, orjson.dumps(FORGED)),
        )
        with self.lock:
            self.doubled_on.append(handler.client_address[1])
        if self.same_write:
            handler.wfile.write(real + extra)
        else:
            handler.wfile.write(real)
            handler.wfile.write(extra)


class HalfKeeping(ContractService):
    """Answers every Add as stored, but stores only its first, third, fifth... message."""

    def add(self, body: bytes, headers: Mapping[str, str]) -> Answer:
        try:
            request = orjson.loads(body)
        except orjson.JSONDecodeError:  # malformed: answered as the service answers it
            return super().add(body, headers)
        if isinstance(request, dict) and isinstance(request.get("messages"), list):
            request["messages"] = request["messages"][::2]
        return super().add(orjson.dumps(request), headers)
