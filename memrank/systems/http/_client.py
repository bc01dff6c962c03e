"""One HTTP client for every running service memrank talks to.

It holds the auth header, the timeouts and a connection pool that concurrent units share,
and applies a retry policy per operation: bounded exponential backoff that honours
Retry-After, the identical request body on every attempt. Error text it puts in a message
is capped and has the secret cut out.
"""

from __future__ import annotations

import email.utils
import hmac
import os
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx

from memrank.errors import EndpointError, UsageError

__all__ = [
    "SCHEMES",
    "Auth",
    "HttpClient",
    "Reply",
    "RetryPolicy",
    "checked_url",
    "positive",
    "timings_since",
]

SCHEMES = ("Token", "Bearer", "X-Api-Key")
"""The authentication schemes a service may use: ``Authorization: Token|Bearer <key>`` or
an ``X-Api-Key: <key>`` header."""

_TEXT_CAP = 500
Number = TypeVar("Number", int, float)


@dataclass(frozen=True)
class Auth:
    """An authentication scheme and its secret (never printed)."""

    scheme: str
    secret: str = field(repr=False)

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES:
            raise UsageError(
                f"auth scheme {self.scheme!r} is not one of {', '.join(SCHEMES)}; "
                "pick the one the endpoint expects"
            )
        if not self.secret:
            raise UsageError(f"the {self.scheme} secret is empty; give the key")

    @classmethod
    def named(cls, scheme: str, secret: str) -> Auth:
        """An Auth from a scheme name given in any letter case."""
        canonical = {s.lower(): s for s in SCHEMES}.get(scheme.lower(), scheme)
        return cls(canonical, secret)

    @classmethod
    def from_spec(cls, spec: str) -> Auth:
        """``SCHEME:ENVVAR`` (as ``--auth`` takes it): the scheme, keyed by that variable."""
        scheme, colon, variable = spec.partition(":")
        if not colon or not variable:
            raise UsageError(
                f"--auth {spec!r} is not SCHEME:ENVVAR; e.g. --auth Bearer:AML_API_KEY "
                f"(schemes: {', '.join(SCHEMES)})"
            )
        secret = os.environ.get(variable, "")
        if not secret:
            raise UsageError(f"--auth {spec}: the environment variable {variable} is not set")
        return cls.named(scheme, secret)

    def headers(self) -> dict[str, str]:
        """The header that carries the secret."""
        if self.scheme == "X-Api-Key":
            return {"X-Api-Key": self.secret}
        return {"Authorization": f"{self.scheme} {self.secret}"}

    def accepts(self, headers: Mapping[str, str]) -> bool:
        """Whether request headers (looked up by lower-case name) carry this secret."""
        ((name, expected),) = self.headers().items()
        given = headers.get(name.lower(), "")
        return hmac.compare_digest(given.encode(), expected.encode())


@dataclass(frozen=True)
class RetryPolicy:
    """Which failures of one operation are retried, how often, and how long to wait between."""

    statuses: frozenset[int]
    """HTTP statuses that are retried; every other status is final."""
    attempts: int = 4
    """Attempts in all, the first included."""
    backoff: float = 0.5
    """Seconds before the second attempt; doubled for each attempt after."""
    max_wait: float = 30.0
    """The longest wait between attempts, Retry-After included."""
    transport: bool = True
    """Whether timeouts and connection failures are retried."""

    def wait(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        wanted = retry_after if retry_after is not None else self.backoff * 2 ** (attempt - 1)
        return min(self.max_wait, max(0.0, wanted))


NO_RETRY = RetryPolicy(frozenset(), attempts=1, transport=False)


@dataclass(frozen=True)
class Reply:
    """The last answer to a request, and what getting it took."""

    status: int
    content: bytes
    headers: httpx.Headers
    attempts: int
    """Attempts made, the first included."""
    round_trip_ms: float
    """Milliseconds spent in HTTP exchanges, every attempt included."""
    waited_ms: float
    """Milliseconds spent waiting between attempts."""


def checked_url(url: str, what: str) -> str:
    """The URL if it is http(s) without embedded credentials; refused otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"{what} {url!r} is not an http(s) URL")
    if parts.username is not None or parts.password is not None:
        raise UsageError(f"{what} embeds credentials; give the key through the auth header instead")
    return url.rstrip("/")


def positive(value: Any, name: str, kind: type[Number]) -> Number:
    """An option that may arrive as text from the command line, as the positive number it names."""
    try:
        number = kind(value)
    except (TypeError, ValueError):
        raise UsageError(f"option {name}={value!r} is not a {kind.__name__}") from None
    if number <= 0:
        raise UsageError(f"option {name}={value!r} must be above 0")
    return number


def timings_since(started: float, round_trip_ms: float, waited_ms: float) -> dict[str, float]:
    """The milliseconds since ``started`` (a ``time.perf_counter()`` reading), split into HTTP
    round trips, waiting between attempts, and memrank's own client (the rest: building,
    validating, mapping), as a client's ``engine_timings`` reports them."""
    total = (time.perf_counter() - started) * 1000
    return {
        "round_trip": round_trip_ms,
        "backoff": waited_ms,
        "client": total - round_trip_ms - waited_ms,
    }


