"""The answer stage as the field runs it, checked on every request a loopback model server saw.

bm25 on LoCoMo's smoke slice, answered and judged under ``mem0@v1``: at budgets of 50, 300 and
5,000 o200k tokens no request's context (the span from the first speaker's name to the end of
the second speaker's memories, as sent) is one token over; every judge request is upstream's
``ACCURACY_PROMPT.format(...)`` byte for byte (read from Mem0's own file); speaker_a's memories
come first in every answer prompt. The context is cut out of the request body with plain string
search, not with memrank's renderer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import memrank
from memrank.answer import PROTOCOLS, AnswerStage, answer_name, count_tokens, protocol
from memrank.cli import main
from memrank.systems.models import OpenAIChat, cache_key
from tests.answer.conftest import SERVER_ANSWER, protocol_reply
from tests.answer.upstream import constant
from tests.systems.models.chat_server import KEY, ChatServer

_QUESTION_AT = "\n\n    Question: "
_MEMORIES_FOR = "Memories for user "


def _mem0_context(content: str) -> str:
    """The recalled part of a Mem0 answer prompt as sent: names, layout and memories."""
    start = content.index(_MEMORIES_FOR) + len(_MEMORIES_FOR)
    return content[start : content.rindex(_QUESTION_AT)]


def _sent(server: ChatServer, model: OpenAIChat) -> dict[str, dict[str, Any]]:
    """Every request body the server received, by memrank's request hash of its bytes."""
    return {
        cache_key(model.endpoint, model.model, e.body): json.loads(e.body)
        for e in server.logged("/v1/chat/completions")
    }


@pytest.mark.parametrize("budget", [50, 300, 5000])
def test_mem0_on_locomo_smoke_within_budget_upstream_judge_speaker_a_first(
    budget: int, locomo_smoke: memrank.Evaluation
) -> None:
    evaluation = locomo_smoke.model_copy(update={"measures": ()})
    with ChatServer(reply=protocol_reply) as server:
        model = OpenAIChat("gpt-4o-mini", base_url=server.base, api_key=KEY)
        judged = budget == 300  # the judge's bytes do not depend on the budget: judge once
        stage = AnswerStage(protocol("mem0"), model, budget, judge=model if judged else None)
        result = memrank.run(memrank.system("bm25"), evaluation, answer=stage)
        model.close()
    sent = _sent(server, model)
    cut = 0
    for trace in result.traces:
        assert trace.error is None, trace.error
        assert trace.answered is not None and trace.answered.answering is not None
        record = trace.answered.answering
        (message,) = sent[record.request_sha256]["messages"]
        content = message["content"]
        context = _mem0_context(content)
        assert count_tokens(context) <= budget, (trace.task.id, count_tokens(context))
        assert record.context_tokens == count_tokens(context)  # the trace records what was sent
        speaker_a, speaker_b = trace.task.metadata["speakers"]
        assert content.index(f"{_MEMORIES_FOR}{speaker_a}:\n") < content.index(
            f"{_MEMORIES_FOR}{speaker_b}:\n"
        )
        assert f"{_MEMORIES_FOR}:" not in content
        cut += bool(record.documents_cut)
    if budget < 5000:
        assert cut  # the small budgets did cut
    if not judged:
        return
    accuracy = constant("mem0-llm_judge.py.txt", "ACCURACY_PROMPT")
    asked = [
        b["messages"][0]["content"]
        for b in sent.values()
        if b.get("response_format") == {"type": "json_object"}
    ]
    assert len(asked) == len([t for t in evaluation.tasks if t.category != "5"])
    expected = sorted(
        accuracy.format(
            question=trace.task.prompt,
            gold_answer=trace.task.expected.answers[0],
            generated_answer=SERVER_ANSWER,
        )
        for trace in result.traces
        if trace.task.category != "5"
    )
    assert sorted(asked) == expected


def _context_of(name: str, content: str) -> str:
    """The recalled span of each protocol's answer prompt, found by its fixed text."""
    if name in ("mem0", "aml"):
        start = content.index(_MEMORIES_FOR) + len(_MEMORIES_FOR)
        end = content.rindex(_QUESTION_AT if name == "mem0" else "\n</memories>")
        return content[start:end]
    if name == "longmemeval":
        return content[
            content.index("History Chats:\n\n") + 16 : content.rindex("\n\nCurrent Date:")
        ]
    if name == "mem-gallery":
        start = content.index("are as follows:\n\n") + len("are as follows:\n\n")
        return content[start : content.rindex("\n\nYour task is to answer the question")]
    if name == "memorycode":
        start = content.index(":\n ") + len(":\n ")
        return content[start : content.rindex(" \nBased on information provided")]
    start = content.index("who said it.\n\n") + len("who said it.\n\n")
    return content[start : content.rindex("\n\nAnswer the question with a short phrase")]


