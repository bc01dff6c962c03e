"""What a reproduction says when the rerun's files differ from the signed ones: when the rerun
made the signed result file byte for byte, the digests prove the signed scores file is not the
function of the signed result (edited and signed again), and the reading does not blame the
system's variation; a rerun whose result file differs is read as before."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import orjson

from memrank.artifacts import RunFiles, canonical_bytes, run_files, verify
from memrank.result import Result
from memrank.runs.reproduce import compare_rerun

from .conftest import Store


def _files(result: Result, folder: Path) -> RunFiles:
    run_file = folder / "rerun.json"
    result.save(run_file)
    return run_files(run_file.read_bytes())


def _re_signed_with_one_score_flipped(store: Store, envelope: Path) -> Path:
    """The run's scores file with one word-match turned from a miss into a hit, and the
    statement naming it signed again by a trusted release key."""
    statement = orjson.loads(base64.b64decode(orjson.loads(envelope.read_bytes())["payload"]))
    scores_subject = statement["subject"][0]
    scores = orjson.loads((store.directory / scores_subject["name"]).read_bytes())
    column = scores["measures"]["word-match"]["values"]
    column[column.index(0)] = 1
    edited = canonical_bytes(scores)
    digest = hashlib.sha256(edited).hexdigest()
    (store.directory / "scores" / f"{digest}.json").write_bytes(edited)
    statement["subject"][0] = {"name": f"scores/{digest}.json", "digest": {"sha256": digest}}
    return store.forge(canonical_bytes(statement))


def test_a_re_signed_scores_file_is_named_as_not_the_function_of_the_result(
    store: Store, wheel_run: Result, tmp_path: Path
) -> None:
    attested = store.attest(wheel_run, results_store=tmp_path / "store")
    forged = _re_signed_with_one_score_flipped(store, attested.envelope)
    run = verify(forged, store.trust)  # signed by a trusted key: only a rerun can tell

    done = compare_rerun(run, _files(wheel_run, tmp_path), endpoint=False)
    assert not done.identical and done.reading is not None
    signed_result = run.statement.result_subject.digest.sha256
    assert done.rerun.result_sha256 == signed_result
    assert done.cause is not None
    assert done.cause.startswith("the signed scores file is not the function of the signed result")
    assert signed_result in done.cause
    assert run.statement.scores_subject.digest.sha256 in done.cause
    assert done.rerun.scores_sha256 in done.cause
    layout = done.reading.layout()
    assert "own variation" not in layout and "not deterministic" not in layout
    flipped = [r for r in done.reading.measures if r.flipped]
    assert [(r.measure, len(r.flipped)) for r in flipped] == [("word-match", 1)]


def test_a_rerun_whose_result_file_differs_names_no_such_cause(
    store: Store, wheel_run: Result, tmp_path: Path
) -> None:
    attested = store.attest(wheel_run, results_store=tmp_path / "store")
    run = verify(attested.envelope, store.trust)
    assert run.predicate.pipeline.git_commit is not None
    pipeline = run.predicate.pipeline.model_copy(update={"git_commit": "f" * 40})
    assert wheel_run.provenance is not None
    rebuilt = wheel_run.model_copy(
        update={"provenance": wheel_run.provenance.model_copy(update={"pipeline": pipeline})}
    )
    done = compare_rerun(run, _files(rebuilt, tmp_path), endpoint=False)
    assert not done.identical and done.cause is None
    assert done.rerun.result_sha256 != run.statement.result_subject.digest.sha256
    assert "pipeline.git_commit" in done.differing_fields
