"""Deterministic chunking of a unit's documents into Adds: by source session, then at most
20 messages or 2,000 words per Add, as the contract's textual track cuts them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memrank.system import Document, text_of

__all__ = ["MAX_MESSAGES", "MAX_WORDS", "Chunk", "chunks"]

MAX_MESSAGES, MAX_WORDS = 20, 2000


@dataclass(frozen=True)
class Chunk:
    """One Add's worth of one source session."""

    session: str
    documents: tuple[Document, ...]


def chunks(documents: Sequence[Document]) -> list[Chunk]:
    """The documents grouped by source session (``metadata["session_id"]``, else each document
    is its own session) in order of first appearance, each session cut in order into chunks
    of at most 20 messages or 2,000 whitespace-counted words. A single message longer than
    2,000 words is sent whole, alone in its chunk: splitting it would change what was said."""
    sessions: dict[str, list[Document]] = {}
    for document in documents:
        sessions.setdefault(_session_of(document), []).append(document)
    cut: list[Chunk] = []
    for session, members in sessions.items():
        current: list[Document] = []
        words = 0
        for document in members:
            count = len(text_of(document.content).split())
            if current and (len(current) == MAX_MESSAGES or words + count > MAX_WORDS):
                cut.append(Chunk(session, tuple(current)))
                current, words = [], 0
            current.append(document)
            words += count
        cut.append(Chunk(session, tuple(current)))
    return cut


def _session_of(document: Document) -> str:
    return str(document.metadata.get("session_id", document.id))
