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


def test_judged_names_read_back_protocol_and_judge() -> None:
    from memrank.answer import judged_name

    assert judged_name("judge:mem0@v1:openai-compatible:http://127.0.0.1:8080/v1:llama3:8b") == (
        "judge",
        "mem0@v1",
        "openai-compatible:http://127.0.0.1:8080/v1:llama3:8b",
    )
    assert judged_name("locomo-f1:locomo@v1") == ("locomo-f1", "locomo@v1", None)
    assert judged_name("evidence-recall@5") is None and judged_name("judge") is None


def test_a_single_pass_judge_is_declared_binary() -> None:
    from memrank.answer import Judge, protocol
    from memrank.systems.models import OpenAIChat

    judge = OpenAIChat("m", base_url="http://127.0.0.1:9/v1", api_key=None)
    one, many = Judge(protocol("mem0"), judge), Judge(protocol("mem0"), judge, passes=3)
    assert one.binary == (one.name,)
    assert many.binary == tuple(f"{many.name}.pass-{i}" for i in (1, 2, 3))
    judge.close()
