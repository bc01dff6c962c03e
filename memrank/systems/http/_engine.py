"""What every client of a running memory engine shares.

An engine client is a Memory whose four verbs become calls to the engine's own HTTP API.
This module holds everything that is the same across engines: where the engine is (an
argument, else the engine's environment variable), its key, timeouts and the retry table per
operation, one namespace per isolation unit, the engine's own words in every error (capped
and free of the key), the cut to at most k, the raw response kept in ``declared``, and the
usage the engine reports. Each engine module says only how its API spells the four verbs.
"""

from __future__ import annotations

import copy
import hashlib
import os
import re
import secrets
import time
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar
from urllib.parse import quote

import orjson

from memrank.errors import ContractError, EndpointError, UsageError
from memrank.system import Content, Document, Memory, Recall, text_of
from memrank.systems.http._attribution import Told
from memrank.systems.http._client import (
    Auth,
    HttpClient,
    RetryPolicy,
    checked_url,
    origin,
    positive,
    redirect_note,
    timings_since,
)
from memrank.wire.answers import within_values

__all__ = [
    "DOC_ID_KEY",
    "EngineMemory",
    "Found",
    "Hit",
    "carried_id",
    "engine_words",
    "field",
    "namespace_of",
    "numbers",
    "score_of",
    "segment",
]

DOC_ID_KEY = "memrank_doc_id"
"""The metadata key under which a document's id travels to the engine and comes back."""

READ_RETRIES = frozenset({408, 425, 429, 500, 502, 503, 504})
"""Reads, resets and deletes repeat harmlessly: retried on these statuses and on timeouts."""
WRITE_RETRIES = frozenset({429, 503})
"""A write is retried only when the engine says it did nothing (rate limit, unavailable), and
never after a timeout: the engine may have written, and a second write would double it."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def namespace_of(run: str, evaluation: str, unit: str) -> str:
    """A name for one unit of one run that every engine accepts as an id, a path segment or a
    tag (letters, digits, ``-`` and ``_``, at most 100 characters), unique by its hash."""
    whole = f"{run}:{evaluation}:{unit}"
    readable = _UNSAFE.sub("-", whole).strip("-")[:70]
    return f"memrank-{readable}-{hashlib.sha256(whole.encode()).hexdigest()[:12]}"


def segment(value: str) -> str:
    """A value placed in a URL path, escaped."""
    return quote(value, safe="")


def engine_words(content: bytes) -> str:
    """What an engine said in an error body: the documented message field when there is one
    (``detail``, ``error``, ``message``, with ``details``), else the body as it came."""
    try:
        body = orjson.loads(content)
    except orjson.JSONDecodeError:
        return content.decode("utf-8", errors="replace")
    if not isinstance(body, dict):
        return content.decode("utf-8", errors="replace")
    said = [body[k] for k in ("detail", "error", "message", "details") if body.get(k) is not None]
    if not said:
        return content.decode("utf-8", errors="replace")
    return "; ".join(s if isinstance(s, str) else orjson.dumps(s).decode() for s in said)


def field(mapping: Any, key: str, kind: type, what: str) -> Any:
    """``mapping[key]`` when the response has it with the documented type; a ContractError
    naming the field and showing the response otherwise."""
    value = mapping.get(key) if isinstance(mapping, dict) else None
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        shown = orjson.dumps(mapping).decode()[:300]
        raise ContractError(
            f"{what}: the response has no {kind.__name__} {key!r} as the engine's API documents; "
            f"got {shown}"
        )
    return value


def carried_id(item: Any) -> str | None:
    """The document id an engine carried back in an item's metadata, if it did."""
    metadata = item.get("metadata") if isinstance(item, dict) else None
    value = metadata.get(DOC_ID_KEY) if isinstance(metadata, dict) else None
    return str(value) if value is not None else None


