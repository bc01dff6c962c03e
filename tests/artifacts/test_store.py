"""A whole artifacts directory: every refusal reported, and run conflicts."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

import memrank
from memrank import _forked
from memrank.artifacts import Refusal, _store, verify_directory
from memrank.errors import (
    AttestRefused,
    DevelopmentObservation,
    RunConflict,
    ScoresMissing,
)
from memrank.result import Result
from memrank.systems import WordOverlap

from .conftest import Store, as_installed


def test_every_artifact_is_reported_not_only_the_first_refusal(
    store: Store, wheel_run: Result, demo_run: Result
) -> None:
    good = store.attest(wheel_run)
    development = store.attest(demo_run)
    missing = store.attest(wheel_run, supersedes=good.artifact_id)
    missing.scores_file.unlink()  # shared with `good`, so both lose their scores file
    verification = verify_directory(store.directory)
    refused = {r.path.name: r.error for r in verification.refusals}
    assert refused == {
        development.envelope.name: DevelopmentObservation,
        good.envelope.name: ScoresMissing,
        missing.envelope.name: ScoresMissing,
    }
    assert not verification.ok and verification.runs == ()
    assert all(str(r.path) in r.reason for r in verification.refusals)


def test_a_second_artifact_of_one_run_without_supersedes_conflicts(
    store: Store, wheel_run: Result
) -> None:
    first = store.attest(wheel_run)
    second = store.attest(wheel_run)  # same run, signed again later: a different artifact
    assert first.artifact_id != second.artifact_id
    verification = verify_directory(store.directory)
    assert verification.runs == ()
    assert {(r.path.name, r.error) for r in verification.refusals} == {
        (first.envelope.name, RunConflict),
        (second.envelope.name, RunConflict),
    }
    assert first.statement.predicate.run_id in verification.refusals[0].reason


def test_a_chain_of_corrections_verifies(store: Store, wheel_run: Result) -> None:
    first = store.attest(wheel_run)
    second = store.attest(wheel_run, supersedes=first.artifact_id)
    third = store.attest(wheel_run, supersedes=second.artifact_id)
    verification = verify_directory(store.directory)
    assert verification.ok
    assert {run.artifact_id: run.predicate.supersedes for run in verification.runs} == {
        first.artifact_id: None,
        second.artifact_id: first.artifact_id,
        third.artifact_id: second.artifact_id,
    }


def test_two_corrections_of_one_artifact_conflict(store: Store, wheel_run: Result) -> None:
    first = store.attest(wheel_run)
    store.attest(wheel_run, supersedes=first.artifact_id)
    store.attest(wheel_run, supersedes=first.artifact_id)
    verification = verify_directory(store.directory)
    assert len(verification.refusals) == 3
    assert {r.error for r in verification.refusals} == {RunConflict}


def test_supersedes_must_name_an_artifact_of_the_same_run(store: Store, wheel_run: Result) -> None:
    with pytest.raises(AttestRefused, match="no .*runs/"):
        store.attest(wheel_run, supersedes="0" * 64)
    other = store.attest(as_installed(memrank.run(WordOverlap(), memrank.evaluation("demo"))))
    with pytest.raises(AttestRefused, match="same run"):
        store.attest(wheel_run, supersedes=other.artifact_id)


def test_a_directory_verified_in_forked_shares_is_what_one_process_verifies(
    store: Store, wheel_run: Result, demo_run: Result, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Runs, corrections, a refusal and a conflict spread over three shares: the two forked
    # ones send back what they verified and refused, and the scores files they checked.
    first = store.attest(wheel_run)
    store.attest(wheel_run, supersedes=first.artifact_id)
    store.attest(demo_run)  # a development observation: refused
    other = as_installed(memrank.run(WordOverlap(), memrank.evaluation("demo")))
    store.attest(other)
    store.attest(other)  # the same run again without supersedes: both conflict
    store.attest(as_installed(memrank.run(WordOverlap(), memrank.evaluation("demo"))))

    def verified(
        share_least: int,
    ) -> tuple[Sequence[tuple[object, ...]], tuple[Refusal, ...], set[str]]:
        monkeypatch.setattr(_store, "SHARE_LEAST", share_least)
        known_good: set[str] = set()
        verification = verify_directory(store.directory, known_good=known_good)
        runs = [(r.path, r.artifact_id, r.keyids, r.scores) for r in verification.runs]
        return runs, verification.refusals, known_good

    monkeypatch.setattr(_forked, "cores", lambda: 3)
    in_shares = verified(2)
    alone = verified(10**6)
    assert in_shares == alone
    runs, refusals, known_good = alone
    assert len(runs) == 3 and len(known_good) == 5
    assert sorted(r.error.__name__ for r in refusals) == [
        "DevelopmentObservation",
        "RunConflict",
        "RunConflict",
    ]
