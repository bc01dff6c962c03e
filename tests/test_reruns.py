"""A reading of a run against a rerun of one configuration says so when they differ."""

from __future__ import annotations

import os
from collections.abc import Sequence

import memrank
from memrank import Document, Recall
from memrank.reruns import differing_tasks, is_rerun, rerun_note


class Dice(memrank.Memory):
    """Recalls one told document chosen by the operating system's randomness: not repeatable."""

    name = "dice"

    def prepare(self, isolation_unit: str) -> None:
        self.documents: list[Document] = []

    def ingest(self, documents: Sequence[Document]) -> None:
        self.documents.extend(documents)

    def retrieve(self, query, k, user_id, query_timestamp=None) -> Recall:  # type: ignore[no-untyped-def]
        if not self.documents:
            return Recall()
        pick = self.documents[os.urandom(1)[0] % len(self.documents)]
        return Recall(documents=(pick,))

    def cleanup(self) -> None:
        self.documents = []


def test_two_reruns_that_differ_are_called_not_deterministic() -> None:
    demo = memrank.evaluation("demo")
    runs = [memrank.run(Dice(), demo) for _ in range(8)]
    differing = [(a, b) for a in runs for b in runs if a is not b and differing_tasks(a, b)[0]]
    assert differing, "eight dice runs never differed"
    a, b = differing[0]
    assert is_rerun(a, b)
    reading = memrank.paired(a, b)
    assert reading.rerun is not None and "not deterministic" in reading.rerun
    assert "rerun: A and B ran one configuration" in str(reading)


def test_identical_reruns_and_different_systems_carry_no_note() -> None:
    demo = memrank.evaluation("demo")
    a = memrank.run(memrank.system("bm25"), demo)
    b = memrank.run(memrank.system("bm25"), demo)
    assert is_rerun(a, b) and rerun_note(a, b) is None
    other = memrank.run(memrank.system("word-overlap"), demo)
    assert not is_rerun(a, other) and rerun_note(a, other) is None
    assert memrank.paired(a, other).rerun is None
