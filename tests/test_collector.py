"""The cyclic collector paused around work that keeps what it makes, and left as it was found."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import memrank
from memrank._collector import collector_paused


@pytest.fixture
def thawed() -> Iterator[None]:
    """The collector on and nothing frozen, as a process starts; then as it was."""
    was_enabled = gc.isenabled()
    gc.unfreeze()
    gc.enable()
    yield
    gc.unfreeze()
    if not was_enabled:
        gc.disable()


def test_paused_then_everything_alive_filed_under_the_oldest_generation(thawed: None) -> None:
    with collector_paused():
        assert not gc.isenabled()
        kept = [[n] for n in range(1000)]
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert gc.get_count()[0] < 1000 and gc.is_tracked(kept[0])


def test_within_a_frozen_region_what_was_frozen_stays_frozen(thawed: None) -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    with collector_paused():
        kept = [[n] for n in range(1000)]
    assert gc.get_freeze_count() >= frozen + len(kept)
    assert gc.isenabled()


def test_a_run_leaves_the_collector_as_it_found_it(thawed: None) -> None:
    gc.disable()
    memrank.run(memrank.system("word-overlap"), memrank.evaluation("demo"))
    assert not gc.isenabled() and gc.get_freeze_count() == 0
    gc.enable()
    memrank.run(memrank.system("word-overlap"), memrank.evaluation("demo"))
    assert gc.isenabled() and gc.get_freeze_count() == 0
