"""LoCoMo held to a 500-word budget: k and budget read apart, full-context no longer perfect."""

from __future__ import annotations

import memrank
from memrank import Evaluation, Result
from memrank.budget import Budget
from memrank.measures.budget import held_to
from memrank.systems import FullContext


def _mean(result: Result, name: str) -> float | None:
    (value,) = [v for v in result.values if v.measure == name]
    return value.value


def test_full_context_at_500_words_is_no_longer_perfect(locomo_smoke: Evaluation) -> None:
    result = memrank.run(FullContext(), held_to(locomo_smoke, Budget.words(500)))
    assert _mean(result, "evidence-recall@20.mean") == 1.0  # everything, at k ...
    assert _mean(result, "evidence-recall@500w.mean") == 0.0  # ... is one document of far more
    cuts = [t.cut for t in result.traces if t.cut is not None]
    assert len(cuts) == len(result.traces) and all(c.kept == 0 and len(c.cut) == 1 for c in cuts)


def test_long_documents_read_differently_at_k_and_at_the_budget(locomo_smoke: Evaluation) -> None:
    # bm25 returns LoCoMo turns of about 25 words: 20 of them overrun 500 words on many tasks,
    # and the evidence that came back last is cut
    result = memrank.run(memrank.system("bm25"), held_to(locomo_smoke, Budget.words(500)))
    at_k, at_budget = (
        _mean(result, "evidence-recall@20.mean"),
        _mean(result, "evidence-recall@500w.mean"),
    )
    assert at_k is not None and at_budget is not None and at_budget < at_k
    words = _mean(result, "recalled-words.mean")
    assert words is not None and words > 500  # what k = 20 spent, over the budget
