"""The contract's server side, free of any web framework: Add, Search and health over any
in-process Memory, one isolated store per user_id. ``wire.serve`` puts it on HTTP."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from memrank.system import Document, Memory, takes_options
from memrank.systems.http._client import Auth
from memrank.wire.schema import (
    AddRequest,
    AddResponse,
    ErrorReason,
    ErrorResponse,
    SearchItem,
    SearchRequest,
    SearchResponse,
    from_unix_ms,
    problems_of,
)

__all__ = ["Answer", "ContractService"]

Request = TypeVar("Request", bound=BaseModel)


@dataclass(frozen=True)
class Answer:
    """An HTTP status and the JSON body to send with it."""

    status: int
    body: bytes


def reason(status: int, text: str) -> Answer:
    """A business error in the contract's ``{"detail": {"reason": ...}}`` shape."""
    error = ErrorResponse(detail=ErrorReason(reason=text))
    return Answer(status, error.model_dump_json().encode())


def _invalid(error: ValidationError) -> Answer:
    """HTTP 422 with the field details (without the offending input, which may be private)."""
    details = [
        {"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]}
        for e in error.errors(include_url=False)
    ]
    return Answer(422, orjson.dumps({"detail": details}))


@dataclass
class _Store:
    """One user_id's memory, the Adds it has taken, and a lock that serialises its calls."""

    memory: Memory
    taken: dict[str, str] = field(default_factory=dict)
    """request_id -> digest of the request it carried."""
    lock: threading.Lock = field(default_factory=threading.Lock)


class ContractService:
    """The Add/Search contract over fresh memories from ``make_memory``, one per user_id.

    Add is synchronous (the documents are ingested before 200) and idempotent: a request_id
    seen before with the same request is answered again without ingesting twice, and with a
    different request is a 409. Search under a user_id never stored is ``data: []``.
    """

    def __init__(self, make_memory: Callable[[], Memory], auth: Auth | None = None) -> None:
        self._make_memory = make_memory
        self._auth = auth
        self._stores: dict[str, _Store] = {}
        self._lock = threading.Lock()

    def health(self) -> Answer:
        return Answer(200, b'{"status":"ok"}')

    def add(self, body: bytes, headers: Mapping[str, str]) -> Answer:
        """Answer an Add; ``headers`` are looked up by lower-case name."""
        request = self._request(AddRequest, body, headers)
        if isinstance(request, Answer):
            return request
        digest = hashlib.sha256(request.model_dump_json().encode()).hexdigest()
        try:
            store = self._store(request.user_id, create=True)
        except Exception as exc:  # noqa: BLE001 - the served memory's failure is the answer
            return reason(500, f"the memory could not be prepared: {type(exc).__name__}: {exc}")
        assert store is not None
        with store.lock:
            seen = store.taken.get(request.request_id)
            if seen is not None and seen != digest:
                return reason(
                    409,
                    f"request_id {request.request_id!r} was already taken with a different "
                    "request; a retry must repeat the identical request",
                )
            if seen is None:
                try:
                    store.memory.ingest(_documents(request))
                except Exception as exc:  # noqa: BLE001
                    return reason(500, f"the memory raised {type(exc).__name__}: {exc}")
                store.taken[request.request_id] = digest
        echo = AddResponse(
            success=True,
            request_id=request.request_id,
            user_id=request.user_id,
            session_id=request.session_id,
        )
        return Answer(200, echo.model_dump_json().encode())

    def search(self, body: bytes, headers: Mapping[str, str]) -> Answer:
        """Answer a Search; ``headers`` are looked up by lower-case name."""
        request = self._request(SearchRequest, body, headers)
        if isinstance(request, Answer):
            return request
        store = self._store(request.user_id, create=False)
        if store is None:
            return Answer(200, SearchResponse(data=()).model_dump_json().encode())
        options: dict[str, Any] = {}
        if request.options is not None and takes_options(store.memory):
            options["options"] = request.options
        with store.lock:
            try:
                recall = store.memory.retrieve(
                    request.query, request.top_k, request.user_id, **options
                )
            except Exception as exc:  # noqa: BLE001
                return reason(500, f"the memory raised {type(exc).__name__}: {exc}")
        if len(recall.documents) > request.top_k:
            return reason(
                500, f"the memory returned {len(recall.documents)} items for top_k={request.top_k}"
            )
        try:
            found = SearchResponse(data=tuple(_item(d) for d in recall.documents))
        except ValidationError as exc:
            return reason(
                500, f"the memory returned what the contract cannot carry: {problems_of(exc)}"
            )
        return Answer(200, found.model_dump_json(exclude_none=True).encode())

    def _request(
        self, model: type[Request], body: bytes, headers: Mapping[str, str]
    ) -> Request | Answer:
        """The request, or the answer that refuses it: 401 without the credentials, else 422
        for a body off the contract."""
        if self._auth is not None and not self._auth.accepts(headers):
            ((header, _),) = self._auth.headers().items()
            scheme = "" if header == "X-Api-Key" else f" {self._auth.scheme}"
            return reason(
                401, f"missing or wrong credentials; this endpoint expects {header}:{scheme} <key>"
            )
        try:
            return model.model_validate_json(body)
        except ValidationError as exc:
            return _invalid(exc)

    def _store(self, user_id: str, *, create: bool) -> _Store | None:
        with self._lock:
            store = self._stores.get(user_id)
            if store is None and create:
                memory = self._make_memory()
                memory.prepare(user_id)
                store = self._stores[user_id] = _Store(memory)
            return store


def _documents(request: AddRequest) -> list[Document]:
    """The Add's messages as documents, each id ``<request_id>:<position>``."""
    return [
        Document(
            id=f"{request.request_id}:{position}",
            content=message.content,
            user_id=request.user_id,
            timestamp=from_unix_ms(message.timestamp) if message.timestamp is not None else None,
            metadata={"session_id": request.session_id, "role": message.role},
        )
        for position, message in enumerate(request.messages)
    ]


def _item(document: Document) -> SearchItem:
    return SearchItem(
        id=document.id,
        content=document.content,
        created_at=document.timestamp.isoformat().replace("+00:00", "Z")
        if document.timestamp
        else None,
    )
