"""AmlMemory: a Memory that speaks the Agent Memory Leaderboard Add/Search contract.

Each isolation unit is one user_id, ``eval:<run>:<evaluation>:<unit>``; the contract has no
delete, so a unit is cleared by never using its user_id again. The unit's documents are
grouped by source session and cut, deterministically, into Adds of at most 20 messages or
2,000 words, with request ids ``<user_id>:chunk-<n>``. Every response is validated against
the contract; a violation raises ContractError with the evidence, which the run records on
the trace. Nothing is repaired.
"""

from __future__ import annotations

import copy
import os
import secrets
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from memrank.errors import ContractError, DefinitionError, UsageError
from memrank.system import Content, Document, Memory, Recall
from memrank.systems.http._chunks import Chunk, chunks
from memrank.systems.http._client import (
    Auth,
    HttpClient,
    Reply,
    RetryPolicy,
    checked_url,
    positive,
    timings_since,
)
from memrank.wire.schema import (
    AddRequest,
    AddResponse,
    Message,
    SearchRequest,
    SearchResponse,
    echo_mismatches,
    problems_of,
    unix_ms,
)

__all__ = ["ADD_RETRIES", "SEARCH_RETRIES", "AmlEndpoints", "AmlMemory"]

ADD_RETRIES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 524})
"""Add statuses the contract retries (with timeouts and transport failures)."""
SEARCH_RETRIES = frozenset({408, 425, 429, 500, 502, 503, 504})
"""Search statuses the contract retries (with timeouts and transport failures)."""
Parsed = TypeVar("Parsed", bound=BaseModel)
CLEARED_BY = "a fresh user_id per isolation unit; the contract has no delete"


@dataclass(frozen=True)
class AmlEndpoints:
    """Where Add, Search and the unauthenticated health check live."""

    add: str
    search: str
    health: str

    @classmethod
    def of(
        cls,
        base_url: str | None = None,
        *,
        add_url: str | None = None,
        search_url: str | None = None,
        health_url: str | None = None,
    ) -> AmlEndpoints:
        """``<base>/add``, ``<base>/search`` and ``<base>/health``, unless given one by one.

        Without a health URL, health is the Add URL's sibling: ``.../add`` -> ``.../health``.
        """
        base = checked_url(base_url, "base URL") if base_url else None
        add = add_url or (f"{base}/add" if base else None)
        search = search_url or (f"{base}/search" if base else None)
        if add is None or search is None:
            raise UsageError(
                "no Add/Search endpoint: give a base URL (serving <base>/add and <base>/search), "
                "or both an Add URL and a Search URL (AML_BASE_URL, or AML_ADD_URL and "
                "AML_SEARCH_URL, when the arguments are left out)"
            )
        add = checked_url(add, "Add URL")
        health = health_url or f"{add.rsplit('/', 1)[0]}/health"
        return cls(add, checked_url(search, "Search URL"), checked_url(health, "health URL"))


def _content_key(content: Content) -> str:
    """Content compared exactly: the string itself, or its parts as JSON."""
    if isinstance(content, str):
        return content
    return orjson.dumps([part.model_dump(mode="json") for part in content]).decode()


class _Service:
    """What every unit handle shares: endpoints, the pooled client, health, used user_ids."""

    def __init__(self, endpoints: AmlEndpoints, client: HttpClient, add: RetryPolicy) -> None:
        self.endpoints = endpoints
        self.client = client
        self.add_policy = add
        self.search_policy = RetryPolicy(SEARCH_RETRIES, add.attempts, add.backoff, add.max_wait)
        self._lock = threading.Lock()
        self._healthy = False
        self._used: set[str] = set()

    def ensure_healthy(self) -> None:
        """Check health once, before the first call; a failed check is tried again next time."""
        with self._lock:
            if self._healthy:
                return
            url = self.endpoints.health
            reply = self.client.get(url, self.search_policy, what="health", authenticated=False)
            if not 200 <= reply.status < 300:
                raise self.client.failure(reply, url, "health check before the first call")
            self._healthy = True

    def claim(self, user_id: str) -> None:
        with self._lock:
            if user_id in self._used:
                raise UsageError(
                    f"user_id {user_id!r} was already used by this client, and the contract has "
                    "no delete: a unit is cleared only by a fresh user_id. Run again (each run "
                    "has a new run id) or use a new AmlMemory"
                )
            self._used.add(user_id)


