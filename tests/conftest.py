"""Shared test parts: the benchmark material beside the clone, and small real systems that
record every call made to them."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

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


SHARED_DATA_VARIABLE = "MEMRANK_DATA_DIR"
"""The data dir `memrank run` reads, named the same here and in the README."""


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real benchmark material: shared/data beside the clone, or MEMRANK_DATA_DIR.

    When it is missing the tests that need it skip, saying where they looked and what to set;
    when MEMRANK_DATA_DIR names a folder without it, or under CI (``CI`` set), they fail
    instead, so an acceptance check can never pass by not running.
    """
    given = os.environ.get(SHARED_DATA_VARIABLE)
    root = Path(given) if given else Path(__file__).resolve().parents[1].parent / "shared" / "data"
    if not (root / "locomo" / "locomo10.json").is_file():
        message = (
            f"no benchmark material at {root} (locomo/locomo10.json); set "
            f"{SHARED_DATA_VARIABLE} to a copy of shared/data (README: running the tests)"
        )
        if given or os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return root


@pytest.fixture(scope="session")
def locomo_result(shared_data: Path) -> bytes:
    """A real run's result file: BM25 on LoCoMo's smoke slice (values varying by task)."""
    from memrank.artifacts import run_files
    from memrank.evaluations import locomo

    run = memrank.run(memrank.system("bm25"), locomo("smoke", path=shared_data / "locomo"))
    return run_files(run.to_bytes()).result


@pytest.fixture(scope="session")
def _registry_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("memrank-home")


@pytest.fixture(autouse=True)
def _runs_stay_in_the_test(_registry_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `memrank run` a test makes is tracked in a temporary registry, not the user's."""
    monkeypatch.setenv("MEMRANK_HOME", str(_registry_folder))
