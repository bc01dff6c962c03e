"""What every chat model client shares: the request, the cache, the slots, the usage record.

A provider module says how its API spells a request body, where it is sent, and how an answer
and an error body read; this module sends the body over the shared HTTP client (deadlines,
the retry table with Retry-After honoured), at most ``concurrency`` requests at once, and keeps
every successful answer in the response cache. The body is serialised once and the same bytes
are sent on every attempt and used as the cache key.

A cache entry is keyed by the sha256 of (endpoint URL, model, the full request body bytes), so
any change to the prompt, the parameters or the model is a different entry, and a hit returns
the very bytes the endpoint sent: re-measuring a stored run with the same judge costs nothing
and gives bit-identical values. Only successful answers are kept. Entries live in the user's
cache dir (``MEMRANK_CACHE_DIR`` overrides it) as one file each, written atomically.
"""

from __future__ import annotations

import hashlib
import json
import threading
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel

from memrank._basics import FROZEN
from memrank._files import memrank_cache_dir, write_atomic
from memrank.errors import ContractError, EndpointError, UsageError
from memrank.system import Content, Model, text_of
from memrank.systems.http._client import Auth, HttpClient, Reply, RetryPolicy, checked_url
from memrank.systems.models.prices import Price, cost_usd

__all__ = [
    "DEFAULT_PARAMS",
    "RETRY",
    "CallParams",
    "ChatModel",
    "Completion",
    "Message",
    "ResponseCache",
    "cache_key",
    "count",
]


class Message(BaseModel):
    """One chat message."""

    model_config = FROZEN
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class CallParams:
    """The sampling parameters of one call; None leaves a parameter out of the request."""

    temperature: float | None = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    json_object: bool = False
    """Ask for a JSON object (OpenAI ``response_format``); APIs without it ignore this."""


DEFAULT_PARAMS = CallParams()


class Completion(BaseModel):
    """One answer, with what the endpoint reported about it."""

    model_config = FROZEN
    text: str
    """The answer text."""
    model: str
    """The model the endpoint says answered (may be more specific than the one asked for)."""
    input_tokens: int | None
    """Prompt tokens as the endpoint reported them; None when it did not."""
    output_tokens: int | None
    """Answer tokens as the endpoint reported them; None when it did not."""
    finish: str | None
    """Why generation stopped, as the endpoint says (stop, length, end_turn, max_tokens)."""
    cost_usd: float | None
    """From the price table; None when the price or a token count is unknown (never 0)."""
    cached: bool
    """Whether the answer came from the response cache rather than the endpoint."""
    request_sha256: str
    """sha256 over the endpoint, the model and the request body bytes (parameters and
    messages): the request itself, so two runs that sent the same bytes share it."""

    def usage(self) -> dict[str, float]:
        """Usage as a trace records it: only what is known, so absent never reads as zero."""
        known = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.cost_usd,
        }
        return {k: float(v) for k, v in known.items() if v is not None} | {
            "cached": float(self.cached)
        }


RETRY = RetryPolicy(
    statuses=frozenset({408, 409, 429, 500, 502, 503, 504, 529}),
    attempts=6,
    backoff=1.0,
    max_wait=60.0,
)
"""Rate limits (429, Anthropic's 529 overload) and transient server errors are retried with
Retry-After honoured; a 4xx about the request itself is final."""


def cache_key(endpoint: str, model: str, body: bytes, replica: int = 0) -> str:
    """The entry's name: sha256 over the endpoint, the model and the request body.

    ``replica`` tells repeated passes of one request apart (N judge passes must each be asked,
    not read back from the first); replica 0 is the request itself."""
    digest = hashlib.sha256()
    parts = [endpoint.encode(), model.encode(), body]
    if replica:
        parts.append(f"replica {replica}".encode())
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))  # length-prefixed: no two splits collide
        digest.update(part)
    return digest.hexdigest()


