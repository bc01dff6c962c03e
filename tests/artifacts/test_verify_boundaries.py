"""The verifier where its checks meet odd input: subjects that are not named by a string, a
verified run that must stay as verified, and refusals that say enough and no more."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from pathlib import Path
from typing import Any

import pydantic
import pytest

from memrank.artifacts import Attested, verify
from memrank.errors import (
    ArtifactRefused,
    KeyOutsideWindow,
    SchemaRefused,
    UncommittedBuild,
    UnsafeSubjectPath,
)
from memrank.result import Result

from .conftest import BUILT_FROM, NOW, Keys, Store, first_root
from .test_verify import edited


@pytest.mark.parametrize(
    "subject",
    [
        {"name": 7},
        {"name": None},
        {"name": ["scores/0.json"]},
        {"name": {"path": "scores/0.json"}},
        "scores/0.json",
        None,
    ],
    ids=["number", "null", "list", "object", "bare-string", "null-subject"],
)
def test_a_signed_subject_not_named_by_a_string_is_refused_as_no_statement(
    store: Store, attested: Attested, subject: Any
) -> None:
    def replace(statement: dict[str, Any]) -> None:
        first = statement["subject"][0]
        statement["subject"][0] = {**first, **subject} if isinstance(subject, dict) else subject

    path = store.forge(edited(attested, replace))
    with pytest.raises(ArtifactRefused) as refused:
        verify(path, store.trust)
    assert type(refused.value) is SchemaRefused
    assert refused.value.message.startswith(f"{path}: not a memrank run statement (1 problem(s): ")
    assert "subject.0" in refused.value.message


@pytest.mark.parametrize("position", [1, 2])
def test_every_subject_name_is_checked_not_only_the_first(
    store: Store, attested: Attested, position: int
) -> None:
    def unsafe(statement: dict[str, Any]) -> None:
        statement["subject"][position]["name"] = "results/../../secret.json"

    with pytest.raises(UnsafeSubjectPath, match="leaves the artifacts directory"):
        verify(store.forge(edited(attested, unsafe)), store.trust)


@pytest.mark.parametrize("subjects", ["scores/0.json", {"name": "scores/0.json"}, 7])
def test_a_subject_list_that_is_not_a_list_is_refused_as_no_statement(
    store: Store, attested: Attested, subjects: Any
) -> None:
    path = store.forge(edited(attested, lambda s: s.update(subject=subjects)))
    with pytest.raises(SchemaRefused, match="subject"):
        verify(path, store.trust)


def test_a_verified_run_cannot_be_changed(store: Store, attested: Attested) -> None:
    run = verify(attested.envelope, store.trust)
    for name in (f.name for f in dataclasses.fields(run)):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(run, name, getattr(run, name))
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        run.statement.predicate.track = "another"  # type: ignore[misc]
    assert isinstance(run.keyids, tuple) and run.scores is run.scores


def test_a_verified_run_prints_as_a_line_without_its_files(
    store: Store, attested: Attested
) -> None:
    # A board holds thousands of verified runs; a log line or a failing assertion that names
    # one must not spill its statement, scores and result file.
    shown = repr(verify(attested.envelope, store.trust))
    assert shown.startswith("VerifiedRun(artifact_id=") and len(shown) < 1_000
    for field in ("statement=", "checked_scores=", "scores_raw=", "result_bytes="):
        assert field not in shown


def test_a_schema_refusal_names_the_first_five_problems_and_counts_them_all(
    store: Store, attested: Attested
) -> None:
    surprises = {f"surprise_{i}": i for i in range(7)}
    path = store.forge(edited(attested, lambda s: s["predicate"].update(surprises)))
    with pytest.raises(SchemaRefused) as refused:
        verify(path, store.trust)
    problems = refused.value.message.partition("(7 problem(s): ")[2]
    assert problems.count("Extra inputs are not permitted") == 5
    assert [f"predicate.surprise_{i}" in problems for i in range(7)] == [True] * 5 + [False] * 2


def test_a_key_whose_window_never_closes_says_so(
    tmp_path: Path, keys: Keys, wheel_run: Result
) -> None:
    store = Store(tmp_path, keys)
    opens = NOW + timedelta(days=365)
    store.publish_root(first_root(keys, wheel_run, valid_from=opens), [keys.root])
    with pytest.raises(KeyOutsideWindow) as refused:
        verify(store.attest(wheel_run).envelope, store.trust)
    assert f"window {opens.isoformat()} to open; attest with a current release key" in (
        refused.value.message
    )


def test_a_run_verified_again_as_known_good_reads_the_same_scores(
    store: Store, attested: Attested
) -> None:
    # A build's memo names runs whose files passed before: their scores file is kept as
    # verified bytes and parsed on first use, not checked again.
    known_good: set[str] = set()
    checked = verify(attested.envelope, store.trust, known_good=known_good)
    assert known_good == {attested.artifact_id}
    assert checked.checked_scores is not None and checked.scores_raw is None
    again = verify(attested.envelope, store.trust, known_good=known_good)
    assert again.checked_scores is None and again.scores_raw is not None
    assert again.scores == checked.scores


@pytest.mark.parametrize(
    "pipeline,said",
    [
        ({"dirty": True}, f"commit {BUILT_FROM} with uncommitted changes, so nobody can rebuild"),
        ({"git_commit": None}, "a tree whose commit it does not record, so nobody can rebuild"),
    ],
    ids=["dirty", "no-commit"],
)
def test_a_wheel_built_from_a_tree_nobody_can_rebuild_is_refused_saying_which(
    store: Store, attested: Attested, pipeline: dict[str, Any], said: str
) -> None:
    def unbuildable(statement: dict[str, Any]) -> None:
        statement["predicate"]["pipeline"].update(pipeline)
        statement["predicate"]["publishable"] = False

    path = store.forge(edited(attested, unbuildable))
    with pytest.raises(UncommittedBuild) as refused:
        verify(path, store.trust)
    assert refused.value.message.startswith(f"{path}: the wheel that ran was built from {said}")
