"""Context budgets: every arm of a comparison held to the same amount of returned text.

A system that returns more text finds more evidence, so "retrieved better" and "returned more"
are the same number unless both arms are held to one budget. An evaluation declares its budget
(``Evaluation.budget``): so many words, so many tokens of a named tokenizer that works offline,
or uncapped where its own protocol says the reader is (BEAM, LongMemEval). memrank then cuts
what every system returned to the budget, in the system's rank order and whole documents, and
records the cut on the trace; the system's own answer is kept as it returned it, so measures
read it both at k and at the budget (``evidence-recall@500w``). An arm held to a budget is
named ``<system>:matched``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from memrank._basics import FROZEN
from memrank.errors import UsageError
from memrank.system import Document

__all__ = [
    "MATCHED",
    "Budget",
    "BudgetCut",
    "TraceCut",
    "counter_for",
    "cut_to_budget",
    "matched_name",
    "register_tokenizer",
    "word_count",
]

MATCHED = "matched"
"""The suffix of an arm held to its evaluation's budget: ``bm25:matched``."""

Counter = Callable[[str], int]
_TOKENIZERS: dict[str, Counter] = {}


class Budget(BaseModel):
    """How much text one task's recall may hand the reader."""

    model_config = FROZEN
    unit: Literal["words", "tokens", "uncapped"]
    limit: int | None = Field(default=None, ge=1)
    """At most this many words or tokens; None when uncapped."""
    tokenizer: str | None = None
    """The named offline tokenizer tokens are counted with (``o200k``); only for tokens."""
    why: str = ""
    """For an uncapped budget: the protocol that says the reader is uncapped."""

    @model_validator(mode="after")
    def _consistent(self) -> Budget:
        if (self.unit == "uncapped") != (self.limit is None):
            raise ValueError("give a limit for a words or tokens budget, and none when uncapped")
        if (self.unit == "tokens") != (self.tokenizer is not None):
            raise ValueError("name the tokenizer for a tokens budget, and only for one")
        if self.unit == "uncapped" and not self.why.strip():
            raise ValueError("an uncapped budget says why: which protocol declares it uncapped")
        return self

    @classmethod
    def words(cls, limit: int) -> Budget:
        return cls(unit="words", limit=limit)

    @classmethod
    def tokens(cls, limit: int, tokenizer: str) -> Budget:
        return cls(unit="tokens", limit=limit, tokenizer=tokenizer)

    @classmethod
    def uncapped(cls, why: str) -> Budget:
        return cls(unit="uncapped", why=why)

    @property
    def capped(self) -> bool:
        return self.limit is not None

    @property
    def label(self) -> str:
        """How a measure read at the budget is named after its ``@``: ``500w``, ``2000t``."""
        if self.limit is None:
            return "uncapped"
        return f"{self.limit}{'w' if self.unit == 'words' else 't'}"

    def __str__(self) -> str:
        if self.limit is None:
            return f"uncapped ({self.why})"
        return f"{self.limit} {self.unit}" + (f" of {self.tokenizer}" if self.tokenizer else "")


class BudgetCut(BaseModel):
    """What ``cut_to_budget`` kept and what it cut, in the system's rank order."""

    model_config = FROZEN
    budget: Budget
    kept: tuple[Document, ...]
    """The leading documents that fit the budget whole."""
    cut: tuple[Document, ...]
    """The rest, from the first document that would overrun it."""
    used: int
    """Words or tokens in the kept documents."""
    overrun: int | None = None
    """What the first cut document would have brought the total to."""

    def on_trace(self) -> TraceCut:
        """The record a trace keeps (ids and counts; the documents are already on it)."""
        if not self.cut:
            why = f"all {len(self.kept)} document(s) fit: {self.used} of {self.budget}"
        else:
            why = (
                f"kept the first {len(self.kept)} of {len(self.kept) + len(self.cut)} document(s) "
                f"({self.used} of {self.budget}); cut from {self.cut[0].id!r}, which would have "
                f"brought it to {self.overrun}"
            )
        return TraceCut(
            budget=self.budget,
            kept=len(self.kept),
            used=self.used,
            cut=tuple(d.id for d in self.cut),
            why=why,
        )


class TraceCut(BaseModel):
    """The cut a budget made to one task's recall, as the trace records it."""

    model_config = FROZEN
    budget: Budget
    kept: int = Field(ge=0)
    """How many leading recalled documents are within the budget."""
    used: int = Field(ge=0)
    """Words or tokens in them."""
    cut: tuple[str, ...] = ()
    """The ids of the documents cut, in rank order."""
    why: str


def word_count(text: str) -> int:
    """Whitespace-separated words: what ``recalled-words`` counts too."""
    return len(text.split())


def register_tokenizer(name: str, count: Counter) -> None:
    """Make a named offline tokenizer's counter available to ``tokens`` budgets."""
    _TOKENIZERS[name] = count


def counter_for(budget: Budget) -> Counter:
    """The counter a capped budget is measured with."""
    if budget.unit == "words":
        return word_count
    if budget.tokenizer == "o200k" and "o200k" not in _TOKENIZERS:
        from memrank.tokenizer import count_tokens  # the offline o200k_base counter

        _TOKENIZERS["o200k"] = count_tokens
    if budget.tokenizer in _TOKENIZERS:
        return _TOKENIZERS[budget.tokenizer]
    raise UsageError(
        f"budget {budget} counts tokens of {budget.tokenizer!r}, which no code has registered; "
        f"register its counter with memrank.budget.register_tokenizer (registered: "
        f"{', '.join(sorted(_TOKENIZERS)) or 'none'})"
    )


def cut_to_budget(documents: Sequence[Document], budget: Budget, count: Counter) -> BudgetCut:
    """Keep whole documents in rank order while they fit the budget; cut from the first that
    does not. A document is never split, and a later, shorter one never jumps the queue: the
    order is the system's measurement. An uncapped budget keeps everything."""
    used = 0
    for position, document in enumerate(documents):
        size = count(document.text)
        if budget.limit is not None and used + size > budget.limit:
            return BudgetCut(
                budget=budget,
                kept=tuple(documents[:position]),
                cut=tuple(documents[position:]),
                used=used,
                overrun=used + size,
            )
        used += size
    return BudgetCut(budget=budget, kept=tuple(documents), cut=(), used=used)


def matched_name(name: str, budget: Budget | None) -> str:
    """The arm's name: ``<name>:matched`` when held to a capped budget, else the name."""
    return f"{name}:{MATCHED}" if budget is not None and budget.capped else name