class ResponseCache:
    """Response bodies by cache key, one file each under ``folder``; safe across threads (each
    write goes to a file of its own, renamed into place)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else memrank_cache_dir() / "responses"

    def get(self, key: str) -> bytes | None:
        """The stored response body, or None when the request was never answered here."""
        try:
            return self._path(key).read_bytes()
        except OSError:
            return None

    def put(self, key: str, body: bytes) -> None:
        """Keep a successful response body under its key."""
        write_atomic(self._path(key), body)  # a reader sees the whole answer or none

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"


class ChatModel(Model):
    """A model behind a chat API. Subclasses spell the provider's request and response."""

    provider: ClassVar[str]
    transport = "http"
    path: ClassVar[str]
    """Appended to the base URL: where requests go."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key: str | None,
        defaults: CallParams = DEFAULT_PARAMS,
        concurrency: int = 4,
        timeout: float = 120.0,
        cache: ResponseCache | None = None,
        price: Price | None = None,
    ) -> None:
        if not model:
            raise UsageError(f"{self.provider}: the model name is empty; name the model")
        if concurrency < 1:
            raise UsageError(f"{self.provider}: concurrency is {concurrency}; give 1 or more")
        self.model = model
        self.endpoint = checked_url(base_url, f"{self.provider} base URL") + self.path
        self.defaults = defaults
        self.cache = cache
        self.price = price
        self._slots = threading.BoundedSemaphore(concurrency)
        self._last = threading.local()
        self._http = HttpClient(
            self._auth(api_key),
            timeout=timeout,
            headers=self._headers(),
            unreachable="check the URL and that the model server is running",
        )

    @property
    def spec(self) -> str:
        """``provider:model``, as ``--judge`` names it."""
        return f"{self.provider}:{self.model}"

    def complete(self, prompt: Content) -> str:
        """Answer the prompt as one user message, with this client's default parameters."""
        return self.chat([Message(role="user", content=text_of(prompt))], self.defaults).text

    def chat(self, messages: Sequence[Message], params: CallParams, replica: int = 0) -> Completion:
        """One call: from the cache when this exact request was answered before, else sent.

        ``replica`` asks the same request again as another pass, cached apart."""
        body = json.dumps(
            self._body(messages, params), ensure_ascii=False, separators=(",", ":")
        ).encode()
        request = cache_key(self.endpoint, self.model, body)
        key = cache_key(self.endpoint, self.model, body, replica)
        stored = self.cache.get(key) if self.cache is not None else None
        if stored is not None:
            completion = self._completion(stored, request, cached=True)
        else:
            reply = self._send(body)
            completion = self._completion(reply.content, request, cached=False)
            if self.cache is not None:
                self.cache.put(key, reply.content)
        self._last.completion = completion
        return completion

    def usage(self) -> dict[str, float] | None:
        """The last call's usage on this thread, as the endpoint reported it."""
        completion: Completion | None = getattr(self._last, "completion", None)
        return completion.usage() if completion is not None else None

    def components(self) -> dict[str, str]:
        return {"model": self.spec}

    def close(self) -> None:
        self._http.close()

    # -- the provider's spelling ---------------------------------------------------------------

    @abstractmethod
    def _auth(self, api_key: str | None) -> Auth | None:
        """The header that carries the key."""

    def _headers(self) -> dict[str, str]:
        """Fixed headers the API requires besides the key."""
        return {}

    @abstractmethod
    def _body(self, messages: Sequence[Message], params: CallParams) -> dict[str, Any]:
        """The request body, exactly as the API documents it."""

    @abstractmethod
    def _read(self, data: dict[str, Any]) -> tuple[str, str, int | None, int | None, str | None]:
        """(text, model, input tokens, output tokens, finish) from a success body."""

    @abstractmethod
    def _said(self, data: Any) -> str | None:
        """The message an error body carries, when it has the API's error shape."""

    # -- sending -------------------------------------------------------------------------------

    def _send(self, body: bytes) -> Reply:
        what = f"{self.spec} chat call"
        with self._slots:
            reply = self._http.post(self.endpoint, body, RETRY, what=what)
        if reply.status == 200:
            return reply
        said = self._said(_json_or_none(reply.content))
        if said is None:
            raise self._http.failure(reply, self.endpoint, what)
        raise EndpointError(
            f"{what}: {self.endpoint} answered HTTP {reply.status} after {reply.attempts} "
            f"attempt(s); {self.provider} said: {self._http.excerpt(said.encode())}"
        )

    def _completion(self, content: bytes, request: str, *, cached: bool) -> Completion:
        data = _json_or_none(content)
        try:
            if not isinstance(data, dict):
                raise TypeError("the body is not a JSON object")
            text, model, input_tokens, output_tokens, finish = self._read(data)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ContractError(
                f"{self.spec} chat call: {self.endpoint} answered 200 with a body off the "
                f"{self.provider} format ({exc}): {self._http.excerpt(content)}"
            ) from None
        return Completion(
            text=text,
            model=model,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            finish=finish,
            cost_usd=cost_usd(self.price, input_tokens, output_tokens),
            cached=cached,
            request_sha256=request,
        )


def _json_or_none(content: bytes) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        return None


def count(value: Any, name: str) -> int | None:
    """A token count from a usage block: an int, or None when the endpoint left it out."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"usage {name} is {value!r}, not a count")
    return value
