"""What a returned item claims of what its unit was told: the told document it repeats or holds
whole, with that document's session; a piece of told text only the session it comes from."""

from __future__ import annotations

import pytest

from memrank import Document
from memrank.systems.http._attribution import Told, exact_key


def _told() -> Told:
    told = Told(exact_key)
    told.add(
        [
            Document(
                id="t1",
                content="Caroline: We adopted a cat called Oscar.",
                metadata={"session_id": "s1"},
            ),
            Document(id="t2", content="Melanie: Oscar is lovely.", metadata={"session_id": "s1"}),
            Document(id="t3", content="Melanie: We adopted a dog.", metadata={"session_id": "s2"}),
        ]
    )
    return told


@pytest.mark.parametrize(
    "returned",
    [
        "Caroline: We adopted a cat called Oscar.",  # as told
        "[2023-05-01] caroline:  WE ADOPTED A CAT CALLED OSCAR.  (memory)",  # held whole
    ],
)
def test_an_item_repeating_or_holding_one_told_document_claims_it_and_its_session(
    returned: str,
) -> None:
    assert _told().attribution(returned) == {"doc_id": "t1", "session_id": "s1"}


def test_an_item_holding_told_documents_of_one_session_claims_the_session_alone() -> None:
    merged = "Caroline: We adopted a cat called Oscar.\nMelanie: Oscar is lovely."
    assert _told().attribution(merged) == {"session_id": "s1"}


def test_a_piece_of_one_told_document_claims_its_session_never_its_id() -> None:
    assert _told().attribution("we adopted a cat") == {"session_id": "s1"}


def test_a_piece_of_told_documents_in_two_sessions_claims_nothing() -> None:
    assert _told().attribution("We adopted a") == {}
    assert _told().attribution("never said to this unit") == {}


def test_holding_a_told_document_whole_outweighs_being_a_piece_of_another() -> None:
    told = _told()
    told.add([Document(id="t4", content="Oscar", metadata={"session_id": "s3"})])
    # "oscar is lovely" holds "Oscar" whole and is a piece of t2 too: it claims what it holds
    assert told.attribution("Oscar is lovely") == {"doc_id": "t4", "session_id": "s3"}


def test_a_carried_id_is_claimed_as_carried() -> None:
    assert _told().attribution("we adopted a cat", carried_id="t1") == {
        "doc_id": "t1",
        "session_id": "s1",
    }