@pytest.mark.parametrize("budget", [50, 100, 300, 1000, 5000])
def test_every_protocol_fits_the_longest_prefix_within_budget(
    budget: int,
    locomo_smoke: memrank.Evaluation,
    aml_texts: bool,
) -> None:
    for name, chosen in PROTOCOLS.items():
        if name == "aml" and not aml_texts:
            continue
        stage = AnswerStage(chosen, None, budget)
        for task in locomo_smoke.tasks[:: len(locomo_smoke.tasks) // 6]:
            recalled = [d for d in task.context][:400]  # far more than any budget holds
            rendered, held = stage.fit(task, recalled)
            content = rendered.messages[-1].content
            assert rendered.context == _context_of(name, content), name
            assert count_tokens(rendered.context) <= budget, (name, task.id)
            if held < len(recalled):  # the next document would not have fitted
                longer = chosen.render(task, recalled[: held + 1])
                assert count_tokens(longer.context) > budget, (name, task.id)


def test_a_judge_that_answers_401_to_every_call_ends_the_run_with_its_status(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMRANK_DATA_DIR", str(shared_data))
    for variable in ("MEMRANK_JUDGE", "MEMRANK_LOCOMO_FILE", "OPENAI_COMPATIBLE_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    saved = tmp_path / "run.json"
    with (
        ChatServer(reply=protocol_reply, key=None) as answers,
        ChatServer(reply=protocol_reply, key=KEY) as judge,  # no key is sent: 401 every time
    ):
        outcome = CliRunner().invoke(
            main,
            ["run", "bm25", "locomo:smoke", "--answer-model"]
            + [f"openai-compatible:{answers.base}:answer-model"]
            + ["--judge", f"openai-compatible:{judge.base}:judge-model", "--save", str(saved)],
        )
        rejudged = CliRunner().invoke(
            main, ["measure", str(saved), "--judge", f"openai-compatible:{judge.base}:judge-model"]
        )
    assert outcome.exit_code == 8, outcome.output
    assert "failed all 152 call(s)" in outcome.output and "HTTP 401" in outcome.output
    assert saved.is_file()  # the result was still written
    assert rejudged.exit_code == 8 and "HTTP 401" in rejudged.output
    assert rejudged.output.index("estimate:") < rejudged.output.index("judged:")


def test_an_answer_model_that_fails_every_call_says_so_and_exits_non_zero(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMRANK_DATA_DIR", str(shared_data))
    monkeypatch.delenv("OPENAI_COMPATIBLE_API_KEY", raising=False)
    with ChatServer(reply=protocol_reply, key=KEY) as answers:
        outcome = CliRunner().invoke(
            main,
            ["run", "bm25", "locomo:smoke", "--protocol", "locomo", "--answer-model"]
            + [f"openai-compatible:{answers.base}:answer-model"],
        )
    assert outcome.exit_code == 7, outcome.output
    assert "all 199 answer call(s) failed" in outcome.output and "HTTP 401" in outcome.output


def test_the_seed_is_sent_and_recorded_and_value_names_carry_the_answer_model(
    locomo_smoke: memrank.Evaluation,
) -> None:
    few = locomo_smoke.model_copy(update={"tasks": locomo_smoke.tasks[:3], "measures": ()})
    with ChatServer(reply=protocol_reply) as server:
        model = OpenAIChat("gpt-4o-mini", base_url=server.base, api_key=KEY)
        judge = OpenAIChat("gpt-4.1-mini", base_url=server.base, api_key=KEY)
        stage = AnswerStage(protocol("mem0"), model, judge=judge, seed=7)
        result = memrank.run(memrank.system("bm25"), few, answer=stage)
        model.close()
        judge.close()
    bodies = [json.loads(e.body) for e in server.logged("/v1/chat/completions")]
    assert bodies and all(b["seed"] == 7 for b in bodies)
    assert all(t.answered.answering.seed == 7 for t in result.traces)  # type: ignore[union-attr]
    names = {v.measure for v in result.values}
    assert answer_name("judge", "mem0@v1", model.spec, judge.spec) in names
    assert answer_name("answer-f1", "mem0@v1", model.spec) in names
    (account,) = [v for v in result.values if v.measure.endswith(".calls")]
    assert "seed 7" in account.why


def test_the_request_hash_changes_with_model_parameters_and_endpoint() -> None:
    body = b'{"model":"m","messages":[]}'
    one = cache_key("http://a/v1/chat/completions", "m", body)
    assert one != cache_key("http://b/v1/chat/completions", "m", body)
    assert one != cache_key("http://a/v1/chat/completions", "n", body)
    assert one != cache_key("http://a/v1/chat/completions", "m", body.replace(b"[]", b"[ ]"))


def test_longmemeval_renders_its_history_as_run_generation_does() -> None:
    from datetime import UTC, datetime

    when = datetime(2023, 5, 20, 2, 21, tzinfo=UTC)
    turns = [
        memrank.Document(
            id=f"s1:{i}",
            content=text,
            timestamp=when,
            metadata={"role": role, "session_id": "s1"},
        )
        for i, (role, text) in enumerate([("user", "I moved to Lisbon."), ("assistant", "Nice!")])
    ]
    task = memrank.Task(id="q", prompt="Where do I live?", asked_at=when)
    rendered = protocol("longmemeval").render(task, turns)
    # upstream: '\n### Session {}:\nSession Date: {}\nSession Content:\n{}\n'.format(i + 1,
    # date, '\n' + json.dumps(session)), then answer_prompt_template.format(history, date, q)
    session = json.dumps(
        [
            {"role": "user", "content": "I moved to Lisbon."},
            {"role": "assistant", "content": "Nice!"},
        ]
    )
    history = (
        f"\n### Session 1:\nSession Date: 2023/05/20 (Sat) 02:21\nSession Content:\n\n{session}\n"
    )
    template = constant("longmemeval-run_generation.py.txt", "answer_prompt_template", 2)
    expected = template.format(history, "2023/05/20 (Sat) 02:21", "Where do I live?")
    assert rendered.messages[0].content == expected and rendered.context == history


def test_mem0_memories_carry_locomos_own_session_time(locomo_smoke: memrank.Evaluation) -> None:
    task = locomo_smoke.tasks[0]
    rendered = protocol("mem0").render(task, task.context[:3])
    content = rendered.messages[0].content
    # as Mem0's add.py stored it: the session's date_time string from the LoCoMo file
    assert '"1:56 pm on 8 May, 2023: Caroline: ' in content
    assert (
        f"{_MEMORIES_FOR}Caroline:\n\n    [" in content
        and f"{_MEMORIES_FOR}Melanie:\n\n    [" in content
    )
