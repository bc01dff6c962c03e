"""The dense embedder and the hybrid recipe: chunks, fusion, neighbours, fill, constants."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from memrank import Document
from memrank.errors import MissingExtra, UsageError
from memrank.systems.dense import MiniLM
from memrank.systems.hybrid import Hybrid, split_words


def test_embeddings_are_unit_length_and_batching_changes_nothing() -> None:
    texts = ["A man is eating food.", "A man is eating a piece of bread.", "The sky is blue " * 40]
    together = MiniLM(batch_size=2).encode(texts)
    alone = np.vstack([MiniLM().encode([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert together[0] @ together[1] > 0.6 > together[0] @ together[2]


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


def test_seeds_come_with_their_same_session_neighbours_then_fill() -> None:
    memory = Hybrid(seeds=1, window=1)
    memory.prepare("unit")
    memory.ingest(_conversation())
    recall = memory.retrieve("Who suggested Lisbon?", k=5, user_id="unit")
    assert [d.id for d in recall.documents[:3]] == ["t2", "t1", "t3"]
    assert recall.declared["via"] == ["seed", "neighbour", "neighbour", "fill", "fill"]
    boiler = memory.retrieve("Who fixed the broken boiler?", k=3, user_id="unit")
    seed = boiler.documents[0].id
    assert seed in {"t4", "t5"}
    neighbour = boiler.documents[1]
    assert neighbour.metadata["session_id"] == "s2"  # never t3, across the session boundary
    fused = boiler.declared["fused"]
    assert fused[0] == max(fused) and fused[0] <= 1 / 61 + 0.5 / 61 + 1e-9


def test_no_session_named_is_one_session_and_k_is_a_cap() -> None:
    memory = Hybrid()
    memory.prepare("unit")
    memory.ingest(
        [Document(id=f"d{i}", content=f"note number {i} about gardening") for i in range(8)]
    )
    recall = memory.retrieve("gardening notes", k=4, user_id="unit")
    assert len(recall.documents) == 4 and recall.declared["via"][:3] == [
        "seed",
        "neighbour",
        "neighbour",
    ]
    memory.cleanup()
    assert memory.state_fingerprint() == "0 unit(s)"
    assert memory.retrieve("gardening", k=4, user_id="unit").documents == ()


def test_every_constant_is_an_argument_recorded_in_the_components() -> None:
    memory = Hybrid(
        chunk_words=100, overlap_words=10, rrf_k=30, bm25_weight=0.25, seeds=5, window=2
    )
    components = memory.components()
    assert components["units"].endswith("chunks of 100 words overlapping by 10")
    assert components["fusion"] == "1.0/(30 + dense rank) + 0.25/(30 + bm25 rank)"
    assert components["expansion"].startswith("top 5 fused seeds, each followed by 2 unit(s)")
    with pytest.raises(UsageError, match="overlap_words=320 must be at least 0 and below"):
        Hybrid(overlap_words=320)


def test_without_the_dense_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if it were not installed
    with pytest.raises(MissingExtra, match=r"pip install 'memrank\[dense\]'"):
        Hybrid()
