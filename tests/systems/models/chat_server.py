"""A loopback server speaking OpenAI chat completions and Anthropic Messages as the APIs do.

Success bodies carry the fields the real APIs send (ids, the dated model name, usage);
failures carry each API's own error body. ``faults`` are served first, one per request, so a
test can script a 429 with Retry-After before the answer. ``reply`` decides the answer text
from the request's messages; usage counts whitespace words of the prompt and of the answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.loopback import Canned, Logged, _Handler, _Loopback

KEY = "sk-test-0123456789"

OPENAI_401 = Canned(
    401,
    json.dumps(
        {
            "error": {
                "message": "Incorrect API key provided: sk-wrong. You can find your API key at "
                "https://platform.openai.com/account/api-keys.",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_api_key",
            }
        }
    ).encode(),
)
OPENAI_429 = Canned(
    429,
    json.dumps(
        {
            "error": {
                "message": "Rate limit reached for gpt-4o-mini in organization org-test on "
                "requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 0s.",
                "type": "requests",
                "param": None,
                "code": "rate_limit_exceeded",
            }
        }
    ).encode(),
    (("Retry-After", "0"),),
)
ANTHROPIC_429 = Canned(
    429,
    json.dumps(
        {
            "type": "error",
            "error": {
                "type": "rate_limit_error",
                "message": "Number of request tokens has exceeded your per-minute rate limit",
            },
        }
    ).encode(),
    (("retry-after", "0"),),
)
ANTHROPIC_400 = Canned(
    400,
    json.dumps(
        {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": "max_tokens: Field required"},
        }
    ).encode(),
)


def echo_reply(messages: list[dict[str, Any]]) -> str:
    """The last message's first line, so every request has its own answer."""
    return "echo: " + messages[-1]["content"].strip().splitlines()[0][:40]


class ChatServer(_Loopback):
    """Answers POST /v1/chat/completions and POST /v1/messages; logs every request."""

    def __init__(
        self,
        reply: Callable[[list[dict[str, Any]]], str] = echo_reply,
        faults: list[Canned] | None = None,
        key: str | None = KEY,
    ) -> None:
        super().__init__()
        self.reply, self.faults, self.key = reply, list(faults or []), key

    @property
    def base(self) -> str:
        return self.url + "/v1"

    def answer(self, handler: _Handler, body: bytes) -> None:
        headers = handler.lowered_headers()
        self.record(Logged(handler.command, handler.path, headers, body))
        with self.lock:
            fault = self.faults.pop(0) if self.faults else None
        if fault is not None:
            handler.reply(fault)
            return
        request = json.loads(body)
        if handler.path == "/v1/chat/completions":
            if self.key and headers.get("authorization") != f"Bearer {self.key}":
                handler.reply(OPENAI_401)
                return
            handler.reply(Canned(200, self._openai(request)))
        elif handler.path == "/v1/messages":
            if self.key and headers.get("x-api-key") != self.key:
                handler.reply(
                    Canned(
                        401,
                        b'{"type":"error","error":{"type":"authentication_error",'
                        b'"message":"invalid x-api-key"}}',
                    )
                )
                return
            if "max_tokens" not in request:
                handler.reply(ANTHROPIC_400)
                return
            handler.reply(Canned(200, self._anthropic(request)))
        else:
            handler.reply(
                Canned(404, b'{"error":{"message":"Not found","type":"invalid_request_error"}}')
            )

    def _openai(self, request: dict[str, Any]) -> bytes:
        text = self.reply(request["messages"])
        prompt = sum(len(m["content"].split()) for m in request["messages"])
        return json.dumps(
            {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "created": 1764460800,
                "model": request["model"] + "-2024-07-18",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text, "refusal": None},
                        "logprobs": None,
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": len(text.split()),
                    "total_tokens": prompt + len(text.split()),
                },
                "system_fingerprint": "fp_test",
            }
        ).encode()

    def _anthropic(self, request: dict[str, Any]) -> bytes:
        text = self.reply(request["messages"])
        prompt = sum(len(m["content"].split()) for m in request["messages"])
        prompt += len(request.get("system", "").split())
        return json.dumps(
            {
                "id": "msg_test",
                "type": "message",
                "role": "assistant",
                "model": request["model"] + "-20251001",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": prompt, "output_tokens": len(text.split())},
            }
        ).encode()
