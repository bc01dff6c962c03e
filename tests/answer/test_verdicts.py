"""Each protocol's verdict rule; a reply that cannot be read is None with the reason."""

from __future__ import annotations

import pytest

from memrank.answer.verdicts import aml_label, graded_score, json_label, yes_no


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


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('{"score": 0, "reasoning": "Wrong polarity."}', 0.0),
        ('{"score": 0.25, "reasoning": "Misses the core entity."}', 0.5),  # as upstream reads it
        ('{"score": 0.5, "reasoning": "Vague."}', 0.5),
        ('{"score": 0.75, "reasoning": "Minor details missing."}', 1.0),  # as upstream reads it
        ('{"score": 1, "reasoning": "Exact."}', 1.0),
        ('{"score": 1.0}', 1.0),  # no reasoning: the score is still read
        ('Verdict:\n```json\n{"score": 0.5, "reasoning": "Partly."}\n```', 0.5),
        ('{"score": 0.3, "reasoning": "off the rubric"}', None),
        ('{"score": 2}', None),
        ('{"score": -1}', None),
        ('{"score": "1", "reasoning": "a string"}', None),
        ('{"score": true}', None),
        ('{"reasoning": "no score"}', None),
        ('{"score": 1, "reasoning": "unclosed}', None),
        ("[1]", None),
        ("score: 1", None),  # upstream's text fallback would read it; memrank does not
        ("", None),
    ],
)
def test_mem_gallery_graded_score(reply: str, value: float | None) -> None:
    decided, why = graded_score(reply)
    assert decided == value
    if value is None:
        assert why.startswith("malformed verdict") and repr(reply) in why
    else:
        assert reply in why


def test_mem_gallerys_judge_is_graded_not_binary() -> None:
    from memrank.answer import Judge, protocol
    from memrank.systems.models import OpenAIChat

    judge = OpenAIChat("m", base_url="http://127.0.0.1:9/v1", api_key=None)
    assert Judge(protocol("mem-gallery@v1"), judge, answerer="system").binary == ()
    assert Judge(protocol("mem-gallery"), judge, passes=3, answerer="system").binary == ()
    judge.close()


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
