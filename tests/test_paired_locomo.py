"""A paired reading on real material: LoCoMo's ten conversations, two real retrievers.

The material comes from the ``shared_data`` fixture (tests/conftest.py).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np
import orjson
import pytest
from scipy.stats import binomtest

import memrank
from memrank import (
    Decider,
    Document,
    Evaluation,
    Expected,
    Measure,
    Recall,
    Result,
    Scope,
    Task,
    Trace,
    Value,
)
from memrank.stats import paired_reading
from memrank.system import Content
from memrank.systems import WordOverlap

_WORD = re.compile(r"[a-z0-9]+")


class LatestSessions(memrank.Memory):
    """Recalls the k sessions told last, whatever is asked: recency as the whole strategy."""

    name, version = "latest-sessions", "test"

    def __init__(self) -> None:
        self._documents: list[Document] = []

    def prepare(self, isolation_unit: str) -> None:
        self._documents = []

    def ingest(self, documents: Sequence[Document]) -> None:
        self._documents.extend(documents)

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        return Recall(documents=tuple(reversed(self._documents[-k:])))

    def cleanup(self) -> None:
        self._documents = []


class AnswerWordsRecalled(Measure):
    """Continuous: the share of the reference answer's words found in what was recalled."""

    name, scope, reads, decider = "answer-words", Scope.TASK, ("recalled",), Decider.RULE

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        produced = []
        for trace in traces:
            wanted = set(_WORD.findall(" ".join(trace.task.expected.answers).lower()))
            documents = trace.recalled.documents if trace.recalled else ()
            held = {w for d in documents for w in _WORD.findall(d.text.lower())}
            produced.append(
                Value(
                    measure=self.name,
                    decider=self.decider,
                    task_id=trace.task_id,
                    value=len(wanted & held) / len(wanted) if wanted else None,
                    why="" if wanted else "the reference answer has no words",
                )
            )
        return produced


def _locomo(locomo: Path) -> Evaluation:
    tasks = []
    for conversation in orjson.loads(locomo.read_bytes()):
        sample, turns = conversation["sample_id"], conversation["conversation"]
        sessions = tuple(
            Document(
                id=f"{sample}:{key}",
                user_id=sample,
                content="\n".join(f"{t['speaker']}: {t['text']}" for t in turns[key]),
            )
            for key in sorted(
                (k for k in turns if re.fullmatch(r"session_\d+", k)),
                key=lambda k: int(k.split("_")[1]),
            )
        )
        for number, qa in enumerate(conversation["qa"]):
            if "answer" not in qa:  # most adversarial questions carry no reference answer
                continue
            answer = str(qa["answer"])
            tasks.append(
                Task(
                    id=f"{sample}:q{number}",
                    prompt=qa["question"],
                    group=sample,
                    context=sessions,
                    category=str(qa["category"]),
                    expected=Expected(answers=(answer,), required_spans=(answer,)),
                )
            )
    return Evaluation(
        name="locomo-paired-test",
        version="locomo10@test",
        tasks=tuple(tasks),
        measures=(memrank.WordMatch(), AnswerWordsRecalled()),
        k=3,
    )


@pytest.fixture(scope="module")
def results(shared_data: Path) -> tuple[Result, Result]:
    evaluation = _locomo(shared_data / "locomo" / "locomo10.json")
    return memrank.run(WordOverlap(), evaluation), memrank.run(LatestSessions(), evaluation)


def _column(result: Result, measure: str, tasks: list[str]) -> np.ndarray:
    held = {v.task_id: v.value for v in result.values_of(measure)}
    return np.array([held[task] for task in tasks], dtype=float)


def test_word_match_on_locomo_agrees_with_an_independent_count(
    results: tuple[Result, Result],
) -> None:
    overlap, latest = results
    reading = memrank.paired(overlap, latest)
    word_match = next(m for m in reading.measures if m.measure == "word-match")
    assert word_match.kind == "binary" and word_match.paired == 1542 and not word_match.left_out
    tasks = [t.task.id for t in overlap.traces]
    a, b = _column(overlap, "word-match", tasks), _column(latest, "word-match", tasks)
    only_a, only_b = int(np.sum((a == 1) & (b == 0))), int(np.sum((a == 0) & (b == 1)))
    table = word_match.table
    assert table is not None and (table.only_a, table.only_b) == (only_a, only_b)
    assert table.both + table.neither + only_a + only_b == 1542
    assert only_a > 10 and only_b > 10  # both retrievers win somewhere: a real two-way split
    # the ten conversations are the clusters: every one of the 2^10 ways to swap A and B
    # within whole conversations, enumerated one by one
    groups = [t.task.group for t in overlap.traces]
    sums = [float(np.sum((b - a)[[g == name for g in groups]])) for name in sorted(set(groups))]
    swaps = list(itertools.product((1, -1), repeat=len(sums)))
    extreme = sum(abs(np.dot(s, sums)) >= abs(sum(sums)) for s in swaps)
    test = word_match.test
    assert test is not None and test.method == "exact cluster sign-flip test"
    assert test.n_clusters == 10 and abs(test.p_value - extreme / len(swaps)) <= 1e-9
    # pretending the 1,542 questions are independent makes the split look far less likely
    assert binomtest(min(only_a, only_b), only_a + only_b, 0.5).pvalue < test.p_value / 100
    assert "exact cluster sign-flip test over 10 cluster(s)" in str(reading)
    assert word_match.discordant == only_a + only_b
    assert "only 10 clusters" in (word_match.caution or "")
    assert word_match.gap == pytest.approx(b.mean() - a.mean())


def test_answer_words_on_locomo_use_the_ten_conversations(
    results: tuple[Result, Result],
) -> None:
    overlap, latest = results
    reading = memrank.paired(overlap, latest)
    words = next(m for m in reading.measures if m.measure == "answer-words")
    assert words.kind == "continuous" and words.test is not None
    assert words.test.n_clusters == 10
    tasks = [t.task.id for t in overlap.traces]
    differences = _column(latest, "answer-words", tasks) - _column(overlap, "answer-words", tasks)
    assert words.gap == pytest.approx(differences.mean())
    one_by_one = paired_reading(
        _column(overlap, "answer-words", tasks),
        _column(latest, "answer-words", tasks),
        np.arange(len(tasks)),
        binary=False,
    )
    low, high = words.test.low, words.test.high
    assert low is not None and high is not None
    assert one_by_one.low is not None and one_by_one.high is not None
    assert low < words.gap < high
    # Questions about one conversation share its sessions: the ten conversations give a wider
    # interval than pretending the 1,542 questions are independent.
    assert high - low > one_by_one.high - one_by_one.low