def score_of(value: Any) -> float | None:
    """A score as a number, or None when the engine gave none."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def numbers(value: Any) -> dict[str, float] | None:
    """The numeric entries of a usage object, or None when the engine reported none."""
    if not isinstance(value, dict):
        return None
    found = {
        str(k): float(v)
        for k, v in value.items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    }
    return found or None


@dataclass(frozen=True)
class Hit:
    """One item an engine returned, as memrank reads it."""

    id: str
    content: str
    doc_id: str | None = None
    """The told document it stands for, when the engine carried the id back."""
    score: float | None = None


@dataclass(frozen=True)
class Found:
    """What a search returned: the items best first, the response whole, the usage reported."""

    hits: list[Hit]
    response: Any
    usage: dict[str, float] | None = None


class EngineMemory(Memory):
    """A running engine reached over its own HTTP API; subclasses spell the four verbs.

    ``base_url`` (else the class's ``url_variable``), ``api_key`` (else ``key_variable``),
    ``timeout`` seconds per request (else the engine's ``default_timeout``), ``attempts`` in
    all per call and ``backoff`` seconds before the first retry, doubling after. Each isolation
    unit is its own namespace, named from the run, the evaluation and the unit
    (``namespace_of``); ``memrank.run`` drives each unit on its own handle (``for_unit``),
    and a memory driven directly names its units under a random run of its own.
    """

    transport = "http"
    engine: ClassVar[str] = ""
    """The engine's name, as its errors quote it."""
    url_variable: ClassVar[str] = ""
    key_variable: ClassVar[str] = ""
    auth_scheme: ClassVar[str] = "Bearer"
    key_required: ClassVar[bool] = False
    default_timeout: ClassVar[float] = 300.0
    version_at: ClassVar[tuple[str, ...]] = ()
    """Where the engine names its version: a GET path, then the keys down to the text
    (``("/version", "api_version")``); empty when it names none."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float | None = None,
        attempts: int = 4,
        backoff: float = 0.5,
    ) -> None:
        url = base_url or os.environ.get(self.url_variable) or None
        if url is None:
            raise UsageError(
                f"{self.engine}: no base URL; give base_url= or set {self.url_variable} to "
                "where the engine listens"
            )
        self.base_url = checked_url(url, f"{self.engine} base URL")
        key = api_key if api_key is not None else os.environ.get(self.key_variable, "")
        if self.key_required and not key:
            raise UsageError(
                f"{self.engine} needs an API key: give api_key= or set {self.key_variable}"
            )
        seconds = positive(self.default_timeout if timeout is None else timeout, "timeout", float)
        self._client = HttpClient(
            Auth(self.auth_scheme, key) if key else None,
            timeout=seconds,
            unreachable=f"is {self.engine} running there? (base_url=, else {self.url_variable})",
        )
        tries, wait = positive(attempts, "attempts", int), positive(backoff, "backoff", float)
        self._reads = RetryPolicy(READ_RETRIES, tries, wait)
        self._writes = RetryPolicy(WRITE_RETRIES, tries, wait, transport=False)
        self._scope = (f"direct_{secrets.token_hex(6)}", "direct")
        # what the engine is asked once per client (its version, a translator's description),
        # by name: shared by every unit's handle
        self._said_once: dict[str, Any] = {}
        self._begin(None)

    def _begin(self, namespace: str | None) -> None:
        """Per-unit state: the unit's namespace, what it was told, what its ingest reported."""
        self._namespace = namespace
        self._told = Told(text_of)
        self._ingest_usage: dict[str, float] = {}
        self._usage: dict[str, float] | None = None
        self._timings: dict[str, float] | None = None
        self._round_trip_ms = self._waited_ms = 0.0

    def close(self) -> None:
        """Close the pooled connections (also done when the last handle is collected)."""
        self._client.close()

    def for_unit(self, run_id: str, evaluation: str) -> EngineMemory:
        handle = copy.copy(self)  # shares the pooled client; the unit state is made afresh
        handle._scope = (run_id, evaluation)
        handle._begin(None)
        return handle

    def components(self) -> dict[str, str]:
        """Where the engine is (scheme, host and port; never a key) and the configuration
        memrank sends it."""
        return {"endpoint": origin(self.base_url), **self.configuration()}

    def configuration(self) -> dict[str, str]:
        """What memrank sends the engine that changes what it does, by name."""
        return {}

    def declared_version(self) -> str | None:
        """The version the engine names (``version_at``), read once when the first unit is
        prepared; None when it names none or did not answer."""
        version: str | None = self._said_once.get("version")
        return version

    def time_limits(self) -> str:
        return self._client.time_limits(self._reads, f"calls to {self.engine}")

    def namespace(self, unit: str) -> str:
        """The namespace an isolation unit lives in on the engine."""
        return namespace_of(*self._scope, unit)

    # -- the four verbs -----------------------------------------------------------------------

    def prepare(self, isolation_unit: str) -> None:
        namespace = self.namespace(isolation_unit)
        self._begin(namespace)
        self._reset(namespace)
        if "version" not in self._said_once:  # once it answered: a dead engine costs no more
            self._said_once["version"] = self._engine_version()

    def ingest(self, documents: Sequence[Document]) -> None:
        namespace = self._current("ingest")
        self._told.add(documents)
        for name, amount in (self._write(namespace, documents) or {}).items():
            self._ingest_usage[name] = self._ingest_usage.get(name, 0.0) + amount

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        namespace = self._current("retrieve")
        started = time.perf_counter()
        self._round_trip_ms = self._waited_ms = 0.0
        found = self._search(namespace, text_of(query), k, query_timestamp)
        documents = tuple(
            Document(id=hit.id, content=hit.content, metadata=self._metadata(hit))
            for hit in found.hits[:k]
        )
        self._usage = self._reported(found.usage)
        self._timings = timings_since(started, self._round_trip_ms, self._waited_ms)
        return Recall(
            documents=documents,
            declared={
                "namespace": namespace,
                "engine_returned": len(found.hits),
                "response": found.response,
            },
        )

    def cleanup(self) -> None:
        namespace = self._namespace
        try:
            if namespace is not None:
                self._delete(namespace)
        finally:
            self._begin(None)

    def usage(self) -> dict[str, float] | None:
        """What the engine reported for the last retrieve; the first retrieve of a unit also
        carries, as ``ingest.<name>``, what the engine reported for the unit's ingest."""
        return self._usage

    def engine_timings(self) -> dict[str, float] | None:
        """The last retrieve: milliseconds in HTTP round trips, waiting between attempts, and in
        memrank's own client (building, validating, mapping)."""
        return self._timings

    # -- what each engine spells --------------------------------------------------------------

    @abstractmethod
    def _reset(self, namespace: str) -> None:
        """Create the namespace, or empty it if it holds anything."""

    @abstractmethod
    def _write(self, namespace: str, documents: Sequence[Document]) -> dict[str, float] | None:
        """Send the documents, ids in metadata; returns the usage the engine reported."""

    @abstractmethod
    def _search(
        self, namespace: str, query: str, k: int, query_timestamp: datetime | None
    ) -> Found:
        """The engine's answer to the query, best first."""

    @abstractmethod
    def _delete(self, namespace: str) -> None:
        """Delete the namespace and all it holds."""

    # -- shared by the engines --------------------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        what: str,
        body: Any = None,
        *,
        write: bool = False,
        missing_ok: bool = False,
    ) -> Any:
        """One call to the engine: the parsed JSON answer (None for an empty body, or for 404
        when ``missing_ok``), or an EndpointError carrying the engine's own words."""
        url = f"{self.base_url}{path}"
        payload = None if body is None else orjson.dumps(body)
        policy = self._writes if write else self._reads
        reply = self._client.send(method, url, payload, policy, what=what)
        self._round_trip_ms += reply.round_trip_ms
        self._waited_ms += reply.waited_ms
        if missing_ok and reply.status == 404:
            return None
        if not 200 <= reply.status < 300:
            said = self._client.excerpt(engine_words(reply.content).encode()) or "(empty body)"
            raise EndpointError(
                f"{what}: {method} {url} answered HTTP {reply.status} after {reply.attempts} "
                f"attempt(s){redirect_note(reply)}; {self.engine} said: {said}"
            )
        if not reply.content.strip():
            return None
        within_values(reply.content, lambda why: ContractError(f"{what}: {method} {url} {why}"))
        try:
            return orjson.loads(reply.content)
        except orjson.JSONDecodeError:
            raise ContractError(
                f"{what}: {method} {url} answered HTTP {reply.status} with a body that is not "
                f"JSON: {self._client.excerpt(reply.content)}"
            ) from None

    def _engine_version(self) -> str | None:
        if not self.version_at:
            return None
        path, *keys = self.version_at
        try:
            found = self._call("GET", path, f"read {self.engine}'s version")
        except (EndpointError, ContractError):
            return None  # the version is recorded when the engine says it, never required
        for key in keys:
            found = found.get(key) if isinstance(found, dict) else None
        return found if isinstance(found, str) and found else None

    def _current(self, verb: str) -> str:
        if self._namespace is None:
            raise UsageError(f"{verb} before prepare: call prepare(isolation_unit) first")
        return self._namespace

    def _metadata(self, hit: Hit) -> dict[str, Any]:
        """The told document a hit stands for, and its session: the id the engine carried
        back, else the one document of this unit whose text it repeats word for word."""
        metadata = self._told.attribution(hit.content, hit.doc_id)
        if hit.score is not None:
            metadata["score"] = hit.score
        return metadata

    def _reported(self, search: Mapping[str, float] | None) -> dict[str, float] | None:
        reported = dict(search or {})
        reported.update({f"ingest.{name}": v for name, v in self._ingest_usage.items()})
        self._ingest_usage = {}  # stated once, on the first retrieve of the unit
        return reported or None
