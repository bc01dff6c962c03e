"""The integrity record in the result file: an endpoint run's round-trips byte for byte, canary
traces and all; an in-process run's file has no trace of it."""

from __future__ import annotations

import orjson
import pytest

import memrank
from memrank.evaluation import Evaluation
from memrank.integrity.record import VERDICT
from memrank.result import Result
from memrank.systems import WordOverlap
from tests.endpoints import SECRET, AsEndpoint


@pytest.fixture(scope="module")
def endpoint_run(smoke: Evaluation) -> Result:
    return memrank.run(AsEndpoint(WordOverlap()), smoke, secret=SECRET)


def test_an_endpoint_runs_integrity_record_round_trips_byte_for_byte(
    endpoint_run: Result, tmp_path_factory: pytest.TempPathFactory
) -> None:
    raw = endpoint_run.to_bytes()
    path = endpoint_run.save(tmp_path_factory.mktemp("result") / "run.json")
    loaded = Result.load(path)
    assert loaded.to_bytes() == raw == path.read_bytes()
    assert loaded.integrity == endpoint_run.integrity
    integrity = loaded.integrity
    assert integrity is not None and integrity.secret == SECRET.hex()
    # the canary traces keep their parts (the unit's given, the recalled documents) ...
    assert integrity.traces and all(t.given is not None for t in integrity.traces)
    assert any(t.recalled and t.recalled.documents for t in integrity.traces)
    # ... stored once beside the benchmark's: the canary rows refer to the shared tables
    stored = orjson.loads(raw)
    assert all(isinstance(row["given"], str) for row in stored["integrity"]["traces"])
    assert {row["given"] for row in stored["integrity"]["traces"]} <= set(stored["givens"])


def test_canaries_stay_out_of_the_benchmarks_traces_and_values(
    endpoint_run: Result, smoke: Evaluation
) -> None:
    integrity = endpoint_run.integrity
    assert integrity is not None
    canary_ids = {t.task.id for t in integrity.traces}
    assert [t.task.id for t in endpoint_run.traces] == [t.id for t in smoke.tasks]
    assert not canary_ids & {v.task_id for v in endpoint_run.values}
    assert canary_ids == {v.task_id for v in integrity.values if v.task_id is not None}
    (verdict,) = [v for v in endpoint_run.values if v.measure == VERDICT]
    assert verdict.value == 0.0 and verdict.why.startswith("integrity: clean")


def test_an_in_process_run_has_no_integrity_in_its_file(demo: Evaluation) -> None:
    result = memrank.run(WordOverlap(), demo)
    raw = result.to_bytes()
    stored = orjson.loads(raw)
    assert "integrity" not in stored and result.integrity is None
    assert all("foreign" not in row for row in stored["traces"])
    assert VERDICT not in {v.measure for v in result.values}
    assert Result.from_bytes(raw).to_bytes() == raw


def test_a_benchmark_question_is_read_without_the_turns_memrank_planted(
    endpoint_run: Result, smoke: Evaluation
) -> None:
    # word-overlap ranks planted turns that share a benchmark question's words among its first
    # k: the trace keeps the ranks they held and recalls the rest as if they were never told
    read_around = [t for t in endpoint_run.traces if t.planted]
    assert read_around
    for trace in read_around:
        assert trace.recalled is not None
        assert not any(":canary-" in d.id for d in trace.recalled.documents)
        assert len(trace.recalled.documents) + len(trace.planted) <= smoke.k
        assert all(1 <= rank <= smoke.k for rank in trace.planted)
    assert all(
        not t.planted for t in (endpoint_run.integrity.traces if endpoint_run.integrity else ())
    )
    stored = orjson.loads(endpoint_run.to_bytes())
    assert sum("planted" in row for row in stored["traces"]) == len(read_around)
