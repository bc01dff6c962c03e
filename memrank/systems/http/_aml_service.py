"""What every handle of one AmlMemory shares: the endpoints, the pooled client, the retry
policies, the remembered health of the endpoint (and the version it names, if it does), and
the user_ids already used."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from memrank.errors import ContractError, EndpointError, UsageError
from memrank.systems.http._client import HttpClient, Reply, RetryPolicy, checked_url, origin
from memrank.wire.answers import read_json

__all__ = [
    "ADD_RETRIES",
    "HEALTH_TIMEOUT",
    "SEARCH_RETRIES",
    "AmlEndpoints",
    "AmlService",
]

ADD_RETRIES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 524})
"""Add statuses the contract retries (with timeouts and transport failures)."""
SEARCH_RETRIES = frozenset({408, 425, 429, 500, 502, 503, 504})
"""Search statuses the contract retries (with timeouts and transport failures)."""
HEALTH_TIMEOUT = 10.0
"""Seconds the health probe may take: a health check answers at once or not at all."""
_HEALTH = RetryPolicy(
    SEARCH_RETRIES, attempts=4, backoff=0.25, max_wait=1.0, waiting=3.0, timeouts=False
)
"""A blip (a 503, a reset) is retried at once, a long Retry-After never honoured, and a
probe that runs out its deadline is not repeated: the endpoint hung, and one wait says so."""


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


class AmlService:
    """What every unit handle shares: endpoints, the pooled client, health, used user_ids."""

    def __init__(self, endpoints: AmlEndpoints, client: HttpClient, add: RetryPolicy) -> None:
        self.endpoints = endpoints
        self.client = client
        self.add_policy = add
        self.search_policy = RetryPolicy(
            SEARCH_RETRIES, add.attempts, add.backoff, add.max_wait, waiting=add.waiting
        )
        self._lock = threading.Lock()
        self._health: EndpointError | bool = False
        """False until probed; then True, or the error every later unit meets at once."""
        self._used: set[str] = set()
        self.version: str | None = None
        """The version the health answer names (``{"version": ...}``), when it names one."""

    def identity(self) -> dict[str, str]:
        """Where the endpoints are, as a run records them: scheme, host and port, no key."""
        add, search = origin(self.endpoints.add), origin(self.endpoints.search)
        return {"endpoint": add} if add == search else {"endpoint": add, "search endpoint": search}

    def ensure_healthy(self) -> None:
        """Probe health once, with its own short deadline, before the first call; the answer,
        good or bad, is remembered, so a dead endpoint costs one probe, not one per unit."""
        with self._lock:
            if self._health is False:
                self._health = self._probe()
            if isinstance(self._health, EndpointError):
                raise self._health

    def _probe(self) -> EndpointError | bool:
        url = self.endpoints.health
        what = "health check before the first call"
        try:
            reply = self.client.get(
                url, _HEALTH, what=what, authenticated=False, timeout=HEALTH_TIMEOUT, circuit=url
            )
        except EndpointError as exc:
            return exc
        if not 200 <= reply.status < 300:
            return self.client.failure(reply, url, what)
        self.version = _version_in(reply)
        return True

    def claim(self, user_id: str) -> None:
        with self._lock:
            if user_id in self._used:
                raise UsageError(
                    f"user_id {user_id!r} was already used by this client, and the contract has "
                    "no delete: a unit is cleared only by a fresh user_id. Run again (each run "
                    "has a new run id) or use a new AmlMemory"
                )
            self._used.add(user_id)


def _version_in(reply: Reply) -> str | None:
    """The ``version`` a JSON health answer names, if it names one as text."""
    try:
        body = read_json(reply.content, ContractError)
    except ContractError:
        return None
    version = body.get("version") if isinstance(body, dict) else None
    return version if isinstance(version, str) and version else None
