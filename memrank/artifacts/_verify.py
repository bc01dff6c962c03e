"""verify(): one envelope file, checked in the documented order; the first refusal is raised.

Nothing downstream sees an unverified byte: the statement and the Result a VerifiedRun carries
are parsed from the payload and result file after their signature and digest checked out.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import orjson
from cryptography.exceptions import InvalidSignature
from pydantic import ValidationError

from memrank.artifacts._canonical import parse_canonical
from memrank.artifacts._envelope import IN_TOTO_PAYLOAD_TYPE, Opened, open_envelope, pae
from memrank.artifacts._results_store import ResultsStore
from memrank.artifacts._root import KeyStatus
from memrank.artifacts._scores import Scores, read_scores
from memrank.artifacts._semantic import MAX_ENVELOPE_BYTES, check_verified
from memrank.artifacts._statement import RunPredicate, Statement
from memrank.artifacts._subjects import (
    MAX_RESULT_BYTES,
    MAX_TIMINGS_BYTES,
    check_subjects,
    read_capped,
)
from memrank.artifacts._timings import join
from memrank.artifacts._trust import TrustRoot
from memrank.errors import (
    ArtifactNameMismatch,
    BadSignature,
    DevelopmentObservation,
    EvidenceNotAccepted,
    IntegritySuspect,
    KeyOutsideWindow,
    MalformedEnvelope,
    QuestionCountsDiffer,
    ResultFileError,
    RevokedKey,
    SchemaRefused,
    SliceNotPublishable,
    TasksFailed,
    ThresholdUnmet,
    TimingsDigestMismatch,
    TimingsMissing,
    UncommittedBuild,
    UnknownKey,
    UnknownTrack,
    UnpinnedDataset,
    UnpinnedPipeline,
    UnsafeSubjectPath,
    WrongPayloadType,
)
from memrank.integrity.record import VERDICT
from memrank.provenance import Evidence, is_committed_build
from memrank.result import Result

__all__ = ["MAX_ENVELOPE_BYTES", "MAX_RESULT_BYTES", "VerifiedRun", "verify"]

_PLAIN_SUBJECT = re.compile(r"(scores|results|timings)/[0-9a-f]{64}\.json")
"""A subject name as attest writes it: plainly inside the artifacts directory."""


@dataclass(frozen=True)
class VerifiedRun:
    """A signed run that passed every check, built only from the verified bytes."""

    artifact_id: str
    """sha256 of the payload bytes; the board's permalink is its first 16 hex digits."""
    path: Path
    keyids: tuple[str, ...]
    """The release keys whose signatures verified, in the order they appear."""
    statement: Statement = field(repr=False)
    checked_scores: Scores | None = field(repr=False)
    """The scores file as verification parsed it; None when it was known good (read ``scores``)."""
    scores_raw: bytes | None = field(repr=False)
    """The verified bytes of a known-good scores file, kept until ``scores`` parses them."""
    scores_path: Path
    timings_path: Path
    """The timings file, whose sha256 the statement signs. Its bytes are not kept: a board
    holds thousands of runs at once and reads no timings; ``result`` reads them again and
    checks them against the signed digest."""
    result_path: Path | None
    """The result file in the artifacts directory; None when it is not there."""
    result_bytes: bytes | None = field(repr=False)
    """The result file as read and hashed (exactly the bytes whose sha256 was signed, inflated
    when kept compressed); None when it is not in the artifacts directory."""
    result_checked: bool = True
    """Whether the result file was checked: read from the artifacts directory, or fetched from
    the results store by a deep verification."""

    @property
    def predicate(self) -> RunPredicate:
        return self.statement.predicate

    @property
    def note(self) -> str:
        """What the verification did not cover, for a report line ('' when nothing)."""
        return "" if self.result_checked else "result file not checked"

    @cached_property
    def scores(self) -> Scores:
        """The scores file, always there and checked: what the board reads. A file that was
        known good (a build's memo) is parsed here, on first use, from its verified bytes."""
        if self.checked_scores is not None:
            return self.checked_scores
        assert self.scores_raw is not None  # verify keeps one or the other
        return read_scores(self.scores_raw, source=str(self.scores_path), known_good=True)

    @cached_property
    def result(self) -> Result:
        """The run the result file and the timings file make together, typed on first use
        (verifying does not need it)."""
        if self.result_bytes is None:
            raise ResultFileError(
                f"{self.path}: the result file {self.statement.result_subject.name} is not in "
                "the artifacts directory; fetch it from the results store (board.toml) first"
            )
        run = join(orjson.loads(self.result_bytes), orjson.loads(self._timings_raw()))
        return Result.from_bytes(orjson.dumps(run), source=str(self.result_path))

    def _timings_raw(self) -> bytes:
        """The timings file's bytes, read again: the very bytes verification checked, or
        refused when the file changed since."""
        raw = read_capped(self.timings_path, MAX_TIMINGS_BYTES, TimingsMissing)
        if hashlib.sha256(raw).hexdigest() != self.statement.timings_subject.digest.sha256:
            raise TimingsDigestMismatch(
                f"{self.timings_path}: changed since it was verified; verify the run again"
            )
        return raw