class HttpClient:
    """A pooled HTTP client with an auth header, timeouts and retries; safe across threads."""

    def __init__(
        self,
        auth: Auth | None,
        *,
        timeout: float,
        connect_timeout: float = 10.0,
        unreachable: str = "",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self._auth = auth
        self._unreachable = unreachable
        """Appended to the message when the service cannot be reached: what to check."""
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=min(timeout, connect_timeout)),
            headers={
                "Content-Type": "application/json",
                **(headers or {}),  # fixed headers an API requires (a version pin)
                **(auth.headers() if auth else {}),
            },
        )
        # A client left open would leave sockets to the garbage collector; close them
        # when the last object holding this client goes, or at exit.
        self._closer = weakref.finalize(self, self._client.close)

    def close(self) -> None:
        self._closer()

    def post(self, url: str, body: bytes, policy: RetryPolicy, *, what: str) -> Reply:
        """POST the same body until an answer is final under ``policy``."""
        return self._send("POST", url, body, policy, what, authenticated=True)

    def get(self, url: str, policy: RetryPolicy, *, what: str, authenticated: bool = True) -> Reply:
        """GET until an answer is final under ``policy``."""
        return self._send("GET", url, None, policy, what, authenticated=authenticated)

    def send(
        self, method: str, url: str, body: bytes | None, policy: RetryPolicy, *, what: str
    ) -> Reply:
        """Any authenticated request (DELETE and PUT too), repeated until final under ``policy``."""
        return self._send(method, url, body, policy, what, authenticated=True)

    def failure(self, reply: Reply, url: str, what: str) -> EndpointError:
        """An EndpointError naming the status and what the service said, capped and redacted."""
        return EndpointError(
            f"{what}: {url} answered HTTP {reply.status} after {reply.attempts} attempt(s): "
            f"{self.excerpt(reply.content) or '(empty body)'}"
        )

    def excerpt(self, content: bytes) -> str:
        """Text from a service, capped at 500 characters, with the secret cut out."""
        text = content.decode("utf-8", errors="replace")
        if self._auth is not None:
            text = text.replace(self._auth.secret, "[secret]")
        if len(text) > _TEXT_CAP:
            text = text[:_TEXT_CAP] + f"... ({len(text) - _TEXT_CAP} characters cut)"
        return text

    def _send(
        self,
        method: str,
        url: str,
        body: bytes | None,
        policy: RetryPolicy,
        what: str,
        *,
        authenticated: bool,
    ) -> Reply:
        round_trip = waited = 0.0
        for attempt in range(1, policy.attempts + 1):
            request = self._client.build_request(method, url, content=body)
            if not authenticated:
                for name in ("Authorization", "X-Api-Key"):
                    request.headers.pop(name, None)
            started = time.perf_counter()
            try:
                response = self._client.send(request)
            except httpx.TransportError as exc:
                round_trip += time.perf_counter() - started
                if not policy.transport or attempt == policy.attempts:
                    raise EndpointError(
                        f"{what}: {url} could not be reached after {attempt} attempt(s): "
                        f"{type(exc).__name__}: {self.excerpt(str(exc).encode())}"
                        + (f"; {self._unreachable}" if self._unreachable else "")
                    ) from None
                retry_after = None
            else:
                round_trip += time.perf_counter() - started
                final = response.status_code not in policy.statuses
                if final or attempt == policy.attempts:
                    return Reply(
                        status=response.status_code,
                        content=response.content,
                        headers=response.headers,
                        attempts=attempt,
                        round_trip_ms=round_trip * 1000,
                        waited_ms=waited * 1000,
                    )
                retry_after = _seconds(response.headers.get("Retry-After"))
            pause = policy.wait(attempt, retry_after)
            time.sleep(pause)
            waited += pause
        raise AssertionError("unreachable: the last attempt returns or raises")


def _seconds(retry_after: str | None) -> float | None:
    """Retry-After as seconds from now: delta-seconds or an HTTP date; None when absent or bad."""
    if retry_after is None:
        return None
    try:
        return float(retry_after)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(retry_after)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - datetime.now(UTC)).total_seconds()
