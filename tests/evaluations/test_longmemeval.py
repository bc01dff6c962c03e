"""LongMemEval read from a small file in the official format, written here."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

import memrank
from memrank.errors import DatasetMalformed, DatasetMismatch
from memrank.evaluations import longmemeval, longmemeval_file
from memrank.evaluations.longmemeval import PIN, TYPES
from memrank.systems.bm25 import BM25

FILLER = [
    [
        {"role": "user", "content": "Can you suggest a recipe for lentil soup?"},
        {"role": "assistant", "content": "Simmer lentils with onion, carrot and cumin."},
    ],
    [
        {"role": "user", "content": "How do I change a bicycle tyre?"},
        {"role": "assistant", "content": "Lever the tyre off the rim and seat the new one."},
    ],
]


def _record(
    question_id: str, question_type: str, question: str, answer: Any, evidence: list[str]
) -> dict[str, Any]:
    """A history of two filler sessions and one answer session per evidence sentence."""
    sessions = [*FILLER]
    ids = ["sharegpt_a_0", "ultrachat_b"]
    for number, sentence in enumerate(evidence):
        sessions.append(
            [
                {"role": "user", "content": sentence, "has_answer": True},
                {
                    "role": "assistant",
                    "content": "Noted, thanks for telling me.",
                    "has_answer": False,
                },
            ]
        )
        ids.append(f"answer_{question_id}_{number}")
    return {
        "question_id": question_id,
        "question_type": question_type,
        "question": question,
        "answer": answer,
        "question_date": "2023/05/30 (Tue) 23:40",
        "haystack_session_ids": ids,
        "haystack_dates": [f"2023/05/{20 + i} (Sat) 02:21" for i in range(len(ids))],
        "haystack_sessions": sessions,
        "answer_session_ids": ids[2:],
    }


RECORDS = [
    _record(
        "q-user-1",
        "single-session-user",
        "Which degree did I graduate with?",
        "Business Administration",
        ["I graduated with a degree in Business Administration."],
    ),
    _record(
        "q-user-2",
        "single-session-user",
        "What is my dog called?",
        "Pepper",
        ["My dog Pepper loves the beach."],
    ),
    _record(
        "q-multi-1",
        "multi-session",
        "How many marathons did I run in total?",
        2,
        ["I ran the Boston marathon in April.", "I ran the Berlin marathon in September."],
    ),
    _record(
        "q-multi-1_abs",
        "multi-session",
        "In which month did I do the Boston triathlon?",
        "You did not mention any triathlon.",
        ["I ran the Boston marathon in April."],
    ),
    _record(
        "q-temporal-1",
        "temporal-reasoning",
        "How long after buying the kayak did I sell it?",
        "three weeks",
        ["I bought a kayak on May 1.", "I sold the kayak on May 22."],
    ),
    _record(
        "q-update-1",
        "knowledge-update",
        "Where do I work now?",
        "Lisbon office",
        ["I moved to the Lisbon office last month."],
    ),
    _record(
        "q-assist-1",
        "single-session-assistant",
        "Which paint brand did you recommend?",
        "Winsor",
        ["Which brand of watercolour paint is good?"],
    ),
    _record(
        "q-pref-1",
        "single-session-preference",
        "Suggest a weekend activity for me.",
        "hiking",
        ["I love hiking in the mountains at weekends."],
    ),
]


@pytest.fixture
def official_file(tmp_path: Path) -> Path:
    path = tmp_path / "longmemeval_s_cleaned.json"
    path.write_bytes(orjson.dumps(RECORDS))
    return path


def test_tasks_groups_and_sessions_give_nothing_away(official_file: Path) -> None:
    evaluation = longmemeval_file(official_file)
    assert [t.id for t in evaluation.tasks] == [r["question_id"] for r in RECORDS]
    assert evaluation.k == 20 and evaluation.dataset is not None
    assert evaluation.version.startswith("longmemeval@v1+")
    for task in evaluation.tasks:
        assert "abs" not in str(task.group) and "q-" not in str(task.group)
        for document in task.context:
            shown = document.model_dump_json()
            assert "answer" not in shown and "has_answer" not in shown
    multi = evaluation.tasks[2]
    assert multi.group == "history-3" and multi.category == "multi-session"
    assert multi.asked_at == datetime(2023, 5, 30, 23, 40, tzinfo=UTC)
    assert [d.id for d in multi.context[:2]] == ["session-1:1", "session-1:2"]
    assert multi.context[0].timestamp == datetime(2023, 5, 20, 2, 21, tzinfo=UTC)
    assert multi.expected.evidence_doc_ids == ("session-3:1", "session-4:1")
    assert multi.expected.answers == ("2",)


def test_abstention_questions_abstain_and_are_negative(official_file: Path) -> None:
    abstaining = longmemeval_file(official_file).tasks[3]
    assert abstaining.expected.abstain and abstaining.metadata["negative"] is True
    assert abstaining.expected.required_spans == ()


def test_session_measures_over_the_retrieval_scoreable_questions(official_file: Path) -> None:
    result = memrank.run(BM25(), longmemeval_file(official_file))
    value = {(v.measure, v.task_id): v for v in result.values}
    # "degree ... Business Administration" shares words only with its answer session.
    assert value[("recall-all@5", "q-user-1")].value == 1.0
    assert value[("ndcg-any@5", "q-user-1")].value == 1.0
    abstaining = value[("recall-all@5", "q-multi-1_abs")]
    assert abstaining.value is None and "abstention" in abstaining.why
    assert value[("evidence-recall-negative@5", "q-multi-1_abs")].value == 1.0
    means = {v.measure: v for v in result.values if v.task_id is None}
    assert means["recall-all@5.mean"].why.startswith("mean over 7 task(s)")
    assert "recall-all@5.mean.category-multi-session" in means
    assert value[("word-match", "q-user-1")].value == 1.0  # the answer is verbatim evidence


def test_stratified_slices(official_file: Path) -> None:
    smoke = longmemeval_file(official_file, slice="smoke")
    assert smoke.slice == "smoke"
    assert [t.id for t in smoke.tasks] == [
        "q-user-1",
        "q-multi-1",
        "q-temporal-1",
        "q-update-1",
        "q-assist-1",
        "q-pref-1",
    ]
    assert {t.category for t in smoke.tasks} == set(TYPES)
    assert len(longmemeval_file(official_file, slice="mini").tasks) == len(RECORDS)


def test_the_pinned_evaluation_refuses_any_other_file(
    official_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMRANK_LONGMEMEVAL_FILE", str(official_file))
    with pytest.raises(DatasetMismatch) as refused:
        longmemeval()
    assert PIN.sha256 in str(refused.value) and str(official_file) in str(refused.value)


def test_a_file_not_in_the_format_is_named(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_bytes(orjson.dumps([{"question_id": "q1"}]))
    with pytest.raises(DatasetMalformed, match=f"{broken}: not in LongMemEval's format"):
        longmemeval_file(broken)
