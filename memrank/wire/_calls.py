"""How ``memrank check`` talks to an endpoint: no call retried, Adds and Searches taken as
steps read leniently (``data`` or a bare list will do), every answer read within the limits a
run reads it with, and the breaches of every Search answer read gathered by name."""

from __future__ import annotations

import secrets
from collections import Counter
from typing import Any

import orjson

from memrank.errors import ContractError
from memrank.integrity.names import WireNames
from memrank.systems.http._checklist import FailedCheck, Warned
from memrank.systems.http._client import NO_RETRY, Auth, HttpClient, Reply
from memrank.systems.http.aml import AmlEndpoints, namespace_of
from memrank.wire.answers import breaches_in, read_json

__all__ = ["Calls", "fresh_word"]


class Calls:
    """An endpoint as the suite calls it: Adds and Searches under user_ids of the suite's
    run, every answer read within the limits a run reads it with."""

    def __init__(
        self, endpoints: AmlEndpoints, client: HttpClient, auth: Auth | None, timeout: float
    ) -> None:
        self.endpoints = endpoints
        self.client = client
        self.auth, self.timeout = auth, timeout
        # named as a run names its units (memrank.integrity.names), so that nothing tells the
        # suite's calls from a benchmark run's
        self.names = WireNames.fresh()
        self.namespace = namespace_of(
            self.names.of("run", "check"), self.names.of("evaluation", "check")
        )
        self.breaches: Counter[str] = Counter()
        """The breaches of every Search answer read, by name."""
        self.answers = self.items = 0
        """Search answers read, and the items they held."""

    def post(self, url: str, payload: dict[str, Any] | bytes) -> Reply:
        body = payload if isinstance(payload, bytes) else orjson.dumps(payload)
        return self.client.post(url, body, NO_RETRY, what="check")

    def add(self, user: str, *texts: Any) -> tuple[dict[str, Any], Reply]:
        """Add the texts (strings, or lists of parts) as one chunk; returns request and reply."""
        request = self.add_request(user, *texts)
        return request, self.post(self.endpoints.add, request)

    def add_request(self, user: str, *texts: Any, chunk: int = 0) -> dict[str, Any]:
        """An Add of the texts as chunk number ``chunk`` of one session."""
        return {
            "request_id": f"{user}:chunk-{chunk}",
            "messages": [
                {"role": "user", "timestamp": 1704067200000 + i, "content": t}
                for i, t in enumerate(texts)
            ],
            "user_id": user,
            "session_id": f"{user}:session-{self.names.of('session', '0')}",
        }

    def added(self, user: str, *texts: Any) -> None:
        """Add as a step of another check: any 200 will do."""
        reply = self.add(user, *texts)[1]
        if reply.status != 200:
            raise FailedCheck(
                f"the Add this check needs answered HTTP {reply.status}: {self.text(reply)}"
            )

    def search(self, user: str, query: Any, top_k: int = 10, **extra: Any) -> Reply:
        return self.post(
            self.endpoints.search, {"query": query, "user_id": user, "top_k": top_k, **extra}
        )

    def found(self, reply: Reply) -> list[str]:
        """The texts of a Search answer read leniently: ``data`` or a bare list is fine here."""
        if reply.status != 200:
            raise FailedCheck(
                f"the Search this check needs answered HTTP {reply.status}: {self.text(reply)}"
            )
        try:
            data = read_json(reply.content, ContractError)
        except ContractError as exc:
            raise FailedCheck(f"the Search answer {exc}: {self.text(reply)}") from None
        items = data.get("data") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise FailedCheck(f"no list of items in the Search answer: {self.text(reply)}")
        self.tallied(items)
        return [_text(item.get("content") if isinstance(item, dict) else item) for item in items]

    def tallied(self, items: list[Any]) -> None:
        """Gather the breaches of one Search answer's items for the last check."""
        self.answers, self.items = self.answers + 1, self.items + len(items)
        self.breaches.update(breaches_in(items))

    def typed(self, reply: Reply, evidence: str) -> str:
        """``evidence`` when the JSON answer says it is JSON; a warning when its Content-Type
        says otherwise (a client that trusts the type would not read it)."""
        given = reply.headers.get("Content-Type", "")
        media = given.partition(";")[0].strip().lower()
        if media == "application/json" or media.endswith("+json"):
            return evidence
        raise Warned(
            f"{evidence}; but the JSON came as Content-Type {given or '(none)'!r}, "
            "not application/json"
        )

    def text(self, reply: Reply) -> str:
        return self.client.excerpt(reply.content)[:300] or "(empty body)"

    def user(self, check: str) -> str:
        return f"{self.namespace}:{self.names.of('unit', check)}"


def fresh_word() -> str:
    """A random word no endpoint holds before the suite tells it."""
    return f"zq{secrets.token_hex(5)}"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return orjson.dumps(content).decode()
