"""Result files store each recalled document and each given once; loading validates each of
them once and shares it, and saving writes byte for byte what was signed."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import memrank
from memrank.artifacts import join, run_files
from memrank.errors import ResultFileError
from memrank.result import Result

ARTIFACTS = Path(__file__).parents[1] / "artifacts"


def timings_of(result_sha256: str) -> bytes:
    """The committed timings file that completes the result file with this digest."""
    for path in (ARTIFACTS / "timings").glob("*.json"):
        raw = path.read_bytes()
        if orjson.loads(raw)["result_sha256"] == result_sha256:
            return raw
    raise AssertionError(f"no timings file names result {result_sha256}")


@pytest.mark.parametrize(
    "path", sorted((ARTIFACTS / "results").glob("*.json")), ids=lambda p: p.name[:12]
)
def test_a_signed_result_file_saves_back_to_its_very_bytes(path: Path) -> None:
    """Joined with its timings, loaded, saved and split again: the very bytes signed."""
    raw = path.read_bytes()
    run = join(orjson.loads(raw), orjson.loads(timings_of(path.stem)))
    saved = Result.from_bytes(orjson.dumps(run)).to_bytes()
    assert run_files(saved).result == raw


def test_a_document_recalled_for_many_tasks_is_one_object_after_loading() -> None:
    result = memrank.run(memrank.system("full-context"), memrank.evaluation("demo"))
    loaded = Result.from_bytes(result.to_bytes())
    recalled = [d for t in loaded.traces if t.recalled for d in t.recalled.documents]
    assert len(recalled) > len({id(d) for d in recalled}) == len({d.id for d in recalled})
    assert loaded == result


def test_a_bad_document_in_the_table_is_refused_naming_the_file() -> None:
    result = memrank.run(memrank.system("word-overlap"), memrank.evaluation("demo"))
    data = orjson.loads(result.to_bytes())
    ref = next(iter(data["documents"]))
    data["documents"][ref]["id"] = ""  # ids are never empty
    with pytest.raises(ResultFileError, match="tampered.json: not a valid memrank result"):
        Result.from_bytes(orjson.dumps(data), source="tampered.json")
