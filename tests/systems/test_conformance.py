"""One conformance test over every memory the catalog ships, in-process and over HTTP.

Each catalog entry that is a memory needs a way to start it here (``STARTERS``); an entry
without one fails, so a new shipped memory cannot go untested.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

import pytest

import memrank
from memrank import Document, Memory, Recall
from memrank.catalog import SYSTEMS
from memrank.systems import NoContext, WordOverlap
from memrank.systems.http import AmlMemory, Native
from memrank.systems.http.active_memory_index import ActiveMemoryIndex
from memrank.wire._service import ContractService
from memrank.wire.serve import serving
from tests.systems.http.engines import ENGINES, EngineCase
from tests.systems.http.translator import running_translator
from tests.systems.libraries.conftest import EXTRAS as LIBRARIES
from tests.systems.libraries.conftest import need

TOLD = Document(id="fact", content="The capital of France is Paris.")
OTHER = Document(id="other", content="The capital of Italy is Rome.")
QUESTION = "What is the capital of France?"


@contextmanager
def _engine(case: EngineCase) -> Iterator[Memory]:
    with case.server() as server:
        memory = case.connect(server.url)
        yield memory
        memory.close()
    assert server.violations == []


@contextmanager
def _aml(client: type[AmlMemory] = AmlMemory) -> Iterator[Memory]:
    """An Add/Search client against memrank's own server of the contract."""
    with serving(ContractService(WordOverlap)) as url:
        memory = client(url, timeout=10)
        yield memory
        memory.close()


@contextmanager
def _native() -> Iterator[Memory]:
    with running_translator() as translator:
        memory = Native(translator.url, timeout=10)
        yield memory
        memory.close()


def _library(name: str, module: str, extra: str) -> Starter:
    def start() -> AbstractContextManager[Any]:
        need(module, extra)
        return nullcontext(memrank.system(name))

    return start


Starter = Callable[[], AbstractContextManager[Any]]
STARTERS: dict[str, tuple[Starter, bool]] = {
    "word-overlap": (lambda: nullcontext(WordOverlap()), True),
    "no-context": (lambda: nullcontext(NoContext()), False),  # the floor recalls nothing
    "bm25": (lambda: nullcontext(memrank.system("bm25")), True),
    "bm25-plain": (lambda: nullcontext(memrank.system("bm25-plain")), True),
    "hybrid": (lambda: nullcontext(memrank.system("hybrid")), True),
    "hybrid-invmem": (lambda: nullcontext(memrank.system("hybrid-invmem")), True),
    "full-context": (lambda: nullcontext(memrank.system("full-context")), True),
    "fixed-context": (lambda: nullcontext(memrank.system("fixed-context")), True),
    "random": (lambda: nullcontext(memrank.system("random")), True),
    "aml": (_aml, True),
    # its client, configured as the board measured the service; the service itself is met in
    # the engine tests (tests/systems/real_engines)
    "active-memory-index": (lambda: _aml(ActiveMemoryIndex), True),
    "native": (_native, True),
    # the library systems, each with its extra installed (tests/systems/libraries skips or, under
    # CI, fails without it)
    **{name: (_library(name, module, extra), True) for name, (extra, module) in LIBRARIES.items()},
    **{case.name: ((lambda case=case: _engine(case)), True) for case in ENGINES},
}
"""Per catalog name: how to start the memory, and whether it recalls what it was told."""


def _memories() -> list[str]:
    names = []
    for entry in SYSTEMS:
        module, attribute = entry.target.split(":")
        target = getattr(importlib.import_module(module), attribute)
        if isinstance(target, type) and issubclass(target, Memory):
            names.append(entry.name)
    return names


@pytest.mark.parametrize("name", _memories())
def test_every_shipped_memory_recalls_what_it_was_told_and_keeps_units_apart(name: str) -> None:
    if name not in STARTERS:
        pytest.fail(f"the catalog ships the memory {name!r}; add a way to start it to STARTERS")
    start, recalls = STARTERS[name]
    with start() as memory:
        assert_conforms(memory, recalls=recalls)


def assert_conforms(memory: Memory, *, recalls: bool = True) -> None:
    """Paris recalled first, two units kept apart, and both cleaned up (used for real engines too)."""
    first = memory.for_unit("run_0000conform", "conformance")
    first.prepare("unit-a")
    first.ingest([TOLD])
    recall = first.retrieve(QUESTION, 3, "unit-a")
    second = memory.for_unit("run_0000conform", "conformance")
    second.prepare("unit-b")
    second.ingest([OTHER])
    elsewhere = second.retrieve(QUESTION, 3, "unit-b")
    first.cleanup()
    second.cleanup()
    assert isinstance(recall, Recall) and isinstance(elsewhere, Recall)
    if recalls:
        assert 1 <= len(recall.documents) <= 3
        assert "Paris" in recall.documents[0].text  # ranked: what was told comes first
    else:
        assert recall.documents == ()
    assert not any("Paris" in d.text for d in elsewhere.documents)
    if recalls:
        # one item holding what unit B was told; a real engine may label it (ActiveMemoryIndex
        # stores a user's turn as "I: <text>")
        assert [OTHER.text in d.text for d in elsewhere.documents] == [True]
