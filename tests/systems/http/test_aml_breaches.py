"""Quiet breaches are counted and named: a run against an endpoint whose Search answers carry
a NaN and a textual score, a repeated id and empty content keeps each answer (a bad score
left out), states its breaches per task in the result and in all in the summary."""

from __future__ import annotations

from pathlib import Path

import orjson

import memrank
from memrank.result import Result
from memrank.runs.summary import summary_json, summary_text
from memrank.systems import WordOverlap
from memrank.systems.http import AmlMemory
from memrank.wire._service import Answer, ContractService
from tests.systems.http.hostile import Rewriting

EACH = {"non-finite score": 1, "non-numeric score": 1, "duplicate id": 1, "empty content": 1}


def _breaching(answer: Answer, body: bytes) -> Answer:
    """The real answer's best item with a NaN score, again with the score "high", and an
    item with empty content."""
    found = orjson.loads(answer.body)["data"]
    if not found:
        return answer
    best = found[0]
    items = [{**best, "score": "NaN-here"}, {**best, "score": "high"}, {"id": "e", "content": ""}]
    return Answer(200, orjson.dumps({"data": items}).replace(b'"NaN-here"', b"NaN"))


def test_breaches_are_kept_counted_per_task_and_named_in_the_summary(tmp_path: Path) -> None:
    with Rewriting(ContractService(WordOverlap), _breaching) as server:
        memory = AmlMemory(server.url, timeout=10)
        result = memrank.run(memory, memrank.evaluation("demo"))
        memory.close()
    assert not result.failed  # a breach is not a failure: the answer is kept as sent
    recalled = [t.recalled for t in result.traces if t.recalled and t.recalled.documents]
    assert recalled
    for recall in recalled:
        assert recall.declared["breaches"] == EACH
        assert [d.metadata.get("score") for d in recall.documents] == [None, None, None]
        assert [d.content for d in recall.documents][2] == ""
    result.save(tmp_path / "run.json")
    again = Result.load(tmp_path / "run.json")
    assert [t.recalled.declared for t in again.traces if t.recalled] == [
        t.recalled.declared for t in result.traces if t.recalled
    ]
    planted = result.integrity.traces if result.integrity is not None else ()
    answered = sum(1 for t in (*result.traces, *planted) if t.recalled and t.recalled.documents)
    line = next(s for s in summary_text(again).splitlines() if s.startswith("breaches:"))
    assert line == (
        f"breaches:   {answered} × duplicate id, {answered} × empty content, "
        f"{answered} × non-finite score, {answered} × non-numeric score, in the answers to "
        f"{answered} task(s); each task's in its trace"
    )
    assert summary_json(again)["breaches"] == {
        "counts": {name: answered for name in EACH},
        "tasks": answered,
    }


def test_an_answer_without_breaches_states_none() -> None:
    with Rewriting(ContractService(WordOverlap), lambda answer, body: answer) as server:
        memory = AmlMemory(server.url, timeout=10)
        result = memrank.run(memory, memrank.evaluation("demo"))
        memory.close()
    assert all("breaches" not in t.recalled.declared for t in result.traces if t.recalled)
    assert not any(s.startswith("breaches:") for s in summary_text(result).splitlines())
    assert summary_json(result)["breaches"] == {"counts": {}, "tasks": 0}
