"""Units run one after another, or several at once for a memory that hands out per-unit handles."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from datetime import datetime

import pytest

import memrank
from memrank import Clearing, Document, Evaluation, Expected, Recall, Task
from memrank.errors import UsageError
from memrank.system import Content, Memory, text_of

from .conftest import SpyMemory


class Pooled(Memory):
    """A memory with a handle per unit that sleeps in retrieve, counting units in flight."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.in_flight = 0
        self.most_in_flight = 0
        self.handles: list[Pooled] = []
        self.documents: list[Document] = []
        self.root: Pooled = self

    def for_unit(self, run_id: str, evaluation: str) -> Pooled:
        handle = Pooled()
        handle.root = self
        with self.lock:
            self.handles.append(handle)
        return handle

    def prepare(self, isolation_unit: str) -> None:
        self.documents = []

    def ingest(self, documents: Sequence[Document]) -> None:
        self.documents = list(documents)

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        root = self.root
        with root.lock:
            root.in_flight += 1
            root.most_in_flight = max(root.most_in_flight, root.in_flight)
        time.sleep(0.05)
        with root.lock:
            root.in_flight -= 1
        wanted = set(text_of(query).lower().split())
        found = [d for d in self.documents if wanted & set(d.text.lower().split())]
        return Recall(documents=tuple(found[:k]))

    def cleanup(self) -> None:
        self.documents = []


def _groups(count: int) -> Evaluation:
    tasks = tuple(
        Task(
            id=f"t{n}",
            prompt=f"colour{n}",
            group=f"g{n}",
            context=(Document(id=f"d{n}", content=f"colour{n} is shade {n}"),),
            expected=Expected(required_spans=(f"shade {n}",)),
        )
        for n in range(count)
    )
    return Evaluation(name="units", version="t@1", tasks=tasks, measures=(memrank.WordMatch(),))


@pytest.mark.parametrize("concurrency,most", [(1, 1), (3, 3), (16, 6)])
def test_units_with_handles_run_at_once_up_to_the_bound(concurrency: int, most: int) -> None:
    memory = Pooled()
    result = memrank.run(memory, _groups(6), concurrency=concurrency)
    assert memory.most_in_flight == most
    assert len(memory.handles) == 6 and memory.documents == []  # every unit on its own handle
    assert [t.task.id for t in result.traces] == [f"t{n}" for n in range(6)]
    # each unit saw only its own documents: every span is found, none from another unit
    assert [v.value for v in result.values_of("word-match")] == [1.0] * 6
    assert all(
        t.recalled and [d.id for d in t.recalled.documents] == [f"d{n}"]
        for n, t in enumerate(result.traces)
    )


def test_a_memory_without_handles_runs_units_in_order_whatever_the_bound() -> None:
    evaluation = _groups(5).model_copy(update={"clearing": Clearing.PER_GROUP})
    calls = []
    for concurrency in (1, 8):
        system = SpyMemory()
        memrank.run(system, evaluation, concurrency=concurrency)
        calls.append(system.calls)
    assert calls[0] == calls[1] and calls[0][:4] == [
        "prepare:g0",
        "ingest:1",
        "retrieve:g0",
        "cleanup",
    ]


def test_concurrency_below_one_is_refused() -> None:
    with pytest.raises(UsageError, match="concurrency is 0"):
        memrank.run(SpyMemory(), _groups(1), concurrency=0)


def test_options_reach_only_a_retrieve_that_takes_them() -> None:
    class Chooser(SpyMemory):
        seen: list[object] = []

        def retrieve(self, query, k, user_id, query_timestamp=None, options=None):  # type: ignore[no-untyped-def]
            self.seen.append(options)
            return super().retrieve(query, k, user_id, query_timestamp)

    task = _groups(1).tasks[0].model_copy(update={"options": ("A. red", "B. blue")})
    evaluation = _groups(1).model_copy(update={"tasks": (task,)})
    assert not memrank.run(SpyMemory(), evaluation).failed  # a plain retrieve is never passed them
    memrank.run(Chooser(), evaluation)
    assert Chooser.seen == [("A. red", "B. blue")]


def test_unit_count_is_the_number_of_units_under_every_clearing() -> None:
    import memrank
    from memrank.task import Clearing

    demo = memrank.evaluation("demo")
    for clearing in Clearing:
        made = demo.model_copy(update={"clearing": clearing})
        assert made.unit_count() == len(list(made.units())), clearing
