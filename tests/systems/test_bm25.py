"""BM25 on small corpora where the ranking can be worked out by hand."""

from __future__ import annotations

import math

import pytest

from memrank import Document
from memrank.systems.bm25 import BM25, BM25Index


def _docs(*texts: str) -> list[Document]:
    return [Document(id=f"d{i}", content=text) for i, text in enumerate(texts)]


def test_the_okapi_formula_with_lucene_idf() -> None:
    index = BM25Index(k1=1.5, b=0.75)
    index.add([["cat", "cat", "dog"], ["dog"], ["fish", "fish", "fish", "fish"]])
    n, average = 3, (3 + 1 + 4) / 3
    idf_cat = math.log(1 + (n - 1 + 0.5) / (1 + 0.5))
    tf_part = 2 * 2.5 / (2 + 1.5 * (1 - 0.75 + 0.75 * 3 / average))
    assert index.scores(["cat"])[0] == pytest.approx(idf_cat * tf_part)
    # repeated query words count each time, as in the sum over query terms
    assert index.scores(["cat", "cat"])[0] == pytest.approx(2 * idf_cat * tf_part)
    assert list(index.scores(["unknown"])) == [0.0, 0.0, 0.0]


def test_ties_keep_ingest_order_and_zero_scores_are_dropped() -> None:
    memory = BM25()
    memory.prepare("unit")
    memory.ingest(_docs("the red kite flew", "a red kite flew", "nothing here", "red kite flew"))
    recall = memory.retrieve("red kite", k=10, user_id="unit")
    assert [d.id for d in recall.documents] == ["d0", "d1", "d3"]  # equal scores, ingest order
    assert len(set(recall.declared["scores"])) == 1
    assert [d.id for d in memory.retrieve("red kite", k=2, user_id="unit").documents] == [
        "d0",
        "d1",
    ]
    assert memory.retrieve("submarine", k=5, user_id="unit").documents == ()


def test_a_rarer_word_outranks_a_common_one() -> None:
    memory = BM25()
    memory.prepare("unit")
    memory.ingest(_docs("coffee at noon", "coffee with Oscar", "coffee again", "tea at noon"))
    assert memory.retrieve("coffee with oscar", k=1, user_id="unit").documents[0].id == "d1"


def test_cleanup_forgets_and_ingest_after_a_query_is_seen() -> None:
    memory = BM25()
    memory.prepare("unit")
    memory.ingest(_docs("alpha beta"))
    assert memory.retrieve("alpha", k=5, user_id="unit").documents
    memory.ingest([Document(id="late", content="gamma")])  # the index is rebuilt on demand
    assert [d.id for d in memory.retrieve("gamma", k=5, user_id="unit").documents] == ["late"]
    before = memory.state_fingerprint()
    memory.cleanup()
    assert memory.state_fingerprint() == "0 document(s)" != before
    assert memory.retrieve("alpha", k=5, user_id="unit").documents == ()
    assert "k1=1.5, b=0.75, lucene idf" in memory.components()["scoring"]
