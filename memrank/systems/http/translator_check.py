"""``memrank targets verify``: checks that a translator speaks the memrank-native/1 contract.

Each check tests one property under units of its own and reads the steps it only needs
leniently, so one defect fails one check; the contract's shapes are the models of
``memrank.systems.http.native``. No call is retried.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import orjson
from pydantic import TypeAdapter, ValidationError

from memrank.systems.http._checklist import CheckOutcome, FailedCheck, run_checks
from memrank.systems.http._client import NO_RETRY, Auth, HttpClient, checked_url
from memrank.systems.http._engine import engine_words
from memrank.systems.http.native import CONTRACT, Description, Retrieved, Usage
from memrank.wire.schema import problems_of

__all__ = ["verify"]

PARIS = "The capital of France is Paris."
TOLD = (
    ("d-paris", PARIS),
    ("d-eiffel", "The Eiffel Tower stands in Paris."),
    ("d-bananas", "Bananas are yellow when ripe."),
)
QUERY = "What is the capital of France?"
_USAGE: TypeAdapter[Any] = TypeAdapter(Usage)


class _Verifier:
    def __init__(self, base_url: str, client: HttpClient) -> None:
        self.base_url = base_url
        self.client = client
        self.run = f"memrank-verify-{secrets.token_hex(4)}"

    def call(self, path: str, body: dict[str, Any] | None = None) -> Any:
        """The JSON answer to one call; a non-2xx answer or a non-JSON body fails the check."""
        url = f"{self.base_url}{path}"
        if body is None:
            reply = self.client.get(url, NO_RETRY, what=path)
        else:
            reply = self.client.post(url, orjson.dumps(body), NO_RETRY, what=path)
        said = self.client.excerpt(engine_words(reply.content).encode())
        if not 200 <= reply.status < 300:
            raise FailedCheck(f"{path} answered HTTP {reply.status}: {said or '(empty body)'}")
        try:
            return orjson.loads(reply.content) if reply.content.strip() else {}
        except orjson.JSONDecodeError:
            raise FailedCheck(f"{path} answered a body that is not JSON: {said}") from None

    def unit(self, name: str) -> str:
        return f"{self.run}-{name}"

    def told(self, unit: str, told: tuple[tuple[str, str], ...] = TOLD) -> Any:
        self.call("/prepare", {"unit": unit})
        documents = [{"id": i, "content": c, "metadata": {}} for i, c in told]
        return self.call("/ingest", {"unit": unit, "documents": documents})

    def retrieved(self, unit: str, k: int) -> tuple[Any, list[str]]:
        """The answer, and the told ids it stands for (read leniently)."""
        answer = self.call("/retrieve", {"unit": unit, "query": QUERY, "k": k})
        items = answer.get("documents") if isinstance(answer, dict) else None
        ids = []
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                ids.append(str(item.get("doc_id") or item.get("id")))
        return answer, ids

    # -- the checks -------------------------------------------------------------------------

    def describe(self) -> str:
        answer = self.call("/describe")
        try:
            described = Description.model_validate(answer)
        except ValidationError as exc:
            raise FailedCheck(f"GET /describe answered {answer}: {problems_of(exc)}") from None
        return f"{described.name} {described.version}, {described.contract}"

    def ranked(self) -> str:
        unit = self.unit("ranked")
        self.told(unit)
        answer, ids = self.retrieved(unit, 2)
        documents = answer.get("documents") if isinstance(answer, dict) else answer
        try:  # the documents only: usage has a check of its own
            items = Retrieved.model_validate({"documents": documents}).documents
        except ValidationError as exc:
            raise FailedCheck(f"POST /retrieve answered {answer}: {problems_of(exc)}") from None
        if not items:
            raise FailedCheck(f"asked {QUERY!r} after being told {PARIS!r}, returned nothing")
        if len(items) > 2:
            raise FailedCheck(f"returned {len(items)} documents for k=2: {ids}")
        if ids[0] != "d-paris":
            raise FailedCheck(
                f"ranked {ids} for {QUERY!r}; the document saying {PARIS!r} is not first"
            )
        self.call("/cleanup", {"unit": unit})
        return f"k=2 returned {ids}, best first"

    def isolation(self) -> str:
        first, second = self.unit("isolation-a"), self.unit("isolation-b")
        self.told(first)
        self.told(second, (("d-other", "The capital of Italy is Rome."),))
        _, ids = self.retrieved(second, 3)
        self.call("/cleanup", {"unit": first})
        self.call("/cleanup", {"unit": second})
        leaked = sorted(set(ids) & {i for i, _ in TOLD})
        if leaked:
            raise FailedCheck(f"unit B returned {leaked}, told only to unit A")
        return f"unit B returned {ids or 'nothing'}; nothing told to unit A"

    def cleared(self) -> str:
        unit = self.unit("cleared")
        self.told(unit)
        self.call("/cleanup", {"unit": unit})
        self.call("/prepare", {"unit": unit})
        _, ids = self.retrieved(unit, 3)
        self.call("/cleanup", {"unit": unit})
        if ids:
            raise FailedCheck(f"after cleanup and a fresh prepare the unit still returned {ids}")
        return "after cleanup and prepare, retrieve returned nothing"

    def usage(self) -> str:
        unit = self.unit("usage")
        ingested = self.told(unit)
        retrieved, _ = self.retrieved(unit, 2)
        self.call("/cleanup", {"unit": unit})
        stated = []
        for step, answer in (("ingest", ingested), ("retrieve", retrieved)):
            usage = answer.get("usage") if isinstance(answer, dict) else None
            if usage is None:
                continue
            try:
                _USAGE.validate_python(usage)
            except ValidationError:
                raise FailedCheck(f"{step} usage is {usage!r}, not an object of numbers") from None
            stated.append(f"{step} {usage}")
        return "; ".join(stated) or "no usage stated (absent is allowed)"


_CHECKS: tuple[tuple[str, Callable[[_Verifier], str], str], ...] = (
    (
        "describe",
        _Verifier.describe,
        f"GET /describe names the contract {CONTRACT}, a name and a version",
    ),
    ("ranked-retrieve", _Verifier.ranked, "retrieve returns at most k told documents, best first"),
    ("isolation", _Verifier.isolation, "a unit never returns what another unit was told"),
    ("cleanup", _Verifier.cleared, "after cleanup, the unit holds nothing it was told"),
    ("usage", _Verifier.usage, "usage, when stated, is an object of numbers"),
)


def verify(
    base_url: str, api_key: str | None = None, *, timeout: float = 60.0
) -> list[CheckOutcome]:
    """Run every check against the translator at ``base_url``; one outcome per check."""
    url = checked_url(base_url, "translator URL")
    client = HttpClient(
        Auth("Bearer", api_key) if api_key else None,
        timeout=timeout,
        unreachable="is the translator running there?",
    )
    try:
        return run_checks(_Verifier(url, client), _CHECKS)
    finally:
        client.close()
