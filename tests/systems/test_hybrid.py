"""The dense embedder and both hybrids: chunks, score fusion, neighbours that cannot crowd out
direct matches, the InvMem-style recipe, constants."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import memrank
from memrank import Document
from memrank.errors import MissingExtra, UsageError
from memrank.systems.bm25 import BM25Index, terms
from memrank.systems.dense import MiniLM
from memrank.systems.embedding_cache import CACHE_VARIABLE
from memrank.systems.hybrid import Hybrid, split_words
from memrank.systems.hybrid_invmem import InvMemHybrid


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test embeds into a cache of its own, never the user's."""
    folder = tmp_path / "embeddings"
    monkeypatch.setenv(CACHE_VARIABLE, str(folder))
    return folder


def test_embeddings_are_unit_length_and_batching_changes_nothing() -> None:
    texts = ["A man is eating food.", "A man is eating a piece of bread.", "The sky is blue " * 40]
    together = MiniLM(batch_size=2, cache=False).encode(texts)
    alone = np.vstack([MiniLM(cache=False).encode([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert together[0] @ together[1] > 0.6 > together[0] @ together[2]


def _conversation() -> list[Document]:
    said = [
        ("s1", "We should plan the summer trip soon."),
        ("s1", "Yes, let us decide on the destination this week."),
        ("s1", "My sister suggested Lisbon for the trip."),
        ("s1", "Lisbon sounds lovely in July."),
        ("s2", "The boiler broke again this morning."),
        ("s2", "I called the plumber about the boiler."),
    ]
    return [
        Document(id=f"t{i}", content=text, metadata={"session_id": session})
        for i, (session, text) in enumerate(said)
    ]


def _minmax(x: np.ndarray) -> np.ndarray:
    return (x - x.min()) / (x.max() - x.min())


def test_fusion_is_the_weighted_sum_of_min_max_normalised_scores() -> None:
    documents, query = _conversation(), "Who fixed the broken boiler?"
    memory = Hybrid(dense_weight=0.6, neighbour_weight=0.0)
    memory.prepare("unit")
    memory.ingest(documents)
    recall = memory.retrieve(query, k=6, user_id="unit")
    # Recomputed from the parts: cosine of fresh embeddings, BM25 over stemmed terms.
    vectors = MiniLM(cache=False).encode([d.text for d in documents] + [query])
    lexical = BM25Index()
    lexical.add([terms(d.text) for d in documents])
    expected = 0.6 * _minmax(vectors[:-1] @ vectors[-1]) + 0.4 * _minmax(
        lexical.scores(terms(query))
    )
    by_id = {d.id: score for d, score in zip(documents, expected, strict=True)}
    assert recall.declared["scores"] == pytest.approx(
        [by_id[d.id] for d in recall.documents], abs=1e-5
    )
    assert recall.declared["scores"] == sorted(recall.declared["scores"], reverse=True)
    assert recall.declared["via"] == ["direct"] * 6
    assert {d.id for d in recall.documents[:2]} == {"t4", "t5"}


def test_a_neighbour_is_lifted_only_above_weaker_direct_matches() -> None:
    memory = Hybrid(neighbour_weight=0.8, window=1)
    memory.prepare("unit")
    memory.ingest(_conversation())
    alone = Hybrid(neighbour_weight=0.0)
    alone.prepare("unit")
    alone.ingest(_conversation())
    for query in ("Who suggested Lisbon?", "Who fixed the broken boiler?", "destination"):
        recall = memory.retrieve(query, k=6, user_id="unit")
        direct = alone.retrieve(query, k=6, user_id="unit")
        # The best direct match is never crowded out, even at k = 1.
        assert memory.retrieve(query, k=1, user_id="unit").documents == direct.documents[:1]
        fused = dict(zip([d.id for d in direct.documents], direct.declared["scores"], strict=True))
        scores = dict(zip([d.id for d in recall.documents], recall.declared["scores"], strict=True))
        for document, via in zip(recall.documents, recall.declared["via"], strict=True):
            if via == "neighbour":  # inherits 0.8 of a same-session neighbour's fused score
                position = int(document.id[1:])
                parents = [
                    fused[f"t{p}"]
                    for p in (position - 1, position + 1)
                    if f"t{p}" in fused and _conversation()[p].metadata == document.metadata
                ]
                assert scores[document.id] == pytest.approx(0.8 * max(parents), abs=1e-6)
                assert scores[document.id] > fused[document.id]
            else:
                assert scores[document.id] == pytest.approx(fused[document.id], abs=1e-9)
    lisbon = memory.retrieve("Who suggested Lisbon?", k=6, user_id="unit")
    assert "neighbour" in lisbon.declared["via"]


def test_the_weights_at_their_ends_are_one_ranking_alone() -> None:
    only_bm25 = Hybrid(dense_weight=0.0, neighbour_weight=0.0)
    only_bm25.prepare("unit")
    only_bm25.ingest(_conversation())
    recall = only_bm25.retrieve("lisbon trip", k=3, user_id="unit")
    assert [d.id for d in recall.documents[:2]] == ["t2", "t3"]  # "lisbon" + "trip" beats "lisbon"
    assert (
        Hybrid(dense_weight=1.0).components()["fusion"]
        == "1.0 * minmax(cosine) + 0.0 * minmax(bm25)"
    )


def test_no_session_named_is_one_session_and_k_is_a_cap() -> None:
    memory = Hybrid()
    memory.prepare("unit")
    memory.ingest(
        [Document(id=f"d{i}", content=f"note number {i} about gardening") for i in range(8)]
    )
    recall = memory.retrieve("gardening notes", k=4, user_id="unit")
    assert len(recall.documents) == 4 == len(recall.declared["scores"])
    memory.cleanup()
    assert memory.state_fingerprint() == "0 unit(s)"
    assert memory.retrieve("gardening", k=4, user_id="unit").documents == ()


def test_every_constant_is_an_argument_recorded_in_the_components() -> None:
    memory = Hybrid(
        dense_weight=0.3, neighbour_weight=0.5, window=2, chunk_words=100, overlap_words=10
    )
    components = memory.components()
    assert components["units"].endswith("chunks of 100 words overlapping by 10")
    assert components["fusion"] == "0.3 * minmax(cosine) + 0.7 * minmax(bm25)"
    assert components["expansion"].startswith("a unit scores at least 0.5 x the fused score")
    assert "2 place(s) away" in components["expansion"]
    assert "stemmed: snowball english" in components["lexical"]
    assert Hybrid(neighbour_weight=0.0).components()["expansion"] == "none"
    defaults = Hybrid()
    assert (defaults.dense_weight, defaults.neighbour_weight, defaults.window) == (0.6, 0.8, 1)
    assert (defaults.name, defaults.version) == ("hybrid", "2")
    with pytest.raises(UsageError, match="overlap_words=320 must be at least 0 and below"):
        Hybrid(overlap_words=320)
    with pytest.raises(UsageError, match=r"neighbour_weight=1.0 within \[0, 1\)"):
        Hybrid(neighbour_weight=1.0)


def test_long_messages_are_split_with_overlap_and_keep_their_source() -> None:
    message = Document(
        id="m1", content="  ".join(f"w{i}" for i in range(700)), metadata={"session_id": "s"}
    )
    chunks = split_words(message, 320, 40)
    assert [c.text.split()[0] for c in chunks] == ["w0", "w280", "w560"]
    assert [len(c.text.split()) for c in chunks] == [320, 320, 140]
    assert chunks[1].text.startswith("w280  w281")  # the original text, spacing and all
    assert chunks[2].metadata == {"session_id": "s", "doc_id": "m1", "chunk": 2}
    short = Document(id="m2", content="just a few words")
    assert split_words(short, 320, 40) == [short]


def test_the_invmem_recipe_puts_seeds_with_their_neighbours_then_fills() -> None:
    memory = InvMemHybrid(seeds=1, window=1)
    memory.prepare("unit")
    memory.ingest(_conversation())
    recall = memory.retrieve("Who suggested Lisbon?", k=5, user_id="unit")
    assert [d.id for d in recall.documents[:3]] == ["t2", "t1", "t3"]
    assert recall.declared["via"] == ["seed", "neighbour", "neighbour", "fill", "fill"]
    boiler = memory.retrieve("Who fixed the broken boiler?", k=3, user_id="unit")
    assert boiler.documents[0].id in {"t4", "t5"}
    assert boiler.documents[1].metadata["session_id"] == "s2"  # never across the session boundary
    fused = boiler.declared["fused"]
    assert fused[0] == max(fused) and fused[0] <= 1 / 61 + 0.5 / 61 + 1e-9
    components = InvMemHybrid(rrf_k=30, bm25_weight=0.25, seeds=5, window=2).components()
    assert components["fusion"] == "1.0/(30 + dense rank) + 0.25/(30 + bm25 rank)"
    assert components["expansion"].startswith("top 5 fused seeds, each followed by 2 unit(s)")
    assert components["lexical"].endswith("not stemmed")
    assert isinstance(memrank.system("hybrid-invmem"), InvMemHybrid)


def test_without_the_dense_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if it were not installed
    with pytest.raises(MissingExtra, match=r"pip install 'memrank\[dense\]'"):
        Hybrid()
    with pytest.raises(MissingExtra, match=r"hybrid-invmem"):
        InvMemHybrid()
