"""memrank.paired: the spec's reading, refusals, what is left out, continuous measures."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np
import pytest
from scipy.stats import t as t_distribution

import memrank
from memrank import Decider, Evaluation, Measure, Paired, Result, Scope, Task, Trace, Value
from memrank.errors import PairingRefused, UsageError
from memrank.paired import CAUTION, CLOSING
from memrank.result import EvaluationRecord, SystemRecord
from memrank.systems import NoContext, WordOverlap
from tests.conftest import SpyMemory

SPEC_READING = """\
demo at memrank-demo@v1+def0
  A = WordOverlapAdapter    B = NoContextAdapter

word-match (binary, 5 paired task(s))
  mean A 0.800   mean B 0.200   gap -0.600   3 discordant
  both 1  neither 1  only A 3  only B 0
  exact cluster sign-flip test over 1 cluster(s): p = 1
  95% interval of the gap: none -- every paired task is in one cluster
  flipped: q_job  1.0 -> 0.0
  flipped: q_animal  1.0 -> 0.0
  flipped: q_visit  1.0 -> 0.0
  caution: only 1 cluster: a test needs at least 2 independent clusters, so no gap here can be told from chance; too few tasks differ to characterise the gap

A gap is a gap. Nothing above says which system is better; that depends on what
you are buying, and these numbers do not know what that is."""


@pytest.fixture(scope="module")
def mine() -> Result:
    return memrank.run(WordOverlap(), memrank.evaluation("demo"))


@pytest.fixture(scope="module")
def control() -> Result:
    return memrank.run(NoContext(), memrank.evaluation("demo"))


def test_the_spec_reading(mine: Result, control: Result) -> None:
    reading = memrank.paired(mine, control)
    assert str(reading) == SPEC_READING
    (word_match,) = reading.measures  # demo-score is group-scope, latency run-scope: not paired
    assert word_match.measure == "word-match" and word_match.kind == "binary"
    assert (word_match.mean_a, word_match.mean_b) == (0.8, 0.2)
    assert word_match.gap == pytest.approx(-0.6)
    # the demo's five questions are about one person: one cluster, so no test can separate
    assert word_match.test is not None and word_match.test.p_value == 1.0
    assert word_match.test.n_clusters == 1 and word_match.test.low is None
    assert [f.task_id for f in word_match.flipped] == ["q_job", "q_animal", "q_visit"]
    assert word_match.caution is not None and word_match.caution.endswith(CAUTION)
    assert reading.notice == CLOSING


def test_the_reading_round_trips_through_json(mine: Result, control: Result) -> None:
    reading = memrank.paired(mine, control)
    loaded = Paired.model_validate_json(reading.model_dump_json())
    assert loaded == reading and str(loaded) == SPEC_READING
    assert loaded.measures[0].table is not None and loaded.measures[0].table.only_a == 3


def test_the_reading_reads_from_b_to_a_as_well(mine: Result, control: Result) -> None:
    (word_match,) = memrank.paired(control, mine).measures
    assert word_match.gap == pytest.approx(0.6)
    assert word_match.table is not None
    assert (word_match.table.only_a, word_match.table.only_b) == (0, 3)
    assert [(f.was, f.now) for f in word_match.flipped] == [(0.0, 1.0)] * 3


def test_different_evaluations_are_refused(mine: Result) -> None:
    other = memrank.run(WordOverlap(), memrank.evaluation("demo").model_copy(update={"name": "x"}))
    with pytest.raises(PairingRefused, match="evaluation 'demo' and result B of 'x'"):
        memrank.paired(mine, other)


def test_different_versions_are_refused(mine: Result) -> None:
    later = memrank.evaluation("demo").model_copy(update={"version": "memrank-demo@v2"})
    with pytest.raises(PairingRefused, match="'memrank-demo@v1\\+def0' and result B at"):
        memrank.paired(mine, memrank.run(WordOverlap(), later))


@pytest.mark.parametrize("refused_side", ["A", "B"])
def test_a_refused_result_is_refused(mine: Result, refused_side: str) -> None:
    refused = memrank.run(object(), memrank.evaluation("demo"))
    assert refused.refusal is not None
    a, b = (refused, mine) if refused_side == "A" else (mine, refused)
    with pytest.raises(PairingRefused, match=f"result {refused_side} .* was refused") as caught:
        memrank.paired(a, b)
    assert caught.value.exit_code == 3


def test_only_results_are_read(mine: Result) -> None:
    with pytest.raises(UsageError, match="B is a dict"):
        memrank.paired(mine, {})  # type: ignore[arg-type]


def test_none_on_either_side_is_left_out_with_the_reason(mine: Result) -> None:
    broken = memrank.run(SpyMemory(raise_on="animal"), memrank.evaluation("demo"))
    (word_match,) = memrank.paired(mine, broken).measures
    assert word_match.paired == 4
    assert "q_animal" not in [f.task_id for f in word_match.flipped]
    (left,) = word_match.left_out
    assert left.task_id == "q_animal" and left.why.startswith("B None:")
    assert "engine went away" in left.why
    assert f"  left out: q_animal  {left.why}" in str(memrank.paired(mine, broken))


def test_tasks_on_one_side_only_are_reported_not_paired(mine: Result) -> None:
    demo = memrank.evaluation("demo")
    fewer = memrank.run(NoContext(), demo.model_copy(update={"tasks": demo.tasks[:3]}))
    reading = memrank.paired(mine, fewer)
    assert reading.tasks_only_in_a == ("q_diet", "q_allergy_neg") and not reading.tasks_only_in_b
    assert reading.measures[0].paired == 3 and not reading.measures[0].left_out
    assert "  tasks only in A: 2 (q_diet, q_allergy_neg), not paired" in str(reading)


class QuestionWordsRecalled(Measure):
    """A continuous task-scope measure: the share of the question's words found in the recall."""

    name, scope, reads, decider = "question-words", Scope.TASK, ("recalled",), Decider.RULE

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        produced = []
        for trace in traces:
            asked = set(str(trace.task.prompt).lower().split())
            documents = trace.recalled.documents if trace.recalled else ()
            held = {word for d in documents for word in d.text.lower().split()}
            produced.append(
                Value(
                    measure=self.name,
                    decider=self.decider,
                    task_id=trace.task_id,
                    value=len(asked & held) / len(asked),
                )
            )
        return produced


