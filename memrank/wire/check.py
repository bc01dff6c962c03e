"""``memrank check``: the conformance suite a participant runs against their own endpoint.

Each check tests one property of the contract and nothing else, under user_ids of its own,
so one defect fails one check: where a check needs an Add or a Search only as a step, it
reads the answer leniently and leaves judging its shape to the check that owns it. No call
is retried, so nothing a retry would hide is hidden. No check passes on nothing: one that
needs something stored first finds it, or fails saying so. Every answer is read within the
limits a run reads it with (memrank.wire.answers), and the breaches a run would count in any
Search answer (a score that is no finite number, a repeated id, empty content) are gathered
for the last check to name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import orjson
from pydantic import ValidationError

from memrank.errors import ContractError
from memrank.measures.evidence import evidence_of, first_ranks
from memrank.systems.http._checklist import (
    CheckOutcome,
    FailedCheck,
    Warned,
    layout,
    line,
    run_checks,
    tally,
)
from memrank.systems.http._client import NO_RETRY, Auth, HttpClient
from memrank.systems.http.aml import AmlEndpoints, AmlMemory
from memrank.wire._calls import Calls, fresh_word
from memrank.wire.answers import read_search
from memrank.wire.schema import AddRequest, AddResponse, echo_mismatches, problems_of

# CheckOutcome and the printing live in the shared checklist; named here too, as the suite's
# own API.
__all__ = ["NAME_WIDTH", "CheckOutcome", "Track", "check", "layout", "line", "tally"]

Track = Literal["textual", "multimodal"]
_ANIMALS = ("heron", "otter", "badger", "lynx", "marten", "ibis", "stoat", "vole")
_PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4"
    "z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
)


class _Checker(Calls):
    """The checks, one method each."""

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
        try:  # breaches aside (the last check names them), as a run reads it
            answer = read_search(reply.content, 10, ContractError)
        except ContractError as exc:
            raise FailedCheck(f"the answer {exc}; body: {self.text(reply)}") from None
        self.answers, self.items = self.answers + 1, self.items + len(answer.items)
        self.breaches.update(answer.breaches)
        return self.typed(
            reply,
            f"an object whose data holds {len(answer.items)} item(s), each with id and content",
        )

    def searchable(self) -> str:
        user, token = self.user("fresh"), fresh_word()
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
        owner, other, token = self.user("isolation-a"), self.user("isolation-b"), fresh_word()
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
        user, token = self.user("idempotent"), fresh_word()
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

    def round_trip(self) -> str:
        user, tokens = self.user("round-trip"), {animal: fresh_word() for animal in _ANIMALS}
        told = [
            f"The {animal} of the round-trip check is called {t}." for animal, t in tokens.items()
        ]
        for number, (start, end) in enumerate(((0, 1), (1, 4), (4, 8))):  # Adds of 1, 3, 4
            request = self.add_request(user, *told[start:end], chunk=number)
            reply = self.post(self.endpoints.add, request)
            if reply.status != 200:
                raise FailedCheck(
                    f"the Add of messages {start + 1}-{end} answered HTTP {reply.status}: "
                    f"{self.text(reply)}"
                )
        lost = [
            animal
            for animal, token in tokens.items()
            if not any(
                token in text
                for text in self.found(
                    self.search(user, f"What is the {animal} of the round-trip check called?")
                )
            )
        ]
        if lost:
            raise FailedCheck(
                f"{len(lost)} of {len(tokens)} messages told in three Adds (of 1, 3 and 4 "
                f"messages) never came back when asked for by their own words: the {', '.join(lost)}"
            )
        return f"each of {len(tokens)} messages told in three Adds came back when asked for"

    def quiet_breaches(self) -> str:
        user = self.user("breaches")
        self.added(user, "The breaches check stores that the tide turns at dusk.", "And at dawn.")
        self.found(self.search(user, "When does the tide turn?"))
        if self.breaches:
            named = ", ".join(f"{n} × {name}" for name, n in sorted(self.breaches.items()))
            raise FailedCheck(
                f"{named} in {self.answers} Search answer(s); a run counts each as a breach "
                "(a score left out, the rest kept as sent)"
            )
        if not self.items:
            raise FailedCheck(
                f"none of {self.answers} Search answers held an item, so none could be judged"
            )
        return (
            f"{self.items} items in {self.answers} Search answers, none with a breach a run "
            "would count"
        )

    def integrity(self) -> str:
        """The demo run as memrank runs an endpoint (memrank.integrity): opaque names, canaries
        among its questions, each recalled document checked against what its user was told."""
        from memrank.catalog import evaluation
        from memrank.run import run

        memory = AmlMemory(
            add_url=self.endpoints.add,
            search_url=self.endpoints.search,
            health_url=self.endpoints.health,
            auth=self.auth.scheme if self.auth else "none",
            api_key=self.auth.secret if self.auth else "",
            timeout=self.timeout,
            attempts=1,
        )
        try:
            result = run(memory, evaluation("demo"))
        finally:
            memory.close()
        record = result.integrity
        assert record is not None  # a memory over HTTP is always guarded
        canaries = record.traces
        failed = sum(not t.ok for t in (*result.traces, *canaries))
        if failed:
            first = next(t.error for t in (*result.traces, *canaries) if t.error is not None)
            raise FailedCheck(f"{failed} of the run's calls failed, the first: {first.message}")
        found = sum(any(first_ranks(evidence_of(t.task), t.credited)) for t in canaries)
        foreign = record.foreign
        if foreign.documents:
            raise FailedCheck(
                f"{foreign.documents} of {foreign.recalled} recalled items were never told to "
                "the user_id searched: a run gives them no credit and counts them"
            )
        if not found:
            raise FailedCheck(
                f"none of {len(canaries)} canary facts came back to a question about it: a run "
                "whose benchmark answers come back and whose canaries do not is suspect"
            )
        return (
            f"{found} of {len(canaries)} canary facts came back to a question about it; all "
            f"{foreign.recalled} recalled items were told to the user_id searched"
        )

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
        "round-trip",
        _Checker.round_trip,
        "every message of several Adds comes back to a Search for it",
    ),
    (
        "content-parts",
        _Checker.content_parts,
        "Add and Search take text and image_url content parts",
    ),
    (
        "integrity",
        _Checker.integrity,
        "a small run as memrank runs an endpoint: canaries come back, nothing untold does",
    ),
    (
        "quiet-breaches",
        _Checker.quiet_breaches,
        "no Search answer has a score that is no finite number, a repeated id or empty content",
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
        return run_checks(_Checker(endpoints, client, auth, timeout), checks, on_outcome)
    finally:
        client.close()


NAME_WIDTH = max(len(name) for name, _, _ in _CHECKS)
"""The width of the name column, known before any check runs, for printing as they end."""
