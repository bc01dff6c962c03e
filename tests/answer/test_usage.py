"""A run's model usage as whole-run values: the answer model's and the judge's tokens in and
out, and their cost at the listed prices, from real runs against a loopback model server."""

from __future__ import annotations

from pathlib import Path

import pytest

import memrank
from memrank.answer import AnswerStage, protocol
from memrank.answer.measures import Judge
from memrank.answer.usage import COST, TOKENS, Usage
from memrank.measure import Value
from memrank.result import Result
from memrank.systems.models import OpenAIChat, ResponseCache, price_of
from tests.answer.conftest import protocol_reply
from tests.systems.models.chat_server import KEY, ChatServer


def _run(
    evaluation: memrank.Evaluation, server: ChatServer, cache: Path | None, *, priced: bool = True
) -> tuple[Result, AnswerStage]:
    def client(model: str) -> OpenAIChat:
        return OpenAIChat(
            model,
            base_url=server.base,
            api_key=KEY,
            cache=ResponseCache(cache) if cache else None,
            price=price_of("openai", model) if priced else None,
        )

    answer, judge = client("gpt-4o-mini"), client("gpt-4.1-mini")
    stage = AnswerStage(protocol("mem0"), answer, judge=judge, seed=1)
    try:
        return memrank.run(memrank.system("bm25"), evaluation, answer=stage), stage
    finally:
        answer.close()
        judge.close()


def _value(result: Result, name: str) -> Value:
    (found,) = [v for v in result.values if v.measure == name]
    return found


def test_tokens_and_cost_sum_the_answer_and_judge_calls(
    locomo_few: memrank.Evaluation, tmp_path: Path
) -> None:
    with ChatServer(reply=protocol_reply) as server:
        result, stage = _run(locomo_few, server, tmp_path / "responses")
        again, _ = _run(locomo_few, server, tmp_path / "responses")
    answers = [t.answered.answering for t in result.traces if t.answered and t.answered.answering]
    (judge,) = [m for m in stage.made if isinstance(m, Judge)]
    account = judge.account
    assert answers and account.calls
    assert account.input_tokens is not None and account.output_tokens is not None
    answered = sum(int(a.usage["input_tokens"] + a.usage["output_tokens"]) for a in answers)
    tokens = _value(result, TOKENS)
    assert tokens.value == answered + account.input_tokens + account.output_tokens
    assert tokens.decider.value == "memrank" and "judge call(s)" in tokens.why
    cost = _value(result, COST)
    assert cost.value == pytest.approx(
        sum(a.usage["cost_usd"] for a in answers) + (account.priced_usd or 0.0)
    )
    assert cost.value is not None and cost.value > 0
    # Every answer and verdict of the rerun came from the response cache: the run costs what
    # the first did, so two publishers' costs are comparable whatever their caches held.
    assert all(
        a.usage["cached"] == 1.0 for t in again.traces if (a := t.answered and t.answered.answering)
    )
    assert _value(again, TOKENS).value == tokens.value
    assert _value(again, COST).value == pytest.approx(cost.value)


def test_a_model_without_a_listed_price_leaves_the_cost_unknown_never_zero(
    locomo_few: memrank.Evaluation,
) -> None:
    with ChatServer(reply=protocol_reply) as server:
        result, _ = _run(locomo_few, server, None, priced=False)
    cost = _value(result, COST)
    assert cost.value is None and cost.why.startswith("not known: a model called has no listed")
    assert _value(result, TOKENS).value  # the tokens are still the endpoints' counts


def test_a_run_without_a_model_records_no_usage(locomo_few: memrank.Evaluation) -> None:
    result = memrank.run(memrank.system("bm25"), locomo_few)
    assert not [v for v in result.values if v.measure.startswith("usage.")]
    assert Usage(None).names() == (TOKENS, COST)
