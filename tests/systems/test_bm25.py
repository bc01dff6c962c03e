"""BM25 on small corpora where the ranking can be worked out by hand."""

from __future__ import annotations

import math

import pytest

import memrank
from memrank import Document
from memrank.systems.bm25 import BM25, BM25Index, BM25Plain, terms
from memrank.systems.ties import tie_keys


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


def test_ties_follow_a_fixed_order_of_query_and_text_not_ingest_order() -> None:
    texts = [
        "the red kite flew",
        "a red kite flew",
        "nothing here",
        "red kite flew",
        "red kite flew over us",
    ]
    docs = _docs(*texts)
    memory = BM25()
    memory.prepare("unit")
    memory.ingest(docs)
    recall = memory.retrieve("red kite", k=10, user_id="unit")
    assert len(set(recall.declared["scores"][:3])) == 1  # three equal, then a longer one
    keys = tie_keys("red kite", [texts[0], texts[1], texts[3]]).tolist()
    expected = [d for _, d in sorted(zip(keys, ["d0", "d1", "d3"], strict=True))]
    assert [d.id for d in recall.documents][:3] == expected
    told_backwards = BM25()
    told_backwards.prepare("unit")
    told_backwards.ingest(docs[::-1])
    backwards = told_backwards.retrieve("red kite", k=10, user_id="unit")
    assert [d.id for d in backwards.documents] == [d.id for d in recall.documents]
    assert [d.id for d in memory.retrieve("red kite", k=2, user_id="unit").documents] == (
        expected[:2]
    )
    assert memory.retrieve("submarine", k=5, user_id="unit").documents == ()
    assert "not ingest order" in memory.components()["ties"]


def test_stemming_matches_word_forms_that_plain_words_miss() -> None:
    docs = _docs("Caroline adopted two cats", "a photo of the beach", "the adoption agency called")
    stemmed, plain = BM25(), BM25Plain()
    for memory in (stemmed, plain):
        memory.prepare("unit")
        memory.ingest(docs)
    found = stemmed.retrieve("is she adopting a cat?", k=5, user_id="unit")
    assert sorted(d.id for d in found.documents) == ["d0", "d2"]
    assert found.documents[0].id == "d0"  # "adopt" and "cat" both match
    assert plain.retrieve("is she adopting a cat?", k=5, user_id="unit").documents == ()
    assert terms("Adopting cats, studies!") == ["adopt", "cat", "studi"]
    assert "stemmed: snowball english" in stemmed.components()["words"]
    assert plain.components()["words"].endswith("not stemmed")
    assert (stemmed.name, stemmed.version, plain.name) == ("bm25", "2", "bm25-plain")
    assert isinstance(memrank.system("bm25-plain"), BM25Plain)


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
