"""Model clients: OpenAI-compatible chat completions and Anthropic Messages, with a response cache.

Each client is a ``memrank.Model`` (it can be run on its own) and also what the answer stage
and the judge call with a protocol's exact messages and parameters.
"""

from memrank.systems.models._chat import (
    CallParams,
    ChatModel,
    Completion,
    Message,
    ResponseCache,
    cache_key,
)
from memrank.systems.models.anthropic import AnthropicMessages
from memrank.systems.models.openai import OpenAIChat, OpenAICompatibleChat
from memrank.systems.models.prices import PRICES, Price, cost_usd, price_of
from memrank.systems.models.spec import PROVIDERS, model_from_spec

__all__ = [
    "PRICES",
    "PROVIDERS",
    "AnthropicMessages",
    "CallParams",
    "ChatModel",
    "Completion",
    "Message",
    "OpenAIChat",
    "OpenAICompatibleChat",
    "Price",
    "ResponseCache",
    "cache_key",
    "cost_usd",
    "model_from_spec",
    "price_of",
]
