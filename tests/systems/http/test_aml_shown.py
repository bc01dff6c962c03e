"""Credit through the wire only for what was told and shown, on LoCoMo's first conversation
(its first 60 questions) against loopback Add/Search servers, every run under one secret so
that runs differ only by what the servers answer:

- an honest bm25 whose answers are reformatted keeps the credit it gets as is;
- a fragment oracle (the first 6 words of each gold turn, from the public file) earns the
  share of each turn's words it shows, and sending each fragment three times earns no more;
- a gold oracle whose answers were never told to the unit (an image turn's text without what
  it shared, under another speaker) earns nothing for them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memrank import Evaluation, Result
from memrank.evaluations.locomo import locomo
from memrank.measures import EvidenceRecall
from memrank.measures.evidence import evidence_of, normalised
from tests.systems.http.reformatted import GoldOracle, gold_of, honest_servers, over_the_wire

AT_BUDGET = "evidence-recall@500w"
SERVERS = honest_servers()
PREFIXED, MERGED = "speaker prefix a word longer", "each hit merged with the next turn"


@pytest.fixture(scope="module")
def questions(shared_data: Path) -> Evaluation:
    evaluation = locomo("smoke", path=shared_data / "locomo")
    return evaluation.model_copy(update={"tasks": evaluation.tasks[:60]})


@pytest.fixture(scope="module")
def as_is(questions: Evaluation) -> Result:
    return over_the_wire(SERVERS["as-is"], questions)


def _values(result: Result, name: str = AT_BUDGET) -> dict[str, float | None]:
    return {v.task_id: v.value for v in result.values if v.measure == name and v.task_id}


def _decided(values: dict[str, float | None]) -> dict[str, float]:
    return {task: value for task, value in values.items() if value is not None}


@pytest.mark.parametrize("name", [n for n in SERVERS if n not in ("as-is", PREFIXED, MERGED)])
def test_reformatted_answers_keep_every_tasks_credit(
    name: str, questions: Evaluation, as_is: Result
) -> None:
    expected = _values(as_is)
    assert sum(_decided(expected).values()) > 20  # the honest server earns credit to keep
    assert _values(over_the_wire(SERVERS[name], questions)) == expected


def test_a_longer_speaker_prefix_keeps_the_credit_at_k_and_merged_turns_lose_none(
    questions: Evaluation, as_is: Result
) -> None:
    at_20 = _values(as_is, "evidence-recall@20")
    prefixed = over_the_wire(SERVERS[PREFIXED], questions)
    assert _values(prefixed, "evidence-recall@20") == at_20  # the budget fits fewer: @k holds
    merged = over_the_wire(SERVERS[MERGED], questions)
    got = _decided(_values(merged, "evidence-recall@20"))
    assert got.keys() == _decided(at_20).keys()
    assert all(got[task] >= value for task, value in _decided(at_20).items())


def test_fragments_earn_their_share_and_repeating_them_earns_nothing_more(
    questions: Evaluation,
) -> None:
    gold = gold_of(questions)
    fragments = _values(over_the_wire(lambda: GoldOracle(gold), questions))
    share = {}
    for task in questions.tasks:
        turns = evidence_of(task)
        if fragments.get(task.id) is None:
            continue
        shown = [
            min(
                1.0,
                len(normalised(" ".join(t.text.split()[:6])).split())
                / len(normalised(t.text).split()),
            )
            for t in turns
        ]
        share[task.id] = sum(shown) / len(turns)
    assert len(share) > 40 and sum(share.values()) / len(share) < 0.3
    assert _decided(fragments) == pytest.approx(share)
    repeated = over_the_wire(lambda: GoldOracle(gold, repeat=3), questions)
    assert _values(repeated) == fragments


def test_answers_never_told_to_the_unit_earn_nothing(questions: Evaluation) -> None:
    oracle = GoldOracle(gold_of(questions), words=None, speaker="Narrator: ")
    result = over_the_wire(lambda: oracle, questions)
    with_foreign = [t for t in result.traces if t.foreign]
    assert len(with_foreign) > 10  # the driver found answers no told text holds
    measure = EvidenceRecall(budget=questions.budget)
    as_run = _values(result)
    credited_anyway = measure.measure(
        [t.model_copy(update={"foreign": ()}) for t in with_foreign], []
    )
    gained = {
        v.task_id
        for v in credited_anyway
        if v.measure == AT_BUDGET and v.value is not None and v.value > (as_run[v.task_id] or 0.0)
    }
    assert len(gained) > 10  # each of them held an evidence turn whole, and earned nothing
    assert all(
        "foreign document(s) earned nothing" in v.why
        for v in result.values
        if v.task_id in gained and v.measure == AT_BUDGET
    )