class AmlMemory(Memory):
    """A running service that speaks the Add/Search contract, reached over HTTP.

    Give ``base_url`` (``<base>/add``, ``<base>/search``, ``<base>/health``) or ``add_url``
    and ``search_url``; left out, they are read from ``AML_BASE_URL`` or ``AML_ADD_URL`` and
    ``AML_SEARCH_URL``. ``api_key`` (else ``AML_API_KEY``) is sent with ``auth`` (else
    ``AML_AUTH``, else ``Bearer``): ``Token``, ``Bearer`` or ``X-Api-Key``, or ``none`` to send
    no key. ``timeout`` is seconds per request (the contract allows 30 minutes), ``attempts``
    the attempts per call in all, and ``backoff`` the seconds before the first retry, doubling
    after. ``memrank.run`` drives each unit on its own handle (``for_unit``); driven directly,
    the units live under ``eval:run_<random>:direct``.
    """

    name = "aml"
    transport = "http"

    def __init__(
        self,
        base_url: str | None = None,
        *,
        add_url: str | None = None,
        search_url: str | None = None,
        health_url: str | None = None,
        auth: str | None = None,
        api_key: str | None = None,
        timeout: float = 1800.0,
        attempts: int = 4,
        backoff: float = 0.5,
    ) -> None:
        if base_url is None and add_url is None and search_url is None:
            base_url = os.environ.get("AML_BASE_URL") or None
            add_url = os.environ.get("AML_ADD_URL") or None
            search_url = os.environ.get("AML_SEARCH_URL") or None
        endpoints = AmlEndpoints.of(
            base_url, add_url=add_url, search_url=search_url, health_url=health_url
        )
        key = api_key if api_key is not None else os.environ.get("AML_API_KEY", "")
        scheme = auth or os.environ.get("AML_AUTH") or "Bearer"
        credentials = Auth.named(scheme, key) if key and scheme.lower() != "none" else None
        client = HttpClient(credentials, timeout=positive(timeout, "timeout", float))
        policy = RetryPolicy(
            ADD_RETRIES,
            attempts=positive(attempts, "attempts", int),
            backoff=positive(backoff, "backoff", float),
        )
        self._service = _Service(endpoints, client, policy)
        self._namespace = f"eval:run_{secrets.token_hex(6)}:direct"
        self._begin(None)

    def _begin(self, user_id: str | None) -> None:
        """Per-unit state: the unit's user_id, its next chunk number, what it was told."""
        self._user_id = user_id
        self._next_chunk = 0
        self._sources: dict[str, list[str]] = {}
        self._timings: dict[str, float] | None = None

    @property
    def endpoints(self) -> AmlEndpoints:
        return self._service.endpoints

    def close(self) -> None:
        """Close the pooled connections (also done when the last handle is collected)."""
        self._service.client.close()

    def for_unit(self, run_id: str, evaluation: str) -> AmlMemory:
        handle = copy.copy(self)  # shares the service; the unit state is made afresh
        handle._namespace = f"eval:{run_id}:{evaluation}"
        handle._begin(None)
        return handle

    def user_id_of(self, unit: str) -> str:
        """The user_id an isolation unit is stored and searched under."""
        return f"{self._namespace}:{unit}"

    # -- the four verbs ----------------------------------------------------------------------

    def prepare(self, isolation_unit: str) -> None:
        self._service.ensure_healthy()
        user_id = self.user_id_of(isolation_unit)
        self._service.claim(user_id)
        self._begin(user_id)

    def ingest(self, documents: Sequence[Document]) -> None:
        if self._user_id is None:
            raise UsageError("ingest before prepare: call prepare(isolation_unit) first")
        for chunk in chunks(documents):
            self._add(self._user_id, chunk)

    def retrieve(
        self,
        query: Content,
        k: int,
        user_id: str,
        query_timestamp: datetime | None = None,
        options: Sequence[str] | None = None,
    ) -> Recall:
        """Search under the unit's user_id (``user_id`` names the unit, as memrank passes it)."""
        started = time.perf_counter()
        request = _built(
            SearchRequest,
            f"search for {user_id!r}",
            query=query,
            options=tuple(options) if options else None,
            user_id=self.user_id_of(user_id),
            top_k=k,
        )
        what = f"Search for user_id {request.user_id!r}"
        reply = self._post(self.endpoints.search, request, self._service.search_policy, what)
        found = self._parsed(SearchResponse, reply, what).data
        if len(found) > k:
            raise ContractError(
                f"{what}: returned {len(found)} items for top_k={k}; the contract allows at most "
                f"top_k (ids: {', '.join(item.id for item in found)[:300]})"
            )
        documents = tuple(
            Document(
                id=item.id,
                content=item.content,
                user_id=request.user_id,
                metadata=self._metadata(item.content, item.score, item.created_at),
            )
            for item in found
        )
        self._timings = timings_since(started, reply.round_trip_ms, reply.waited_ms)
        return Recall(
            documents=documents,
            declared={
                "user_id": request.user_id,
                "attempts": reply.attempts,
                "cleared_by": CLEARED_BY,
            },
        )

    def cleanup(self) -> None:
        # Nothing can be deleted; the unit's user_id is never used again.
        self._begin(None)

    def engine_timings(self) -> dict[str, float] | None:
        """The last Search: milliseconds in HTTP round trips, waiting between attempts, and in
        memrank's own client (building, validating, mapping)."""
        return self._timings

    # -- the wire -------------------------------------------------------------------------------

    def _add(self, user_id: str, chunk: Chunk) -> None:
        request_id = f"{user_id}:chunk-{self._next_chunk}"
        self._next_chunk += 1
        request = _built(
            AddRequest,
            f"chunk {request_id}",
            request_id=request_id,
            user_id=user_id,
            session_id=f"{user_id}:session-{chunk.session}",
            messages=tuple(
                _built(
                    Message,
                    f"document {document.id!r}",
                    role=str(document.metadata.get("role", "user")),
                    content=document.content,
                    timestamp=unix_ms(document.timestamp) if document.timestamp else None,
                )
                for document in chunk.documents
            ),
        )
        what = f"Add {request_id}"
        reply = self._post(self.endpoints.add, request, self._service.add_policy, what)
        mismatches = echo_mismatches(request, self._parsed(AddResponse, reply, what))
        if mismatches:
            raise ContractError(
                f"{what}: the response does not echo the request: " + "; ".join(mismatches)
            )
        for document in chunk.documents:
            self._sources.setdefault(_content_key(document.content), []).append(document.id)

    def _post(self, url: str, request: BaseModel, policy: RetryPolicy, what: str) -> Reply:
        # The body is serialised once: every retry sends these very bytes.
        body = orjson.dumps(request.model_dump(mode="json", exclude_none=True))
        reply = self._service.client.post(url, body, policy, what=what)
        if reply.status == 202:
            raise ContractError(
                f"{what}: {url} answered HTTP 202; the synchronous contract needs 200 after the "
                "write is persisted (202 only with an approved Add-status URL)"
            )
        if reply.status != 200:
            raise self._service.client.failure(reply, url, what)
        return reply

    def _parsed(self, model: type[Parsed], reply: Reply, what: str) -> Parsed:
        try:
            return model.model_validate_json(reply.content)
        except ValidationError as exc:
            raise ContractError(
                f"{what}: the HTTP 200 response breaks the contract: {problems_of(exc)}; "
                f"body: {self._service.client.excerpt(reply.content)}"
            ) from None

    def _metadata(
        self, content: Content, score: float | None, created_at: object
    ) -> dict[str, Any]:
        """What a returned item stands for: the source document it repeats word for word,
        when exactly one document of this unit was told with that content."""
        metadata: dict[str, Any] = {}
        sources = self._sources.get(_content_key(content), [])
        if len(sources) == 1:
            metadata["doc_id"] = sources[0]
        if score is not None:
            metadata["score"] = score
        if created_at is not None:
            metadata["created_at"] = created_at
        return metadata


def _built(model: type[Parsed], what: str, **fields: Any) -> Parsed:
    """A request model, or a DefinitionError naming what the contract cannot carry."""
    try:
        return model(**fields)
    except ValidationError as exc:
        raise DefinitionError(
            f"{what} cannot be sent under the Add/Search contract: {problems_of(exc)}"
        ) from None
