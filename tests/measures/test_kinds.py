"""The ranges value names declare: a share where the name is a score, never where it counts."""

from __future__ import annotations

import pytest

from memrank.measures.kinds import declared_range

JUDGE = "judge:mem0@v1:answer=openai:gpt-4o-mini:judge=openai:gpt-4.1-mini"


@pytest.mark.parametrize(
    ("name", "bounds"),
    [
        (JUDGE, (0.0, 1.0)),
        (f"{JUDGE}.mean", (0.0, 1.0)),
        (f"{JUDGE}.mean.category-temporal", (0.0, 1.0)),
        (f"{JUDGE}.sd", (0.0, 1.0)),
        (f"{JUDGE}.calls", (0.0, None)),  # 152 calls is not out of range
        ("evidence-recall@500w.mean", (0.0, 1.0)),
        ("latency.retrieve.p50", (0.0, None)),
        ("someone-elses-measure", (None, None)),
    ],
)
def test_a_value_names_declared_range(name: str, bounds: tuple[float | None, ...]) -> None:
    assert declared_range(name) == bounds
