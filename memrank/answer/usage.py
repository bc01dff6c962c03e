"""What a run's model calls used: the answer model's and the judge's tokens in and out, and
what those calls cost at the models' listed prices, as two whole-run values (``usage.tokens``,
``usage.cost-usd``) that the board shows beside latency.

The tokens are the endpoints' own counts; the cost prices every call, including one the
response cache answered, so a rerun from the cache reports what the first run cost. A count or
a price that is not known makes the total None with the reason, never 0 (absent is not zero).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from memrank.measure import Decider, Measure, Scope, Value
from memrank.trace import Answering, Trace

__all__ = ["COST", "TOKENS", "CallAccount", "Usage"]

TOKENS = "usage.tokens"
COST = "usage.cost-usd"


class CallAccount:
    """What a model's calls in a run used and cost, summed across threads; unknown stays unknown."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls = self.cached = 0
        self.input_tokens: int | None = 0
        self.output_tokens: int | None = 0
        self.cost_usd: float | None = 0.0
        """What the calls sent this time cost (a cached answer costs nothing)."""
        self.priced_usd: float | None = 0.0
        """Every call at its listed price, cached or not: what the run costs when sent."""
        self.models: set[str] = set()
        self.failures = 0
        self.first_failure: str | None = None

    def fail(self, why: str) -> None:
        with self._lock:
            self.failures += 1
            self.first_failure = self.first_failure or why

    def add(
        self, tin: int | None, tout: int | None, cost: float | None, cached: bool, model: str
    ) -> None:
        with self._lock:
            self.calls += 1
            self.cached += int(cached)
            self.models.add(model)
            self.input_tokens = (
                None if tin is None or self.input_tokens is None else self.input_tokens + tin
            )
            self.output_tokens = (
                None if tout is None or self.output_tokens is None else self.output_tokens + tout
            )
            self.priced_usd = (
                None if cost is None or self.priced_usd is None else self.priced_usd + cost
            )
            # a cached answer cost nothing this time; an unknown price makes the sum unknown
            if not cached:
                self.cost_usd = (
                    None if cost is None or self.cost_usd is None else self.cost_usd + cost
                )


class Usage(Measure):
    """The run's answer-model and judge calls: their tokens in and out, and their cost at the
    listed prices, each summed over the run."""

    name, scope, reads, decider = "usage", Scope.RUN, ("answered",), Decider.MEMRANK
    produces = (TOKENS, COST)

    def __init__(self, judge: CallAccount | None) -> None:
        self.judge = judge
        """The judge's account, filled as it judged; None when the run had no judge."""

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        answers = [t.answered.answering for t in traces if t.answered and t.answered.answering]
        calls = [("answer", len(answers), *_answer_totals(answers))]
        if self.judge is not None:
            j = self.judge
            tokens = (
                None
                if j.input_tokens is None or j.output_tokens is None
                else j.input_tokens + j.output_tokens
            )
            calls.append(("judge", j.calls, tokens, j.priced_usd))
        said = "; ".join(
            f"{n} {who} call(s): "
            + ("tokens not reported" if tokens is None else f"{tokens:,} tokens")
            + ", "
            + ("no listed price" if cost is None else f"${cost:.4f}")
            for who, n, tokens, cost in calls
        )
        token_counts = [tokens for _, _, tokens, _ in calls]
        costs = [cost for _, _, _, cost in calls]
        return [
            _total(
                TOKENS,
                token_counts,
                f"tokens in and out, as the endpoints reported them ({said})",
                "an endpoint did not report its tokens",
            ),
            _total(
                COST,
                costs,
                "US dollars at the models' listed prices, every call priced as if "
                f"sent, response-cache hits included ({said})",
                "a model called has no listed price, or its tokens were not reported",
            ),
        ]


def _answer_totals(answers: Sequence[Answering]) -> tuple[int | None, float | None]:
    """The answer calls' tokens in and out, and their listed cost: None when any call lacks
    what the total needs."""
    tokens: int | None = 0
    cost: float | None = 0.0
    for answer in answers:
        used = answer.usage
        if tokens is not None and "input_tokens" in used and "output_tokens" in used:
            tokens += int(used["input_tokens"]) + int(used["output_tokens"])
        else:
            tokens = None
        cost = cost + used["cost_usd"] if cost is not None and "cost_usd" in used else None
    return tokens, cost


def _total(name: str, parts: Sequence[float | None], why: str, unknown: str) -> Value:
    if any(part is None for part in parts):
        return Value(
            measure=name, decider=Decider.MEMRANK, value=None, why=f"not known: {unknown} ({why})"
        )
    return Value(
        measure=name,
        decider=Decider.MEMRANK,
        value=float(sum(part or 0.0 for part in parts)),
        why=why,
    )
