"""Measures that do not depend on the transport: the same system scores the same in-process
and through `memrank serve` + the aml client, even when the peer reformats what it returns."""

from __future__ import annotations

from pathlib import Path

import memrank
from memrank import Evaluation, Recall
from memrank.catalog import system
from memrank.evaluations.locomo import locomo
from memrank.result import Result
from memrank.system import Content, Memory
from memrank.systems import WordOverlap
from memrank.systems.http import AmlMemory
from memrank.wire._service import ContractService
from memrank.wire.serve import serving


class _Reformatting(WordOverlap):
    """A peer that returns its own records: a label, other case and spacing around the text."""

    def retrieve(self, query: Content, k: int, user_id: str, query_timestamp=None) -> Recall:  # type: ignore[no-untyped-def]
        found = super().retrieve(query, k, user_id, query_timestamp)
        return Recall(
            documents=tuple(
                d.model_copy(update={"content": f"Memory:  {d.text.upper()}  (stored 2024)"})
                for d in found.documents
            )
        )


def _over_the_wire(make: type[Memory] | object, evaluation: Evaluation) -> Result:
    with serving(ContractService(make)) as url:  # type: ignore[arg-type]
        memory = AmlMemory(url, timeout=30)
        result = memrank.run(memory, evaluation)
        memory.close()
    assert not result.failed
    return result


def _means(result: Result, stem: str) -> dict[str, float | None]:
    return {v.measure: v.value for v in result.values if v.measure.startswith(stem)}


def _conversation(shared_data: Path) -> Evaluation:
    """LoCoMo's first conversation, whole, with its first 60 questions (kept fast)."""
    evaluation = locomo("smoke", path=shared_data / "locomo")
    return evaluation.model_copy(update={"tasks": evaluation.tasks[:60]})


def test_bm25_gives_equal_session_recall_in_process_and_over_the_wire(shared_data: Path) -> None:
    evaluation = _conversation(shared_data)
    in_process = memrank.run(system("bm25"), evaluation)
    wired = _over_the_wire(lambda: system("bm25"), evaluation)
    for stem in ("session-recall@", "evidence-recall@"):
        expected = {n: v for n, v in _means(in_process, stem).items() if n.endswith(".mean")}
        assert expected and all(v is not None and v > 0 for v in expected.values())
        got = {n: v for n, v in _means(wired, stem).items() if n.endswith(".mean")}
        assert got == expected, stem


def test_a_reformatting_peer_keeps_its_demo_score_and_session_recall(shared_data: Path) -> None:
    demo = memrank.evaluation("demo")
    assert _means(_over_the_wire(_Reformatting, demo), "demo-score") == _means(
        memrank.run(WordOverlap(), demo), "demo-score"
    )
    evaluation = _conversation(shared_data)
    expected = _means(memrank.run(WordOverlap(), evaluation), "session-recall@")
    assert _means(_over_the_wire(_Reformatting, evaluation), "session-recall@") == expected
