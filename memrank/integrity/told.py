"""Which recalled documents were told to the unit they were recalled for, in this run.

A recalled document counts as told when it stands for a document memrank gave that same
isolation unit: by id (its own id, ``metadata["doc_id"]`` or one of ``metadata["doc_ids"]``,
after the run maps opaque wire ids back), or by content, compared normalised as the evidence
measures compare it (``memrank.measures.evidence.normalised``): its text is a run of whole
words of the unit's told texts laid end to end in the order they were told (a piece of one, or
adjacent ones merged), or it holds one told text whole, or what one turn said without the
label its content opens with (``"Caroline: "``: up to 40 characters before a colon and a space) (a prefix or suffix added, the speaker given another
way). Anything else is *foreign*: it earns no credit, and the run counts it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memrank.measures.evidence import normalised
from memrank.measures.word_match import recalled_doc_id
from memrank.system import Content, Document, text_of

__all__ = ["ToldIndex"]

_LABEL = re.compile(r"[^:\n]{1,40}: ")
_KEY_WORDS = 3
"""Told texts are looked up by their first (up to) three words."""


def _exact(content: Content) -> str | tuple[str, ...]:
    return content if isinstance(content, str) else tuple(p.model_dump_json() for p in content)


def _said(document: Document) -> str:
    """The normalised text after the label the content opens with (``"Caroline: "``: up to 40
    characters before a colon and a space); empty without one."""
    content = document.content
    if not isinstance(content, str):
        return ""
    label = _LABEL.match(content)
    return normalised(content[label.end() :]) if label else ""


class ToldIndex:
    """What one isolation unit was told, ready to say which recalled documents were not."""

    def __init__(self, documents: Sequence[Document]) -> None:
        self._ids = {document.id for document in documents}
        self._exact = {_exact(document.content) for document in documents}
        texts = [normalised(text_of(document.content)) for document in documents]
        # what a turn said, without the "<speaker>: " its content opens with: a service may
        # give the speaker its own way ("Caroline said: ...") and still return what was told
        said = [_said(document) for document in documents]
        self._joined = " " + " ".join(text for text in texts if text) + " "
        self._by_start: dict[tuple[str, ...], list[str]] = {}
        for text in (*texts, *said):
            if text:
                self._by_start.setdefault(tuple(text.split()[:_KEY_WORDS]), []).append(text)

    def foreign_ranks(self, documents: Sequence[Document]) -> tuple[int, ...]:
        """The 1-based ranks of the documents that were never told to this unit."""
        return tuple(rank for rank, d in enumerate(documents, start=1) if not self.told(d))

    def told(self, document: Document) -> bool:
        metadata = document.metadata or {}
        ids = {document.id, recalled_doc_id(document), *map(str, metadata.get("doc_ids", ()))}
        if ids & self._ids or _exact(document.content) in self._exact:
            return True
        text = normalised(text_of(document.content))
        if not text:
            return False
        return f" {text} " in self._joined or self._holds_one(text)

    def _holds_one(self, text: str) -> bool:
        """Whether ``text`` holds some told text whole, as a run of whole words."""
        words = text.split()
        padded = f" {text} "
        for start in range(len(words)):
            for width in range(1, _KEY_WORDS + 1):
                for told in self._by_start.get(tuple(words[start : start + width]), ()):
                    if f" {told} " in padded:
                        return True
        return False
