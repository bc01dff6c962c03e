"""The shared HTTP client: auth headers, the retry table, Retry-After, capped redacted errors."""

from __future__ import annotations

import socket

import pytest

from memrank.errors import EndpointError, UsageError
from memrank.systems import WordOverlap
from memrank.systems.http._client import Auth, HttpClient, RetryPolicy, checked_url
from memrank.wire._service import ContractService
from tests.loopback import Canned, Faulty, Scripted

FAST = RetryPolicy(frozenset({429, 503}), attempts=3, backoff=0.01)


@pytest.mark.parametrize(
    "scheme,header,value",
    [
        ("Token", "authorization", "Token s3cret"),
        ("bearer", "authorization", "Bearer s3cret"),
        ("X-API-KEY", "x-api-key", "s3cret"),
    ],
)
def test_each_scheme_sends_its_header(scheme: str, header: str, value: str) -> None:
    client = HttpClient(Auth.named(scheme, "s3cret"), timeout=5)
    with Scripted(ping=[Canned(200)]) as server:
        client.post(f"{server.url}/ping", b"{}", FAST, what="ping")
        client.get(f"{server.url}/ping", FAST, what="health", authenticated=False)
        client.close()
    sent, health = server.log
    assert sent.headers[header] == value
    assert header not in health.headers  # health is an unauthenticated GET


def test_retries_the_identical_body_until_an_answer_is_final() -> None:
    client = HttpClient(None, timeout=5)
    script = [Canned(503), Canned(429, headers=(("Retry-After", "0"),)), Canned(200, b'{"ok":1}')]
    with Scripted(add=script) as server:
        reply = client.post(f"{server.url}/add", b'{"request_id":"r-1"}', FAST, what="Add r-1")
        client.close()
    assert (reply.status, reply.attempts, reply.content) == (200, 3, b'{"ok":1}')
    assert [entry.body for entry in server.log] == [b'{"request_id":"r-1"}'] * 3


def test_a_status_outside_the_table_is_final_at_once() -> None:
    client = HttpClient(None, timeout=5)
    with Scripted(search=[Canned(409), Canned(200)]) as server:
        reply = client.post(f"{server.url}/search", b"{}", FAST, what="Search")
        client.close()
    assert (reply.status, reply.attempts, len(server.log)) == (409, 1, 1)


def test_retry_after_is_honoured_and_capped() -> None:
    client = HttpClient(None, timeout=5)
    slow = [Canned(429, headers=(("Retry-After", "1"),)), Canned(200)]
    huge = [Canned(503, headers=(("Retry-After", "3600"),)), Canned(200)]
    with Scripted(slow=slow, huge=huge) as server:
        honoured = client.post(f"{server.url}/slow", b"{}", FAST, what="slow")
        capped = client.post(
            f"{server.url}/huge", b"{}", RetryPolicy(frozenset({503}), max_wait=0.05), what="huge"
        )
        client.close()
    assert honoured.waited_ms >= 1000  # the backoff alone would have waited 10 ms
    assert 50 <= capped.waited_ms < 1000


def test_an_exhausted_retry_names_the_status_with_the_text_capped_and_the_secret_cut() -> None:
    secret = "key-0123456789"
    client = HttpClient(Auth("Bearer", secret), timeout=5)
    leaky = f'{{"detail":{{"reason":"bad key {secret}"}},"pad":"{"x" * 2000}"}}'.encode()
    with Scripted(add=[Canned(503, leaky)]) as server:
        reply = client.post(f"{server.url}/add", b"{}", FAST, what="Add r-2")
        client.close()
    error = client.failure(reply, f"{server.url}/add", "Add r-2")
    assert reply.attempts == 3 and len(server.log) == 3
    message = str(error)
    assert "Add r-2" in message and "HTTP 503 after 3 attempt(s)" in message
    assert secret not in message and "bad key [secret]" in message
    assert "characters cut" in message and len(message) < 700


def test_a_refused_connection_is_retried_then_an_endpoint_error() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    client = HttpClient(None, timeout=2)
    with pytest.raises(EndpointError, match=r"could not be reached after 3 attempt\(s\)"):
        client.post(f"http://127.0.0.1:{port}/add", b"{}", FAST, what="Add")
    client.close()


def test_urls_with_credentials_or_other_schemes_are_refused() -> None:
    with pytest.raises(UsageError, match="embeds credentials"):
        checked_url("https://user:pw@example.org/add", "Add URL")
    with pytest.raises(UsageError, match="not an http"):
        checked_url("ftp://example.org/add", "Add URL")


def test_auth_spec_reads_the_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "abc")
    auth = Auth.from_spec("x-api-key:MY_KEY")
    assert auth.headers() == {"X-Api-Key": "abc"} and "abc" not in repr(auth)
    with pytest.raises(UsageError, match="NOT_SET is not set"):
        Auth.from_spec("Bearer:NOT_SET")
    with pytest.raises(UsageError, match="not one of Token, Bearer, X-Api-Key"):
        Auth.from_spec("Basic:MY_KEY")
    with pytest.raises(UsageError, match="not SCHEME:ENVVAR"):
        Auth.from_spec("Bearer")


def test_a_redirect_names_where_it_points() -> None:
    client = HttpClient(None, timeout=5)
    moved = Canned(307, b"", (("Location", "https://memory.example.org/v2/search"),))
    with Scripted(search=[moved]) as server:
        reply = client.post(f"{server.url}/search", b"{}", FAST, what="Search")
        client.close()
    message = str(client.failure(reply, f"{server.url}/search", "Search"))
    assert "HTTP 307" in message
    assert "a redirect to https://memory.example.org/v2/search" in message
    assert "memrank does not follow redirects" in message


def test_a_reset_is_reported_as_a_dropped_connection_not_an_unreachable_endpoint() -> None:
    client = HttpClient(None, timeout=5)
    with Faulty(ContractService(WordOverlap), seed=0, rate=1.0) as server:
        server.fault = lambda path, body: "reset"  # type: ignore[method-assign]
        with pytest.raises(EndpointError) as caught:
            client.post(f"{server.url}/search", b"{}", FAST, what="Search")
        client.close()
    message = str(caught.value)
    assert "dropped the connection before answering in full after 3 attempt(s)" in message
    assert "could not be reached" not in message


def test_retries_stop_within_the_waiting_budget() -> None:
    client = HttpClient(None, timeout=5)
    budget = RetryPolicy(frozenset({503}), attempts=10, backoff=0.2, waiting=0.5)
    with Scripted(add=[Canned(503)]) as server:
        reply = client.post(f"{server.url}/add", b"{}", budget, what="Add")
        client.close()
    # waits of 0.2 then 0.4 would pass 0.5 s: two attempts, one wait
    assert (reply.status, reply.attempts, len(server.log)) == (503, 2, 2)
    assert reply.waited_ms < 500
