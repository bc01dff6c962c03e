"""`memrank run ... --judge` and `memrank measure RESULT --judge`, through click's runner."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import memrank
from memrank.answer import answer_name
from memrank.cli import main
from tests.answer.conftest import protocol_reply
from tests.systems.models.chat_server import ChatServer


@pytest.fixture(autouse=True)
def _environment(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMRANK_DATA_DIR", str(shared_data))
    for variable in ("MEMRANK_JUDGE", "MEMRANK_LOCOMO_FILE", "OPENAI_COMPATIBLE_API_KEY"):
        monkeypatch.delenv(variable, raising=False)


def test_a_judged_run_then_rejudging_it_from_a_warm_cache_makes_no_calls(tmp_path: Path) -> None:
    saved, rejudged = tmp_path / "run.json", tmp_path / "again.json"
    with ChatServer(reply=protocol_reply, key=None) as server:
        judge = f"openai-compatible:{server.base}:judge-model"
        answer = f"openai-compatible:{server.base}:answer-model"
        outcome = CliRunner().invoke(
            main,
            ["run", "bm25", "locomo:smoke", "--judge", judge, "--answer-model", answer]
            + ["--save", str(saved)],
        )
        assert outcome.exit_code == 0, outcome.output
        calls = len(server.log)
        again = CliRunner().invoke(
            main, ["measure", str(saved), "--judge", judge, "--save", str(rejudged)]
        )
        assert again.exit_code == 0, again.output
        assert len(server.log) == calls  # every judge answer came from the response cache
    output = outcome.output
    assert output.index("estimate:") < output.index("system:") < output.index("judged:")
    assert "cost at most unknown (no listed price)" in output
    assert "0 from the response cache" in output and "from the response cache" in again.output
    name = answer_name("judge", "mem0@v1", answer, judge)
    first = [v for v in memrank.Result.load(saved).values if v.measure.startswith(name)]
    second = [v for v in memrank.Result.load(rejudged).values if v.measure.startswith(name)]
    strip = {f"{name}.calls"}  # the account says the calls were cached this time
    assert [v for v in first if v.measure not in strip] == [
        v for v in second if v.measure not in strip
    ]
    assert len([v for v in second if v.measure == f"{name}.mean"]) == 1  # replaced, not added
    assert calls == 199 + 152  # every question answered; Mem0 judges all but category 5


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--no-judge"], "not judged: --no-judge was given"),
        ([], "not judged: no judge configured (give --judge or set MEMRANK_JUDGE)"),
    ],
)
def test_an_unjudged_locomo_run_says_so_plainly(
    flags: list[str], said: str, tmp_path: Path
) -> None:
    path = tmp_path / "run.json"
    outcome = CliRunner().invoke(main, ["run", "bm25", "locomo:smoke", "--save", str(path), *flags])
    assert outcome.exit_code == 0, outcome.output
    assert said in outcome.output and "estimate:" not in outcome.output
    (value,) = memrank.Result.load(path).values_of("judge")
    assert value.value is None and value.why.startswith(said)


def test_measure_refuses_clearly(tmp_path: Path) -> None:
    path = tmp_path / "demo.json"
    assert (
        CliRunner().invoke(main, ["run", "word-overlap", "demo", "--save", str(path)]).exit_code
        == 0
    )
    no_judge = CliRunner().invoke(main, ["measure", str(path)])
    assert no_judge.exit_code == 2 and "no judge: give --judge" in no_judge.output
    judge = ["--judge", "openai-compatible:http://127.0.0.1:9/v1:m"]
    unanswered = CliRunner().invoke(main, ["measure", str(path), *judge])
    assert unanswered.exit_code == 2 and "give --protocol" in unanswered.output
    refused = CliRunner().invoke(main, ["measure", str(path), *judge, "--protocol", "mem0"])
    assert refused.exit_code == 3 and "'answered'" in refused.output
    both = CliRunner().invoke(main, ["run", "bm25", "demo", "--no-judge", *judge])
    assert both.exit_code == 2 and "contradict" in both.output


def test_a_rule_protocol_run_says_it_is_decided_by_a_rule(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    with ChatServer(reply=protocol_reply, key=None) as server:
        answer = f"openai-compatible:{server.base}:answer-model"
        outcome = CliRunner().invoke(
            main,
            ["run", "bm25", "locomo:smoke", "--protocol", "locomo", "--answer-model", answer]
            + ["--save", str(path)],
        )
    assert outcome.exit_code == 0, outcome.output
    assert "not judged: protocol locomo@v1 is decided by a rule" in outcome.output
    (mean,) = memrank.Result.load(path).values_of(
        f"{answer_name('locomo-f1', 'locomo@v1', answer)}.mean"
    )[:1]
    assert mean.value is not None and mean.decider.value == "rule"
