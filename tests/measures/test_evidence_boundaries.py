"""The evidence measures at each of their boundaries: a turn or session at rank k counts within
the first k and one rank later does not, for every cut-off; what stands for a turn (its id, a
chunk's doc_id, a joined document's doc_ids, its text); the first of two documents holding one
turn; and when a session is unknown rather than missed. Every turn here is recalled whole."""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from memrank import Document, Expected, Recall, Task, Trace
from memrank.budget import Budget, TraceCut
from memrank.measures import EvidenceRecall, EvidenceTurn, SessionRecall, evidence_metadata
from memrank.measures.evidence import HIT_AT, KS, normalised

MOMENT = datetime(2026, 1, 1, tzinfo=UTC)
TURN = EvidenceTurn(id="D3:7", session="session_3", text="Melanie painted a sunrise over the lake.")
LATER = EvidenceTurn(id="D5:2", session="session_5", text="Caroline moved to Boston in May.")


def _noise(count: int) -> list[Document]:
    """Documents of another session that hold no part of any evidence turn."""
    return [
        Document(id=f"n{i}", content=f"unrelated chatter number {i}", metadata={"session_id": "s9"})
        for i in range(count)
    ]


def _trace(
    documents: list[Document], turns: tuple[EvidenceTurn, ...] = (TURN,), task_id: str = "t1"
) -> Trace:
    task = Task(
        id=task_id,
        prompt="what happened?",
        expected=Expected(),
        metadata=evidence_metadata(list(turns)),
    )
    return Trace(
        task=task, recalled=Recall(documents=tuple(documents)), started=MOMENT, finished=MOMENT
    )


def _read(
    documents: list[Document],
    turns: tuple[EvidenceTurn, ...] = (TURN,),
    measure: EvidenceRecall | SessionRecall | None = None,
) -> dict[str, tuple[float | None, str]]:
    values = (measure or EvidenceRecall()).measure([_trace(documents, turns)], [])
    return {v.measure: (v.value, v.why) for v in values}


def _standing_for(turn: EvidenceTurn, way: str) -> Document:
    """A recalled document that stands for ``turn`` in one of the ways the measure accepts."""
    elsewhere = "a record in the store's own words"
    if way == "id":
        return Document(id=turn.id, content=elsewhere)
    if way == "chunk":
        return Document(id=f"{turn.id}#chunk-2", content=elsewhere, metadata={"doc_id": turn.id})
    if way == "joined":
        return Document(id="joined-1", content=elsewhere, metadata={"doc_ids": ["D1:1", turn.id]})
    return Document(id="record-41", content=f"Melanie said: {turn.text.upper()} Then she left.")


WAYS = {"id": "by id", "chunk": "by id", "joined": "by id", "content": "by content"}


@pytest.mark.parametrize("way", list(WAYS))
@pytest.mark.parametrize("k", KS)
def test_a_turn_at_rank_k_counts_within_k_and_one_rank_later_does_not(k: int, way: str) -> None:
    assert KS == (5, 10, 20)
    at_k = _read([*_noise(k - 1), _standing_for(TURN, way)])
    value, why = at_k[f"evidence-recall@{k}"]
    assert (
        value == 1.0 and why == f"1 of 1 evidence turn(s) within the first {k}: D3:7 ({WAYS[way]})"
    )
    for shorter in (c for c in KS if c < k):
        assert at_k[f"evidence-recall@{shorter}"][0] == 0.0
    one_later = _read([*_noise(k), _standing_for(TURN, way)])
    assert one_later[f"evidence-recall@{k}"] == (
        0.0,
        f"0 of 1 evidence turn(s) within the first {k}",
    )


def test_evidence_hit_at_10_counts_a_first_turn_at_rank_10_and_not_at_11() -> None:
    assert HIT_AT == 10
    at_ten = _read([*_noise(9), _standing_for(TURN, "content")])
    assert at_ten["evidence-hit@10"] == (1.0, "first evidence turn at rank 10")
    at_eleven = _read([*_noise(10), _standing_for(TURN, "content")])
    assert at_eleven["evidence-hit@10"] == (0.0, "first evidence turn at rank 11")
    nothing = _read(_noise(3))
    assert nothing["evidence-hit@10"] == (0.0, "no evidence turn among the 3 recalled")


