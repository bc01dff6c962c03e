"""What a model's tokens cost: a small table, and None (never 0) for a model it does not list.

Prices are US dollars per million tokens, input then output, as the providers list them on
their public pricing pages (checked 2026-11; a price change is a new table entry, and a run
records the price it used). A self-hosted or unknown model has no price here: its cost is
recorded as None, "not known", which is not the same as free.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PRICES", "Price", "cost_usd", "price_of"]


@dataclass(frozen=True)
class Price:
    """US dollars per million input and output tokens."""

    input_per_mtok: float
    output_per_mtok: float


PRICES: dict[tuple[str, str], Price] = {
    ("openai", "gpt-4o-mini"): Price(0.15, 0.60),
    ("openai", "gpt-4o-mini-2024-07-18"): Price(0.15, 0.60),
    ("openai", "gpt-4o"): Price(2.50, 10.00),
    ("openai", "gpt-4o-2024-08-06"): Price(2.50, 10.00),
    ("openai", "gpt-4.1-mini"): Price(0.40, 1.60),
    ("openai", "gpt-4.1"): Price(2.00, 8.00),
    ("openai", "gpt-4-turbo"): Price(10.00, 30.00),
    ("openai", "gpt-3.5-turbo"): Price(0.50, 1.50),
    ("anthropic", "claude-3-5-haiku-latest"): Price(0.80, 4.00),
    ("anthropic", "claude-haiku-4-5"): Price(1.00, 5.00),
    ("anthropic", "claude-sonnet-4-5"): Price(3.00, 15.00),
    ("anthropic", "claude-sonnet-4-0"): Price(3.00, 15.00),
    ("anthropic", "claude-opus-4-1"): Price(15.00, 75.00),
}


def price_of(provider: str, model: str) -> Price | None:
    """The listed price of a provider's model, or None when this table does not list it."""
    return PRICES.get((provider, model))


def cost_usd(
    price: Price | None, input_tokens: int | None, output_tokens: int | None
) -> float | None:
    """The cost of one call in US dollars; None when the price or either count is unknown."""
    if price is None or input_tokens is None or output_tokens is None:
        return None
    return (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1e6