def test_a_continuous_measure_in_one_cluster_has_no_interval(mine: Result, control: Result) -> None:
    reading = memrank.paired(
        memrank.measure(mine, QuestionWordsRecalled()),
        memrank.measure(control, QuestionWordsRecalled()),
    )
    share = next(m for m in reading.measures if m.measure == "question-words")
    assert share.kind == "continuous" and share.table is None
    assert share.test is not None and share.test.n_clusters == 1
    assert share.test.low is None and share.test.p_value is None
    assert "question-words (continuous, 5 paired task(s))" in str(reading)
    assert "95% interval of the gap: none -- every paired task is in one cluster" in str(reading)


def _result(system: str, values: dict[str, float | None], groups: dict[str, str | None]) -> Result:
    """A stored result holding one task-scope measure, as a result file would bring it back."""
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    tasks = [Task(id=task, prompt="q", group=groups[task]) for task in values]
    return Result(
        system=SystemRecord(name=system, kind="memory"),
        evaluation=EvaluationRecord(
            name="synthetic",
            version="s@1",
            task_count=len(tasks),
            clearing=memrank.Clearing.PER_GROUP,
            track="textual",
            k=10,
            measures=("score",),
        ),
        traces=tuple(Trace(task=task, started=moment, finished=moment) for task in tasks),
        values=tuple(
            Value(
                measure="score",
                decider=Decider.RULE,
                task_id=task,
                value=value,
                why="" if value is not None else "no answer",
            )
            for task, value in values.items()
        ),
        started=moment,
        finished=moment,
    )


def _synthetic_pair(seed: int) -> tuple[Result, Result, dict[str, str | None]]:
    rng = np.random.default_rng(seed)
    groups: dict[str, str | None] = {f"t{i}": f"g{i // 4}" for i in range(80)}
    groups["t80"] = None  # a task without a group: its own cluster
    before = rng.uniform(0.0, 0.7, len(groups))
    after = before + rng.normal(0.1, 0.1, len(groups))
    a = _result("Before", {t: float(v) for t, v in zip(groups, before, strict=True)}, groups)
    b = _result("After", {t: float(v) for t, v in zip(groups, after, strict=True)}, groups)
    return a, b, groups


