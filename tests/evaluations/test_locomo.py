"""LoCoMo as memrank reads it: the fingerprint, documents, evidence, negatives and slices."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

import memrank
from memrank import Evaluation, Task
from memrank.errors import UsageError
from memrank.evaluations import locomo
from memrank.evaluations.locomo import PIN


def _task(evaluation: Evaluation, task_id: str) -> Task:
    return next(task for task in evaluation.tasks if task.id == task_id)


def test_fingerprint_ten_conversations_and_1986_questions(locomo_full: Evaluation) -> None:
    assert len({task.group for task in locomo_full.tasks}) == 10
    assert len(locomo_full.tasks) == 1986
    counts = Counter(task.category for task in locomo_full.tasks)
    assert counts == {"1": 282, "2": 321, "3": 96, "4": 841, "5": 446}
    bundle = locomo_full.dataset_bundle()
    assert bundle.sha256 == PIN.sha256
    assert bundle.question_counts == {"1": 282, "2": 321, "3": 96, "4": 841, "5": 446}
    assert locomo_full.version == "locomo10@v1+79fa87e9"
    assert locomo_full.k == 20 and locomo_full.slice is None


def test_turns_keep_their_ids_speakers_sessions_and_dates(locomo_full: Evaluation) -> None:
    context = _task(locomo_full, "conv-26:q1").context
    assert len(context) == 419
    first = context[0]
    assert first.id == "D1:1" and first.content.startswith("Caroline: Hey Mel!")
    assert first.metadata == {"session_id": "session_1", "speaker": "Caroline", "dia_id": "D1:1"}
    assert first.timestamp == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    sessions = list(dict.fromkeys(d.metadata["session_id"] for d in context))
    assert sessions == [f"session_{n}" for n in range(1, 20)]  # numeric, not text, order
    timestamps = [d.timestamp for d in context]
    assert timestamps == sorted(timestamps)  # sessions in order are also in time order
    shared_image = next(d for d in context if d.id == "D1:5")
    assert shared_image.text.endswith(
        "[shares a photo of a dog walking past a wall with a painting of a woman]"
    )


def test_evidence_ids_are_normalised_and_unknown_ones_dropped(locomo_full: Evaluation) -> None:
    assert _task(locomo_full, "conv-26:q38").expected.evidence_doc_ids == ("D8:6", "D9:17")
    assert "D11:26" in _task(locomo_full, "conv-43:q19").expected.evidence_doc_ids
    assert _task(locomo_full, "conv-49:q32").expected.evidence_doc_ids == ("D9:1", "D4:4", "D4:6")
    assert _task(locomo_full, "conv-42:q89").expected.evidence_doc_ids == ("D1:18", "D1:20")
    dropped = _task(locomo_full, "conv-42:q59")
    assert dropped.metadata["evidence_dropped"] == ["D10:19"]
    first = _task(locomo_full, "conv-26:q1")
    assert first.metadata["evidence"] == [
        {
            "id": "D1:3",
            "session": "session_1",
            "text": "I went to a LGBTQ support group yesterday and it was so powerful.",
        }
    ]


def test_adversarial_questions_are_negative_tasks(locomo_full: Evaluation) -> None:
    negatives = [t for t in locomo_full.tasks if t.metadata.get("negative")]
    assert len(negatives) == 446 and {t.category for t in negatives} == {"5"}
    charity = _task(locomo_full, "conv-26:q153")
    assert charity.metadata["adversarial_answer"] == "self-care is important"
    assert all(t.expected.required_spans == () for t in negatives)


def test_spans_are_answers_found_verbatim_in_the_evidence(locomo_full: Evaluation) -> None:
    with_spans = [t for t in locomo_full.tasks if t.expected.required_spans]
    assert len(with_spans) == 486
    for task in with_spans:
        (span,) = task.expected.required_spans
        assert any(span.lower() in e["text"].lower() for e in task.metadata["evidence"])
    dated = _task(locomo_full, "conv-26:q1")  # "7 May 2023", said as "yesterday"
    assert dated.expected.answers == ("7 May 2023",) and dated.expected.required_spans == ()


def test_slices_are_documented_subsets_marked_everywhere(locomo_smoke: Evaluation) -> None:
    assert locomo_smoke.slice == "smoke"
    assert {t.group for t in locomo_smoke.tasks} == {"conv-26"} and len(locomo_smoke.tasks) == 199
    assert locomo_smoke.dataset_bundle().question_counts == {
        "1": 32,
        "2": 37,
        "3": 13,
        "4": 70,
        "5": 47,
    }


def test_slices_by_name(data_dir: Path) -> None:
    mini = memrank.evaluation("locomo:mini")
    assert mini.slice == "mini"
    assert [g for g in dict.fromkeys(t.group for t in mini.tasks)] == [
        "conv-26",
        "conv-30",
        "conv-41",
    ]
    with pytest.raises(UsageError, match="has no slice 'tiny'; its slices are smoke: the first"):
        locomo("tiny")


def test_the_image_slice_holds_the_questions_citing_an_image_turn(shared_data: Path) -> None:
    view = locomo("images", path=shared_data / "locomo")
    assert view.slice == "images" and view.version == "locomo10@v1+79fa87e9"
    counts = Counter(task.category for task in view.tasks)
    assert counts == {"1": 201, "2": 157, "3": 55, "4": 288, "5": 160}
    turns = {d.id: d for d in view.tasks[0].context}
    first = view.tasks[0]
    assert any("[shares " in turns[i].text for i in first.expected.evidence_doc_ids)
