"""What a judged run will cost before it starts (an upper estimate), and what it did cost.

The estimate is tasks x expected tokens x price: each answer call is taken to send the whole
prompt text plus a full context budget and to receive its max_tokens (64 where the protocol
sets none); each judge call the judge prompt, the question, reference and answer (about 200
tokens) and its max_tokens (64 where none). A model without a listed price makes the cost
unknown, printed as such, never as $0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memrank.answer.prompts import prompt
from memrank.answer.stage import AnswerStage
from memrank.measure import Value
from memrank.systems.models import ChatModel, cost_usd
from memrank.task import Task
from memrank.tokenizer import count_tokens
from memrank.trace import Step, Trace

__all__ = ["Estimate", "estimate", "spent"]

_UNSTATED_OUTPUT = 64
_JUDGE_SLOTS = 200


@dataclass(frozen=True)
class Estimate:
    """Calls and tokens a run is expected to need, and their price when known."""

    answer_calls: int
    answer_tokens: tuple[int, int]
    judge_calls: int
    judge_tokens: tuple[int, int]
    cost_usd: float | None

    def line(self) -> str:
        cost = "unknown (no listed price)" if self.cost_usd is None else f"${self.cost_usd:.2f}"
        return (
            f"estimate:   {self.answer_calls} answer call(s) (<= {self.answer_tokens[0]} tokens in, "
            f"{self.answer_tokens[1]} out), {self.judge_calls} judge call(s) "
            f"(~{self.judge_tokens[0]} in, {self.judge_tokens[1]} out); cost at most {cost}"
        )


def estimate(stage: AnswerStage, tasks: Sequence[Task]) -> Estimate:
    """The upper estimate for putting ``tasks`` through the stage (and its judge)."""
    protocol = stage.protocol
    scored = [t for t in tasks if t.category not in protocol.skips]
    sent = (
        protocol.answer_prompt,
        *((protocol.preamble,) if protocol.preamble else ()),
        *protocol.inserts,  # at most one of each is sent: an upper bound
    )
    answer_in = sum(count_tokens(prompt(p).text) for p in sent) + (stage.budget_tokens or 0)
    answer_out = protocol.answer_params.max_tokens or _UNSTATED_OUTPUT
    answering = tasks if stage.model is not None else ()
    answer = _cost(stage.model, len(answering) * answer_in, len(answering) * answer_out)
    judge_calls, judge_in, judge_out = 0, 0, 0
    judge: float | None = 0.0
    if stage.judge is not None and protocol.judge is not None:
        judge_calls = len(scored) * stage.passes
        longest = max(count_tokens(prompt(p).text) for p in protocol.judge_prompt_ids())
        judge_in = longest + _JUDGE_SLOTS + answer_out
        judge_out = protocol.judge.params.max_tokens or _UNSTATED_OUTPUT
        judge = _cost(stage.judge, judge_calls * judge_in, judge_calls * judge_out)
    total = None if answer is None or judge is None else answer + judge
    return Estimate(
        answer_calls=len(answering),
        answer_tokens=(answer_in, answer_out),
        judge_calls=judge_calls,
        judge_tokens=(judge_in, judge_out),
        cost_usd=total,
    )


def spent(traces: Sequence[Trace], values: Sequence[Value]) -> str:
    """The real cost: the answer calls' reported usage, then the judge's account."""
    answers = [t.answered.answering for t in traces if t.answered and t.answered.answering]
    tokens_in = sum(int(a.usage.get("input_tokens", 0)) for a in answers)
    tokens_out = sum(int(a.usage.get("output_tokens", 0)) for a in answers)
    fresh = [a for a in answers if not a.usage.get("cached")]
    costs = [a.usage.get("cost_usd") for a in fresh]
    answer_cost = (
        "unknown (no listed price)"
        if any(c is None for c in costs)
        else f"${sum(c or 0.0 for c in costs):.4f}"
    )
    lines = []
    failed = [t.error for t in traces if t.error is not None and t.error.step == Step.ANSWER]
    if failed and not answers:
        lines.append(
            f"answers:    all {len(failed)} answer call(s) failed, so nothing was answered; "
            f"first failure: {failed[0].message}"
        )
    if answers:
        lines.append(
            f"spent:      {len(answers)} answer(s), {len(answers) - len(fresh)} from the cache; "
            f"tokens in {tokens_in}, out {tokens_out}; answer cost {answer_cost}"
        )
    lines.extend(
        f"judged:     {v.why}"
        for v in values
        if v.measure.startswith("judge:") and v.measure.endswith(".calls")
    )
    return "\n".join(lines)


def _cost(model: ChatModel | None, tokens_in: int, tokens_out: int) -> float | None:
    """Nothing to pay for a model that is not called; None for one without a listed price."""
    if model is None:
        return 0.0
    return cost_usd(model.price, tokens_in, tokens_out)
