"""Credit only for what was shown, and only for what was told: a document that is a piece of an
evidence turn earns the share of the turn's words it covers, within the cut and no further; and
a document at a foreign rank earns nothing at either level, yet keeps its rank."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memrank import Document, Expected, Recall, Task, Trace
from memrank.budget import Budget, TraceCut
from memrank.measures import EvidenceRecall, EvidenceTurn, SessionRecall, evidence_metadata
from memrank.measures.evidence import KS

MOMENT = datetime(2026, 1, 1, tzinfo=UTC)
TURN = EvidenceTurn(id="D4:2", session="session_4", text="We adopted a cat called Oscar.")
"""Six words: we adopted a cat called oscar."""
OTHER = EvidenceTurn(id="D1:3", session="session_1", text="I went to a support group.")


def _doc(text: str, identifier: str = "record", **metadata: object) -> Document:
    return Document(id=identifier, content=text, metadata=metadata)


def _noise(count: int) -> list[Document]:
    """Documents of another session holding no word run of any evidence turn."""
    return [_doc(f"unrelated chatter number {i}", f"n{i}", session_id="s9") for i in range(count)]


def _trace(
    documents: list[Document], turns: tuple[EvidenceTurn, ...] = (TURN,), **update: object
) -> Trace:
    task = Task(
        id="t1",
        prompt="what happened?",
        expected=Expected(),
        metadata=evidence_metadata(list(turns)),
    )
    trace = Trace(
        task=task, recalled=Recall(documents=tuple(documents)), started=MOMENT, finished=MOMENT
    )
    return trace.model_copy(update=update)


def _read(
    trace: Trace, measure: EvidenceRecall | SessionRecall | None = None
) -> dict[str, tuple[float | None, str]]:
    return {v.measure: (v.value, v.why) for v in (measure or EvidenceRecall()).measure([trace], [])}


def _recall_at(
    documents: list[Document], k: int = 5, turns: tuple[EvidenceTurn, ...] = (TURN,)
) -> float | None:
    return _read(_trace(documents, turns))[f"evidence-recall@{k}"][0]


@pytest.mark.parametrize("k", KS)
def test_a_piece_at_rank_k_counts_within_k_and_one_rank_later_does_not(k: int) -> None:
    piece = _doc("we adopted a cat")
    at_k = _read(_trace([*_noise(k - 1), piece]))
    assert at_k[f"evidence-recall@{k}"] == (
        pytest.approx(4 / 6),
        f"0 of 1 evidence turn(s) within the first {k}; shown in part: D4:2 4 of 6 words",
    )
    assert all(at_k[f"evidence-recall@{shorter}"][0] == 0.0 for shorter in KS if shorter < k)
    assert at_k["evidence-hit@10"][0] == 0.0  # a piece is never a hit
    one_later = _read(_trace([*_noise(k), piece]))
    assert one_later[f"evidence-recall@{k}"] == (
        0.0,
        f"0 of 1 evidence turn(s) within the first {k}",
    )


def test_a_piece_the_budget_kept_counts_and_one_it_cut_does_not() -> None:
    documents = [*_noise(2), _doc("Oscar!"), *_noise(2)]
    measure = EvidenceRecall(budget=Budget.words(500))
    for kept, expected in ((3, 1 / 6), (2, 0.0)):
        cut = TraceCut(
            budget=Budget.words(500), kept=kept, used=12, why="as the run's budget cut it"
        )
        value, why = _read(_trace(documents, cut=cut), measure)["evidence-recall@500w"]
        assert value == pytest.approx(expected)
        assert why.startswith(
            f"0 of 1 evidence turn(s) within the {kept} document(s) that fit 500 words"
        )


def test_pieces_before_the_whole_turn_earn_their_share_until_the_turn_earns_one() -> None:
    documents = [*_noise(1), _doc("a cat called Oscar"), *_noise(4), _doc(f"Ann: {TURN.text} Bye.")]
    values = _read(_trace(documents))
    assert values["evidence-recall@5"][0] == pytest.approx(4 / 6)
    assert values["evidence-recall@10"] == (
        1.0,
        "1 of 1 evidence turn(s) within the first 10: D4:2 (by content)",
    )
    assert values["evidence-hit@10"] == (1.0, "first evidence turn at rank 7")
    # one turn held whole, the other shown in part: each earns its own
    both = _read(_trace([_doc(OTHER.text), _doc("cat called Oscar")], turns=(OTHER, TURN)))
    assert both["evidence-recall@5"] == (
        pytest.approx((1 + 3 / 6) / 2),
        "1 of 2 evidence turn(s) within the first 5: D1:3 (by content); shown in part: D4:2 3 of 6 words",
    )


def test_a_chunk_standing_for_the_turn_by_id_earns_it_whole() -> None:
    assert _recall_at([_doc("called Oscar", "D4:2#chunk-2", doc_id="D4:2")]) == 1.0


def test_overlapping_pieces_count_each_word_once() -> None:
    assert _recall_at([_doc("we adopted a"), _doc("a cat called")]) == pytest.approx(5 / 6)
    assert _recall_at([_doc("We adopted"), _doc("a cat"), _doc("called Oscar")]) == 1.0


def test_repeating_a_piece_or_a_part_of_one_earns_nothing_more() -> None:
    once = _recall_at([_doc("we adopted a cat")])
    assert once == pytest.approx(4 / 6)
    assert _recall_at([_doc("we adopted a cat")] * 3) == once
    assert _recall_at([_doc("we adopted a cat"), _doc("adopted a"), _doc("WE ADOPTED!")]) == once


def test_a_piece_covers_every_place_it_occurs_in_the_turn() -> None:
    turn = EvidenceTurn(id="D2:1", session="session_2", text="I like it, and I like it a lot.")
    assert _recall_at([_doc("I like it")], turns=(turn,)) == pytest.approx(6 / 9)


@pytest.mark.parametrize(
    "text",
    [
        "cat call",  # "call" is not the word "called"
        "called Oscar and then left",  # overlaps the turn's end, and says more
        "Lunch. We adopted a cat",  # holds part of the turn among other text
        "?!",  # no words at all
    ],
)
def test_what_is_not_a_run_of_whole_words_of_the_turn_earns_nothing(text: str) -> None:
    assert _recall_at([_doc(text)]) == 0.0


def test_a_foreign_document_earns_nothing_but_keeps_its_rank() -> None:
    whole = _doc(f"Ann: {TURN.text}", session_id="session_4")
    told_later = _doc(f"Ann said: {TURN.text}", "r2", session_id="session_4")
    documents = [whole, _doc("a cat called Oscar"), *_noise(4), told_later]
    trace = _trace(documents, foreign=(1, 2))
    values = _read(trace)
    assert values["evidence-recall@5"] == (
        0.0,
        "0 of 1 evidence turn(s) within the first 5; 2 foreign document(s) earned nothing",
    )
    assert values["evidence-recall@10"][0] == 1.0  # the told copy at rank 7, as ranked
    assert values["evidence-hit@10"] == (1.0, "first evidence turn at rank 7")
    sessions = _read(trace, SessionRecall())
    assert sessions["session-recall@5"] == (
        0.0,
        "0 of 1 evidence session(s) within the first 5; 2 foreign document(s) earned nothing",
    )
    assert sessions["session-recall@10"][0] == 1.0


def test_a_foreign_document_naming_no_session_leaves_a_missing_session_a_miss() -> None:
    documents = [_doc("the service's own record"), *_noise(4)]
    assert _read(_trace(documents), SessionRecall())["session-recall@5"][0] is None  # unknown
    foreign = _read(_trace(documents, foreign=(1,)), SessionRecall())["session-recall@5"]
    assert foreign == (
        0.0,
        "0 of 1 evidence session(s) within the first 5; 1 foreign document(s) earned nothing",
    )
