"""The baselines on real material: full LoCoMo from the command line, BM25 against bm25s,
the hybrid on the smoke slice, and the controls bounding what evidence recall can say."""

from __future__ import annotations

from pathlib import Path

import bm25s
import numpy as np
import pytest
from click.testing import CliRunner

import memrank
from memrank import Evaluation, Result
from memrank.cli import main
from memrank.systems import FullContext, NoContext
from memrank.systems.bm25 import BM25Index
from memrank.systems.embedding_cache import CACHE_VARIABLE
from memrank.systems.text import words


def _mean(result: Result, name: str) -> float | None:
    (value,) = [v for v in result.values if v.measure == name]
    return value.value


def test_memrank_run_bm25_locomo_runs_the_full_benchmark(data_dir: Path, tmp_path: Path) -> None:
    saved = tmp_path / "bm25.json"
    outcome = CliRunner().invoke(main, ["run", "bm25", "locomo", "--save", str(saved)])
    assert outcome.exit_code == 0, outcome.output[-2000:]
    assert "evaluation: locomo at locomo10@v1+79fa87e9, 1986 task(s), cleared per-group" in (
        outcome.output
    )
    result = Result.load(saved)
    assert len(result.traces) == 1986 and not result.failed
    assert result.clearing is not None and result.clearing.observed is True
    headline = _mean(result, "evidence-recall@10.mean")
    assert headline is not None and 0.3 < headline < 0.9
    # The 446 adversarial tasks are reported apart and never reach the headline.
    adversarial = [t.task.id for t in result.traces if t.task.category == "5"]
    by_task = {(v.measure, v.task_id): v for v in result.values}
    for task_id in adversarial:
        headline_value = by_task[("evidence-recall@10", task_id)]
        assert headline_value.value is None and "negative task" in headline_value.why
        assert by_task[("evidence-recall-negative@10", task_id)].value is not None
    means = {v.measure: v for v in result.values if v.task_id is None}
    assert means["evidence-recall@10.mean"].why.startswith("mean over 1536 task(s)")
    assert means["evidence-recall-negative@10.mean"].why.startswith("mean over 446 task(s)")
    hits = [v.value for v in result.values if v.measure == "evidence-hit@10"]
    assert {h for h in hits if h is not None} == {0.0, 1.0}  # binary, for a paired reading


def test_hybrid_runs_the_smoke_slice_from_the_command_line(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "embeddings"))
    saved = tmp_path / "hybrid.json"
    outcome = CliRunner().invoke(main, ["run", "hybrid", "locomo:smoke", "--save", str(saved)])
    assert outcome.exit_code == 0, outcome.output[-2000:]
    assert "slice:      smoke -- a slice is not a measurement" in outcome.output
    result = Result.load(saved)
    assert result.evaluation.slice == "smoke" and len(result.traces) == 199
    assert not result.failed
    components = result.system.components
    assert components["fusion"] == "0.6 * minmax(cosine) + 0.4 * minmax(bm25)"
    assert "0.8 x the fused score of a top-k unit" in components["expansion"]
    assert "all-MiniLM-L6-v2 int8 onnx" in components["embedder"]
    recall = _mean(result, "evidence-recall@20.mean")
    assert recall is not None and recall > 0.4
    first = result.traces[0].recalled
    assert first is not None and len(first.documents) == 20
    assert first.declared["via"][0] == "direct"  # a neighbour never outranks the best match


def test_bm25_scores_equal_bm25s_up_to_its_constant_factor(locomo_smoke: Evaluation) -> None:
    """bm25s's Lucene variant leaves out Okapi's (k1 + 1) numerator; nothing else differs."""
    tokenised = [words(d.text) for d in locomo_smoke.tasks[0].context]
    ours = BM25Index(k1=1.5, b=0.75)
    ours.add(tokenised)
    reference = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    reference.index(tokenised, show_progress=False)
    compared = 0
    for task in locomo_smoke.tasks:
        query = [w for w in words(str(task.prompt)) if w in reference.vocab_dict]
        if not query:
            continue
        expected = 2.5 * reference.get_scores(query)
        np.testing.assert_allclose(ours.scores(query), expected, rtol=1e-5, atol=1e-5)
        compared += 1
    assert compared > 190


@pytest.mark.parametrize(
    "system,recall", [(FullContext(), 1.0), (NoContext(), 0.0)], ids=["full", "none"]
)
def test_controls_bound_evidence_recall(
    locomo_smoke: Evaluation, system: memrank.Memory, recall: float
) -> None:
    result = memrank.run(system, locomo_smoke)
    assert _mean(result, "evidence-recall@5.mean") == recall
    assert _mean(result, "session-recall@5.mean") == recall
    words_spent = _mean(result, "recalled-words.mean")
    assert words_spent is not None and (words_spent > 10_000 if recall else words_spent == 0)
