"""``memrank check``: the conformance suite a participant runs against their own endpoint.

Each check tests one property of the contract and nothing else, under user_ids of its own,
so one defect fails one check: where a check needs an Add or a Search only as a step, it
reads the answer leniently and leaves judging its shape to the check that owns it. No call
is retried, so nothing a retry would hide is hidden. No check passes on nothing: one that
needs something stored first finds it, or fails saying so.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any, Literal

import orjson
from pydantic import ValidationError

from memrank.systems.http._checklist import (
    CheckOutcome,
    FailedCheck,
    Warned,
    layout,
    line,
    run_checks,
    tally,
)
from memrank.systems.http._client import NO_RETRY, Auth, HttpClient, Reply
from memrank.systems.http.aml import AmlEndpoints
from memrank.wire.schema import (
    AddRequest,
    AddResponse,
    SearchResponse,
    echo_mismatches,
    problems_of,
)

# CheckOutcome and the printing live in the shared checklist; named here too, as the suite's
# own API.
__all__ = ["NAME_WIDTH", "CheckOutcome", "Track", "check", "layout", "line", "tally"]

Track = Literal["textual", "multimodal"]
_PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4"
    "z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
)


class _Checker:
    def __init__(self, endpoints: AmlEndpoints, client: HttpClient) -> None:
        self.endpoints = endpoints
        self.client = client
        self.run = f"memrank-check:{secrets.token_hex(4)}"

    # -- calls ----------------------------------------------------------------------------

    def post(self, url: str, payload: dict[str, Any] | bytes) -> Reply:
        body = payload if isinstance(payload, bytes) else orjson.dumps(payload)
        return self.client.post(url, body, NO_RETRY, what="check")

    def add(self, user: str, *texts: Any) -> tuple[dict[str, Any], Reply]:
        """Add the texts (strings, or lists of parts) as one chunk; returns request and reply."""
        request = {
            "request_id": f"{user}:chunk-0",
            "messages": [
                {"role": "user", "timestamp": 1704067200000 + i, "content": t}
                for i, t in enumerate(texts)
            ],
            "user_id": user,
            "session_id": f"{user}:session-0",
        }
        return request, self.post(self.endpoints.add, request)

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
            data = orjson.loads(reply.content)
        except orjson.JSONDecodeError:
            raise FailedCheck(f"the Search answer is not JSON: {self.text(reply)}") from None
        items = data.get("data") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise FailedCheck(f"no list of items in the Search answer: {self.text(reply)}")
        return [_text(item.get("content") if isinstance(item, dict) else item) for item in items]

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
        return f"{self.run}:{check}"

    # -- the checks -------------------------------------------------------------------------

    def health(self) -> str:
        url = self.endpoints.health
        reply = self.client.get(url, NO_RETRY, what="check", authenticated=False)
        if not 200 <= reply.status < 300:
            raise FailedCheck(f"GET {url} without credentials answered HTTP {reply.status}")
        return f"GET {url} without credentials answered HTTP {reply.status}"

    def add_echo(self) -> str:
        request, reply = self.add(self.user("echo"), "The echo check stores this sentence.")
        if reply.status != 200:
            raise FailedCheck(f"Add answered HTTP {reply.status}, not 200: {self.text(reply)}")
        try:
            answer = AddResponse.model_validate_json(reply.content)
        except ValidationError as exc:
            raise FailedCheck(f"{problems_of(exc)}; body: {self.text(reply)}") from None
        mismatches = echo_mismatches(AddRequest.model_validate_json(orjson.dumps(request)), answer)
        if mismatches:
            raise FailedCheck("; ".join(mismatches))
        return self.typed(
            reply, "HTTP 200, success true, request_id, user_id and session_id echoed byte for byte"
        )

    def search_shape(self) -> str:
        user = self.user("shape")
        self.added(user, "The shape check stores a sentence about lighthouses.")
        reply = self.search(user, "What does the shape check store about lighthouses?")
        if reply.status != 200:
            raise FailedCheck(f"Search answered HTTP {reply.status}: {self.text(reply)}")
        try:
            answer = SearchResponse.model_validate_json(reply.content)
        except ValidationError as exc:
            raise FailedCheck(f"{problems_of(exc)}; body: {self.text(reply)}") from None
        return self.typed(
            reply,
            f"an object whose data holds {len(answer.data)} item(s), each with id and content",
        )

    def searchable(self) -> str:
        user, token = self.user("fresh"), _token()
        self.added(user, f"The check canary code is {token}.")
        texts = self.found(self.search(user, "What is the check canary code?"))
        if not any(token in t for t in texts):
            raise FailedCheck(
                f"a Search right after the Add's 200 did not return the canary {token!r} "
                f"({len(texts)} item(s) came back); Add must answer only once it is searchable"
            )
        return f"the canary {token!r} came back in the Search right after the Add"

    def top_k(self) -> str:
        user = self.user("top-k")
        colours = ("amber", "blue", "crimson", "green", "violet")
        self.added(
            user,
            *(f"Harbour light note {i}: the harbour light is {c}." for i, c in enumerate(colours)),
        )
        texts = self.found(self.search(user, "What colour is the harbour light note?", top_k=2))
        if len(texts) > 2:
            raise FailedCheck(f"top_k=2 and {len(texts)} items came back")
        if not texts:
            raise FailedCheck(
                "top_k=2 over five stored notes and nothing came back, so the limit is untested"
            )
        return f"top_k=2 and {len(texts)} item(s) came back"

    def empty(self) -> str:
        texts = self.found(self.search(self.user("empty"), "What is stored under this user?"))
        if texts:
            raise FailedCheck(
                f"nothing was stored under this user_id and {len(texts)} item(s) came back"
            )
        return "nothing stored under the user_id, and data came back empty"

    def isolation(self) -> str:
        owner, other, token = self.user("isolation-a"), self.user("isolation-b"), _token()
        self.added(owner, f"The secret canary word of the isolation check is {token}.")
        self.added(other, "The weather report of the isolation check says mild.")
        query = "What is the secret canary word of the isolation check?"
        if not any(token in t for t in self.found(self.search(owner, query))):
            raise FailedCheck(
                f"the canary {token!r} did not come back even under {owner!r}, where it was "
                "added, so isolation cannot be told apart from storing nothing"
            )
        for query in ("What is the secret canary word of the isolation check?", token):
            texts = self.found(self.search(other, query))
            if any(token in t for t in texts):
                raise FailedCheck(
                    f"the canary {token!r} added under {owner!r} came back under {other!r} "
                    f"(query {query!r})"
                )
        return f"the canary {token!r} added under one user_id never came back under another"

    def idempotent(self) -> str:
        user, token = self.user("idempotent"), _token()
        first = self.add(user, f"The idempotence marker is {token}.")[1]
        second = self.add(user, f"The idempotence marker is {token}.")[1]
        if (first.status, second.status) != (200, 200):
            raise FailedCheck(
                f"the same Add sent twice answered HTTP {first.status} then {second.status}; "
                "a repeated request_id must be answered 200 again"
            )
        texts = self.found(self.search(user, "What is the idempotence marker?"))
        copies = sum(token in t for t in texts)
        if copies > 1:
            raise FailedCheck(
                f"the Add was sent twice with one request_id and stored {copies} times"
            )
        if copies == 0:
            raise FailedCheck(
                "the marker never came back, so storing once cannot be told apart from "
                "storing nothing"
            )
        return "both answered 200; the marker came back once"

    def malformed(self) -> str:
        user = self.user("malformed")
        good_add = {"request_id": f"{user}:chunk-0", "user_id": user, "session_id": f"{user}:s"}
        cases: list[tuple[str, str, dict[str, Any] | bytes]] = [
            ("Add that is not JSON", self.endpoints.add, b"{not json"),
            ("Add without messages", self.endpoints.add, good_add),
            ("Add with no message", self.endpoints.add, {**good_add, "messages": []}),
            (
                "Add with empty content",
                self.endpoints.add,
                {**good_add, "messages": [{"role": "user", "content": ""}]},
            ),
            (
                "Search with top_k as text",
                self.endpoints.search,
                {"query": "q", "user_id": user, "top_k": "ten"},
            ),
            ("Search without query", self.endpoints.search, {"user_id": user, "top_k": 5}),
        ]
        statuses = [(name, self.post(url, payload).status) for name, url, payload in cases]
        listed = ", ".join(f"{name}: {status}" for name, status in statuses)
        if all(status in (401, 403) for _, status in statuses):
            raise FailedCheck(
                f"every malformed request was refused for its credentials, so how the endpoint "
                f"treats its shape is untested (give --auth): {listed}"
            )
        if any(not (200 <= status < 300 or 400 <= status < 500) for _, status in statuses):
            raise FailedCheck(
                f"a malformed request must never get 5xx (it reads as transient, "
                f"and is retried): {listed}"
            )
        if any(200 <= status < 300 for _, status in statuses):
            # the contract says what a client must send, not that a server must refuse the rest
            raise Warned(f"accepted, where a 4xx would say what is wrong: {listed}")
        return listed

    def options(self) -> str:
        user = self.user("options")
        self.added(user, "The options check stores that the ferry leaves at noon.")
        choices = ["A. The ferry leaves at noon.", "B. The ferry leaves at midnight."]
        texts = self.found(self.search(user, "When does the ferry leave?", options=choices))
        return f"a Search with options answered 200 with {len(texts)} item(s)"

    def content_parts(self) -> str:
        user = self.user("parts")
        parts = [
            {"type": "text", "text": "A photo of the red kite."},
            {"type": "image_url", "image_url": {"url": _PIXEL}},
        ]
        reply = self.add(user, parts)[1]
        if reply.status != 200:
            raise FailedCheck(
                f"an Add with text and image_url parts answered HTTP {reply.status}: {self.text(reply)}"
            )
        query = [
            {"type": "text", "text": "Which bird is in the photo?"},
            {"type": "image_url", "image_url": {"url": _PIXEL}},
        ]
        texts = self.found(self.search(user, query))
        return f"Add and Search with text and image_url parts answered 200 ({len(texts)} item(s))"


_CHECKS: tuple[tuple[str, Callable[[_Checker], str], str], ...] = (
    ("health", _Checker.health, "GET health without credentials answers 2xx"),
    ("add-echo", _Checker.add_echo, "Add answers 200 with success true and the three ids echoed"),
    (
        "search-shape",
        _Checker.search_shape,
        "Search answers an object whose data is an array of items with id and content",
    ),
    (
        "searchable-after-add",
        _Checker.searchable,
        "what Add stored is found by the very next Search",
    ),
    ("top-k", _Checker.top_k, "Search never returns more than top_k items"),
    ("empty-when-nothing", _Checker.empty, "Search answers data: [] when nothing matches"),
    (
        "user-isolation",
        _Checker.isolation,
        "nothing added under one user_id comes back under another",
    ),
    (
        "idempotent-request-id",
        _Checker.idempotent,
        "an Add repeated with its request_id is answered again, stored once",
    ),
    (
        "malformed-4xx",
        _Checker.malformed,
        "malformed requests get 4xx (2xx warns), never 5xx",
    ),
    ("options-accepted", _Checker.options, "a Search carrying multiple-choice options is answered"),
    (
        "content-parts",
        _Checker.content_parts,
        "Add and Search take text and image_url content parts",
    ),
)


def check(
    endpoints: AmlEndpoints,
    auth: Auth | None = None,
    track: Track = "textual",
    *,
    timeout: float = 60.0,
    on_outcome: Callable[[CheckOutcome], None] | None = None,
) -> list[CheckOutcome]:
    """Run every check of ``track`` against the endpoints; one outcome per check, in order,
    each handed to ``on_outcome`` the moment it ends. ``timeout`` is each request's deadline,
    from connecting to the last byte of the answer."""
    client = HttpClient(auth, timeout=timeout, breaking=False)
    # image_url content parts are part of the contract on the multimodal track only
    checks = [c for c in _CHECKS if track == "multimodal" or c[0] != "content-parts"]
    try:
        return run_checks(_Checker(endpoints, client), checks, on_outcome)
    finally:
        client.close()


NAME_WIDTH = max(len(name) for name, _, _ in _CHECKS)
"""The width of the name column, known before any check runs, for printing as they end."""


def _token() -> str:
    return f"zq{secrets.token_hex(5)}"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return orjson.dumps(content).decode()