def verify(
    path: Path,
    trust: TrustRoot,
    *,
    store: ResultsStore | None = None,
    deep: bool = False,
    known_good: set[str] | None = None,
) -> VerifiedRun:
    """Verify ``runs/<artifact-id>.json``: its scores file is read from ``../scores/``, its
    result file from ``../results/`` when there, else (``deep``) fetched from ``store``.
    ``known_good``: see ``verify_directory``."""
    source = str(path)
    opened = open_envelope(read_capped(path, MAX_ENVELOPE_BYTES, MalformedEnvelope), source=source)
    if opened.payload_type != IN_TOTO_PAYLOAD_TYPE:
        raise WrongPayloadType(
            f"{source}: payloadType is {opened.payload_type!r}; a memrank run is "
            f"{IN_TOTO_PAYLOAD_TYPE!r}"
        )
    parsed = _json_or_none(opened.payload)
    keyids = _check_signatures(opened, trust, source, _issued_at(parsed))
    data = parse_canonical(opened.payload, source=source, parsed=parsed)
    _check_subject_names(data, source)
    statement = _check_schema(opened.payload, source)
    _check_policy(statement.predicate, trust, source)
    artifact_id = hashlib.sha256(opened.payload).hexdigest()
    if path.name != f"{artifact_id}.json":
        raise ArtifactNameMismatch(
            f"{source}: the payload's sha256 is {artifact_id}, so the file must be named "
            f"runs/{artifact_id}.json; do not rename artifacts"
        )
    subjects = check_subjects(
        statement,
        data,
        path.parent.parent,
        source,
        store=store,
        deep=deep,
        known_good=known_good,
        artifact_id=artifact_id,
    )
    check_verified(opened.payload, statement, subjects.scores, source, known_good, artifact_id)
    return VerifiedRun(
        artifact_id=artifact_id,
        path=path,
        keyids=keyids,
        statement=statement,
        checked_scores=subjects.scores,
        scores_raw=None if subjects.scores is not None else subjects.scores_raw,
        scores_path=subjects.scores_path,
        timings_path=subjects.timings_path,
        result_path=subjects.result_path,
        result_bytes=subjects.result_bytes,
        result_checked=subjects.result_checked,
    )


# -- the checks, in order --------------------------------------------------------------------


def _check_signatures(
    opened: Opened, trust: TrustRoot, source: str, issued: datetime | None
) -> tuple[str, ...]:
    role = trust.root.roles.release
    message = pae(opened.payload_type, opened.payload)
    signers: list[str] = []
    for position, (keyid, signature) in enumerate(opened.signatures):
        where = f"{source}: signatures[{position}]"
        if keyid not in role.keyids:
            raise UnknownKey(
                f"{where} names key {keyid[:16]}..., which the release role of {trust.path} "
                "does not list; sign with a release key, or have the root keys add this one"
            )
        if trust.root.keys[keyid].status is KeyStatus.REVOKED:
            raise RevokedKey(
                f"{where} is by key {keyid[:16]}..., which {trust.path} revoked; nothing it "
                "signed counts, whatever its date. Re-attest the run with an active release key"
            )
        try:
            # The keyid only picks the key; what counts is that this key's signature verifies.
            trust.public_keys[keyid].verify(signature, message)
        except InvalidSignature:
            raise BadSignature(
                f"{where} does not verify under key {keyid[:16]}... (the bytes or the "
                "signature changed after signing); re-attest from the result file"
            ) from None
        if keyid not in signers:
            signers.append(keyid)
    if len(signers) < role.threshold:
        raise ThresholdUnmet(
            f"{source}: signed by {len(signers)} distinct release key(s); {trust.path} requires "
            f"{role.threshold} (one key counts once, however often it signs)"
        )
    for keyid in signers:
        key = trust.root.keys[keyid]
        if issued is not None and not key.valid_at(issued):
            until = key.valid_until.isoformat() if key.valid_until else "open"
            raise KeyOutsideWindow(
                f"{source}: issued at {issued.isoformat()}, outside key {keyid[:16]}...'s window "
                f"{key.valid_from.isoformat()} to {until}; attest with a current release key"
            )
    return tuple(signers)


def _json_or_none(payload: bytes) -> Any:
    """The payload as JSON, parsed once for the key window and the canonical check; None when
    it is not JSON (the canonical check then says so)."""
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None