def test_a_continuous_reading_uses_the_cluster_robust_interval() -> None:
    a, b, groups = _synthetic_pair(1)
    reading = memrank.paired(a, b)
    (score,) = reading.measures
    assert score.kind == "continuous" and score.paired == 81 and score.table is None
    before = np.array([v.value for v in a.values], dtype=float)
    after = np.array([v.value for v in b.values], dtype=float)
    test = score.test
    assert test is not None and test.n_clusters == 21 and test.method.startswith("cluster-robust")
    assert score.gap == pytest.approx(float(np.mean(after - before)))
    # an independent CR2 for a mean: cluster residual sums over sqrt(1 - n_g / N), t(20)
    difference = after - before
    names = [g if g is not None else t for t, g in groups.items()]
    residual = {g: 0.0 for g in names}
    size = {g: 0 for g in names}
    for g, d in zip(names, difference, strict=True):
        residual[g] += d - difference.mean()
        size[g] += 1
    n = len(difference)
    se = np.sqrt(sum(residual[g] ** 2 / (1 - size[g] / n) for g in residual)) / n
    half = t_distribution.ppf(0.975, 20) * se
    assert test.low == pytest.approx(difference.mean() - half, abs=1e-12)
    assert test.high == pytest.approx(difference.mean() + half, abs=1e-12)
    assert test.p_value == pytest.approx(2 * t_distribution.sf(difference.mean() / se, 20))
    line = f"  95% interval of the gap [{test.low:+.3f}, {test.high:+.3f}]  CR2, t with 20 df"
    assert line in str(reading)
    assert len(score.flipped) == 81 and "  flipped: t0  " in str(reading)


def test_a_task_valued_on_one_side_only_is_left_out() -> None:
    a, b, groups = _synthetic_pair(2)
    values = {v.task_id: v.value for v in b.values if v.task_id is not None}
    values["t3"] = None
    (score,) = memrank.paired(a, _result("After", values, groups)).measures
    assert [(left.task_id, left.why) for left in score.left_out] == [("t3", "B None: no answer")]
    assert score.paired == 80


def test_measures_on_one_side_only_are_reported(mine: Result, control: Result) -> None:
    reading = memrank.paired(memrank.measure(mine, QuestionWordsRecalled()), control)
    assert reading.measures_only_in_a == ("question-words",)
    assert [m.measure for m in reading.measures] == ["word-match"]
    assert "  measures only in A: 1 (question-words), not paired" in str(reading)


def test_two_values_for_one_task_are_refused() -> None:
    a, b, _ = _synthetic_pair(3)
    doubled = b.model_copy(update={"values": b.values + b.values[:1]})
    with pytest.raises(PairingRefused, match="result B holds more than one 'score' value"):
        memrank.paired(a, doubled)


def test_evaluations_without_shared_task_measures_say_so() -> None:
    demo: Evaluation = memrank.evaluation("demo")
    bare = demo.model_copy(update={"measures": ()})
    reading = memrank.paired(memrank.run(WordOverlap(), bare), memrank.run(NoContext(), bare))
    assert reading.measures == ()
    assert "no task-scope measure is carried by both results; nothing to pair" in str(reading)
    assert str(reading).endswith(CLOSING)


def test_the_type_is_the_measures_declaration_not_the_values(mine: Result, control: Result) -> None:
    assert mine.evaluation.binary == ("word-match",)  # WordMatch declares it
    # a result that records no binary value reads word-match as continuous, 0/1 values or not
    undeclared = {"evaluation": mine.evaluation.model_copy(update={"binary": ()})}
    (reading,) = memrank.paired(mine.model_copy(update=undeclared), control).measures
    assert reading.kind == "continuous" and reading.table is None
    # one saved before measures declared their type (None) falls back to the shipped declarations
    older = {"evaluation": mine.evaluation.model_copy(update={"binary": None})}
    plain = {"evaluation": control.evaluation.model_copy(update={"binary": None})}
    (reading,) = memrank.paired(
        mine.model_copy(update=older), control.model_copy(update=plain)
    ).measures
    assert reading.kind == "binary" and reading.table is not None
