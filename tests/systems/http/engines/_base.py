"""What the loopback engine servers share: routing, checks on every request, a store.

Each engine server implements that engine's documented endpoints over a small word-overlap
store, checks every request the client sends (method and path against the engine's routes,
the auth header, ``Content-Type``, every body field against the documented fields and types)
and answers failures in the engine's documented error shapes. A request that breaks the
engine's API is answered as the engine would, and also noted in ``violations``, so a test can
assert that the client sent nothing the engine would not take.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar
from urllib.parse import parse_qs

import orjson

from memrank.systems.text import words
from tests.loopback import Canned, Logged, _Handler, _Loopback

Payload = dict[str, Any]
Route = tuple[str, str, str]
"""(method, path pattern with named groups, handler method name)."""


class Refusal(Exception):
    """An answer other than success, in the engine's own shape."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(status)
        self.status, self.body = status, body


@dataclass
class Record:
    id: str
    text: str
    metadata: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)


class Store:
    """Records by namespace, found by distinct shared words (as WordOverlap ranks them)."""

    def __init__(self) -> None:
        self.spaces: dict[str, list[Record]] = {}
        self._ids = itertools.count(1)
        self.lock = threading.Lock()

    def add(self, namespace: str, text: str, metadata: dict[str, Any], **extra: Any) -> Record:
        with self.lock:
            record = Record(f"mem-{next(self._ids)}", text, dict(metadata), dict(extra))
            self.spaces.setdefault(namespace, []).append(record)
            return record

    def search(self, namespace: str, query: str, limit: int) -> list[tuple[Record, int]]:
        wanted = set(words(query))
        with self.lock:
            held = list(self.spaces.get(namespace, []))
        scored = [(r, len(wanted & set(words(r.text)))) for r in held]
        ranked = sorted((s for s in scored if s[1] > 0), key=lambda s: -s[1])
        return ranked[:limit]

    def drop(self, namespace: str) -> int:
        with self.lock:
            return len(self.spaces.pop(namespace, []))

    def find(self, record_id: str) -> Record | None:
        with self.lock:
            return next((r for rs in self.spaces.values() for r in rs if r.id == record_id), None)


class EngineServer(_Loopback):
    """A loopback engine: routes, request checks and the engine's error shapes."""

    routes: ClassVar[list[Route]] = []
    auth_header: ClassVar[str] = "authorization"
    auth_prefix: ClassVar[str] = "Bearer "

    def __init__(self, key: str | None = None) -> None:
        super().__init__()
        self.key = key
        self.store = Store()
        self.violations: list[str] = []
        self._failures: list[Refusal] = []

    # -- the engine's shapes ------------------------------------------------------------------

    def unauthorized(self) -> Refusal:
        raise NotImplementedError

    def invalid(self, problem: str) -> Refusal:
        raise NotImplementedError

    def not_found(self, what: str) -> Refusal:
        raise NotImplementedError

    # -- test hooks -------------------------------------------------------------------------

    def fail_next(self, refusal: Refusal, times: int = 1) -> None:
        """Answer the next ``times`` requests with ``refusal`` (the engine's own error)."""
        with self.lock:
            self._failures.extend([refusal] * times)

    def calls(self, method: str, pattern: str) -> list[Logged]:
        with self.lock:
            return [e for e in self.log if e.method == method and re.fullmatch(pattern, e.path)]

    # -- serving ----------------------------------------------------------------------------

    def answer(self, handler: _Handler, body: bytes) -> None:
        headers = handler.lowered_headers()
        self.record(Logged(handler.command, handler.path, headers, body))
        path, _, query = handler.path.partition("?")
        try:
            route, groups = self._route(handler.command, path)
            self._check_auth(headers)
            with self.lock:
                failure = self._failures.pop(0) if self._failures else None
            if failure is not None:
                raise failure
            payload = self._json(body, headers) if body else None
            status, answer = route(payload, parse_qs(query), **groups)
        except Refusal as refusal:
            status, answer = refusal.status, refusal.body
        handler.reply(Canned(status, orjson.dumps(answer)))

    def _route(self, method: str, path: str) -> tuple[Callable[..., Any], dict[str, str]]:
        for route_method, pattern, name in self.routes:
            matched = re.fullmatch(pattern, path)
            if matched and route_method == method:
                return getattr(self, name), matched.groupdict()
        self.violation(f"{method} {path} is not an endpoint of this engine")
        raise self.not_found(f"{method} {path}")

    def _check_auth(self, headers: dict[str, str]) -> None:
        if self.key is None:
            return
        if headers.get(self.auth_header) != f"{self.auth_prefix}{self.key}":
            raise self.unauthorized()

    def _json(self, body: bytes, headers: dict[str, str]) -> Any:
        if headers.get("content-type") != "application/json":
            self.violation(f"a body sent as {headers.get('content-type')!r}, not application/json")
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            self.violation(f"a body that is not JSON: {body[:80]!r}")
            raise self.invalid("body is not valid JSON") from None

    # -- checks -----------------------------------------------------------------------------

    def violation(self, problem: str) -> None:
        with self.lock:
            self.violations.append(problem)

    def fields(
        self,
        payload: Any,
        required: dict[str, type | tuple[type, ...]],
        optional: dict[str, type | tuple[type, ...]] | None = None,
        where: str = "body",
    ) -> Payload:
        """The payload if its fields are exactly the documented ones, with their types."""
        optional = optional or {}
        if not isinstance(payload, dict):
            self.violation(f"{where} is {type(payload).__name__}, not an object")
            raise self.invalid(f"{where} must be an object")
        for name in required:
            if name not in payload:
                self.violation(f"{where} lacks the required field {name!r}")
                raise self.invalid(f"{where}.{name}: field required")
        for name, value in payload.items():
            kind = required.get(name) or optional.get(name)
            if kind is None:
                self.violation(f"{where} has the field {name!r}, which the engine does not take")
                raise self.invalid(f"{where}.{name}: unknown field")
            if not isinstance(value, kind) or isinstance(value, bool) and bool not in _kinds(kind):
                self.violation(f"{where}.{name} is {value!r}, not {kind}")
                raise self.invalid(f"{where}.{name}: wrong type")
        return payload


def iso_time(server: EngineServer, value: str, where: str) -> None:
    """Note a timestamp that is not ISO 8601 with its offset, and refuse it as the engine would."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        server.violation(f"{where} is {value!r}, not an ISO 8601 time with its offset")
        raise server.invalid(f"{where}: invalid datetime")


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)
