"""Neutral tie-breaking: the order among equal scores, and the top k asking for few keys."""

from __future__ import annotations

import numpy as np

from memrank.systems.ties import descending, tie_keys, top


def test_top_k_equals_the_full_ranking_and_hashes_only_contenders() -> None:
    rng = np.random.default_rng(0)
    texts = [f"turn {i}" for i in range(300)]
    scores = rng.integers(0, 6, size=300).astype(np.float64)  # many ties at every score
    everything = descending(scores, tie_keys("q", texts))
    asked: list[int] = []

    def keys_of(positions: np.ndarray) -> np.ndarray:
        asked.extend(positions.tolist())
        return tie_keys("q", (texts[p] for p in positions))

    for k in (1, 10, 299, 300, 1000):
        asked.clear()
        assert top(scores, k, keys_of).tolist() == everything[:k].tolist()
        kth_best = np.sort(scores)[::-1][min(k, 300) - 1]
        assert sorted(asked) == np.flatnonzero(scores >= kth_best).tolist()
    assert top(scores, 0, keys_of).tolist() == top(scores[:0], 5, keys_of).tolist() == []


def test_the_order_among_equals_depends_on_query_and_text_only() -> None:
    keys = tie_keys("who adopted?", ["a", "b", "c"])
    assert keys.tolist() == tie_keys("who adopted?", ["a", "b", "c"]).tolist()
    assert keys.tolist() != tie_keys("who painted?", ["a", "b", "c"]).tolist()
    equal = np.zeros(3)
    order = descending(equal, keys)
    assert sorted(order.tolist()) == [0, 1, 2]
    assert keys[order].tolist() == sorted(keys.tolist())
