"""Loopback servers for each engine memrank ships a client for, one module per engine."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memrank.systems.http import AtomicMemory, Hindsight, Mem0, Supermemory
from memrank.systems.http._engine import EngineMemory
from tests.systems.http.engines._base import EngineServer, Refusal
from tests.systems.http.engines.atomicmemory import AtomicMemoryServer
from tests.systems.http.engines.hindsight import HindsightServer
from tests.systems.http.engines.mem0 import Mem0Server
from tests.systems.http.engines.supermemory import SupermemoryServer

SECRET = "k-7f3a9c2e51"
"""The key every test server expects; it must never appear in an error message."""


@dataclass(frozen=True)
class EngineCase:
    """An engine: its loopback server, memrank's client, and one error the engine documents."""

    name: str
    server: Callable[[], EngineServer]
    client: type[EngineMemory]
    error: Refusal
    """An error in the engine's own shape, quoting the key, that no retry would change."""
    said: str
    """The engine's words in that error, as memrank must carry them."""

    def connect(self, url: str, **options: object) -> EngineMemory:
        return self.client(url, api_key=SECRET, timeout=10, **options)  # type: ignore[arg-type]


ENGINES = (
    EngineCase(
        "mem0",
        lambda: Mem0Server(SECRET),
        Mem0,
        Refusal(400, {"detail": f"Invalid filter for key {SECRET}: user_id is malformed."}),
        "Invalid filter for key [secret]: user_id is malformed.",
    ),
    EngineCase(
        "hindsight",
        lambda: HindsightServer(SECRET),
        Hindsight,
        Refusal(400, {"detail": f"Bank quota exceeded for token {SECRET}"}),
        "Bank quota exceeded for token [secret]",
    ),
    EngineCase(
        "supermemory",
        lambda: SupermemoryServer(SECRET),
        Supermemory,
        Refusal(400, {"error": "Invalid request", "details": f"key {SECRET} lacks scope"}),
        "Invalid request; key [secret] lacks scope",
    ),
    EngineCase(
        "atomicmemory",
        lambda: AtomicMemoryServer(SECRET),
        AtomicMemory,
        Refusal(400, {"error": f"user_id (string) is required; got key {SECRET}"}),
        "user_id (string) is required; got key [secret]",
    ),
)
