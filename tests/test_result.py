"""Result files: typed round trip, documents stored once, clear errors for bad files."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import memrank
from memrank import Result
from memrank.errors import ResultFileError
from memrank.systems import WordOverlap


@pytest.fixture
def result() -> Result:
    return memrank.run(WordOverlap(), memrank.evaluation("demo"))


def test_round_trip_is_exact(result: Result, tmp_path: Path) -> None:
    loaded = Result.load(result.save(tmp_path / "r.json"))
    assert loaded == result
    assert loaded.to_bytes() == result.to_bytes()
    assert loaded.traces[0].started.tzinfo is not None


def test_recalled_documents_are_stored_once(result: Result) -> None:
    data = orjson.loads(result.to_bytes())
    assert data["schema"] == "memrank.result/v1"
    refs = [ref for t in data["traces"] if t["recalled"] for ref in t["recalled"]["documents"]]
    assert (
        len(refs) > len(set(refs)) == len(data["documents"])
    )  # sess_1 recalled twice, stored once
    assert list(data) == sorted(data)


def test_values_of_and_traces_of(result: Result) -> None:
    assert [v.measure for v in result.values_of("latency")] == [
        "latency.ingest.p50",
        "latency.ingest.p95",
        "latency.retrieve.p50",
        "latency.retrieve.p95",
    ]
    assert result.values_of("latency.ingest.p50")[0].decider is memrank.Decider.MEMRANK
    assert [t.task.id for t in result.traces_of("q_diet")] == ["q_diet"]
    assert result.traces_of("q_diet")[0].recalled is not None
    assert result.traces_of("q_diet")[0].recalled.documents == ()


@pytest.mark.parametrize(
    "content,message",
    [
        (b"not json", "not JSON"),
        (b'{"schema": "memrank.result/v0"}', "schema is 'memrank.result/v0'"),
        (b"[]", "schema is 'list'"),
        (b'{"schema": "memrank.result/v1", "traces": []}', "not a valid memrank result"),
    ],
)
def test_bad_files_name_themselves(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(ResultFileError, match=message) as caught:
        Result.load(path)
    assert str(path) in caught.value.message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ResultFileError, match="cannot read the result file"):
        Result.load(tmp_path / "absent.json")


def test_a_tampered_file_with_an_unknown_field_is_refused(result: Result, tmp_path: Path) -> None:
    data = orjson.loads(result.to_bytes())
    data["values"][0]["bonus"] = 1
    path = tmp_path / "t.json"
    path.write_bytes(orjson.dumps(data))
    with pytest.raises(ResultFileError, match="bonus"):
        Result.load(path)