def test_evidence_hit_reads_the_best_placed_of_the_turns() -> None:
    documents = [*_noise(11), _standing_for(TURN, "id")]
    documents[2] = _standing_for(LATER, "id")
    values = _read(documents, (TURN, LATER))
    assert values["evidence-hit@10"] == (1.0, "first evidence turn at rank 3")
    assert values["evidence-recall@5"][0] == 0.5
    assert values["evidence-recall@20"] == (
        1.0,
        "2 of 2 evidence turn(s) within the first 20: D3:7, D5:2 (by id)",
    )


@pytest.mark.parametrize("first,then", [("content", "id"), ("id", "content")])
def test_a_turn_held_by_two_documents_counts_at_the_first(first: str, then: str) -> None:
    documents = [*_noise(12), _standing_for(TURN, then)]
    documents[2] = _standing_for(TURN, first)
    values = _read(documents)
    assert values["evidence-recall@5"] == (
        1.0,
        f"1 of 1 evidence turn(s) within the first 5: D3:7 ({WAYS[first]})",
    )
    assert values["evidence-hit@10"][1] == "first evidence turn at rank 3"


def test_a_document_standing_for_a_turn_by_id_is_named_by_id_even_when_it_holds_the_text() -> None:
    both = Document(id=TURN.id, content=TURN.text)
    assert _read([both])["evidence-recall@5"][1].endswith("D3:7 (by id)")
    ways = _read([_standing_for(TURN, "content"), _standing_for(LATER, "joined")], (TURN, LATER))
    assert ways["evidence-recall@5"][1].endswith("D3:7, D5:2 (by id and by content)")


# -- sessions --------------------------------------------------------------------------------


def _naming(session: str) -> Document:
    return Document(
        id="other", content="something else said that day", metadata={"session_id": session}
    )


@pytest.mark.parametrize("k", KS)
def test_a_session_named_at_rank_k_counts_within_k_and_one_rank_later_does_not(k: int) -> None:
    at_k = _read([*_noise(k - 1), _naming(TURN.session)], measure=SessionRecall())
    assert at_k[f"session-recall@{k}"] == (
        1.0,
        f"1 of 1 evidence session(s) within the first {k}: session_3",
    )
    one_later = _read([*_noise(k), _naming(TURN.session)], measure=SessionRecall())
    assert one_later[f"session-recall@{k}"] == (
        0.0,
        f"0 of 1 evidence session(s) within the first {k}",
    )


@pytest.mark.parametrize("k", KS)
def test_a_document_naming_no_session_at_rank_k_makes_the_session_unknown_within_k(
    k: int,
) -> None:
    silent = Document(id="item-7", content="the service's own record, session not given")
    at_k = _read([*_noise(k - 1), silent], measure=SessionRecall())
    value, why = at_k[f"session-recall@{k}"]
    assert value is None and why == (
        f"session unknown: 1 of the first {k} recalled document(s) name no session and hold "
        "no evidence turn; 0 of 1 evidence session(s) found among the rest"
    )
    one_later = _read([*_noise(k), silent], measure=SessionRecall())
    assert one_later[f"session-recall@{k}"][0] == 0.0


@pytest.mark.parametrize("k", KS)
def test_a_document_naming_no_session_but_holding_a_turn_finds_its_session(k: int) -> None:
    at_k = _read([*_noise(k - 1), _standing_for(TURN, "content")], measure=SessionRecall())
    assert at_k[f"session-recall@{k}"] == (
        1.0,
        f"1 of 1 evidence session(s) within the first {k}: session_3",
    )
    one_later = _read([*_noise(k), _standing_for(TURN, "content")], measure=SessionRecall())
    assert one_later[f"session-recall@{k}"] == (
        0.0,
        f"0 of 1 evidence session(s) within the first {k}",
    )


def test_a_document_holding_one_turn_is_not_unknown_when_another_session_is_missing() -> None:
    # It names no session, but it holds session_3's turn: it comes from session_3, so
    # session_5 is missed, not unknown.
    values = _read([_standing_for(TURN, "content"), *_noise(4)], (TURN, LATER), SessionRecall())
    assert values["session-recall@5"] == (
        0.5,
        "1 of 2 evidence session(s) within the first 5: session_3",
    )


