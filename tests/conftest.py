"""Shared test parts: small real systems that record every call made to them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import pytest

import memrank
from memrank import Document, Recall
from memrank.systems import WordOverlap


class SpyMemory(WordOverlap):
    """WordOverlap that records every verb called on it, and can be told to raise on one task."""

    def __init__(self, raise_on: str | None = None, raise_at: str = "retrieve") -> None:
        super().__init__()
        self.calls: list[str] = []
        self.raise_on = raise_on
        self.raise_at = raise_at

    def prepare(self, isolation_unit: str) -> None:
        self.calls.append(f"prepare:{isolation_unit}")
        if self.raise_at == "prepare" and self.raise_on == isolation_unit:
            raise RuntimeError("store unavailable")
        super().prepare(isolation_unit)

    def ingest(self, documents: Sequence[Document]) -> None:
        self.calls.append(f"ingest:{len(documents)}")
        if self.raise_at == "ingest":
            raise RuntimeError("disk full")
        super().ingest(documents)

    def retrieve(
        self, query, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        self.calls.append(f"retrieve:{user_id}")
        if (
            self.raise_at == "retrieve"
            and self.raise_on is not None
            and self.raise_on in str(query)
        ):
            raise ConnectionError("engine went away")
        return super().retrieve(query, k, user_id, query_timestamp)

    def cleanup(self) -> None:
        self.calls.append("cleanup")
        super().cleanup()


@pytest.fixture
def demo() -> memrank.Evaluation:
    return memrank.evaluation("demo")
