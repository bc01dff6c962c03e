"""The two files a statement names: each way of tampering with the scores file or the result file
is refused with its own class, and a run without its result file verifies, saying so."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import orjson
import pytest

import memrank
from memrank.artifacts import Attested, ResultsStore, canonical_bytes, run_files, verify
from memrank.errors import (
    ScoresDiffer,
    ScoresDigestMismatch,
    ScoresMalformed,
    ScoresMissing,
    ScoresSwapped,
    SubjectDigestMismatch,
)
from memrank.result import Result

from .conftest import Store, as_installed


def forge_with_scores(store: Store, attested: Attested, scores: bytes) -> Path:
    """A statement signed by a trusted key that names ``scores`` (written in place) as the
    run's scores file: what a careless or dishonest signer could publish."""
    envelope = orjson.loads(attested.envelope.read_bytes())
    statement = orjson.loads(base64.b64decode(envelope["payload"]))
    sha = hashlib.sha256(scores).hexdigest()
    statement["subject"][0] = {"name": f"scores/{sha}.json", "digest": {"sha256": sha}}
    (store.directory / "scores" / f"{sha}.json").write_bytes(scores)
    attested.envelope.unlink()  # one run, one artifact: the forged one
    return store.forge(canonical_bytes(statement))


def other_run() -> Result:
    """Another run of the demo. Not a rerun of word-overlap: that gives the same result file,
    byte for byte (a deterministic system)."""
    return as_installed(memrank.run(memrank.system("bm25"), memrank.evaluation("demo")))


def test_a_missing_scores_file_is_refused(store: Store, attested: Attested) -> None:
    attested.scores_file.unlink()
    with pytest.raises(ScoresMissing, match="scores file"):
        verify(attested.envelope, store.trust)


def test_an_edited_scores_file_is_refused(store: Store, attested: Attested) -> None:
    scores = json.loads(attested.scores_file.read_bytes())
    scores["measures"]["word-match"]["values"][3] = 1  # a miss turned into a hit
    attested.scores_file.write_bytes(canonical_bytes(scores))
    with pytest.raises(ScoresDigestMismatch, match="was\\s+edited") as caught:
        verify(attested.envelope, store.trust)
    assert caught.type is ScoresDigestMismatch


def test_a_scores_file_swapped_for_another_runs_is_refused(
    store: Store, attested: Attested
) -> None:
    attested.scores_file.write_bytes(run_files(other_run().to_bytes()).scores)
    with pytest.raises(ScoresSwapped, match="another result"):
        verify(attested.envelope, store.trust)


def test_a_signed_scores_file_of_another_result_is_refused(
    store: Store, attested: Attested
) -> None:
    forged = forge_with_scores(store, attested, run_files(other_run().to_bytes()).scores)
    with pytest.raises(ScoresSwapped, match="another run"):
        verify(forged, store.trust)


def test_a_signed_scores_file_that_differs_from_its_result_is_refused(
    store: Store, attested: Attested
) -> None:
    scores = json.loads(attested.scores_file.read_bytes())
    scores["measures"]["word-match"]["values"][3] = 1
    forged = forge_with_scores(store, attested, canonical_bytes(scores))
    with pytest.raises(ScoresDiffer, match="not what the result file"):
        verify(forged, store.trust)
    # Without the result file nothing can tell: it verifies, saying what it did not check;
    # a deep verification fetches the result file and refuses it again.
    results = store.directory / "store"
    results.mkdir()
    attested.result_file.rename(results / attested.result_file.name)
    assert verify(forged, store.trust).note == "result file not checked"
    with pytest.raises(ScoresDiffer):
        verify(forged, store.trust, store=_dir_store(results), deep=True)


def test_a_signed_scores_file_that_is_malformed_is_refused(
    store: Store, attested: Attested
) -> None:
    scores = json.loads(attested.scores_file.read_bytes())
    scores["tasks"]["id"].pop()
    forged = forge_with_scores(store, attested, canonical_bytes(scores))
    with pytest.raises(ScoresMalformed, match="one entry per task"):
        verify(forged, store.trust)


def test_a_result_file_present_with_a_wrong_digest_is_refused(
    store: Store, attested: Attested
) -> None:
    attested.result_file.write_bytes(attested.result_file.read_bytes() + b" ")
    with pytest.raises(SubjectDigestMismatch, match="changed or swapped"):
        verify(attested.envelope, store.trust)


def test_deep_fetches_a_result_file_from_a_store_directory(
    store: Store, attested: Attested, tmp_path: Path
) -> None:
    results = tmp_path / "store"
    results.mkdir()
    attested.result_file.rename(results / attested.result_file.name)
    run = verify(attested.envelope, store.trust, store=_dir_store(results), deep=True)
    assert run.result_checked and run.note == ""
    served = results / attested.result_file.name
    served.write_bytes(served.read_bytes()[:-1] + b" ")  # same length, other bytes
    with pytest.raises(SubjectDigestMismatch, match="results store served"):
        verify(attested.envelope, store.trust, store=_dir_store(results), deep=True)


def _dir_store(directory: Path) -> ResultsStore:
    return ResultsStore.parse(str(directory), base=Path("."), where="test")
