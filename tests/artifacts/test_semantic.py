"""What a signed run may hold: attestation refuses numbers and text no board can show, and
verification refuses them again when another signer (an older or hostile memrank, with valid
keys) signed them anyway. Each refusal has its own class."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memrank.artifacts import _attest, verify
from memrank.artifacts._semantic import _no_run_between_quotes_over, check_scores
from memrank.errors import (
    AttestRefused,
    OversizeField,
    SemanticRefused,
    ShareInconsistent,
    TaskIdsRepeat,
    ValueNotBinary,
    ValueOutOfRange,
)
from memrank.measure import Decider, Value
from memrank.result import Result

from .conftest import Store


def with_value(result: Result, measure: str, value: float, **fields: Any) -> Result:
    """The run with its first task-scope value of ``measure`` replaced, unvalidated, as a
    signer that skips memrank's checks could record it."""
    values = list(result.values)
    at = next(i for i, v in enumerate(values) if v.measure == measure and v.task_id is not None)
    values[at] = Value.model_construct(**{**dict(values[at]), "value": value, **fields})
    return result.model_copy(update={"values": tuple(values)})


def with_extra(result: Result, value: Value) -> Result:
    return result.model_copy(update={"values": (*result.values, value)})


def task_value(result: Result, measure: str, value: float, **fields: Any) -> Value:
    task = result.traces[0].task.id
    made = {"measure": measure, "decider": Decider.RULE, "task_id": task, "group": None}
    made |= {"value": value, "why": "crafted", "count": None, "total": None}
    return Value.model_construct(**(made | fields))


def _cases(run: Result) -> list[tuple[Result, type[SemanticRefused], str]]:
    return [
        (with_value(run, "word-match", 0.759), ValueNotBinary, "declared binary but holds 0.759"),
        (with_value(run, "word-match", -1.0), ValueNotBinary, "holds -1.0"),
        (with_value(run, "word-match", 1e308), ValueNotBinary, "holds 1e+308"),
        (with_extra(run, task_value(run, "custom", 1e308)), ValueOutOfRange, "1e+308"),
        (with_extra(run, task_value(run, "custom", -5e12)), ValueOutOfRange, "-5000000000000.0"),
        (with_extra(run, task_value(run, "evidence-recall@10", 1.5)), ValueOutOfRange, "[0, 1]"),
        (with_extra(run, task_value(run, "latency.x", -2.0)), ValueOutOfRange, "holds -2.0"),
        (
            with_extra(run, task_value(run, "shares", 1.5, count=3, total=2)),
            ShareInconsistent,
            "count 3 of total 2",
        ),
        (
            with_extra(run, task_value(run, "shares", 0.25, count=1, total=2)),
            ShareInconsistent,
            "value is count/total",
        ),
    ]


@pytest.mark.parametrize("case", range(9))
def test_attest_refuses_values_a_board_cannot_show(
    store: Store, wheel_run: Result, case: int
) -> None:
    result, refusal, said = _cases(wheel_run)[case]
    with pytest.raises(AttestRefused, match=re.escape(said)) as raised:
        store.attest(result)
    assert raised.value.message.startswith(f"{refusal.__name__}: ")
    assert not list((store.directory / "runs").glob("*.json"))


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_attest_refuses_a_value_that_is_not_finite(
    store: Store, wheel_run: Result, value: float
) -> None:
    # A result file writes inf and NaN as null: unrefused, the scores would read "undecided".
    with pytest.raises(AttestRefused, match="ValueNotFinite: .* a value is a finite number"):
        store.attest(with_value(wheel_run, "word-match", value))


