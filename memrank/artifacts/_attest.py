"""attest(): sign a run's statement and write it, with its three files, into an artifacts dir."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import orjson
from pydantic import ValidationError

from memrank._basics import now_utc
from memrank._files import write_atomic
from memrank.artifacts._canonical import canonical_bytes
from memrank.artifacts._envelope import IN_TOTO_PAYLOAD_TYPE, open_envelope, seal
from memrank.artifacts._keys import Ed25519PrivateKey
from memrank.artifacts._results_store import place_result
from memrank.artifacts._semantic import check_to_sign
from memrank.artifacts._statement import Division, Statement, facts_of, statement_of
from memrank.artifacts._store import RESULTS, RUNS
from memrank.artifacts._timings import run_files
from memrank.errors import AttestRefused, ResultFileError, SuspectRun, UsageError
from memrank.result import Result

__all__ = ["Attested", "attest"]


@dataclass(frozen=True)
class Attested:
    """What attest wrote."""

    artifact_id: str
    envelope: Path
    scores_file: Path
    timings_file: Path
    result_file: Path
    """Where the result file was placed: the results store directory."""
    statement: Statement


def attest(
    result: Result,
    track: str,
    division: Division | str,
    key: Ed25519PrivateKey | Sequence[Ed25519PrivateKey],
    *,
    artifacts: Path = Path("artifacts"),
    results_store: Path | None = None,
    supersedes: str | None = None,
    issued_at: datetime | None = None,
) -> Attested:
    """Sign ``result`` for ``track`` and ``division`` with ``key`` (or several keys).

    Writes ``scores/<sha256>.json`` (the scores file), ``timings/<sha256>.json`` (the timings
    file) and ``runs/<artifact-id>.json`` (the DSSE envelope of the statement) under
    ``artifacts``, and places the result file ``<sha256>.json`` in ``results_store`` (default:
    ``artifacts/results``, for result files small enough to keep in git). The evidence class is derived from the result's provenance;
    a development observation is signed as one, and the verifier refuses it.
    """
    keys = [key] if isinstance(key, Ed25519PrivateKey) else list(key)
    if not keys:
        raise UsageError("attest needs at least one signing key")
    if result.refusal is not None:
        raise AttestRefused(f"the run was refused ({result.refusal}); there is nothing to attest")
    if result.integrity is not None and result.integrity.verdict == "suspect":
        raise SuspectRun(
            f"the run's {result.integrity.line}; a run the integrity checks flag is never "
            "signed (docs/integrity.md)"
        )
    if result.provenance is None:
        raise AttestRefused(
            "the result records no provenance (saved by an older memrank); run it again"
        )
    try:
        division = Division(division)
    except ValueError:
        known = ", ".join(d.value for d in Division)
        raise UsageError(f"division {division!r} is not one of {known}") from None
    try:
        run_bytes = result.to_bytes()
    except TypeError as exc:  # text JSON cannot carry, a lone surrogate say
        raise AttestRefused(f"cannot state this run: {exc}; give the system plain text") from None
    run_file = orjson.loads(run_bytes)
    if supersedes is not None:
        _require_same_run(artifacts, supersedes, facts_of(run_file)["run_id"])
    try:
        files = run_files(run_bytes)
    except ResultFileError as exc:
        raise AttestRefused(f"cannot state this run: {exc.message}") from None
    try:
        statement = statement_of(
            run_file,
            files,
            track=track,
            division=division,
            issued_at=issued_at or now_utc(),
            supersedes=supersedes,
        )
    except ValidationError as exc:
        raise AttestRefused(f"cannot state this run: {exc.errors()[0]['msg']}") from None
    payload = canonical_bytes(statement.payload())
    artifact_id = hashlib.sha256(payload).hexdigest()
    envelope = seal(IN_TOTO_PAYLOAD_TYPE, payload, keys)
    check_to_sign(result, statement, payload, files.scores, envelope)
    result_path = place_result(
        results_store or artifacts / RESULTS, files.result, files.result_sha256
    )
    scores_file = artifacts / statement.scores_subject.name
    timings_file = artifacts / statement.timings_subject.name
    envelope_path = artifacts / RUNS / f"{artifact_id}.json"
    # The envelope last: a directory never holds a signed run whose files are not there yet.
    for path, content in (
        (scores_file, files.scores),
        (timings_file, files.timings),
        (envelope_path, envelope),
    ):
        write_atomic(path, content)
    return Attested(
        artifact_id=artifact_id,
        envelope=envelope_path,
        scores_file=scores_file,
        timings_file=timings_file,
        result_file=result_path,
        statement=statement,
    )


def _require_same_run(artifacts: Path, artifact_id: str, run_id: str) -> None:
    """A correction names an artifact of the same run that is already in the directory."""
    path = artifacts / RUNS / f"{artifact_id}.json"
    if not path.is_file():
        raise AttestRefused(
            f"--supersedes {artifact_id}: no {path}; name the artifact id this run corrects"
        )
    payload = open_envelope(path.read_bytes(), source=str(path)).payload
    theirs = orjson.loads(payload).get("predicate", {}).get("run_id")
    if theirs != run_id:
        raise AttestRefused(
            f"--supersedes {artifact_id}: that artifact is run {theirs!r}, this one is {run_id!r}; "
            "a correction supersedes an artifact of the same run"
        )