def test_a_session_counts_at_its_first_rank_whether_named_or_held() -> None:
    held_first = [*_noise(8), _naming(TURN.session)]
    held_first[1] = _standing_for(TURN, "content")  # held at rank 2, named at rank 9
    assert _read(held_first, measure=SessionRecall())["session-recall@5"][0] == 1.0
    named_first = [*_noise(8), _standing_for(TURN, "content")]
    named_first[1] = _naming(TURN.session)  # named at rank 2, held at rank 9
    assert _read(named_first, measure=SessionRecall())["session-recall@5"][0] == 1.0


def test_a_missing_session_is_decided_once_every_session_is_found() -> None:
    silent = Document(id="item-7", content="the service's own record, session not given")
    documents = [silent, _naming(TURN.session), *_noise(6), _naming(LATER.session)]
    values = _read(documents, (TURN, LATER), SessionRecall())
    assert values["session-recall@5"][0] is None  # session_5 is missing, rank 1 names none
    assert values["session-recall@10"][0] == 1.0  # both found: the silent one changes nothing


def test_two_turns_of_one_session_are_one_session() -> None:
    same = EvidenceTurn(id="D3:9", session=TURN.session, text="She sold it at the fair.")
    values = _read([_standing_for(same, "id")], (TURN, same), SessionRecall())
    assert values["session-recall@5"] == (
        1.0,
        "1 of 1 evidence session(s) within the first 5: session_3",
    )


# -- at a budget ---------------------------------------------------------------------------


def _cut(kept: int, budget: Budget) -> Trace:
    documents = [*_noise(2), _standing_for(TURN, "content"), *_noise(3)]
    trace = _trace(documents)
    cut = TraceCut(budget=budget, kept=kept, used=40, why="as the run's budget cut it")
    return trace.model_copy(update={"cut": cut})


def test_the_documents_a_budget_kept_count_and_the_first_it_cut_does_not() -> None:
    measure = EvidenceRecall(budget=Budget.words(500))
    name = "evidence-recall@500w"
    for kept, expected in ((3, 1.0), (2, 0.0)):
        (value,) = [
            v for v in measure.measure([_cut(kept, Budget.words(500))], []) if v.measure == name
        ]
        assert value.value == expected
        assert f"within the {kept} document(s) that fit 500 words (40 used)" in value.why
    (other,) = [v for v in measure.measure([_cut(3, Budget.words(400))], []) if v.measure == name]
    assert other.value is None and "not held to the budget of 500 words" in other.why


def test_an_uncapped_budget_reads_no_value_at_it() -> None:
    measure = EvidenceRecall(budget=Budget.uncapped("no budget"))
    assert measure.names() == measure.produces and repr(measure) == "EvidenceRecall()"
    capped = EvidenceRecall(budget=Budget.words(500))
    assert capped.names()[-2:] == ("evidence-recall@500w", "evidence-recall-negative@500w")


@pytest.mark.parametrize("measure", [EvidenceRecall(), SessionRecall()], ids=repr)
def test_a_task_without_evidence_leaves_the_next_task_read(
    measure: EvidenceRecall | SessionRecall,
) -> None:
    unreadable = _trace([_standing_for(TURN, "id")], turns=())
    readable = _trace([_standing_for(TURN, "id")], task_id="t2")
    values = measure.measure([unreadable, readable], [])
    decided = {v.task_id for v in values if v.value is not None}
    assert decided == {"t2"} and {v.task_id for v in values} == {"t1", "t2"}


def test_the_measures_are_named_as_evaluations_list_them() -> None:
    assert (EvidenceRecall.name, SessionRecall.name) == ("evidence-recall", "session-recall")


# -- what a run was never told, and pieces of a turn ------------------------------------------


def _with_foreign(
    documents: list[Document], *ranks: int, turns: tuple[EvidenceTurn, ...] = (TURN,)
) -> Trace:
    return _trace(documents, turns).model_copy(update={"foreign": ranks})


