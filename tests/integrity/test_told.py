"""ToldIndex: which recalled documents stand for what their unit was told in this run, by id or
by normalised content, and which are foreign."""

from __future__ import annotations

import pytest

from memrank import Document
from memrank.integrity.told import ToldIndex

TOLD = (
    Document(id="D1:3", content="Caroline: I went to a LGBTQ support group yesterday."),
    Document(id="D1:4", content="Melanie: Wow, that's cool! How did it go?"),
    Document(id="D1:5", content="Caroline: It was so powerful, the stories were inspiring."),
)


@pytest.fixture(scope="module")
def told() -> ToldIndex:
    return ToldIndex(TOLD)


@pytest.mark.parametrize(
    "content",
    [
        "Caroline: I went to a LGBTQ support group yesterday.",  # an exact repeat
        "LGBTQ support group",  # a piece of one turn
        "  caroline -- i WENT to a lgbtq Support Group, yesterday ",  # reformatted
        # adjacent turns merged, in the order told
        "Caroline: I went to a LGBTQ support group yesterday. Melanie: Wow, that's cool!",
        "support group yesterday. Melanie: Wow",  # a piece across the turns' edge
        "[8 May 2023] Caroline: I went to a LGBTQ support group yesterday.",  # a date before it
        "Speaker Caroline: It was so powerful, the stories were inspiring.",  # a label before
        "Memory: CAROLINE: IT WAS SO POWERFUL, THE STORIES WERE INSPIRING. (stored 2024)",
        "Caroline: It was so powerful, the stories were inspiring. Caroline: I went to a LGBTQ "
        "support group yesterday.",  # two turns out of order, each whole
    ],
)
def test_what_was_told_in_any_shape_is_told(told: ToldIndex, content: str) -> None:
    assert told.told(Document(id="m1", content=content))


@pytest.mark.parametrize(
    "content",
    [
        "Caroline adopted a puppy last week.",  # never said
        "Caroline: I went to a LGBTQ support group last year.",  # a told turn, changed
        "support group yesterday. Caroline: It was so powerful",  # turns 1 and 3 run together
        "I went to a support group",  # words of a turn, not a run of them
        "",
        "...",  # nothing left once normalised
    ],
)
def test_what_was_never_told_is_foreign(told: ToldIndex, content: str) -> None:
    assert not told.told(Document(id="m1", content=content))


def test_a_speaker_prefix_a_word_longer_is_told(told: ToldIndex) -> None:
    assert told.told(
        Document(id="m1", content="Caroline said: It was so powerful, the stories were inspiring.")
    )


def test_an_id_told_to_the_unit_stands_for_its_document_whatever_the_text(
    told: ToldIndex,
) -> None:
    for document in (
        Document(id="D1:4", content="(summarised)"),
        Document(id="m7", content="(summarised)", metadata={"doc_id": "D1:4"}),
        Document(id="m8", content="(summarised)", metadata={"doc_ids": ["x", "D1:5"]}),
    ):
        assert told.told(document), document
    assert not told.told(Document(id="D9:9", content="(summarised)"))


def test_foreign_ranks_are_the_ranks_of_what_another_unit_was_told(told: ToldIndex) -> None:
    elsewhere = Document(id="D2:1", content="Jon: My dance studio opened on Monday.")
    recalled = [TOLD[2], elsewhere, Document(id="x", content="LGBTQ support group"), elsewhere]
    assert told.foreign_ranks(recalled) == (2, 4)
    assert ToldIndex([elsewhere]).foreign_ranks(recalled) == (1, 3)
    assert told.foreign_ranks([]) == ()
