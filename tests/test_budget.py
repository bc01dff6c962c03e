"""Context budgets: whole documents in rank order, the cut on the trace, evidence read there."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import pytest
from pydantic import ValidationError

import memrank
from memrank import Document, Evaluation, Expected, Recall, Task
from memrank.budget import (
    Budget,
    counter_for,
    cut_to_budget,
    matched_name,
    register_tokenizer,
    word_count,
)
from memrank.errors import UsageError
from memrank.measures import EvidenceRecall, EvidenceTurn, evidence_metadata
from memrank.measures.budget import held_to
from memrank.system import Content


def _doc(name: str, words: int) -> Document:
    return Document(id=name, content=" ".join(f"{name}w{i}" for i in range(words)))


def test_whole_documents_are_kept_in_rank_order_until_one_would_overrun() -> None:
    ranked = [_doc("a", 200), _doc("b", 250), _doc("c", 100), _doc("d", 10)]
    cut = cut_to_budget(ranked, Budget.words(500), word_count)
    # c would bring it to 550: it is cut, and d, though short, does not jump the queue
    assert [d.id for d in cut.kept] == ["a", "b"] and [d.id for d in cut.cut] == ["c", "d"]
    assert (cut.used, cut.overrun) == (450, 550)
    record = cut.on_trace()
    assert (record.kept, record.used, record.cut) == (2, 450, ("c", "d"))
    assert record.why == (
        "kept the first 2 of 4 document(s) (450 of 500 words); cut from 'c', which would have "
        "brought it to 550"
    )
    everything = cut_to_budget(ranked, Budget.uncapped("the protocol's reader is uncapped"), len)
    assert everything.kept == tuple(ranked) and not everything.cut


def test_a_tokens_budget_counts_with_the_named_tokenizer() -> None:
    budget = Budget.tokens(5, "test-characters-by-four")
    with pytest.raises(UsageError, match="'test-characters-by-four', which no code has registered"):
        counter_for(budget)
    register_tokenizer("test-characters-by-four", lambda text: -(-len(text) // 4))
    cut = cut_to_budget([_doc("a", 3), _doc("b", 3)], budget, counter_for(budget))
    assert [d.id for d in cut.kept] == ["a"] and cut.used == 3  # "aw0 aw1 aw2" is 11 chars
    assert str(budget) == "5 tokens of test-characters-by-four" and budget.label == "5t"


@pytest.mark.parametrize(
    "fields,message",
    [
        ({"unit": "words"}, "give a limit"),
        ({"unit": "tokens", "limit": 5}, "name the tokenizer"),
        ({"unit": "uncapped"}, "says why"),
        ({"unit": "words", "limit": 0}, "greater than or equal to 1"),
    ],
)
def test_a_budget_must_say_what_it_is(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Budget.model_validate(fields)


def test_the_arm_held_to_a_budget_is_named_matched() -> None:
    assert matched_name("bm25", Budget.words(500)) == "bm25:matched"
    assert matched_name("bm25", Budget.uncapped("LongMemEval's reader is uncapped")) == "bm25"
    assert matched_name("bm25", None) == "bm25"


class OneLongDocument(memrank.Memory):
    """Returns everything it was told as one document: the 10,000-word case."""

    name, version = "one-long-document", "test"

    def __init__(self) -> None:
        self._told: list[Document] = []

    def prepare(self, isolation_unit: str) -> None:
        self._told = []

    def ingest(self, documents: Sequence[Document]) -> None:
        self._told.extend(documents)

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        return Recall(documents=tuple(self._told[:k]))

    def cleanup(self) -> None:
        self._told = []


def _evaluation(documents: tuple[Document, ...], evidence: Document) -> Evaluation:
    turn = EvidenceTurn(id=evidence.id, session="s1", text=evidence.text)
    task = Task(
        id="t1",
        prompt="what was said?",
        group="g1",
        context=documents,
        expected=Expected(evidence_doc_ids=(evidence.id,)),
        metadata=evidence_metadata([turn]),
    )
    return Evaluation(
        name="budget-test", version="b@1", tasks=(task,), measures=(EvidenceRecall(),), k=20
    )


def test_a_single_10000_word_document_is_cut_and_the_trace_says_so() -> None:
    long = _doc("long", 10_000)
    evaluation = held_to(_evaluation((long,), long), Budget.words(500))
    result = memrank.run(OneLongDocument(), evaluation)
    (trace,) = result.traces
    assert trace.recalled is not None and len(trace.recalled.documents) == 1  # kept as returned
    assert trace.cut is not None and (trace.cut.kept, trace.cut.cut) == (0, ("long",))
    assert "cut from 'long', which would have brought it to 10000" in trace.cut.why
    values = {v.measure: v for v in result.values}
    assert values["evidence-recall@20"].value == 1.0  # at k it found it ...
    assert values["evidence-recall@500w"].value == 0.0  # ... by returning 10,000 words
    assert "within the 0 document(s) that fit 500 words" in values["evidence-recall@500w"].why
    assert result.evaluation.budget == Budget.words(500)


def test_without_a_budget_nothing_is_cut_and_the_budget_reading_says_why() -> None:
    long = _doc("long", 10_000)
    plain = _evaluation((long,), long)
    result = memrank.run(OneLongDocument(), plain)
    assert result.traces[0].cut is None and result.evaluation.budget is None
    measured = memrank.measure(result, EvidenceRecall(budget=Budget.words(500)))
    value = next(v for v in measured.values if v.measure == "evidence-recall@500w")
    assert value.value is None and "not held to the budget of 500 words" in value.why
