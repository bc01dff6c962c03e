"""Values and measures: None carries a reason, names are declared, stored runs are re-measured."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from pydantic import ValidationError

import memrank
from memrank import Decider, Measure, Result, Scope, Trace, Value
from memrank.errors import MeasureRefused
from memrank.systems import NoContext, WordOverlap


class HitCount(Measure):
    """Reads word-match values: how many tasks matched."""

    name, scope, reads, decider = "hits", Scope.RUN, ("word-match",), Decider.RULE

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        hits = sum(1 for v in values if v.measure == "word-match" and v.value == 1.0)
        return [Value(measure=self.name, decider=self.decider, value=float(hits), why="count")]


class Misnamed(Measure):
    name, scope, reads, decider = "declared", Scope.RUN, (), Decider.RULE

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        return [Value(measure="something-else", decider=self.decider, value=1.0)]


def test_none_needs_a_reason_and_nan_is_refused() -> None:
    with pytest.raises(ValidationError, match="without a reason"):
        Value(measure="m", decider=Decider.RULE, value=None)
    with pytest.raises(ValidationError, match="use None with a reason"):
        Value(measure="m", decider=Decider.RULE, value=float("nan"), why="x")
    assert Value(measure="m", decider=Decider.RULE, value=None, why="no evidence").value is None


def test_measure_reads_values_of_earlier_measures_in_a_stored_run(tmp_path: Path) -> None:
    path = memrank.run(WordOverlap(), memrank.evaluation("demo")).save(tmp_path / "run.json")
    stored = Result.load(path)
    measured = memrank.measure(stored, HitCount())
    (hits,) = measured.values_of("hits")
    assert hits.value == 4.0
    assert measured.evaluation.measures[-1] == "hits"
    assert stored.values == measured.values[: len(stored.values)]


def test_measure_refuses_a_name_the_run_never_produced() -> None:
    result = memrank.run(NoContext(), memrank.evaluation("demo"))
    bare = result.model_copy(update={"values": ()})
    with pytest.raises(MeasureRefused, match="reads 'word-match'.*no values yet"):
        memrank.measure(bare, HitCount())


def test_measure_refuses_a_refused_run() -> None:
    refused = memrank.run(object(), memrank.evaluation("demo"))
    with pytest.raises(MeasureRefused, match="no traces to measure"):
        memrank.measure(refused, HitCount())


def test_a_measure_producing_an_undeclared_name_is_refused() -> None:
    result = memrank.run(NoContext(), memrank.evaluation("demo"))
    with pytest.raises(MeasureRefused, match="produced a value named 'something-else'"):
        memrank.measure(result, Misnamed())


def test_word_match_withholds_when_no_spans_are_given() -> None:
    evaluation = memrank.Evaluation(
        name="e",
        version="e@1",
        measures=(memrank.WordMatch(),),
        tasks=(
            memrank.Task(
                id="t",
                prompt="anything",
                context=(memrank.Document(id="d", content="anything at all"),),
            ),
        ),
    )
    (value,) = memrank.run(WordOverlap(), evaluation).values_of("word-match")
    assert value.value is None and "names no required spans" in value.why


def test_no_context_control_scores_only_the_abstention() -> None:
    result = memrank.run(NoContext(), memrank.evaluation("demo"))
    assert [v.value for v in result.values_of("word-match")] == [0.0, 0.0, 0.0, 0.0, 1.0]
    assert result.values_of("demo-score")[0].value == pytest.approx(0.2)