@pytest.mark.parametrize("k", KS)
def test_a_foreign_document_at_rank_k_is_counted_within_k_and_earns_nothing(k: int) -> None:
    documents = [*_noise(k - 1), _standing_for(TURN, "content"), *_noise(2)]
    values = {v.measure: v for v in EvidenceRecall().measure([_with_foreign(documents, k)], [])}
    assert values[f"evidence-recall@{k}"].value == 0.0
    assert values[f"evidence-recall@{k}"].why.endswith("; 1 foreign document(s) earned nothing")
    shorter = [c for c in KS if c < k]
    for cut in shorter:
        assert (
            values[f"evidence-recall@{cut}"].why
            == f"0 of 1 evidence turn(s) within the first {cut}"
        )


def test_a_foreign_document_names_no_session_and_the_others_keep_theirs() -> None:
    documents = [*_noise(2), _naming(TURN.session), _naming(LATER.session), *_noise(2)]
    trace = _with_foreign(documents, 3, turns=(TURN, LATER))
    values = {v.measure: v for v in SessionRecall().measure([trace], [])}
    assert values["session-recall@5"].value == 0.5
    assert values["session-recall@5"].why.startswith(
        "1 of 2 evidence session(s) within the first 5: session_5"
    )


def test_a_turn_held_whole_at_rank_k_earns_one_however_much_a_piece_before_it_showed() -> None:
    piece = Document(id="p", content="Melanie painted a sunrise", metadata={"session_id": "s9"})
    documents = [piece, *_noise(3), _standing_for(TURN, "id")]
    values = _read(documents)
    assert values["evidence-recall@5"] == (
        1.0,
        "1 of 1 evidence turn(s) within the first 5: D3:7 (by id)",
    )
    before = _read([piece, *_noise(4), _standing_for(TURN, "id")])  # held whole at rank 6
    assert before["evidence-recall@5"][0] == pytest.approx(4 / 7)  # the piece's 4 of 7 words


def _piece(text: str) -> Document:
    return Document(id=f"piece {text}", content=text, metadata={"session_id": "s9"})


@pytest.mark.parametrize("k", KS)
def test_a_piece_at_rank_k_shows_its_words_within_k_and_one_rank_later_does_not(k: int) -> None:
    at_k = _read([*_noise(k - 1), _piece("Melanie painted a sunrise")])
    assert at_k[f"evidence-recall@{k}"] == (
        pytest.approx(4 / 7),
        f"0 of 1 evidence turn(s) within the first {k}; shown in part: D3:7 4 of 7 words",
    )
    one_later = _read([*_noise(k), _piece("Melanie painted a sunrise")])
    assert one_later[f"evidence-recall@{k}"] == (
        0.0,
        f"0 of 1 evidence turn(s) within the first {k}",
    )


@pytest.mark.parametrize(
    "pieces,words",
    [
        (["Melanie painted", "a sunrise"], 4),  # side by side: each word once
        (["painted a sunrise", "a sunrise over"], 4),  # overlapping: the shared words once
        (["over the lake", "over the lake"], 3),  # a copy shows nothing more
    ],
    ids=["adjacent", "overlapping", "copied"],
)
def test_pieces_cover_each_word_of_the_turn_once(pieces: list[str], words: int) -> None:
    values = _read([_piece(text) for text in pieces])
    assert values["evidence-recall@5"][0] == pytest.approx(words / 7)


def test_what_was_never_told_or_holds_nothing_of_a_turn_hides_nothing_after_it() -> None:
    documents = [_standing_for(TURN, "content"), *_noise(1), _piece("over the lake")]
    documents.append(_standing_for(LATER, "id"))
    trace = _with_foreign(documents, 1, turns=(TURN, LATER))
    values = {v.measure: v for v in EvidenceRecall().measure([trace], [])}
    assert values["evidence-recall@5"].value == pytest.approx((3 / 7 + 1) / 2)
    assert values["evidence-recall@5"].why == (
        "1 of 2 evidence turn(s) within the first 5: D5:2 (by id); shown in part: D3:7 3 of 7 "
        "words; 1 foreign document(s) earned nothing"
    )


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=40))
def test_ascii_text_normalises_by_the_rule_itself(text: str) -> None:
    # ASCII text takes a byte table, not NFKC, case folding and the \p{P} pattern; it must
    # give what they give for every character, the separators str.split() takes included.
    folded = unicodedata.normalize("NFKC", text).casefold()
    expected = " ".join(regex.sub(r"\p{P}+", " ", folded).split())
    assert normalised(text) == expected
