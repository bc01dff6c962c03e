"""Each protocol's verdict rule; a reply that cannot be read is None with the reason."""

from __future__ import annotations

import pytest

from memrank.answer.verdicts import aml_label, json_label, yes_no


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('{"label": "CORRECT"}', 1.0),
        ('{"label": "WRONG"}', 0.0),
        ('The answer names the necklace.\n```json\n{"label": "CORRECT"}\n```', 1.0),
        ('{"label": "correct"}', None),  # Mem0 compares to "CORRECT" exactly
        ("CORRECT", None),
        ('{"label": "MAYBE"}', None),
        ("{not json}", None),
    ],
)
def test_mem0_json_label(reply: str, value: float | None) -> None:
    decided, why = json_label(reply)
    assert decided == value
    assert (why == reply) if value is not None else why.startswith("malformed verdict")


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('Same content.\n```json\n{\n    "label": "correct"\n}\n```', 1.0),  # upper-cased
        ('{"label": "WRONG"} and {"label": "CORRECT"}', 0.0),  # the first object counts
        ("WRONG", None),
    ],
)
def test_aml_label(reply: str, value: float | None) -> None:
    assert aml_label(reply)[0] == value


@pytest.mark.parametrize(
    ("reply", "value"), [("Yes.", 1.0), ("no", 0.0), ("yes, mostly", 1.0), ("", None), ("?", None)]
)
def test_longmemeval_yes_no(reply: str, value: float | None) -> None:
    assert yes_no(reply)[0] == value


def test_judged_names_read_back_protocol_answer_model_and_judge() -> None:
    from memrank.answer import answer_name, judged_name

    local = "openai-compatible:http://127.0.0.1:8080/v1:llama3:8b"
    name = answer_name("judge", "mem0@v1", "anthropic:claude-haiku-4-5", local)
    assert name == "judge:mem0@v1:answer=anthropic:claude-haiku-4-5:judge=" + local
    assert judged_name(name) == ("judge", "mem0@v1", "anthropic:claude-haiku-4-5", local)
    assert judged_name(answer_name("locomo-f1", "locomo@v1", local)) == (
        "locomo-f1",
        "locomo@v1",
        local,
        None,
    )
    assert judged_name("locomo-f1:locomo@v1") is None  # a name without its answer model
    assert judged_name("evidence-recall@5") is None and judged_name("judge") is None


def test_a_single_pass_judge_is_declared_binary() -> None:
    from memrank.answer import Judge, protocol
    from memrank.systems.models import OpenAIChat

    judge = OpenAIChat("m", base_url="http://127.0.0.1:9/v1", api_key=None)
    one = Judge(protocol("mem0"), judge, answerer="system")
    many = Judge(protocol("mem0"), judge, passes=3, answerer="system")
    assert one.binary == (one.name,)
    assert many.binary == tuple(f"{many.name}.pass-{i}" for i in (1, 2, 3))
    judge.close()
