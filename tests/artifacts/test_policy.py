"""Policy: what the trust root admits, and what attest refuses to sign."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

import memrank
from memrank.artifacts import verify
from memrank.errors import (
    AttestRefused,
    DevelopmentObservation,
    EvidenceNotAccepted,
    NotCanonicalizable,
    QuestionCountsDiffer,
    SliceNotPublishable,
    TasksFailed,
    UnknownTrack,
    UnpinnedDataset,
    UnpinnedPipeline,
)
from memrank.provenance import Evidence
from memrank.result import Result

from .conftest import NOW, Store, as_installed


def test_a_run_from_the_editable_checkout_is_signed_but_refused(
    store: Store, demo_run: Result
) -> None:
    attested = store.attest(demo_run)
    assert attested.statement.predicate.evidence is Evidence.DEVELOPMENT
    assert attested.statement.predicate.publishable is False
    with pytest.raises(DevelopmentObservation, match="mutable checkout"):
        verify(attested.envelope, store.trust)


def test_a_slice_is_never_publishable(store: Store, wheel_run: Result) -> None:
    sliced = wheel_run.model_copy(
        update={"evaluation": wheel_run.evaluation.model_copy(update={"slice": "mini"})}
    )
    attested = store.attest(sliced)
    assert attested.statement.predicate.publishable is False
    with pytest.raises(SliceNotPublishable, match="slice demo:mini"):
        verify(attested.envelope, store.trust)


def test_an_endpoint_observation_needs_a_track_that_accepts_it(
    store: Store, wheel_run: Result
) -> None:
    remote = wheel_run.model_copy(
        update={"system": wheel_run.system.model_copy(update={"transport": "http"})}
    )
    attested = store.attest(remote)
    assert attested.statement.predicate.evidence is Evidence.ENDPOINT
    with pytest.raises(EvidenceNotAccepted, match="endpoint_observation"):
        verify(attested.envelope, store.trust)
    store.publish_root(
        store.trust.root.next(NOW + timedelta(days=30)).accepting(
            "textual", (Evidence.REPRODUCIBLE, Evidence.ENDPOINT)
        ),
        [store.keys.root],
    )
    assert verify(attested.envelope, store.trust).predicate.evidence is Evidence.ENDPOINT


def test_unknown_track(store: Store, wheel_run: Result) -> None:
    attested = memrank.artifacts.attest(
        wheel_run, "coding", "commercial", store.keys.release, artifacts=store.directory
    )
    with pytest.raises(UnknownTrack, match="'coding'"):
        verify(attested.envelope, store.trust)


def test_unpinned_pipeline(store: Store, wheel_run: Result) -> None:
    assert wheel_run.provenance is not None
    pipeline = wheel_run.provenance.pipeline.model_copy(update={"code_sha256": "0" * 64})
    other = wheel_run.model_copy(
        update={"provenance": wheel_run.provenance.model_copy(update={"pipeline": pipeline})}
    )
    with pytest.raises(UnpinnedPipeline, match="0000000000"):
        verify(store.attest(other).envelope, store.trust)


def _with_bundle(result: Result, **change: Any) -> Result:
    assert result.provenance is not None
    bundle = result.provenance.dataset_bundle.model_copy(update=change)
    provenance = result.provenance.model_copy(update={"dataset_bundle": bundle})
    return result.model_copy(update={"provenance": provenance})


def test_unpinned_dataset(store: Store, wheel_run: Result) -> None:
    other = _with_bundle(wheel_run, sha256="1" * 64)
    with pytest.raises(UnpinnedDataset, match="'demo'"):
        verify(store.attest(other).envelope, store.trust)


def test_question_counts_must_match_the_baseline(store: Store, wheel_run: Result) -> None:
    assert wheel_run.provenance is not None
    counts = {**wheel_run.provenance.dataset_bundle.question_counts, "temporal": 2}
    with pytest.raises(QuestionCountsDiffer, match="'temporal': 2"):
        verify(store.attest(_with_bundle(wheel_run, question_counts=counts)).envelope, store.trust)


def test_a_run_with_a_failed_task_is_signed_but_refused(store: Store, wheel_run: Result) -> None:
    failed = next(v for v in wheel_run.values if v.measure == "failure-rate")
    one_failure = failed.model_copy(
        update={"value": 0.2, "count": 1, "why": "1 of 5 traces carry an error (retrieve: 1)"}
    )
    broken = wheel_run.model_copy(
        update={"values": tuple(one_failure if v is failed else v for v in wheel_run.values)}
    )
    attested = store.attest(broken)
    with pytest.raises(TasksFailed, match=r"1 of 5 traces carry an error \(retrieve: 1\)"):
        verify(attested.envelope, store.trust)
    assert verify(store.attest(wheel_run).envelope, store.trust).predicate.summary


# -- what attest refuses -----------------------------------------------------------------------


def test_integers_beyond_2_53_are_refused_at_signing(store: Store, wheel_run: Result) -> None:
    huge = _with_bundle(wheel_run, question_counts={"single-hop": 2**53})
    with pytest.raises(NotCanonicalizable, match="2\\^53"):
        store.attest(huge)
    assert not (store.directory / "runs").exists()


def test_nan_is_refused_at_signing(store: Store, wheel_run: Result) -> None:
    # A Value refuses NaN itself; one built around the validators still never gets signed.
    nan = memrank.Value.model_construct(
        measure="m",
        decider=memrank.Decider.RULE,
        value=float("nan"),
        why="",
        count=None,
        total=None,
    )
    broken = wheel_run.model_copy(update={"values": (*wheel_run.values, nan)})
    with pytest.raises(AttestRefused, match="value of 'm'"):
        store.attest(broken)
    assert not (store.directory / "runs").exists()


def test_a_refused_run_is_not_attested(store: Store) -> None:
    refused = as_installed(memrank.run(object(), memrank.evaluation("demo")))
    with pytest.raises(AttestRefused, match="nothing to attest"):
        store.attest(refused)
