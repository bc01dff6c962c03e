"""The model clients against a loopback server speaking the real wire formats."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import memrank
from memrank.errors import ContractError, EndpointError, UsageError
from memrank.systems.models import (
    AnthropicMessages,
    CallParams,
    Message,
    OpenAIChat,
    ResponseCache,
    model_from_spec,
    price_of,
)
from tests.loopback import Canned
from tests.systems.models.chat_server import (
    ANTHROPIC_400,
    ANTHROPIC_429,
    KEY,
    OPENAI_429,
    ChatServer,
)

ASK = [
    Message(role="system", content="Be brief."),
    Message(role="user", content="Capital of France?"),
]


def test_openai_body_holds_exactly_the_parameters_set_and_usage_is_read() -> None:
    with ChatServer() as server:
        client = OpenAIChat("gpt-4o-mini", base_url=server.base, api_key=KEY)
        done = client.chat(
            ASK, CallParams(temperature=0.0, max_tokens=10, seed=7, json_object=True)
        )
        client.close()
    (logged,) = server.logged("/v1/chat/completions")
    assert json.loads(logged.body) == {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Capital of France?"},
        ],
        "temperature": 0.0,
        "max_tokens": 10,
        "seed": 7,
        "response_format": {"type": "json_object"},
    }
    assert logged.headers["authorization"] == f"Bearer {KEY}"
    assert done.text == "echo: Capital of France?"
    assert (done.model, done.input_tokens, done.output_tokens) == ("gpt-4o-mini-2024-07-18", 5, 4)
    assert done.finish == "stop" and done.cached is False
    assert done.cost_usd is None  # no price given: unknown, never 0


def test_anthropic_body_puts_system_apart_and_requires_max_tokens() -> None:
    with ChatServer() as server:
        client = AnthropicMessages(
            "claude-haiku-4-5",
            base_url=server.base,
            api_key=KEY,
            price=price_of("anthropic", "claude-haiku-4-5"),
        )
        done = client.chat(ASK, CallParams(temperature=0.0))
        client.close()
    (logged,) = server.logged("/v1/messages")
    assert json.loads(logged.body) == {
        "model": "claude-haiku-4-5",
        "max_tokens": 1024,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": "Capital of France?"}],
        "temperature": 0.0,
    }
    assert (
        logged.headers["x-api-key"] == KEY and logged.headers["anthropic-version"] == "2023-06-01"
    )
    assert (done.input_tokens, done.output_tokens, done.finish) == (5, 4, "end_turn")
    assert done.cost_usd == pytest.approx((5 * 1.0 + 4 * 5.0) / 1e6)


def test_429_with_retry_after_is_retried_with_the_identical_body() -> None:
    with ChatServer(faults=[OPENAI_429, OPENAI_429]) as server:
        client = OpenAIChat("gpt-4o-mini", base_url=server.base, api_key=KEY)
        started = time.perf_counter()
        done = client.chat(ASK, CallParams())
        took = time.perf_counter() - started
        client.close()
    bodies = [entry.body for entry in server.logged("/v1/chat/completions")]
    assert len(bodies) == 3 and len(set(bodies)) == 1
    assert done.text.startswith("echo:")
    assert took < 5  # Retry-After: 0 was honoured rather than the 1 s backoff doubling


def test_anthropic_429_then_answer() -> None:
    with ChatServer(faults=[ANTHROPIC_429]) as server:
        client = AnthropicMessages("claude-haiku-4-5", base_url=server.base, api_key=KEY)
        assert client.chat(ASK, CallParams()).text.startswith("echo:")
        client.close()
    assert len(server.logged("/v1/messages")) == 2


def test_error_bodies_are_quoted_and_the_key_never_is() -> None:
    with ChatServer() as server:
        client = OpenAIChat("gpt-4o-mini", base_url=server.base, api_key="sk-wrong")
        with pytest.raises(EndpointError) as raised:
            client.chat(ASK, CallParams())
        client.close()
    message = str(raised.value.message)
    assert "HTTP 401 after 1 attempt(s); openai said: Incorrect API key provided" in message
    assert "(invalid_request_error)" in message


def test_anthropic_400_is_final_and_names_the_field() -> None:
    with ChatServer(faults=[ANTHROPIC_400]) as server:
        client = AnthropicMessages("claude-haiku-4-5", base_url=server.base, api_key=KEY)
        with pytest.raises(EndpointError, match=r"anthropic said: max_tokens: Field required"):
            client.chat(ASK, CallParams())
        client.close()
    assert len(server.logged("/v1/messages")) == 1


def test_a_200_off_the_format_is_a_contract_error() -> None:
    with ChatServer(faults=[Canned(200, b'{"choices": []}')]) as server:
        client = OpenAIChat("gpt-4o-mini", base_url=server.base, api_key=KEY)
        with pytest.raises(ContractError, match="off the openai format"):
            client.chat(ASK, CallParams())
        client.close()


def test_the_cache_answers_a_repeated_request_without_a_call(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    with ChatServer() as server:
        client = OpenAIChat("gpt-4o-mini", base_url=server.base, api_key=KEY, cache=cache)
        first = client.chat(ASK, CallParams())
        again = client.chat(ASK, CallParams())
        other = client.chat(ASK, CallParams(max_tokens=5))  # another request: another entry
        client.close()
    assert len(server.logged("/v1/chat/completions")) == 2
    assert again.cached and not first.cached and not other.cached
    assert again.model_copy(update={"cached": False}) == first


def test_a_model_runs_on_its_own_and_records_usage(demo_questions: memrank.Evaluation) -> None:
    with ChatServer() as server:
        client = OpenAIChat("gpt-4o-mini", base_url=server.base, api_key=KEY)
        result = memrank.run(client, demo_questions)
        client.close()
    trace = result.traces[0]
    assert trace.answered is not None and trace.answered.text.startswith("echo:")
    assert trace.declared.usage is not None and trace.declared.usage["input_tokens"] > 0
    assert "cost_usd" not in trace.declared.usage  # unknown price: absent, never 0


@pytest.fixture
def demo_questions() -> memrank.Evaluation:
    task = memrank.Task(id="q1", prompt="What is the capital of France?")
    return memrank.Evaluation(name="questions", version="questions@v1", tasks=(task,))


def test_specs_name_providers_and_keys_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UsageError, match="OPENAI_API_KEY is not set"):
        model_from_spec("openai:gpt-4o-mini", cache=None)
    with pytest.raises(UsageError, match="not PROVIDER:MODEL"):
        model_from_spec("gpt-4o-mini", cache=None)
    local = model_from_spec("openai-compatible:http://127.0.0.1:8080/v1:llama3:8b", cache=None)
    assert (local.model, local.endpoint) == (
        "llama3:8b",
        "http://127.0.0.1:8080/v1/chat/completions",
    )
    assert (
        local.price is None and local.spec == "openai-compatible:http://127.0.0.1:8080/v1:llama3:8b"
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    assert model_from_spec("anthropic:claude-haiku-4-5", cache=None).price is not None


def test_no_more_requests_in_flight_than_the_concurrency_limit() -> None:
    import threading
    from concurrent.futures import ThreadPoolExecutor

    in_flight, peak, lock = 0, 0, threading.Lock()

    def slow(messages: list[dict]) -> str:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(0.05)
        with lock:
            in_flight -= 1
        return "ok"

    with ChatServer(reply=slow) as server:
        client = OpenAIChat("gpt-4o-mini", base_url=server.base, api_key=KEY, concurrency=2)
        asks = [[Message(role="user", content=f"q{i}")] for i in range(8)]
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(lambda m: client.chat(m, CallParams()), asks))
        client.close()
    assert peak == 2 and len(server.logged("/v1/chat/completions")) == 8


def test_anthropic_529_overloaded_is_retried() -> None:
    overloaded = Canned(
        529,
        b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        (("retry-after", "0"),),
    )
    with ChatServer(faults=[overloaded]) as server:
        client = AnthropicMessages("claude-haiku-4-5", base_url=server.base, api_key=KEY)
        assert client.chat(ASK, CallParams()).text.startswith("echo:")
        client.close()
    assert len(server.logged("/v1/messages")) == 2


def test_a_rate_limit_that_never_lifts_ends_with_the_providers_words() -> None:
    with ChatServer(faults=[OPENAI_429] * 6) as server:
        client = OpenAIChat("gpt-4o-mini", base_url=server.base, api_key=KEY)
        with pytest.raises(EndpointError) as raised:
            client.chat(ASK, CallParams())
        client.close()
    assert len(server.logged("/v1/chat/completions")) == 6
    message = str(raised.value.message)
    assert "HTTP 429 after 6 attempt(s); openai said: Rate limit reached" in message
    assert "(requests)" in message
