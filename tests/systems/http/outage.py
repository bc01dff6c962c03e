"""A loopback Add/Search server with an outage: a real ContractService behind it, but the
health check, Search, or the first Adds answered as scripted (503, Retry-After, resets)."""

from __future__ import annotations

from memrank.wire._service import ContractService
from tests.loopback import Canned, Logged, _Handler, _Loopback

HEALTHY = Canned(200, b'{"status":"ok"}')


class Outage(_Loopback):
    """``search`` (when given) answers every Search; ``health`` every health check; the first
    ``failed_adds`` Adds are answered 503 (or reset, when ``reset_adds``) before reaching
    the service, which answers the rest."""

    def __init__(
        self,
        service: ContractService,
        *,
        search: Canned | None = None,
        health: Canned = HEALTHY,
        failed_adds: int = 0,
        reset_adds: bool = False,
    ) -> None:
        super().__init__()
        self.service, self.search, self.health = service, search, health
        self.failed_adds, self.reset_adds = failed_adds, reset_adds

    def answer(self, handler: _Handler, body: bytes) -> None:
        self.record(Logged(handler.command, handler.path, handler.lowered_headers(), body))
        if handler.command == "GET":
            handler.reply(self.health)
            return
        if handler.path == "/search" and self.search is not None:
            handler.reply(self.search)
            return
        if handler.path == "/add":
            with self.lock:
                failing = self.failed_adds > 0
                self.failed_adds -= failing
            if failing and self.reset_adds:
                handler.reset()
                return
            if failing:
                handler.reply(Canned(503, b'{"detail":{"reason":"unavailable"}}'))
                return
        call = self.service.add if handler.path == "/add" else self.service.search
        answer = call(body, handler.lowered_headers())
        handler.reply(Canned(answer.status, answer.body))
