"""One HTTP client for every running service memrank talks to.

It holds the auth header, the deadline, the response cap, a circuit breaker and a
connection pool that concurrent units share, and applies a retry policy per operation:
bounded exponential backoff that honours Retry-After, the identical request body on every
attempt, within a total waiting budget, and every call, retries included, within its own
time budget. Every exchange (connect, send, every byte of the answer) ends within the
deadline, and an answer larger than the cap is refused as it streams, or as it inflates when
the service compressed it although memrank asks for identity, so no endpoint can hold a call
for ever or fill memory; an answer followed or preceded by bytes nobody asked for fails its
call and closes its connection (``_exchange``). Each call is registered in flight while it lasts (memrank._inflight),
so a run can name what it waits on. Error text it puts in a message is capped and has the
secret cut out, and says what happened: unreachable, too slow, dropped, or redirected
(naming where to).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx

from memrank._inflight import STUCK_AFTER, in_flight
from memrank.errors import ContractError, EndpointError, UsageError
from memrank.systems.http._auth import SCHEMES, Auth
from memrank.systems.http._breaker import Breaker
from memrank.systems.http._exchange import exchange
from memrank.systems.http._lanes import RestingTransport
from memrank.systems.http._policy import NO_RETRY, WAITING, RetryPolicy, retry_after_seconds
from memrank.systems.http._transport import deadline

__all__ = [
    "MAX_RESPONSE_BYTES",
    "NO_RETRY",
    "SCHEMES",
    "Auth",
    "HttpClient",
    "Reply",
    "RetryPolicy",
    "checked_url",
    "origin",
    "positive",
    "redirect_note",
    "timings_since",
]

_TEXT_CAP = 500
MAX_RESPONSE_BYTES = 32 * 1024 * 1024
"""The largest answer read by default: far above any Search of top_k items of text, far
below what would strain memory."""
Number = TypeVar("Number", int, float)


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
    """A pooled HTTP client with an auth header, a deadline per exchange, a response cap, a
    circuit breaker and retries; safe across threads.

    ``timeout`` is the deadline of one exchange in seconds, from connecting to the last byte
    of the answer; ``call_budget`` the seconds one call may take in all, every attempt and
    wait included (default: one deadline and two minutes), so a request the service never
    answers costs at most that, retried or not; ``max_response_bytes`` the largest answer
    read, inflated; ``breaking`` whether a circuit breaker may stop calls to an endpoint it
    finds down (a conformance check, which judges every call itself, turns it off).
    """

    def __init__(
        self,
        auth: Auth | None,
        *,
        timeout: float,
        call_budget: float | None = None,
        connect_timeout: float = 10.0,
        unreachable: str = "",
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        headers: Mapping[str, str] | None = None,
        breaking: bool = True,
    ) -> None:
        self._auth = auth
        self._breaking = breaking
        self._timeout = timeout
        self.call_budget = timeout + WAITING if call_budget is None else call_budget
        self._cap = max_response_bytes
        self._unreachable = unreachable
        """Appended to the message when the service cannot be reached: what to check."""
        self._breakers: dict[str, Breaker] = {}
        self._breakers_lock = threading.Lock()
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=min(timeout, connect_timeout)),
            headers={
                "Content-Type": "application/json",
                # a compressed answer could inflate past any cap: ask for none
                "Accept-Encoding": "identity",
                **(headers or {}),  # fixed headers an API requires (a version pin)
                **(auth.headers() if auth else {}),
            },
            transport=RestingTransport(),
        )
        # A client left open would leave sockets to the garbage collector; close them
        # when the last object holding this client goes, or at exit.
        self._closer = weakref.finalize(self, self._client.close)

    def close(self) -> None:
        self._closer()

    def post(
        self, url: str, body: bytes, policy: RetryPolicy, *, what: str, circuit: str | None = None
    ) -> Reply:
        """POST the same body until an answer is final under ``policy``."""
        return self._send("POST", url, body, policy, what, authenticated=True, circuit=circuit)

    def get(
        self,
        url: str,
        policy: RetryPolicy,
        *,
        what: str,
        authenticated: bool = True,
        timeout: float | None = None,
        circuit: str | None = None,
    ) -> Reply:
        """GET until an answer is final under ``policy``; ``timeout`` overrides the deadline."""
        return self._send(
            "GET",
            url,
            None,
            policy,
            what,
            authenticated=authenticated,
            timeout=timeout,
            circuit=circuit,
        )

    def send(
        self, method: str, url: str, body: bytes | None, policy: RetryPolicy, *, what: str
    ) -> Reply:
        """Any authenticated request (DELETE and PUT too), repeated until final under ``policy``."""
        return self._send(method, url, body, policy, what, authenticated=True)

    def failure(self, reply: Reply, url: str, what: str) -> EndpointError:
        """An EndpointError naming the status and what the service said, capped and redacted."""
        return EndpointError(
            f"{what}: {url} answered HTTP {reply.status} after {reply.attempts} attempt(s)"
            f"{redirect_note(reply)}: {self.excerpt(reply.content) or '(empty body)'}"
        )

    def breaker(self, circuit: str) -> Breaker:
        """The breaker of one endpoint (a circuit: by default the URL's scheme, host and port;
        a caller may name finer ones, as the Add/Search client does per operation)."""
        with self._breakers_lock:
            made = Breaker() if self._breaking else Breaker.never()
            return self._breakers.setdefault(circuit, made)

    def time_limits(self, policy: RetryPolicy, calls: str) -> str:
        """The bounds on time of ``calls`` made under ``policy``, as a run states them at its
        start: the deadline, the budget, and the worst case to a verdict on a dead endpoint."""
        budget, breaker = self.call_budget, Breaker()
        alone = (breaker.consecutive - 1) * budget + self._timeout
        return (
            f"{calls}: each request's deadline {self._timeout:g} s; each call's budget "
            f"{budget:g} s ({policy.attempts} attempts at most, {policy.waiting:g} s of waiting "
            f"between them at most); a call still waiting after {STUCK_AFTER:g} s is named "
            f"here. An endpoint that stops answering is declared down after about "
            f"{self._timeout:g} s when three or more units run at once "
            f"({budget + self._timeout:g} s when two do, {alone:g} s when one does); one that "
            f"answers only errors, after about {breaker.span:g} s when three or more do; one "
            f"that cannot be reached, after about {breaker.span:g} s when two or more do."
        )

    def excerpt(self, content: bytes) -> str:
        """Text from a service, capped at 500 characters, with the secret cut out."""
        secret = self._auth.secret if self._auth is not None else ""
        # only what can be shown is decoded (a character is at most 4 bytes), and a secret
        # beginning there whole, so a 32 MB answer is never copied to be cut
        head = content[: 4 * (_TEXT_CAP + len(secret))]
        text = head.decode("utf-8", errors="replace")
        if secret:
            text = text.replace(secret, "[secret]")
        if len(text) > _TEXT_CAP:
            text = text[:_TEXT_CAP] + f"... (characters cut: {len(content):,} bytes in all)"
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
        timeout: float | None = None,
        circuit: str | None = None,
    ) -> Reply:
        limit = self._timeout if timeout is None else timeout
        # a deadline given for one call (a health probe) comes with its own budget
        budget = self.call_budget if timeout is None else timeout + policy.waiting
        breaker = self.breaker(circuit or origin(url))
        with in_flight(f"{what} ({method} {url})") as call:
            return self._attempts(
                method,
                url,
                body,
                policy,
                what,
                authenticated,
                (limit, budget),
                breaker,
                call.number,
            )

    def _attempts(
        self,
        method: str,
        url: str,
        body: bytes | None,
        policy: RetryPolicy,
        what: str,
        authenticated: bool,
        bounds: tuple[float, float],
        breaker: Breaker,
        call: int,
    ) -> Reply:
        """The attempts of call number ``call``: each within the first of ``bounds`` (the
        deadline), all within the second (the call's budget)."""
        limit, budget = bounds
        ends = time.monotonic() + budget
        round_trip = waited = 0.0
        for attempt in range(1, policy.attempts + 1):
            breaker.admit(what)
            request = self._client.build_request(method, url, content=body)
            if not authenticated:
                for name in ("Authorization", "X-Api-Key"):
                    request.headers.pop(name, None)
            seconds = min(limit, ends - time.monotonic())
            began, started = time.monotonic(), time.perf_counter()
            try:
                with deadline(seconds):
                    status, headers, content = exchange(
                        self._client, request, self._cap, lambda why: self._refusal(url, what, why)
                    )
            except httpx.TransportError as exc:
                round_trip += time.perf_counter() - started
                said = _transport_words(exc, seconds, budget if seconds < limit else None)
                unreached = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
                breaker.record(call, attempt, True, said, began, unreachable=unreached)
                pause = policy.wait(attempt, None)
                retried = policy.transport and (
                    policy.timeouts or not isinstance(exc, httpx.TimeoutException)
                )
                if not retried or _last(attempt, policy, waited + pause, ends - pause):
                    hint = self._unreachable if isinstance(exc, httpx.ConnectError) else ""
                    raise EndpointError(
                        f"{what}: {url} {said} after {attempt} attempt(s): "
                        f"{type(exc).__name__}: {self.excerpt(str(exc).encode())}"
                        + (f"; {hint}" if hint else "")
                    ) from None
            else:
                round_trip += time.perf_counter() - started
                breaker.record(call, attempt, _endpoint_failed(status), f"HTTP {status}", began)
                retry_after = retry_after_seconds(headers.get("Retry-After"))
                pause = policy.wait(attempt, retry_after)
                final = status not in policy.statuses
                if final or _last(attempt, policy, waited + pause, ends - pause):
                    return Reply(
                        status=status,
                        content=content,
                        headers=headers,
                        attempts=attempt,
                        round_trip_ms=round_trip * 1000,
                        waited_ms=waited * 1000,
                    )
            breaker.pause(pause, what)
            waited += pause
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _refusal(self, url: str, what: str, why: str) -> ContractError:
        past_cap = "response cap" in why
        return ContractError(
            f"{what}: the answer from {url} {why}"
            + (
                "; memrank read no further (raise the cap, e.g. max_response_mb=, if answers are "
                "meant to be this large)"
                if past_cap
                else ""
            )
        )


def redirect_note(reply: Reply) -> str:
    """For a 3xx answer, where it points (memrank does not follow redirects); else nothing."""
    if not 300 <= reply.status < 400:
        return ""
    location = reply.headers.get("Location")
    if location is None:
        return " (a redirect without a Location)"
    return f" (a redirect to {location}; memrank does not follow redirects: give that URL)"


def _transport_words(exc: httpx.TransportError, seconds: float, budget: float | None) -> str:
    """What a transport failure was, in words: unreachable, too slow, or dropped; ``budget``
    is the call's, when it rather than the deadline cut the attempt short."""
    if isinstance(exc, httpx.ConnectTimeout | httpx.ConnectError):
        return "could not be reached"
    if isinstance(exc, httpx.TimeoutException) and budget is not None:
        return f"did not answer in full within the call's {budget:g} s budget"
    if isinstance(exc, httpx.TimeoutException):
        return f"did not answer in full within the {seconds:g} s deadline"
    if isinstance(exc, httpx.ReadError | httpx.WriteError | httpx.RemoteProtocolError):
        return "dropped the connection before answering in full"
    return "failed in transport"


def origin(url: str) -> str:
    """``scheme://host:port`` of a URL, the port spelled out and credentials never kept."""
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    host = parts.hostname or ""
    return f"{parts.scheme}://{f'[{host}]' if ':' in host else host}:{port}"


def _last(attempt: int, policy: RetryPolicy, waited_after: float, latest: float) -> bool:
    """Whether no further attempt is made: attempts used up, the waiting budget would be, or
    the next attempt would begin past ``latest`` (the call's end, less the wait before it)."""
    return attempt == policy.attempts or waited_after > policy.waiting or time.monotonic() >= latest


def _endpoint_failed(status: int) -> bool:
    """Whether a status says the endpoint failed (down, erroring, timing out), as the breaker
    counts it. 429 is left out: an endpoint asking to slow down is working."""
    return status >= 500 or status in (408, 425)
