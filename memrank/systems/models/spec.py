"""``PROVIDER:MODEL`` and ``openai-compatible:URL:MODEL``: a model client from its name.

Keys come from the environment, never from the command line: ``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``, and ``OPENAI_COMPATIBLE_API_KEY`` (optional: a local server needs
none). ``OPENAI_BASE_URL`` and ``ANTHROPIC_BASE_URL`` point a provider at a gateway.
"""

from __future__ import annotations

import os
import re

from memrank.errors import UsageError
from memrank.systems.models._chat import DEFAULT_PARAMS, CallParams, ChatModel, ResponseCache
from memrank.systems.models.anthropic import ANTHROPIC_BASE_URL, AnthropicMessages
from memrank.systems.models.openai import OPENAI_BASE_URL, OpenAIChat, OpenAICompatibleChat
from memrank.systems.models.prices import price_of

__all__ = ["PROVIDERS", "model_from_spec"]

PROVIDERS = ("openai", "anthropic", "openai-compatible")
# The URL runs to the first colon after its host (and port) and path; the model is the rest,
# so a model name with colons of its own (llama3:8b) survives.
_COMPATIBLE = re.compile(r"^openai-compatible:(https?://[^/\s]+(?:/[^:\s]*)?):(.+)$")


def model_from_spec(
    spec: str,
    *,
    cache: ResponseCache | None,
    defaults: CallParams = DEFAULT_PARAMS,
    concurrency: int = 4,
) -> ChatModel:
    """The client a spec names; a clear UsageError for a malformed spec or a missing key."""
    common = {"defaults": defaults, "concurrency": concurrency, "cache": cache}
    if spec.startswith("openai-compatible:"):
        matched = _COMPATIBLE.match(spec)
        if matched is None:
            raise UsageError(
                f"model {spec!r} is not openai-compatible:URL:MODEL, e.g. "
                "openai-compatible:http://127.0.0.1:8080/v1:smollm2"
            )
        url, model = matched.groups()
        return OpenAICompatibleChat(
            model,
            base_url=url,
            api_key=os.environ.get("OPENAI_COMPATIBLE_API_KEY") or None,
            **common,  # type: ignore[arg-type]
        )
    provider, colon, model = spec.partition(":")
    if not colon or not model or provider not in ("openai", "anthropic"):
        raise UsageError(
            f"model {spec!r} is not PROVIDER:MODEL with PROVIDER one of {', '.join(PROVIDERS)}, "
            "e.g. openai:gpt-4o-mini, anthropic:claude-haiku-4-5, "
            "openai-compatible:http://127.0.0.1:8080/v1:smollm2"
        )
    if provider == "openai":
        cls: type[ChatModel] = OpenAIChat
        variable, base = "OPENAI_API_KEY", os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
    else:
        cls = AnthropicMessages
        variable = "ANTHROPIC_API_KEY"
        base = os.environ.get("ANTHROPIC_BASE_URL") or ANTHROPIC_BASE_URL
    key = os.environ.get(variable)
    if not key:
        raise UsageError(f"model {spec}: the environment variable {variable} is not set; set it")
    return cls(model, base_url=base, api_key=key, price=price_of(provider, model), **common)  # type: ignore[arg-type]
