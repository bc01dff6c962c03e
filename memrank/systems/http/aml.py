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
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from memrank.errors import ContractError, DefinitionError, UsageError
from memrank.system import Content, Document, Memory, Recall, text_of
from memrank.systems.http._aml_service import (
    ADD_RETRIES,
    SEARCH_RETRIES,
    AmlEndpoints,
    AmlService,
)
from memrank.systems.http._attribution import Told, exact_key
from memrank.systems.http._client import (
    Auth,
    HttpClient,
    Reply,
    RetryPolicy,
    positive,
    timings_since,
)
from memrank.wire.answers import BREACHES, read_add, read_search
from memrank.wire.schema import (
    AddRequest,
    Message,
    SearchRequest,
    echo_mismatches,
    problems_of,
    unix_ms,
)

__all__ = [
    "ADD_RETRIES",
    "SEARCH_RETRIES",
    "AmlEndpoints",
    "AmlMemory",
    "Chunk",
    "chunks",
    "namespace_of",
]

Parsed = TypeVar("Parsed", bound=BaseModel)
CLEARED_BY = "a fresh user_id per isolation unit; the contract has no delete"


class AmlMemory(Memory):
    """A running service that speaks the Add/Search contract, reached over HTTP.

    Give ``base_url`` (``<base>/add``, ``<base>/search``, ``<base>/health``) or ``add_url``
    and ``search_url``; left out, they are read from ``AML_BASE_URL`` or ``AML_ADD_URL`` and
    ``AML_SEARCH_URL``. ``api_key`` (else ``AML_API_KEY``) is sent with ``auth`` (else
    ``AML_AUTH``, else ``Bearer``): ``Token``, ``Bearer`` or ``X-Api-Key``, or ``none`` to send
    no key. ``timeout`` is the deadline of one request in seconds, from connecting to the last
    byte of the answer (the contract allows 30 minutes); ``attempts`` the attempts per call in
    all (an Add repeats its request_id and body, so a retry never stores twice), within two
    minutes of waiting between them; ``backoff`` the seconds before the first retry, doubling
    after; ``call_budget`` the seconds one call may take in all, retries and waits included
    (default: one deadline and two minutes), so a query the service never answers costs one
    task that long; ``max_response_mb`` the largest answer read. The endpoint's health is
    probed once, with a 10 s deadline, and remembered; an endpoint whose calls keep failing is
    no longer sent to (a circuit breaker), so its remaining tasks fail at once. A result records
    the endpoint's origin in its components. ``memrank.run`` drives each unit on its own handle
    (``for_unit``); driven directly, the units live under ``eval:run_<random>:direct``.
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
        attempts: int = 8,
        backoff: float = 0.5,
        call_budget: float | None = None,
        max_response_mb: float = 32.0,
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
        client = HttpClient(
            credentials,
            timeout=positive(timeout, "timeout", float),
            call_budget=None
            if call_budget is None
            else positive(call_budget, "call_budget", float),
            max_response_bytes=int(positive(max_response_mb, "max_response_mb", float) * 2**20),
        )
        policy = RetryPolicy(
            ADD_RETRIES,
            attempts=positive(attempts, "attempts", int),
            backoff=positive(backoff, "backoff", float),
        )
        self._service = AmlService(endpoints, client, policy)
        self._namespace = namespace_of(f"run_{secrets.token_hex(6)}", "direct")
        self._begin(None)

    def _begin(self, user_id: str | None) -> None:
        """Per-unit state: the unit's user_id, its next chunk number, what it was told."""
        self._user_id = user_id
        self._next_chunk = 0
        self._told = Told(exact_key)
        self._timings: dict[str, float] | None = None

    @property
    def endpoints(self) -> AmlEndpoints:
        return self._service.endpoints

    def close(self) -> None:
        """Close the pooled connections (also done when the last handle is collected)."""
        self._service.client.close()

    def components(self) -> dict[str, str]:
        """Where the endpoint is (scheme, host and port; never a key) and what memrank sends."""
        return self._service.identity()

    def declared_version(self) -> str | None:
        """The version the endpoint's health answer names, when it names one."""
        return self._service.version

    def time_limits(self) -> str:
        return self._service.client.time_limits(self._service.search_policy, "Add and Search")

    def for_unit(self, run_id: str, evaluation: str) -> AmlMemory:
        handle = copy.copy(self)  # shares the service; the unit state is made afresh
        handle._namespace = namespace_of(run_id, evaluation)
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
        answer = read_search(reply.content, k, self._refusal(reply, what))
        documents = tuple(
            Document(
                id=item.id,
                content=item.content,
                user_id=request.user_id,
                metadata=self._metadata(item.content, item.score, item.created_at),
            )
            for item in answer.items
        )
        self._timings = timings_since(started, reply.round_trip_ms, reply.waited_ms)
        # breaches are stated only when the answer commits any: absent means none
        breaches = {BREACHES: answer.breaches} if answer.breaches else {}
        return Recall(
            documents=documents,
            declared={
                "user_id": request.user_id,
                "attempts": reply.attempts,
                "cleared_by": CLEARED_BY,
                **breaches,
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
        mismatches = echo_mismatches(request, read_add(reply.content, self._refusal(reply, what)))
        if mismatches:
            raise ContractError(
                f"{what}: the response does not echo the request: " + "; ".join(mismatches)
            )
        self._told.add(chunk.documents)

    def _post(self, url: str, request: BaseModel, policy: RetryPolicy, what: str) -> Reply:
        # The body is serialised once: every retry sends these very bytes.
        body = orjson.dumps(request.model_dump(mode="json", exclude_none=True))
        # one breaker per endpoint: a dead Search must not hide behind a working Add
        reply = self._service.client.post(url, body, policy, what=what, circuit=url)
        if reply.status == 202:
            raise ContractError(
                f"{what}: {url} answered HTTP 202; the synchronous contract needs 200 after the "
                "write is persisted (202 only with an approved Add-status URL)"
            )
        if reply.status != 200:
            raise self._service.client.failure(reply, url, what)
        return reply

    def _refusal(self, reply: Reply, what: str) -> Callable[[str], ContractError]:
        """The error for an HTTP 200 answer the reader refuses, with why and the body's start."""
        return lambda why: ContractError(
            f"{what}: the HTTP 200 response {why}; "
            f"body: {self._service.client.excerpt(reply.content)}"
        )

    def _metadata(
        self, content: Content, score: float | None, created_at: object
    ) -> dict[str, Any]:
        """What a returned item stands for: the told document it repeats word for word and its
        session, where those are known (see ``Told``); its score and time as returned."""
        metadata = self._told.attribution(content)
        if score is not None:
            metadata["score"] = score
        if created_at is not None:
            metadata["created_at"] = created_at
        return metadata


def namespace_of(run_id: str, evaluation: str) -> str:
    """What a unit's user_id starts with: ``eval:<run>:<evaluation>`` (both opaque in a run)."""
    return f"eval:{run_id}:{evaluation}"


def _built(model: type[Parsed], what: str, **fields: Any) -> Parsed:
    """A request model, or a DefinitionError naming what the contract cannot carry."""
    try:
        return model(**fields)
    except ValidationError as exc:
        raise DefinitionError(
            f"{what} cannot be sent under the Add/Search contract: {problems_of(exc)}"
        ) from None


_MAX_MESSAGES, _MAX_WORDS = 20, 2000


@dataclass(frozen=True)
class Chunk:
    """One Add's worth of one source session."""

    session: str
    documents: tuple[Document, ...]


def chunks(documents: Sequence[Document]) -> list[Chunk]:
    """The documents grouped by source session (``metadata["session_id"]``, else each document
    is its own session) in order of first appearance, each session cut in order into chunks
    of at most 20 messages or 2,000 whitespace-counted words, as the contract's textual track
    cuts them. A single message longer than 2,000 words is sent whole, alone in its chunk:
    splitting it would change what was said."""
    sessions: dict[str, list[Document]] = {}
    for document in documents:
        sessions.setdefault(_session_of(document), []).append(document)
    cut: list[Chunk] = []
    for session, members in sessions.items():
        current: list[Document] = []
        words = 0
        for document in members:
            count = len(text_of(document.content).split())
            if current and (len(current) == _MAX_MESSAGES or words + count > _MAX_WORDS):
                cut.append(Chunk(session, tuple(current)))
                current, words = [], 0
            current.append(document)
            words += count
        cut.append(Chunk(session, tuple(current)))
    return cut


def _session_of(document: Document) -> str:
    return str(document.metadata.get("session_id", document.id))
