"""Measures that do not depend on the transport: the same system scores the same in-process
and through `memrank serve` + the aml client, even when the peer reformats what it returns."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import memrank
from memrank import Evaluation, Recall
from memrank.catalog import system
from memrank.evaluations.locomo import locomo
from memrank.result import Result
from memrank.system import Content, Memory
from memrank.systems import WordOverlap
from tests.endpoints import SECRET, AsEndpoint, over_aml


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


def _over_the_wire(make: Callable[[], Memory], evaluation: Evaluation) -> Result:
    result = over_aml(make, evaluation, SECRET)
    assert not result.failed
    return result


def _in_process(memory: Memory, evaluation: Evaluation) -> Result:
    """``memory`` in-process, driven as an endpoint is with the same secret: the same canaries
    among the same documents, so a value may differ from the wire's only by the transport."""
    return memrank.run(AsEndpoint(memory), evaluation, secret=SECRET)


def _means(result: Result, stem: str) -> dict[str, float | None]:
    return {v.measure: v.value for v in result.values if v.measure.startswith(stem)}


@pytest.fixture(scope="module")
def conversation(shared_data: Path) -> Evaluation:
    """LoCoMo's first conversation, whole, with its first 60 questions (kept fast)."""
    evaluation = locomo("smoke", path=shared_data / "locomo")
    return evaluation.model_copy(update={"tasks": evaluation.tasks[:60]})


@pytest.fixture(scope="module")
def bm25_runs(conversation: Evaluation) -> tuple[Result, Result]:
    """bm25 on the conversation in-process and over the wire."""
    return _in_process(system("bm25"), conversation), _over_the_wire(
        lambda: system("bm25"), conversation
    )


@pytest.mark.parametrize("stem", ["evidence-recall@", "session-recall@"])
def test_bm25_gives_equal_recall_in_process_and_over_the_wire(
    stem: str, bm25_runs: tuple[Result, Result]
) -> None:
    in_process, wired = bm25_runs
    expected = {n: v for n, v in _means(in_process, stem).items() if n.endswith(".mean")}
    assert expected and all(v is not None and v > 0 for v in expected.values())
    got = {n: v for n, v in _means(wired, stem).items() if n.endswith(".mean")}
    assert got == expected, stem


def test_a_reformatting_peer_keeps_its_demo_score() -> None:
    demo = memrank.evaluation("demo")
    assert _means(_over_the_wire(_Reformatting, demo), "demo-score") == _means(
        _in_process(WordOverlap(), demo), "demo-score"
    )


def test_a_reformatting_peer_keeps_its_session_recall(conversation: Evaluation) -> None:
    expected = _means(_in_process(WordOverlap(), conversation), "session-recall@")
    assert _means(_over_the_wire(_Reformatting, conversation), "session-recall@") == expected
