"""The load both HTTP client benchmarks send: the same notes, the same searches, timed alike.

The AML client and the engine clients are each compared with a bare httpx loop; they hold the
same documents and ask the same questions, so their ratios can be read side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from _timing import threaded_seconds

from memrank import Document, Recall

__all__ = ["WORDS", "TimedClient", "client_round", "notes", "queries"]

WORDS = ("harbour", "lantern", "copper", "meadow", "falcon", "ember", "willow", "quartz")


class TimedClient(Protocol):
    """A memory client that states, after each retrieve, where the time went."""

    def retrieve(self, query: str, k: int, user_id: str) -> Recall: ...

    def engine_timings(self) -> dict[str, float] | None: ...


def notes(count: int) -> list[Document]:
    """The documents the server holds: short notes, two of the words each."""
    return [
        Document(id=f"d{n}", content=f"Note {n}: the {WORDS[n % 8]} by the {WORDS[(n * 5) % 8]}.")
        for n in range(count)
    ]


def queries(count: int) -> list[str]:
    """The searches sent, the same on every side of a comparison."""
    return [
        f"What about the {WORDS[n % 8]} and the {WORDS[(n * 3 + 1) % 8]}?" for n in range(count)
    ]


def client_round(handles: Sequence[TimedClient], asked: list[str], k: int) -> tuple[float, float]:
    """Seconds for every search through the clients, one thread a handle, and the mean client
    milliseconds per call as each retrieve declares them."""
    threads = len(handles)
    client_ms: list[float] = []

    def work(thread: int) -> None:
        handle = handles[thread]
        for query in asked[thread::threads]:
            assert handle.retrieve(query, k, "u").documents
            client_ms.append(handle.engine_timings()["client"])  # type: ignore[index]

    return threaded_seconds(work, threads), sum(client_ms) / len(client_ms)
