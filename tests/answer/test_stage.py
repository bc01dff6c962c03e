"""The answer stage and the judge in real runs, against a loopback OpenAI-compatible server."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import memrank
from memrank.answer import AnswerStage, answer_name, count_tokens, prompt, protocol
from memrank.systems.models import OpenAIChat, ResponseCache, cache_key
from memrank.trace import Step
from tests.answer.conftest import SERVER_ANSWER, Alternating, protocol_reply
from tests.systems.models.chat_server import KEY, OPENAI_401, ChatServer

PINNED = {
    "mem0-answer": "f3c786104816bba61d03b7f41c2be45009e6c8c296a04d9712ab1a59e4ae2399",
    "mem0-judge": "62395dd312a631dfd9355026a0b69cc936018274c3198b6365b5c2a5c9bca9e0",
    "longmemeval-judge-temporal-reasoning": "8d33a5fdd83afeeb4592454a965eab43d1fcb2dedc042d1d3892f4254be6c273",
    "longmemeval-judge-abstention": "5c0b365a1e1d06db36377c735432b56e122ca3c428f89faf61d43a0d5a7e050b",
}


def _client(server: ChatServer, cache: Path | None = None) -> OpenAIChat:
    return OpenAIChat(
        "gpt-4o-mini",
        base_url=server.base,
        api_key=KEY,
        cache=ResponseCache(cache) if cache else None,
    )


def _bodies(server: ChatServer, marker: str) -> list[dict]:
    bodies = [json.loads(e.body) for e in server.logged("/v1/chat/completions")]
    return [b for b in bodies if marker in b["messages"][-1]["content"]]


def _split(template: str) -> tuple[str, str]:
    """The fixed text before the first slot and after the last one."""
    return template[: template.index("{")], template[template.rindex("}") + 1 :]


def test_mem0_requests_are_the_pinned_prompts_rendered(locomo_few: memrank.Evaluation) -> None:
    with ChatServer(reply=protocol_reply) as server:
        model = _client(server)
        stage = AnswerStage(protocol("mem0"), model, judge=model)
        result = memrank.run(memrank.system("bm25"), locomo_few, answer=stage)
        model.close()
    answer_prompt, judge_prompt = prompt("mem0-answer"), prompt("mem0-judge")
    assert (answer_prompt.sha256, judge_prompt.sha256) == (
        PINNED["mem0-answer"],
        PINNED["mem0-judge"],
    )
    answers = _bodies(server, "intelligent memory assistant")
    assert len(answers) == len(locomo_few.tasks)
    head, tail = _split(answer_prompt.text)
    for body in answers:
        # one system message, temperature 0, no max_tokens: as Mem0's search.py sends it
        assert set(body) == {"model", "messages", "temperature"} and body["temperature"] == 0.0
        (message,) = body["messages"]
        assert message["role"] == "system"
        assert message["content"].startswith(head) and message["content"].endswith(tail)
    judged = _bodies(server, 'key as "label"')
    scored = [t for t in locomo_few.tasks if t.category != "5"]  # Mem0 skips category 5
    assert len(judged) == len(scored)
    by_question = {t.prompt: t for t in scored}
    for body in judged:
        assert body["response_format"] == {"type": "json_object"} and body["temperature"] == 0.0
        content = body["messages"][0]["content"]
        question = content.split("Question: ")[-1].split("\nGold answer:")[0]
        task = by_question[question]
        assert content == judge_prompt.render(
            question=task.prompt,
            gold_answer=task.expected.answers[0],
            generated_answer=SERVER_ANSWER,
        )
    trace = result.traces[0]
    assert trace.answered is not None and trace.answered.answering is not None
    record = trace.answered.answering
    assert (record.protocol, record.prompt_id, record.prompt_sha256) == (
        "mem0@v1",
        "mem0-answer",
        PINNED["mem0-answer"],
    )
    (own,) = [
        b for b in answers if f"Question: {trace.task.prompt}\n" in b["messages"][0]["content"]
    ]
    (sent,) = [e.body for e in server.logged("/v1/chat/completions") if json.loads(e.body) == own]
    assert record.request_sha256 == cache_key(model.endpoint, model.model, sent)
    assert record.usage["input_tokens"] > 0 and "cost_usd" not in record.usage
    assert "answer" in trace.timings_ms
    name = answer_name("judge", "mem0@v1", model.spec, model.spec)
    values = {v.task_id: v for v in result.values_of(name) if v.measure == name}
    assert values[scored[0].id].value == 1.0 and values[scored[0].id].why == '{"label": "CORRECT"}'
    skipped = values[[t for t in locomo_few.tasks if t.category == "5"][0].id]
    assert skipped.value is None and "category 5" in skipped.why
    (calls,) = [v for v in result.values if v.measure == f"{name}.calls"]
    assert calls.value == len(scored) and PINNED["mem0-judge"] in calls.why


def test_the_context_never_exceeds_the_budget_and_cuts_in_rank_order(
    locomo_few: memrank.Evaluation,
) -> None:
    budget = 120
    chosen = protocol("locomo")
    with ChatServer(reply=protocol_reply) as server:
        model = _client(server)
        result = memrank.run(
            memrank.system("bm25"), locomo_few, answer=AnswerStage(chosen, model, budget)
        )
        model.close()
    cut_somewhere = False
    for trace in result.traces:
        assert trace.answered is not None and trace.answered.answering is not None
        record = trace.answered.answering
        recalled = trace.recalled.documents
        ids = tuple(d.id for d in recalled)
        assert record.documents_sent + record.documents_cut == ids  # rank order, nothing lost
        context = chosen.render(trace.task, recalled[: len(record.documents_sent)]).context
        assert record.context_tokens == count_tokens(context) <= budget
        assert record.context_sha256 == hashlib.sha256(context.encode()).hexdigest()
        assert record.tokenizer == "o200k_base" and record.budget_tokens == budget
        cut_somewhere |= bool(record.documents_cut)
    assert cut_somewhere
    f1 = {
        v.task_id: v.value
        for v in result.values
        if v.measure == answer_name("locomo-f1", "locomo@v1", model.spec)
    }
    adversarial = [t.id for t in locomo_few.tasks if t.category == "5"]
    assert all(f1[i] == 1.0 for i in adversarial)  # the server says "Not mentioned ..."
    bodies = [json.loads(e.body) for e in server.logged("/v1/chat/completions")]
    assert all(b["max_tokens"] == 32 and b["temperature"] == 0.0 for b in bodies)


def _lme_evaluation() -> memrank.Evaluation:
    said = memrank.Document(
        id="s1:0",
        content="I moved to Lisbon in March.",
        metadata={"role": "user", "session_id": "s1"},
    )
    tasks = (
        memrank.Task(
            id="q1",
            prompt="When did I move?",
            group="h",
            context=(said,),
            category="temporal-reasoning",
            expected=memrank.Expected(answers=("March",)),
        ),
        memrank.Task(
            id="q2_abs",
            prompt="When did I move to Rome?",
            group="h",
            context=(said,),
            category="temporal-reasoning",
            expected=memrank.Expected(answers=("You never said",)),
        ),
    )
    return memrank.Evaluation(name="lme-like", version="lme-like@v1", tasks=tasks)


def test_longmemeval_picks_its_template_by_type_and_abs_overrides() -> None:
    with ChatServer(reply=protocol_reply) as server:
        model = _client(server)
        stage = AnswerStage(protocol("longmemeval"), model, judge=model)
        result = memrank.run(memrank.system("word-overlap"), _lme_evaluation(), answer=stage)
        model.close()
    judged = _bodies(server, "Answer yes or no only.")
    temporal = prompt("longmemeval-judge-temporal-reasoning")
    abstention = prompt("longmemeval-judge-abstention")
    assert (temporal.sha256, abstention.sha256) == (
        PINNED["longmemeval-judge-temporal-reasoning"],
        PINNED["longmemeval-judge-abstention"],
    )
    contents = sorted(b["messages"][0]["content"] for b in judged)
    assert contents == sorted(
        [
            temporal.render(question="When did I move?", answer="March", response=SERVER_ANSWER),
            abstention.render(
                question="When did I move to Rome?", answer="You never said", response=SERVER_ANSWER
            ),
        ]
    )
    assert all(b["max_tokens"] == 10 and b["temperature"] == 0.0 for b in judged)
    name = answer_name("judge", "longmemeval@v1", model.spec, model.spec)
    assert [v.value for v in result.values if v.measure == name] == [1.0, 1.0]


def test_a_model_under_test_answers_on_its_own() -> None:
    task = memrank.Task(
        id="q", prompt="Capital of France?", expected=memrank.Expected(answers=("Paris",))
    )
    evaluation = memrank.Evaluation(name="qa", version="qa@v1", tasks=(task,))
    with ChatServer(
        reply=lambda m: '{"label": "CORRECT"}' if "label" in m[-1]["content"] else "Paris"
    ) as server:
        system, judge = _client(server), _client(server)
        result = memrank.run(
            system, evaluation, answer=AnswerStage(protocol("mem0"), None, judge=judge)
        )
        system.close()
        judge.close()
    trace = result.traces[0]
    assert trace.answered is not None and trace.answered.text == "Paris"
    assert trace.answered.answering is None  # the model answered, not memrank's stage
    assert json.loads(server.log[0].body)["messages"] == [
        {"role": "user", "content": "Capital of France?"}
    ]
    values = {v.measure: v.value for v in result.values if v.task_id == "q"}
    assert values[answer_name("judge", "mem0@v1", "system", judge.spec)] == 1.0
    assert values[answer_name("answer-f1", "mem0@v1", "system")] == 1.0


def test_a_failed_answer_fails_its_task_and_the_judge_does_not_guess(
    locomo_few: memrank.Evaluation,
) -> None:
    few = locomo_few.model_copy(update={"tasks": locomo_few.tasks[:2]})
    with ChatServer(reply=protocol_reply, faults=[OPENAI_401]) as server:
        model = _client(server)
        result = memrank.run(
            memrank.system("bm25"), few, answer=AnswerStage(protocol("mem0"), model, judge=model)
        )
        model.close()
    failed = [t for t in result.traces if t.error is not None]
    assert len(failed) == 1 and failed[0].error.step is Step.ANSWER
    assert "Incorrect API key" in failed[0].error.message and failed[0].recalled is not None
    value = next(
        v
        for v in result.values
        if v.task_id == failed[0].task.id and v.measure.startswith("judge:")
    )
    assert value.value is None and "failed at answer" in value.why


def test_a_malformed_verdict_is_none_with_the_reply_never_wrong(
    locomo_few: memrank.Evaluation,
) -> None:
    few = locomo_few.model_copy(update={"tasks": locomo_few.tasks[:2]})
    with ChatServer(
        reply=lambda m: "I think it is right" if "label" in m[-1]["content"] else "x"
    ) as server:
        model = _client(server)
        result = memrank.run(
            memrank.system("bm25"), few, answer=AnswerStage(protocol("mem0"), model, judge=model)
        )
        model.close()
    judged = [
        v
        for v in result.values
        if v.measure == answer_name("judge", "mem0@v1", model.spec, model.spec)
    ]
    assert judged and all(v.value is None for v in judged)
    assert all("malformed verdict" in v.why and "I think it is right" in v.why for v in judged)


def test_judge_passes_report_their_spread(locomo_few: memrank.Evaluation, tmp_path: Path) -> None:
    few = locomo_few.model_copy(update={"tasks": locomo_few.tasks[:3]})
    with ChatServer(reply=Alternating()) as server:
        model = _client(server, tmp_path / "responses")
        stage = AnswerStage(protocol("mem0"), model, judge=model, passes=4)
        result = memrank.run(memrank.system("bm25"), few, answer=stage)
        model.close()
    name = answer_name("judge", "mem0@v1", model.spec, model.spec)
    # every pass was asked (the cache keeps passes apart): 3 answers + 3 x 4 judge calls
    assert len(server.logged("/v1/chat/completions")) == 3 + 12
    assert len([v for v in result.values if v.measure == f"{name}.pass-4"]) == 3
    (spread,) = [v for v in result.values if v.measure == f"{name}.sd"]
    assert spread.value is not None and spread.value > 0 and "4 judge passes" in spread.why


def test_an_unreachable_judge_leaves_tasks_undecided(locomo_few: memrank.Evaluation) -> None:
    few = locomo_few.model_copy(update={"tasks": locomo_few.tasks[:1]})
    with ChatServer(reply=protocol_reply) as server:
        model = _client(server)
        judge = OpenAIChat("gpt-4o-mini", base_url=server.base, api_key="sk-wrong")
        result = memrank.run(
            memrank.system("bm25"), few, answer=AnswerStage(protocol("mem0"), model, judge=judge)
        )
        model.close()
        judge.close()
    name = answer_name("judge", "mem0@v1", model.spec, judge.spec)
    (value,) = [v for v in result.values if v.measure == name]
    assert value.value is None and value.why.startswith("the judge call failed: EndpointError")
    assert "Incorrect API key provided" in value.why


def test_anthropic_gets_the_same_prompt_bytes_in_its_own_format(
    locomo_few: memrank.Evaluation,
) -> None:
    from memrank.systems.models import AnthropicMessages

    few = locomo_few.model_copy(update={"tasks": locomo_few.tasks[:1]})
    with ChatServer(reply=protocol_reply) as server:
        model = AnthropicMessages("claude-haiku-4-5", base_url=server.base, api_key=KEY)
        stage = AnswerStage(protocol("mem0"), model, judge=model)
        result = memrank.run(memrank.system("bm25"), few, answer=stage)
        model.close()
    answer, judge = (json.loads(e.body) for e in server.logged("/v1/messages"))
    # Mem0's system-only answer prompt goes as the one user turn (the API needs one)
    assert set(answer) == {"model", "max_tokens", "messages", "temperature"}
    (message,) = answer["messages"]
    head, tail = _split(prompt("mem0-answer").text)
    assert message["role"] == "user" and message["content"].startswith(head)
    assert message["content"].endswith(tail)
    task = few.tasks[0]
    assert judge == {
        "model": "claude-haiku-4-5",
        "max_tokens": 1024,
        "messages": [
            {
                "role": "user",
                "content": prompt("mem0-judge").render(
                    question=task.prompt,
                    gold_answer=task.expected.answers[0],
                    generated_answer=SERVER_ANSWER,
                ),
            }
        ],
        "temperature": 0.0,
    }
    record = result.traces[0].answered.answering
    assert record.usage["input_tokens"] > 0 and record.reported_model == "claude-haiku-4-5-20251001"


def test_an_o200k_evaluation_budget_is_counted_with_the_offline_counter(
    locomo_few: memrank.Evaluation,
) -> None:
    from memrank.budget import Budget

    held = locomo_few.model_copy(update={"budget": Budget.tokens(60, "o200k")})
    result = memrank.run(memrank.system("bm25"), held)
    for trace in result.traces:
        kept = trace.recalled.documents[: trace.cut.kept]
        assert trace.cut.used == sum(count_tokens(d.text) for d in kept) <= 60
    assert any(trace.cut.cut for trace in result.traces)


def test_the_estimate_prices_tasks_times_tokens(locomo_few: memrank.Evaluation) -> None:
    from memrank.answer import estimate
    from memrank.systems.models import price_of

    priced = OpenAIChat(
        "gpt-4o-mini",
        base_url="http://127.0.0.1:9/v1",
        api_key=KEY,
        price=price_of("openai", "gpt-4o-mini"),
    )
    stage = AnswerStage(protocol("mem0"), priced, 1000, judge=priced)
    guess = estimate(stage, locomo_few.tasks)
    prompt_in = count_tokens(prompt("mem0-answer").text) + 1000
    judged = len([t for t in locomo_few.tasks if t.category != "5"])
    judge_in = count_tokens(prompt("mem0-judge").text) + 200 + 64
    expected = (
        len(locomo_few.tasks) * (prompt_in * 0.15 + 64 * 0.60)
        + judged * (judge_in * 0.15 + 64 * 0.60)
    ) / 1e6
    assert (guess.answer_calls, guess.judge_calls) == (len(locomo_few.tasks), judged)
    assert guess.cost_usd == pytest.approx(expected)
    assert f"${expected:.2f}" in guess.line()
    priced.close()


def test_a_rerun_with_the_cache_is_identical_and_makes_no_calls(
    locomo_few: memrank.Evaluation, tmp_path: Path
) -> None:
    results, calls = [], []
    with ChatServer(reply=protocol_reply) as server:
        for _ in range(2):
            model = _client(server, tmp_path / "responses")
            stage = AnswerStage(protocol("mem0"), model, judge=model)
            results.append(memrank.run(memrank.system("bm25"), locomo_few, answer=stage))
            model.close()
            calls.append(len(server.log))
    first, second = results
    assert calls[1] == calls[0] > 0  # the second run was answered and judged from the cache
    assert [t.answered.text for t in first.traces] == [t.answered.text for t in second.traces]
    assert all(t.answered.answering.usage["cached"] == 1.0 for t in second.traces)
    judged = [v for v in first.values if v.task_id and v.measure.startswith("judge:")]
    assert judged == [v for v in second.values if v.task_id and v.measure.startswith("judge:")]
