"""Which told document a returned item stands for, and so which session it comes from.

A service over the wire returns its own items: an id of its own, the content, perhaps a
score, perhaps reformatted (a speaker prefix, a timestamp, other spacing or case). The
evidence measures read the document an item stands for (``metadata["doc_id"]``) and the
session it belongs to (``metadata["session_id"]``), as an in-process system's documents
carry them. A client knows what it told each unit, so it attributes an item to the told
documents whose id it carries back, else whose content it repeats exactly, else whose text it
holds whole (case and runs of whitespace aside): exactly one such document gives the id and
its session; several that share one session give the session alone; otherwise nothing is
claimed.

An item that holds no told text whole but is a piece of one (its text held by told documents)
claims only the session those documents share, never a document id: a piece shows part of a
turn, and the evidence measures credit it with the share of the turn's words it shows, where an
id would earn it the whole turn. So a server answering with the first words of each turn it
was told earns no more than those words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson

from memrank.system import Content, Document, text_of

__all__ = ["Told", "exact_key"]


def exact_key(content: Content) -> str:
    """Content compared exactly: the string itself, or its parts as JSON."""
    if isinstance(content, str):
        return content
    return orjson.dumps([part.model_dump(mode="json") for part in content]).decode()


def _loose(content: Content) -> str:
    """Text compared loosely: lower-cased, every run of whitespace one space."""
    return " ".join(text_of(content).lower().split())


class Told:
    """What one unit was told, looked up by id, by exact content (as ``key`` reads it), and
    by loose containment."""

    def __init__(self, key: Callable[[Content], str]) -> None:
        self._key = key
        self._by_content: dict[str, list[Document]] = {}
        self._by_id: dict[str, Document] = {}
        self._loose: list[tuple[str, Document]] = []

    def add(self, documents: Sequence[Document]) -> None:
        for document in documents:
            self._by_content.setdefault(self._key(document.content), []).append(document)
            self._by_id[document.id] = document
            loose = _loose(document.content)
            if loose:
                self._loose.append((loose, document))

    def attribution(self, content: Content, carried_id: str | None = None) -> dict[str, Any]:
        """``doc_id`` and ``session_id`` for a returned item, each only where it is known."""
        if carried_id is not None:
            known = self._by_id.get(carried_id)
            sources = [known] if known is not None else []
            attributed: dict[str, Any] = {"doc_id": carried_id}
        else:
            item = _loose(content)
            sources = self._by_content.get(self._key(content)) or self._contained(item)
            attributed = {"doc_id": sources[0].id} if len(sources) == 1 else {}
            if not sources:  # a piece of told text: the session it comes from, never an id
                sources = [document for told, document in self._loose if item and item in told]
        sessions = {source.metadata.get("session_id") for source in sources}
        if len(sessions) == 1 and None not in sessions:
            attributed["session_id"] = sessions.pop()
        return attributed

    def _contained(self, item: str) -> list[Document]:
        """The told documents whose loose text the item's (``item``) holds whole."""
        return [document for told, document in self._loose if told in item] if item else []
