"""Control arms: systems that bound what a memory could add."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memrank.system import Content, Document, Memory, Recall

__all__ = ["NoContext", "NoContextAdapter"]


class NoContextAdapter(Memory):
    """The no-memory floor: told everything, recalls nothing."""

    name, version = "no-context", "in-process"

    def prepare(self, isolation_unit: str) -> None:
        pass

    def ingest(self, documents: Sequence[Document]) -> None:
        pass

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        return Recall(documents=(), declared={"control": "no-context"})

    def cleanup(self) -> None:
        pass


NoContext = NoContextAdapter
