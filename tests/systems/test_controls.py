"""The control arms: everything, the most recent within a budget, and chance."""

from __future__ import annotations

import pytest

from memrank import Document
from memrank.errors import UsageError
from memrank.systems import FixedContext, FullContext, Random


def _told(memory, count: int = 6):  # type: ignore[no-untyped-def]
    memory.prepare("unit")
    memory.ingest(
        [Document(id=f"d{i}", content=f"message {i} has five words") for i in range(count)]
    )
    return memory


def test_full_context_is_everything_in_order_as_one_document() -> None:
    recall = _told(FullContext()).retrieve("anything", k=1, user_id="unit")
    (document,) = recall.documents
    assert document.text.splitlines() == [f"message {i} has five words" for i in range(6)]
    assert recall.declared == {"control": "full-context", "budget_words": None, "words": 30}
    assert document.metadata["doc_ids"] == [f"d{i}" for i in range(6)]


def test_fixed_context_keeps_the_most_recent_within_its_budget() -> None:
    recall = _told(FixedContext(budget_words=12)).retrieve("anything", k=1, user_id="unit")
    (document,) = recall.documents
    assert document.text.splitlines() == ["message 4 has five words", "message 5 has five words"]
    assert recall.declared == {"control": "fixed-context", "budget_words": 12, "words": 10}
    assert document.metadata["doc_ids"] == ["d4", "d5"]
    cut = _told(FixedContext(budget_words=3)).retrieve("anything", k=1, user_id="unit")
    assert cut.documents[0].text == "has five words"  # a last message too long alone: its tail
    assert cut.documents[0].metadata["doc_ids"] == []  # held in part, so it stands for none
    with pytest.raises(UsageError):
        FixedContext(budget_words=0)


def test_random_is_seeded_by_seed_unit_and_query_not_by_order() -> None:
    memory = _told(Random(seed=7), count=50)
    first = [d.id for d in memory.retrieve("q1", k=5, user_id="unit").documents]
    memory.retrieve("q2", k=5, user_id="unit")
    assert [d.id for d in memory.retrieve("q1", k=5, user_id="unit").documents] == first
    assert len(set(first)) == 5
    other = _told(Random(seed=8), count=50)
    assert [d.id for d in other.retrieve("q1", k=5, user_id="unit").documents] != first
    assert len(_told(Random(), count=3).retrieve("q", k=5, user_id="unit").documents) == 3