def _issued_at(statement: Any) -> datetime | None:
    """The statement's issued_at, read before the payload is checked (the key window is
    checked right after its signatures); None when it is not readable (the canonical and
    schema checks then refuse the payload)."""
    try:
        moment = datetime.fromisoformat(statement["predicate"]["issued_at"])
    except (KeyError, TypeError, ValueError):
        return None
    return moment if moment.utcoffset() is not None else None


def _check_subject_names(data: Any, source: str) -> None:
    subjects = data.get("subject") if isinstance(data, dict) else None
    for subject in subjects if isinstance(subjects, list) else ():
        name = subject.get("name") if isinstance(subject, dict) else None
        if not isinstance(name, str) or _PLAIN_SUBJECT.fullmatch(name):
            continue
        posix = PurePosixPath(name)
        if posix.is_absolute() or ".." in posix.parts or PureWindowsPath(name).anchor:
            raise UnsafeSubjectPath(
                f"{source}: subject name {name!r} leaves the artifacts directory; a subject is "
                "scores/, results/ or timings/<sha256>.json"
            )


def _check_schema(payload: bytes, source: str) -> Statement:
    try:
        return Statement.model_validate_json(payload, strict=True)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'statement'}: {e['msg']}" for e in exc.errors()[:5]
        )
        raise SchemaRefused(
            f"{source}: not a memrank run statement ({exc.error_count()} problem(s): {problems})"
        ) from None


def _check_policy(predicate: RunPredicate, trust: TrustRoot, source: str) -> None:
    pipeline, evaluation = predicate.pipeline, predicate.evaluation
    if predicate.evidence is Evidence.DEVELOPMENT:
        checkout = f" at {pipeline.git_commit}" if pipeline.git_commit else ""
        raise DevelopmentObservation(
            f"{source}: memrank ran from a mutable checkout ({pipeline.install.value} install"
            f"{checkout}), so the run is a development observation; run from the built "
            "wheel in a fresh environment to publish (docs/publishing.md)"
        )
    if evaluation.slice is not None:
        raise SliceNotPublishable(
            f"{source}: a run of the slice {evaluation.name}:{evaluation.slice} is not a "
            "measurement; run the full evaluation"
        )
    if not is_committed_build(pipeline):
        raise UncommittedBuild(
            f"{source}: the wheel that ran was built from "
            + (
                f"commit {pipeline.git_commit} with uncommitted changes"
                if pipeline.git_commit
                else "a tree whose commit it does not record"
            )
            + ", so nobody can rebuild it; commit, build the wheel from the clean tree and run "
            "again (docs/publishing.md)"
        )
    track = trust.root.tracks.get(predicate.track)
    if track is None:
        raise UnknownTrack(
            f"{source}: track {predicate.track!r} is not in {trust.path} (it lists "
            f"{', '.join(sorted(trust.root.tracks)) or 'none'})"
        )
    if predicate.evidence not in track.evidence:
        raise EvidenceNotAccepted(
            f"{source}: track {predicate.track!r} accepts "
            f"{', '.join(e.value for e in track.evidence)}, not {predicate.evidence.value}"
        )
    if pipeline.code_sha256 not in track.pipelines:
        raise UnpinnedPipeline(
            f"{source}: pipeline {pipeline.code_sha256} (memrank {pipeline.memrank_version}) is "
            f"not pinned for track {predicate.track!r} in {trust.path}; run a released memrank "
            "or have the root keys pin this one"
        )
    baseline = track.dataset_bundles.get(evaluation.name)
    if baseline is None or baseline.sha256 != predicate.dataset_bundle.sha256:
        raise UnpinnedDataset(
            f"{source}: dataset bundle {predicate.dataset_bundle.sha256} of {evaluation.name!r} "
            f"is not the one pinned for track {predicate.track!r} in {trust.path}"
        )
    if baseline.question_counts != predicate.dataset_bundle.question_counts:
        raise QuestionCountsDiffer(
            f"{source}: question counts {predicate.dataset_bundle.question_counts} differ from "
            f"the baseline {baseline.question_counts} for {evaluation.name!r}"
        )
    # A failed task is a row, not a gap, in a result; on a board it would be a hole in one
    # system's column that its rank silently absorbs, so only complete runs are published.
    failures = next((v for v in predicate.summary if v.measure == "failure-rate"), None)
    if failures is None or failures.count != 0:
        found = "no failure-rate" if failures is None else failures.why
        raise TasksFailed(
            f"{source}: every task must succeed to publish a run, and its summary says {found}; "
            "fix what broke (each trace names its step) and run the evaluation again"
        )
    suspect = next((v for v in predicate.summary if v.measure == VERDICT), None)
    if suspect is not None and suspect.value != 0:
        raise IntegritySuspect(
            f"{source}: the run's integrity verdict is suspect ({suspect.why[:300]}); a run the "
            "integrity checks flag is never published (docs/integrity.md)"
        )
