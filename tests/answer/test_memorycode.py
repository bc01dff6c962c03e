"""MemoryCode as its authors score it: an answer model writes the code each question asks for,
from the sessions a memory recalled, and upstream's regex checks decide."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import memrank
from memrank.answer import AnswerStage, answer_name, count_tokens, prompt, protocol
from memrank.systems.models import OpenAIChat
from tests.systems.models.chat_server import KEY, ChatServer

_FOLLOWS = "def dot(e_a, e_b):\n    return sum(x * y for x, y in zip(e_a, e_b))\n"
_BREAKS = "def dot(a, b):\n    return 0\n"


def _writer(code: str) -> Any:
    return lambda messages: f"```python\n{code}```"


def _first_dialogue(shared_data: Path) -> memrank.Evaluation:
    from memrank.evaluations import memorycode

    whole = memorycode("sessions-1", path=shared_data / "memorycode")
    return whole.model_copy(update={"tasks": whole.tasks[:2], "measures": ()})


def _run(evaluation: memrank.Evaluation, code: str, budget: int) -> tuple[Any, list[dict]]:
    with ChatServer(reply=_writer(code)) as server:
        model = OpenAIChat("gpt-4o", base_url=server.base, api_key=KEY)
        stage = AnswerStage(protocol("memorycode"), model, budget)
        result = memrank.run(memrank.system("bm25"), evaluation, answer=stage)
        model.close()
    return result, [json.loads(e.body) for e in server.logged("/v1/chat/completions")]


def test_the_answer_model_writes_code_and_upstreams_checks_decide(shared_data: Path) -> None:
    evaluation = _first_dialogue(shared_data)
    name = answer_name("instructions-followed", "memorycode@v1", "openai:gpt-4o")
    result, bodies = _run(evaluation, _FOLLOWS, 5000)
    assert [v.value for v in result.values if v.measure == name] == [1.0, 1.0]
    assert any(v.measure == f"{name}.mean" for v in result.values)
    task = evaluation.tasks[0]
    roles = task.metadata["roles"]
    body = bodies[0]
    assert set(body) == {"model", "messages"}  # MemoryCode's OpenAI call sends no temperature
    system, user = body["messages"]
    assert system == {"role": "system", "content": prompt("memorycode-preamble").render(**roles)}
    assert (
        f"You are {roles['mentee']}, a new software engineer at {roles['company']}."
        in (system["content"])
    )
    head = f"This is a thread of dialogues between you and your mentor {roles['mentor']}:\n "
    assert user["role"] == "user" and user["content"].startswith(head + "\n\n Session 0 \n\n")
    queries = {t.metadata["query"] for t in evaluation.tasks}
    assert any(
        user["content"].endswith(
            f"write a {q}. Do not provide example usage. You must "
            "follow all the latest coding guidelines provided by your mentor, including any "
            "possible updates."
        )
        for q in queries
    )
    broken, _ = _run(evaluation, _BREAKS, 5000)
    assert [v.value for v in broken.values if v.measure == name] == [0.0, 0.0]


def test_memorycode_sessions_fit_the_budget_in_dialogue_order(shared_data: Path) -> None:
    from memrank.evaluations import memorycode

    long = memorycode("sessions-10", path=shared_data / "memorycode")
    task = long.tasks[0]
    stage = AnswerStage(protocol("memorycode"), None, 3000)
    recalled = list(reversed(task.context))  # the last session ranked first
    rendered, held = stage.fit(task, recalled)
    assert 0 < held < len(recalled) and count_tokens(rendered.context) <= 3000
    text = rendered.messages[-1].content
    kept = sorted(recalled[:held], key=lambda d: int(d.id.rsplit("-", 1)[1]))
    positions = [text.index(d.text) for d in kept]
    assert positions == sorted(positions)  # listed as the dialogue went, not as ranked
    assert text.count(" Session ") == held
