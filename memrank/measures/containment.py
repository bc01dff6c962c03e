"""Text compared by whole words, normalised: which recalled documents hold an evidence turn
whole, and how many of its words the pieces of it show (the rule: ``memrank.measures.evidence``).

A text is compared **normalised** (Unicode NFKC, case folded, every run of punctuation a space,
runs of whitespace one space) and **padded** with a space each side, so that one text holds
another as a run of whole words exactly when the padded one occurs in the padded other.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Sequence
from typing import NamedTuple

import regex

from memrank.measures.word_match import recalled_doc_id
from memrank.system import Document

__all__ = [
    "Found",
    "Held",
    "Read",
    "Shown",
    "first_of",
    "held_of",
    "normalised",
    "padded",
    "shown_of",
]

_PUNCTUATION = regex.compile(r"\p{P}+")
_ASCII_PUNCTUATION_TO_SPACE = bytes(
    ord(" ") if code < 128 and _PUNCTUATION.fullmatch(chr(code)) else code for code in range(256)
)
"""The punctuation rule over ASCII as a byte table: most material is ASCII, which NFKC leaves
as it is and which case folds as it lowers, and a byte table translates at C speed."""


def normalised(text: str) -> str:
    """What content attribution compares: NFKC, case folded, each run of punctuation a space
    and each run of whitespace one space."""
    if text.isascii():
        # split() after decoding: str's whitespace (the ASCII separators too), as below
        ascii_text = text.encode().lower().translate(_ASCII_PUNCTUATION_TO_SPACE).decode()
        return " ".join(ascii_text.split())
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_PUNCTUATION.sub(" ", folded).split())


def padded(text: str) -> str:
    """``text`` normalised, with a space each side."""
    return f" {normalised(text)} "


class Found(NamedTuple):
    """Where an evidence turn was first found whole among the recalled documents, and how."""

    rank: int
    """1-based rank of the first document holding the turn."""
    by: str
    """``"id"`` when that document stands for the turn by id, else ``"content"``."""


class Shown(NamedTuple):
    """How much of an evidence turn the pieces of it recalled before it was found whole show."""

    words: int
    """The words of the turn's normalised text."""
    grew: tuple[tuple[int, int], ...] = ()
    """(rank, words of the turn covered by the pieces at or before that rank), at each rank
    where that count grew."""

    def covered(self, k: int) -> int:
        """The words of the turn covered by the pieces within the first k documents."""
        covered = 0
        for rank, count in self.grew:
            if rank > k:
                break
            covered = count
        return covered


Read = dict[int, tuple[set[str], str]]
"""id() of a document -> the ids it stands for and its padded text, for the documents of
traces alive while it is used: a run recalls the same Document objects for many tasks."""

Held = list[tuple[set[str], str] | None]
"""Per recalled document, in rank order, what ``Read`` keeps of it; None for a foreign one."""


def held_of(documents: Sequence[Document], read: Read, foreign: Collection[int] = ()) -> Held:
    """What each document stands for and says, read once per document into ``read``; None at
    the ``foreign`` ranks (1-based), which hold nothing."""
    known = read.get
    if not foreign:
        return [known(id(d)) or _read(d, read) for d in documents]
    skipped = set(foreign)
    return [
        None if rank in skipped else known(id(d)) or _read(d, read)
        for rank, d in enumerate(documents, start=1)
    ]


def _read(document: Document, read: Read) -> tuple[set[str], str]:
    """What ``document`` stands for and says, kept in ``read``."""
    ids = {recalled_doc_id(document), *(document.metadata or {}).get("doc_ids", ())}
    read[id(document)] = made = (ids, padded(document.text))
    return made


def first_of(turn_id: str, turn: str, held: Held) -> Found | None:
    """The first document standing for the turn by id or holding its padded text ``turn``."""
    has_words = turn != "  "
    for rank, known in enumerate(held, start=1):
        if known is None:
            continue
        ids, text = known
        if turn_id in ids:
            return Found(rank, "id")
        if has_words and turn in text:
            return Found(rank, "content")
    return None


def shown_of(turn: str, held: Held, before: int) -> Shown:
    """What the pieces of a turn (its padded text) ranked before ``before`` show of it: each
    place a piece occurs covers the words there, each word of the turn once."""
    covered: set[int] = set()
    grew: list[tuple[int, int]] = []
    for rank, known in enumerate(held, start=1):
        if rank >= before:
            break
        if known is None:
            continue
        piece = known[1]
        if len(piece) > len(turn) or piece == "  " or piece not in turn:
            continue  # the length first: most documents are longer than any turn they hold
        width = piece.count(" ") - 1
        at = turn.find(piece)
        while at >= 0:
            first = turn.count(" ", 0, at)  # the spaces before a place count the words there
            covered.update(range(first, first + width))
            at = turn.find(piece, at + 1)
        if not grew or len(covered) > grew[-1][1]:
            grew.append((rank, len(covered)))
    return Shown(turn.count(" ") - 1 if turn != "  " else 0, tuple(grew))
