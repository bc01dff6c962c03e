"""The library systems' tests need their extras (``uv sync --all-extras``, which .ci/run does).

Without an extra its tests skip, saying what to install; under CI (``CI`` set) they fail
instead, so an acceptance check never passes by not running.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable

import pytest

import memrank
from memrank.system import Memory

EXTRAS = {
    "chroma": ("chroma", "chromadb"),
    "lancedb-hybrid": ("lancedb", "lancedb"),
    "langgraph-store": ("langgraph", "langgraph"),
    "llamaindex-bm25": ("llamaindex", "llama_index.retrievers.bm25"),
    "mem0-verbatim": ("mem0", "mem0"),
}
"""Catalog name -> (the extra it needs, a module that extra installs)."""


def need(module: str, extra: str) -> None:
    """Skip (fail under CI) when ``module`` is not installed."""
    if importlib.util.find_spec(module.partition(".")[0]) is not None and (
        importlib.util.find_spec(module) is not None
    ):
        return
    message = f"needs the extra {extra}: uv sync --all-extras (or --extra {extra})"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def library_system() -> Callable[[str], Memory]:
    """Make a library system by catalog name, its extra installed or the test skipped."""

    def make(name: str) -> Memory:
        extra, module = EXTRAS[name]
        need(module, extra)
        system = memrank.system(name)
        assert isinstance(system, Memory)
        return system

    return make
