"""OpenAI chat completions, and every endpoint that speaks it (vLLM, llama.cpp, Ollama, gateways).

POST ``<base>/chat/completions`` with ``Authorization: Bearer <key>``; the body carries
``model``, ``messages`` and only the parameters a call sets (``temperature``, ``max_tokens``,
``seed``, ``response_format``). The answer is ``choices[0].message.content``; usage is
``usage.prompt_tokens`` and ``usage.completion_tokens`` when the endpoint reports them. An
error body is ``{"error": {"message", "type", ...}}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memrank.systems.http._client import Auth
from memrank.systems.models._chat import CallParams, ChatModel, Message, count

__all__ = ["OPENAI_BASE_URL", "OpenAIChat", "OpenAICompatibleChat"]

OPENAI_BASE_URL = "https://api.openai.com/v1"


class OpenAIChat(ChatModel):
    """A model behind OpenAI's chat completions API."""

    provider = "openai"
    name = "openai"
    path = "/chat/completions"

    def _auth(self, api_key: str | None) -> Auth | None:
        return Auth("Bearer", api_key) if api_key else None

    def _body(self, messages: Sequence[Message], params: CallParams) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
        }
        if params.temperature is not None:
            body["temperature"] = params.temperature
        if params.max_tokens is not None:
            body["max_tokens"] = params.max_tokens
        if params.seed is not None:
            body["seed"] = params.seed
        if params.json_object:
            body["response_format"] = {"type": "json_object"}
        return body

    def _read(self, data: dict[str, Any]) -> tuple[str, str, int | None, int | None, str | None]:
        choice = data["choices"][0]
        text = choice["message"]["content"]
        if not isinstance(text, str):
            raise TypeError(f"choices[0].message.content is {type(text).__name__}, not text")
        usage = data.get("usage") or {}
        return (
            text,
            str(data.get("model") or self.model),
            count(usage.get("prompt_tokens"), "prompt_tokens"),
            count(usage.get("completion_tokens"), "completion_tokens"),
            choice.get("finish_reason"),
        )

    def _said(self, data: Any) -> str | None:
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            kind = error.get("type") or error.get("code")
            return str(error["message"]) + (f" ({kind})" if kind else "")
        return None


class OpenAICompatibleChat(OpenAIChat):
    """A self-hosted or third-party endpoint speaking the same API; it has no price here."""

    provider = "openai-compatible"
    name = "openai-compatible"

    @property
    def spec(self) -> str:
        return f"{self.provider}:{self.endpoint.removesuffix(self.path)}:{self.model}"
