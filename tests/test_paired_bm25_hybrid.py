"""bm25 against hybrid on all of LoCoMo: the cluster-aware reading docs/evaluations.md reports,
against an independent implementation here (exact enumeration of the 2^10 swaps of whole
conversations, and a plain CR2 with scipy's t). Running the hybrid embeds every LoCoMo turn
on the CPU (over a minute), so this test is opt-in: MEMRANK_SLOW=1."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest
from scipy.stats import t as t_distribution

import memrank
from memrank import Result

pytestmark = pytest.mark.skipif(
    os.environ.get("MEMRANK_SLOW") != "1",
    reason="runs the hybrid over all of LoCoMo; MEMRANK_SLOW=1",
)
DOCS = Path(__file__).resolve().parents[1] / "docs" / "evaluations.md"


@pytest.fixture(scope="module")
def runs(shared_data: Path) -> tuple[Result, Result]:
    from memrank.evaluations import locomo

    evaluation = locomo(path=shared_data / "locomo")
    return memrank.run(memrank.system("bm25"), evaluation), memrank.run(
        memrank.system("hybrid"), evaluation
    )


def _columns(a: Result, b: Result, measure: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    held_a = {v.task_id: v.value for v in a.values_of(measure)}
    held_b = {v.task_id: v.value for v in b.values_of(measure)}
    tasks = [t for t in a.traces if held_a.get(t.task.id) is not None]
    tasks = [t for t in tasks if held_b.get(t.task.id) is not None]
    x = np.array([held_a[t.task.id] for t in tasks], dtype=float)
    y = np.array([held_b[t.task.id] for t in tasks], dtype=float)
    return x, y, [str(t.task.group) for t in tasks]


def _cr2(difference: np.ndarray, groups: list[str]) -> tuple[float, float, float]:
    n, mean = len(difference), difference.mean()
    variance = 0.0
    for name in sorted(set(groups)):
        inside = np.array([g == name for g in groups])
        variance += (difference[inside] - mean).sum() ** 2 / (1 - inside.sum() / n)
    se = variance**0.5 / n
    df = len(set(groups)) - 1
    half = t_distribution.ppf(0.975, df) * se
    return mean - half, mean + half, 2 * t_distribution.sf(abs(mean) / se, df)


def test_bm25_against_hybrid_is_read_over_the_ten_conversations(
    runs: tuple[Result, Result],
) -> None:
    bm25, hybrid = runs
    reading = memrank.paired(bm25, hybrid)
    by_name = {m.measure: m for m in reading.measures}
    hit = by_name["evidence-hit@10"]
    x, y, groups = _columns(bm25, hybrid, "evidence-hit@10")
    assert hit.kind == "binary" and hit.paired == len(x) == 1536
    sums = [float((y - x)[[g == name for g in groups]].sum()) for name in sorted(set(groups))]
    swaps = list(itertools.product((1, -1), repeat=len(sums)))
    exact = sum(abs(np.dot(s, sums)) >= abs(sum(sums)) for s in swaps) / len(swaps)
    test = hit.test
    assert test is not None and test.n_clusters == 10
    assert test.method == "exact cluster sign-flip test"
    assert abs(test.p_value - exact) <= 1e-9
    low, high, _ = _cr2(y - x, groups)
    assert abs(test.low - low) <= 1e-9 and abs(test.high - high) <= 1e-9
    only_a, only_b = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
    tasks_as_independent = binomtest(min(only_a, only_b), only_a + only_b, 0.5).pvalue
    assert tasks_as_independent < exact / 1000
    recall = by_name["evidence-recall@10"].test
    x, y, groups = _columns(bm25, hybrid, "evidence-recall@10")
    low, high, p = _cr2(y - x, groups)
    assert recall is not None and recall.method.startswith("cluster-robust")
    assert abs(recall.low - low) <= 1e-9 and abs(recall.high - high) <= 1e-9
    assert abs(recall.p_value - p) <= 1e-9
    # docs/evaluations.md reports these very numbers
    text = DOCS.read_text()
    assert f"{test.p_value:.4f}" in text and f"{recall.p_value:.4f}" in text
    assert f"{recall.low:+.3f}".replace("-", "−") in text
