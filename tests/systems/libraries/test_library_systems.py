"""Each third-party library system, run for real: on LoCoMo's first conversation with no failed
task, keeping isolation units apart, honouring k, and recording what it ran."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import memrank
from memrank.catalog import catalog
from memrank.errors import MissingExtra
from memrank.evaluations import locomo
from memrank.runs.narrow import limited
from memrank.system import Document, Memory
from memrank.systems.libraries._told import require_library
from tests.systems.libraries.conftest import EXTRAS, need

NAMES = sorted(EXTRAS)


def test_the_catalog_names_each_library_system_with_its_extra() -> None:
    listed = {entry.name: entry for entry in catalog().systems}
    for name, (extra, _) in EXTRAS.items():
        assert f"memrank[{extra}]" in listed[name].needs
        assert "no network" in listed[name].needs


def test_a_missing_library_is_refused_naming_the_extra() -> None:
    with pytest.raises(MissingExtra, match=r"extra 'chroma' \(no_such_module not installed\)"):
        require_library("the chroma system", "chroma", ("no_such_module",))


@pytest.mark.parametrize("name", NAMES)
def test_each_runs_locomo_smoke_with_no_failed_task(
    name: str, library_system: Callable[[str], Memory], shared_data: Path
) -> None:
    # The whole first conversation is told; its first 40 questions keep the suite fast
    # (`memrank run NAME locomo:smoke` asks all 199: docs/systems.md has those runs' numbers).
    smoke = limited(locomo("smoke", path=shared_data / "locomo"), 40)
    result = memrank.run(library_system(name), smoke)
    assert [t.task.id for t in result.failed] == []
    for trace in result.traces:
        recalled = trace.recalled.documents if trace.recalled else ()
        assert trace.given is not None and len(recalled) <= 20  # LoCoMo's k
        # each hit is a document its unit was told: the key came back and was mapped home
        assert {d.id for d in recalled} <= set(trace.given.document_ids)
    (headline,) = [v for v in result.values if v.measure == "evidence-recall@10.mean"]
    assert headline.value is not None and headline.value > 0.3  # far above chance, on 40 questions
    components = result.system.components
    assert any("==" in v for v in components.values())  # the library's pinned version


@pytest.mark.parametrize("name", NAMES)
def test_each_keeps_units_apart_and_clears(
    name: str, library_system: Callable[[str], Memory]
) -> None:
    system = library_system(name)
    system.prepare("unit-a")
    system.ingest([Document(id="a1", content="Alice keeps bees on the roof of her flat.")])
    system.cleanup()
    system.prepare("unit-b")
    told = [  # two documents with one text, as conversations have ("Thanks!")
        Document(id=f"b{i}", content=f"Bob planted {plant} in the garden.")
        for i, plant in enumerate(["tomatoes", "bees balm", "roses", "beans", "mint", "mint"])
    ]
    system.ingest(told)
    recalled = system.retrieve("who keeps bees on the roof?", k=3, user_id="unit-b").documents
    assert 0 < len(recalled) <= 3
    assert {d.id for d in recalled} <= {d.id for d in told}
    system.cleanup()


def test_llamaindex_bm25_ranks_equal_scores_the_same_whatever_order_the_library_gives(
    library_system: Callable[[str], Memory], monkeypatch: pytest.MonkeyPatch
) -> None:
    # bm25s orders equal scores with numpy's argsort, whose order among ties depends on the
    # processor's vector instructions. Here the library's hits come back with every run of
    # equal scores reversed, as another processor may order them: the recall must not move.
    need("llama_index", "llamaindex")
    from llama_index.retrievers.bm25 import BM25Retriever

    told = [
        Document(id=f"d{i}", content=f"Note {i}: the meeting moved to Tuesday.") for i in range(8)
    ]
    told += [Document(id="lone", content="Tuesday meeting notes, the meeting agenda.")]
    told += [Document(id=f"x{i}", content=f"Unrelated line {i} about gardens.") for i in range(4)]

    def recalled() -> list[str]:
        system = library_system("llamaindex-bm25")
        system.prepare("unit")
        system.ingest(told)
        found = system.retrieve("when is the meeting", k=4, user_id="unit").documents
        system.cleanup()
        return [d.id for d in found]

    as_given = recalled()
    retrieve = BM25Retriever.retrieve

    def ties_reversed(self: BM25Retriever, query: object) -> list[Any]:
        hits = retrieve(self, query)
        runs: dict[float, list[Any]] = {}
        for hit in hits:
            runs.setdefault(hit.score, []).append(hit)
        return [hit for score in runs for hit in reversed(runs[score])]

    monkeypatch.setattr(BM25Retriever, "retrieve", ties_reversed)
    assert recalled() == as_given
    assert as_given[0] == "lone" and len(as_given) == 4  # the tie at the cut is decided too
