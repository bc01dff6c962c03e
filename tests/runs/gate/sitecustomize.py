"""Loaded by every Python a test starts with this folder on PYTHONPATH (see the ``gate``
fixture in tests/runs/conftest.py). With MEMRANK_TEST_GATE set, the in-process baselines'
``prepare`` of any unit after the first MEMRANK_TEST_GATE_AFTER waits until the file
MEMRANK_TEST_GATE exists: a run is held part way until the test has signalled it, however
loaded the machine (bm25 reads all of LoCoMo in about two seconds, faster than a loaded test
can react)."""

import os

if os.environ.get("MEMRANK_TEST_GATE"):
    import time
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from memrank.systems.bm25 import BM25Adapter
    from memrank.systems.word_overlap import WordOverlapAdapter

    _gate = Path(os.environ["MEMRANK_TEST_GATE"])
    _after = int(os.environ.get("MEMRANK_TEST_GATE_AFTER", "1"))
    _prepared = [0]

    def _held(prepare: Callable[[Any, str], None]) -> Callable[[Any, str], None]:
        def gated(self: Any, isolation_unit: str) -> None:
            _prepared[0] += 1
            while _prepared[0] > _after and not _gate.exists():
                time.sleep(0.01)  # a signal lands here, in the main thread
            return prepare(self, isolation_unit)

        return gated

    for _adapter in (BM25Adapter, WordOverlapAdapter):
        setattr(_adapter, "prepare", _held(_adapter.prepare))  # noqa: B010 (a method, replaced)
