"""Anthropic's Messages API.

POST ``<base>/messages`` with ``x-api-key: <key>`` and ``anthropic-version: 2023-06-01``; the
body carries ``model``, ``max_tokens`` (required by the API: 1024 when a call sets none), the
system text apart in ``system``, the other ``messages``, and ``temperature`` when set. There is
no seed and no JSON mode. The answer is the text blocks of ``content``; usage is
``usage.input_tokens`` and ``usage.output_tokens``. An error body is
``{"type": "error", "error": {"type", "message"}}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memrank.systems.http._client import Auth
from memrank.systems.models._chat import CallParams, ChatModel, Message, count

__all__ = ["ANTHROPIC_BASE_URL", "ANTHROPIC_VERSION", "AnthropicMessages"]

ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1"
ANTHROPIC_VERSION = "2023-06-01"
_DEFAULT_MAX_TOKENS = 1024


class AnthropicMessages(ChatModel):
    """A model behind Anthropic's Messages API."""

    provider = "anthropic"
    name = "anthropic"
    path = "/messages"

    def _auth(self, api_key: str | None) -> Auth | None:
        return Auth("X-Api-Key", api_key) if api_key else None

    def _headers(self) -> dict[str, str]:
        return {"anthropic-version": ANTHROPIC_VERSION}

    def _body(self, messages: Sequence[Message], params: CallParams) -> dict[str, Any]:
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": params.max_tokens or _DEFAULT_MAX_TOKENS,
        }
        if system:
            body["system"] = system
        body["messages"] = [
            {"role": m.role, "content": m.content} for m in messages if m.role != "system"
        ]
        if not body["messages"]:
            # The API needs one user turn; a system-only prompt (Mem0's answer prompt) is
            # sent as the user turn instead, its text unchanged.
            body.pop("system")
            body["messages"] = [{"role": "user", "content": system}]
        if params.temperature is not None:
            body["temperature"] = params.temperature
        return body

    def _read(self, data: dict[str, Any]) -> tuple[str, str, int | None, int | None, str | None]:
        blocks = data["content"]
        if not isinstance(blocks, list):
            raise TypeError("content is not a list of blocks")
        text = "".join(b["text"] for b in blocks if b.get("type") == "text")
        usage = data.get("usage") or {}
        return (
            text,
            str(data.get("model") or self.model),
            count(usage.get("input_tokens"), "input_tokens"),
            count(usage.get("output_tokens"), "output_tokens"),
            data.get("stop_reason"),
        )

    def _said(self, data: Any) -> str | None:
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            kind = error.get("type")
            return str(error["message"]) + (f" ({kind})" if kind else "")
        return None