@pytest.fixture
def unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sign as a memrank without the checks (or a hostile signer with valid keys) would."""
    monkeypatch.setattr(_attest, "check_to_sign", lambda *args: None)


@pytest.mark.parametrize("case", range(9))
def test_verify_refuses_what_another_signer_signed_anyway(
    store: Store, wheel_run: Result, unchecked: None, case: int
) -> None:
    result, refusal, said = _cases(wheel_run)[case]
    attested = store.attest(result)
    with pytest.raises(refusal, match=re.escape(said)):
        verify(attested.envelope, store.trust)


def test_verify_refuses_text_beyond_its_bounds(
    store: Store, wheel_run: Result, unchecked: None
) -> None:
    system = wheel_run.system.model_copy(update={"components": {"embedder": "x" * 10_000}})
    attested = store.attest(wheel_run.model_copy(update={"system": system}))
    with pytest.raises(OversizeField, match="components.embedder is 10,000 characters"):
        verify(attested.envelope, store.trust)


def test_verify_refuses_a_reason_beyond_its_bound(
    store: Store, wheel_run: Result, unchecked: None
) -> None:
    values = list(wheel_run.values)
    at = next(i for i, v in enumerate(values) if v.task_id is not None)
    values[at] = values[at].model_copy(update={"value": None, "why": "w" * 5_000})
    attested = store.attest(wheel_run.model_copy(update={"values": tuple(values)}))
    with pytest.raises(OversizeField, match="a reason of 'word-match' is 5,000 characters"):
        verify(attested.envelope, store.trust)


def test_verify_refuses_two_tasks_with_one_id(
    store: Store, wheel_run: Result, unchecked: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memrank.artifacts._scores as scores

    laid_out = scores._scores_document

    def twice(result: dict[str, Any]) -> dict[str, Any]:
        document = laid_out(result)
        document["tasks"]["id"][1] = document["tasks"]["id"][0]
        return document

    monkeypatch.setattr(scores, "_scores_document", twice)
    attested = store.attest(wheel_run)
    with pytest.raises(TaskIdsRepeat, match="names two tasks"):
        verify(attested.envelope, store.trust)


def test_task_lists_checked_once_are_checked_again_when_one_of_them_differs(
    store: Store, wheel_run: Result
) -> None:
    # The runs of an evaluation share their task lists and the lists are checked once for
    # all of them; a scores file sharing the task ids but not the groups is checked afresh.
    attested = store.attest(wheel_run)
    run = verify(attested.envelope, store.trust)
    check_scores(run.scores, run.statement, "first")
    groups = ["g" * 1_001, *run.scores.groups[1:]]
    other = run.scores.model_copy(update={"groups": groups})
    assert other.task_ids is run.scores.task_ids
    with pytest.raises(OversizeField, match="one of the groups is 1,001 characters"):
        check_scores(other, run.statement, "second")
    repeated = run.scores.model_copy(update={"task_ids": [run.scores.task_ids[0]] * 2})
    with pytest.raises(TaskIdsRepeat):
        check_scores(repeated, run.statement, "third")


def test_a_refused_run_is_not_remembered_as_known_good(
    store: Store, wheel_run: Result, unchecked: None
) -> None:
    attested = store.attest(with_value(wheel_run, "word-match", 0.759))
    known: set[str] = set()
    with pytest.raises(ValueNotBinary):
        verify(attested.envelope, store.trust, known_good=known)
    assert attested.artifact_id not in known


def test_a_refusal_names_the_first_failing_value_in_task_order(
    store: Store, wheel_run: Result, unchecked: None
) -> None:
    # Each distinct value is checked once; the refusal still names the first task's.
    values = list(wheel_run.values)
    tasks = [i for i, v in enumerate(values) if v.measure == "word-match" and v.task_id]
    for at, number in zip(tasks[:3], (1.0, 0.25, 0.759), strict=True):
        values[at] = Value.model_construct(**{**dict(values[at]), "value": number})
    attested = store.attest(wheel_run.model_copy(update={"values": tuple(values)}))
    with pytest.raises(ValueNotBinary, match=r"declared binary but holds 0\.25;"):
        verify(attested.envelope, store.trust)


_PIECES = st.lists(st.sampled_from([b"a", b"bcd", b'"', b"efghijk"]), max_size=40)


@settings(max_examples=500, deadline=None)
@given(text=_PIECES.map(b"".join), limit=st.integers(1, 20))
def test_the_text_bound_shortcut_agrees_with_splitting_at_every_quote(
    text: bytes, limit: int
) -> None:
    expected = max(map(len, text.split(b'"'))) <= limit
    assert _no_run_between_quotes_over(text, limit) is expected
