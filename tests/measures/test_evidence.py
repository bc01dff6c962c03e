"""Evidence measures decided over hand-made traces, where the right answer is known."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

import memrank
from memrank import Document, Expected, Recall, Task, Trace, Value
from memrank.measures import (
    EvidenceMeans,
    EvidenceRecall,
    EvidenceTurn,
    RecalledWords,
    SessionRanking,
    SessionRecall,
    evidence_metadata,
)
from memrank.measures.ranking import ndcg

MOMENT = datetime(2026, 1, 1, tzinfo=UTC)
TURNS = [
    EvidenceTurn(id="D1:3", session="session_1", text="I went to a  support group yesterday."),
    EvidenceTurn(id="D4:2", session="session_4", text="We adopted a cat called Oscar."),
]


def _doc(identifier: str, text: str, **metadata: object) -> Document:
    return Document(id=identifier, content=text, metadata=metadata)


def _trace(
    documents: list[Document],
    turns: list[EvidenceTurn] = TURNS,
    negative: bool = False,
    task_id: str = "t1",
    category: str | None = None,
    abstain: bool = False,
) -> Trace:
    task = Task(
        id=task_id,
        prompt="what happened?",
        category=category,
        expected=Expected(abstain=abstain),
        metadata=evidence_metadata(turns, negative=negative),
    )
    return Trace(
        task=task, recalled=Recall(documents=tuple(documents)), started=MOMENT, finished=MOMENT
    )


def _values(measure: memrank.Measure, *traces: Trace) -> dict[str, Value]:
    return {v.measure: v for v in measure.measure(list(traces), [])}


NOISE = [_doc(f"n{i}", f"unrelated chatter number {i}", session_id="session_9") for i in range(30)]


def test_a_turn_counts_when_its_text_is_contained_or_its_id_is_named() -> None:
    documents = [
        *NOISE[:3],
        # the system's own record holding the turn, in other case and spacing
        _doc("memory-17", "Caroline said: I WENT TO A SUPPORT\ngroup yesterday. Then lunch."),
        *NOISE[3:10],
        _doc("D4:2#chunk-1", "called Oscar.", doc_id="D4:2"),  # a chunk standing for the turn
    ]
    values = _values(EvidenceRecall(), _trace(documents))
    assert values["evidence-recall@5"].value == 0.5  # found at rank 4
    assert values["evidence-recall@10"].value == 0.5
    assert values["evidence-recall@20"].value == 1.0  # the chunk is at rank 12
    assert values["evidence-recall@20"].why.endswith("D1:3, D4:2 (by id and by content)")
    assert values["evidence-recall@10"].why.endswith("D1:3 (by content)")
    assert values["evidence-hit@10"].value == 1.0
    assert values["evidence-hit@10"].why == "first evidence turn at rank 4"


def test_content_is_compared_without_punctuation_width_or_case() -> None:
    # A store that drops final punctuation, folds width and keeps its own record ids
    stored = [
        _doc("rec-1", "Ｉ went to a support group, yesterday"),  # fullwidth I, a comma added
        _doc("rec-2", "we adopted a cat — called Oscar"),
    ]
    values = _values(EvidenceRecall(), _trace(stored))
    assert values["evidence-recall@5"].value == 1.0
    assert values["evidence-recall@5"].why.endswith("D1:3, D4:2 (by content)")


def test_content_is_matched_by_whole_words_only() -> None:
    turn = [EvidenceTurn(id="D2:1", session="session_2", text="A cat.")]
    inside_a_word = _values(EvidenceRecall(), _trace([_doc("x", "a category of its own")], turn))
    assert inside_a_word["evidence-recall@5"].value == 0.0
    whole = _values(EvidenceRecall(), _trace([_doc("x", "Then: a cat!")], turn))
    assert whole["evidence-recall@5"].value == 1.0


def test_part_of_a_turn_earns_the_share_of_its_words_never_the_turn() -> None:
    values = _values(EvidenceRecall(), _trace([_doc("x", "We adopted a cat")]))
    # 4 of the 6 words of "We adopted a cat called Oscar.", one of the task's two turns
    assert values["evidence-recall@5"].value == pytest.approx(4 / 6 / 2)
    assert values["evidence-recall@5"].why == (
        "0 of 2 evidence turn(s) within the first 5; shown in part: D4:2 4 of 6 words"
    )
    assert values["evidence-hit@10"].value == 0.0


def test_sessions_count_by_the_session_a_document_names_or_by_evidence_text() -> None:
    documents = [
        _doc("D1:9", "something else said that day", session_id="session_1"),
        *NOISE[:8],
        _doc("joined", "Notes: We adopted a cat called Oscar."),
    ]
    values = _values(SessionRecall(), _trace(documents))
    assert values["session-recall@5"].value == 0.5
    assert values["session-recall@10"].value == 1.0
    assert values["session-recall@10"].why.endswith("session_1, session_4")


def test_a_document_naming_no_session_makes_a_missing_session_unknown_not_a_miss() -> None:
    documents = [
        _doc("D1:9", "something else said that day", session_id="session_1"),
        _doc("item-7", "the service's own record, session not given"),
        *NOISE[:8],
        _doc("joined", "Notes: We adopted a cat called Oscar."),
    ]
    values = _values(SessionRecall(), _trace(documents))
    assert values["session-recall@5"].value is None
    assert values["session-recall@5"].why.startswith("session unknown: 1 of the first 5")
    assert values["session-recall@20"].value == 1.0  # every session found: nothing unknown


def test_negative_tasks_report_apart_from_the_headline() -> None:
    produced = EvidenceRecall().measure([_trace([_doc("D1:3", TURNS[0].text)], negative=True)], [])
    headline = [v for v in produced if "-negative" not in v.measure]
    apart = {v.measure: v.value for v in produced if "-negative" in v.measure}
    assert {v.value for v in headline} == {None}
    assert all("never in the headline" in v.why for v in headline)
    assert apart == {
        "evidence-recall-negative@5": 0.5,
        "evidence-recall-negative@10": 0.5,
        "evidence-recall-negative@20": 0.5,
        "evidence-hit-negative@10": 1.0,
    }


@pytest.mark.parametrize(
    "abstain,reason",
    [(False, "names no evidence turns"), (True, "an abstention task")],
)
def test_no_evidence_is_none_with_a_reason(abstain: bool, reason: str) -> None:
    for measure in (EvidenceRecall(), SessionRecall()):
        produced = measure.measure([_trace([], turns=[], abstain=abstain)], [])
        assert produced and all(v.value is None and reason in v.why for v in produced)
        assert not any("-negative" in v.measure for v in produced)


def test_longmemevals_discount_and_recall_all() -> None:
    assert ndcg([True], wanted=1, k=5) == 1.0
    assert ndcg([False, True], wanted=1, k=5) == 1.0  # ranks 1 and 2 both weigh 1
    assert ndcg([False, False, True], wanted=1, k=5) == pytest.approx(1 / math.log2(3))
    assert ndcg([False, True], wanted=2, k=5) == pytest.approx(0.5)
    assert ndcg([False] * 5 + [True], wanted=1, k=5) == 0.0
    documents = [
        _doc("a", "x", session_id="session_9"),
        _doc("b", "y", session_id="session_9"),  # same session: one rank
        _doc("c", "We adopted a cat called Oscar."),  # no session named: its evidence's
        _doc("d", "z", session_id="session_1"),
    ]
    values = _values(SessionRanking(), _trace(documents))
    assert values["recall-all@5"].value == 1.0
    assert values["ndcg-any@5"].value == pytest.approx(
        (1 / 1 + 1 / math.log2(3)) / (1 + 1)  # relevant at ranks 2 and 3 of [9, 4, 1]
    )


def test_means_leave_out_tasks_without_a_value_and_split_by_category() -> None:
    hit = [_doc("D1:3", TURNS[0].text), _doc("D4:2", TURNS[1].text)]
    traces = [
        _trace(hit, task_id="a", category="1"),
        _trace([], task_id="b", category="1"),
        _trace(hit, task_id="c", category="2"),
        _trace(hit, task_id="d", category="5", negative=True),
    ]
    values: list[Value] = []
    for measure in (EvidenceRecall(), SessionRecall(), RecalledWords()):
        values += measure.measure(traces, values)
    means = {v.measure: v for v in EvidenceMeans(["1", "2"]).measure(traces, values)}
    assert means["evidence-recall@5.mean"].value == pytest.approx(2 / 3)
    assert means["evidence-recall@5.mean"].why == (
        "mean over 3 task(s) (2 of 3); 1 without a value left out"
    )
    assert means["evidence-recall@5.mean.category-1"].value == 0.5
    assert means["evidence-recall@5.mean.category-2"].value == 1.0
    assert means["evidence-hit@10.mean"].why.startswith("mean over 3 task(s) (2 of 3)")
    assert means["evidence-recall-negative@5.mean"].value == 1.0
    assert means["recalled-words.mean"].value == pytest.approx(3 * 13 / 4)


def test_the_two_levels_read_a_trace_once_and_forget_it_with_the_trace() -> None:
    from memrank.measures import evidence

    recalled = [*NOISE[:3], _doc("x", "We adopted a cat called Oscar!", session_id="session_4")]
    trace = _trace(recalled)
    assert _values(EvidenceRecall(), trace)["evidence-recall@5"].value == 0.5
    assert id(trace) in evidence._FOUND  # kept for the session level, which reads it next
    assert _values(SessionRecall(), trace)["session-recall@5"].value == 0.5
    key = id(trace)
    del trace
    assert key not in evidence._FOUND  # nothing outlives the trace it was read of
