"""memrank pair: the paired reading of two saved results, from the command line."""

from __future__ import annotations

import gc
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

import memrank
from memrank.cli import main
from memrank.errors import ResultFileError


def _saved(tmp_path: Path, system: str, evaluation: memrank.Evaluation) -> Path:
    return memrank.run(memrank.system(system), evaluation).save(tmp_path / f"{system}.json")


def test_pair_prints_the_reading_of_two_saved_results(tmp_path: Path) -> None:
    demo = memrank.evaluation("demo")
    a, b = _saved(tmp_path, "word-overlap", demo), _saved(tmp_path, "no-context", demo)
    outcome = CliRunner().invoke(main, ["pair", str(a), str(b), "--tasks"])
    assert outcome.exit_code == 0, outcome.output
    expected = memrank.paired(memrank.Result.load(a), memrank.Result.load(b))
    assert outcome.output == str(expected) + "\n"
    assert "exact cluster sign-flip test over 1 cluster(s): p = 1" in outcome.output


def test_pair_prints_one_line_per_measure_by_default(tmp_path: Path) -> None:
    demo = memrank.evaluation("demo")
    a, b = _saved(tmp_path, "word-overlap", demo), _saved(tmp_path, "no-context", demo)
    outcome = CliRunner().invoke(main, ["pair", str(a), str(b)])
    assert outcome.exit_code == 0, outcome.output
    assert "  word-match       5    0.800    0.200   -0.600" in outcome.output
    assert "flipped:" not in outcome.output and "3 flipped" not in outcome.output
    values = CliRunner().invoke(main, ["pair", str(a), str(b), "--values"]).output
    assert "exact cluster sign-flip test over 1 cluster(s): p = 1" in values
    assert "flipped:" not in values and "3 flipped, 0 left out: --tasks lists them" in values


def test_pair_refuses_two_evaluations_naming_both_files(tmp_path: Path) -> None:
    demo = memrank.evaluation("demo")
    a = _saved(tmp_path, "word-overlap", demo)
    b = _saved(tmp_path, "no-context", demo.model_copy(update={"version": "memrank-demo@v2"}))
    outcome = CliRunner().invoke(main, ["pair", str(a), str(b)])
    assert outcome.exit_code == 3
    assert f"{a} (A) and {b} (B): result A is of demo at" in outcome.output


def test_pair_exits_4_on_an_unreadable_file(tmp_path: Path) -> None:
    a = _saved(tmp_path, "word-overlap", memrank.evaluation("demo"))
    outcome = CliRunner().invoke(main, ["pair", str(a), str(tmp_path / "absent.json")])
    assert outcome.exit_code == 4 and "absent.json: cannot read the result file" in outcome.output


def _edited(saved: Path, edit: Callable[[dict[str, Any]], object]) -> Path:
    data = orjson.loads(saved.read_bytes())
    edit(data)
    path = saved.with_name("edited.json")
    path.write_bytes(orjson.dumps(data))
    return path


@pytest.mark.parametrize(
    "edit,message",
    [
        (lambda d: d.update(schema="memrank.result/v0"), "schema is 'memrank.result/v0'"),
        (lambda d: d.update(schema="memrank.result/v2"), "a published result file holds no"),
        (
            lambda d: d["values"][0].pop("why"),
            r"missing required field `why` - at `\$.values\[0\]`",
        ),
        (lambda d: d["values"][1].update(value="1"), r"Expected `float \| null`, got `str`"),
        (lambda d: d["traces"][2]["task"].pop("id"), r"at `\$.traces\[2\].task`"),
        (lambda d: d["system"].pop("kind"), "validation error for SystemRecord"),
        (lambda d: d.pop("evaluation"), "validation error for EvaluationRecord"),
    ],
)
def test_pair_refuses_a_file_that_is_no_run_file_naming_the_field(
    tmp_path: Path, edit: Callable[[dict[str, Any]], object], message: str
) -> None:
    """The fields a reading reads are checked as strictly as loading the whole file would."""
    a = _saved(tmp_path, "word-overlap", memrank.evaluation("demo"))
    outcome = CliRunner().invoke(main, ["pair", str(a), str(_edited(a, edit))])
    assert outcome.exit_code == 4, outcome.output
    assert re.search(message, outcome.output) and "edited.json: " in outcome.output


@pytest.mark.parametrize("content", [b"not json", b"[]", b'{"schema": 1'])
def test_pair_says_what_load_says_of_a_file_that_is_not_a_run_file(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(ResultFileError) as loading:
        memrank.Result.load(path)
    outcome = CliRunner().invoke(main, ["pair", str(path), str(path)])
    assert outcome.exit_code == 4 and loading.value.message in outcome.output


def test_pair_leaves_the_cyclic_collector_on_in_the_process_that_calls_it(tmp_path: Path) -> None:
    demo = memrank.evaluation("demo")
    a, b = _saved(tmp_path, "word-overlap", demo), _saved(tmp_path, "no-context", demo)
    gc.enable()
    assert CliRunner().invoke(main, ["pair", str(a), str(b)]).exit_code == 0
    assert gc.isenabled()
