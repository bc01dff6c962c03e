"""Every shipped system and evaluation is reachable by name and says what it needs."""

from __future__ import annotations

import os

from click.testing import CliRunner

import memrank
from memrank.catalog import SYSTEMS
from memrank.cli import main
from memrank.errors import MissingExtra

# Clients of running services need to be told where the service is; nothing is contacted here.
NOWHERE = "http://127.0.0.1:9"
ENDPOINTS = {
    name: {"base_url": NOWHERE}
    for name in ("aml", "active-memory-index", "mem0", "hindsight", "atomicmemory", "native")
} | {"supermemory": {"base_url": NOWHERE, "api_key": "test-key"}}


def test_every_system_constructs_by_name_with_its_options() -> None:
    for entry in SYSTEMS:
        try:
            made = memrank.system(entry.name, **ENDPOINTS.get(entry.name, {}))
        except MissingExtra as exc:
            # without its extra (a fresh clone's `uv run pytest`), a system says which to
            # install; under CI every extra is installed, so each must construct
            assert not os.environ.get("CI"), exc.message
            assert "memrank[" in exc.message and entry.name in exc.message, exc.message
            continue
        assert made.name == entry.name
    assert memrank.system("fixed-context", budget_words=100).components() == {
        "budget": "100 words: the most recent messages that fit"
    }
    assert (
        memrank.system("hybrid-invmem", seeds=3).components()["expansion"].startswith("top 3 fused")
    )
    assert memrank.system("hybrid", neighbour_weight=0.0).components()["expansion"] == "none"


def test_the_catalog_names_the_evaluations_and_the_dense_extra() -> None:
    outcome = CliRunner().invoke(main, ["catalog"])
    assert outcome.exit_code == 0
    for name in ("bm25", "bm25-plain", "hybrid", "hybrid-invmem", "full-context", "random"):
        assert f"  {name} " in outcome.output
    for name in ("locomo", "longmemeval", "beam"):
        assert f"  {name} " in outcome.output
    assert "needs: the optional extra memrank[dense]" in outcome.output
    assert "MEMRANK_LOCOMO_FILE" in outcome.output
