"""A value outside the range its measure declares is refused wherever it is signed: a group's
value (the demo's ``demo-score``, held only by the result file) at attestation and, when
another signer signed it anyway, at verification; and every [0, 1] measure, the answer scores
included, is declared so."""

from __future__ import annotations

import re

import pytest

from memrank.artifacts import _attest, verify
from memrank.artifacts._ranges import MAGNITUDE_LIMIT, declared_range
from memrank.errors import AttestRefused, ValueNotFinite, ValueOutOfRange
from memrank.measure import Value
from memrank.result import Result

from .conftest import Store


def with_group_value(result: Result, value: object) -> Result:
    """The run with its demo-score (a group's value) replaced, unvalidated, as a signer that
    skips memrank's checks could record it."""
    values = list(result.values)
    at = next(i for i, v in enumerate(values) if v.measure == "demo-score")
    assert values[at].group is not None and values[at].task_id is None
    values[at] = Value.model_construct(**{**dict(values[at]), "value": value})
    return result.model_copy(update={"values": tuple(values)})


@pytest.mark.parametrize("value", [1.7, -0.25])
def test_attest_refuses_a_demo_score_outside_zero_to_one(
    store: Store, wheel_run: Result, value: float
) -> None:
    with pytest.raises(AttestRefused, match=re.escape(f"holds {value}, outside its declared")):
        store.attest(with_group_value(wheel_run, value))
    assert not list((store.directory / "runs").glob("*.json"))


def test_verify_refuses_a_demo_score_another_signer_signed(
    store: Store, wheel_run: Result, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_attest, "check_to_sign", lambda *args: None)
    attested = store.attest(with_group_value(wheel_run, 1.7))
    with pytest.raises(ValueOutOfRange, match=r"'demo-score' holds 1\.7, outside .*\[0, 1\]"):
        verify(attested.envelope, store.trust)


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")  # the text, written as is
def test_verify_refuses_a_group_value_that_is_not_a_number(
    store: Store, wheel_run: Result, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_attest, "check_to_sign", lambda *args: None)
    attested = store.attest(with_group_value(wheel_run, "0.8"))
    with pytest.raises(ValueNotFinite, match="'demo-score' holds '0.8'"):
        verify(attested.envelope, store.trust)


def test_a_demo_score_in_range_still_verifies(store: Store, wheel_run: Result) -> None:
    attested = store.attest(with_group_value(wheel_run, 1.0))
    assert verify(attested.envelope, store.trust).artifact_id == attested.artifact_id


@pytest.mark.parametrize(
    "name",
    [
        "demo-score",
        "integrity-suspect",
        "evidence-recall@500w.mean.category-4",
        "session-recall-negative@5",
        "judge:mem0@v1:answer=openai:gpt-4o-mini:judge=openai:gpt-4o-mini",
        "answer-f1:mem0@v1:answer=openai:gpt-4o-mini.mean",
        "bleu-1:mem0@v1:answer=openai:gpt-4o-mini",
        "locomo-f1:locomo@v1:answer=openai:gpt-4.1-mini",
    ],
)
def test_every_share_recall_rate_and_answer_score_is_declared_zero_to_one(name: str) -> None:
    assert declared_range(name) == (0.0, 1.0)


def test_counts_and_times_start_at_zero_and_other_names_are_bounded() -> None:
    assert declared_range("latency.retrieve.p50") == (0.0, MAGNITUDE_LIMIT)
    assert declared_range("recalled-words.mean") == (0.0, MAGNITUDE_LIMIT)
    assert declared_range("custom") == (-MAGNITUDE_LIMIT, MAGNITUDE_LIMIT)
