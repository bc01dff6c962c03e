"""verify(): one envelope file, checked in the documented order; the first refusal is raised.

Nothing downstream sees an unverified byte: the statement and the Result a VerifiedRun carries
are parsed from the payload and result file after their signature and digest checked out.
"""

from __future__ import annotations

import hashlib
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
from memrank.artifacts._root import KeyStatus
from memrank.artifacts._statement import RunPredicate, Statement, facts_of
from memrank.artifacts._trust import TrustRoot
from memrank.errors import (
    ArtifactNameMismatch,
    ArtifactRefused,
    BadSignature,
    DevelopmentObservation,
    EvidenceNotAccepted,
    KeyOutsideWindow,
    MalformedEnvelope,
    OversizeFile,
    QuestionCountsDiffer,
    RevokedKey,
    SchemaRefused,
    SliceNotPublishable,
    SubjectDigestMismatch,
    SubjectMissing,
    TasksFailed,
    ThresholdUnmet,
    UnknownKey,
    UnknownTrack,
    UnpinnedDataset,
    UnpinnedPipeline,
    UnsafeSubjectPath,
    WrongPayloadType,
)
from memrank.provenance import Evidence
from memrank.result import RESULT_SCHEMA, Result

__all__ = ["MAX_ENVELOPE_BYTES", "MAX_RESULT_BYTES", "VerifiedRun", "verify"]

MAX_ENVELOPE_BYTES = 1 << 20
"""An envelope holds a statement and its signatures: a megabyte is far beyond any real one."""
MAX_RESULT_BYTES = 256 << 20
"""A result file holds every trace; the largest evaluations stay well under this."""


@dataclass(frozen=True)
class VerifiedRun:
    """A signed run that passed every check, built only from the verified bytes."""

    artifact_id: str
    """sha256 of the payload bytes; the board's permalink is its first 16 hex digits."""
    path: Path
    keyids: tuple[str, ...]
    """The release keys whose signatures verified, in the order they appear."""
    statement: Statement = field(repr=False)
    result_path: Path
    result_bytes: bytes = field(repr=False)
    """The result file as read and hashed: exactly the bytes whose sha256 was signed."""

    @property
    def predicate(self) -> RunPredicate:
        return self.statement.predicate

    @cached_property
    def result(self) -> Result:
        """The Result in ``result_bytes``, typed on first use (verifying does not need it)."""
        return Result.from_bytes(self.result_bytes, source=str(self.result_path))


def verify(path: Path, trust: TrustRoot) -> VerifiedRun:
    """Verify ``runs/<artifact-id>.json`` (its result file is read from ``../results/``)."""
    source = str(path)
    opened = open_envelope(_read_capped(path, MAX_ENVELOPE_BYTES, MalformedEnvelope), source=source)
    if opened.payload_type != IN_TOTO_PAYLOAD_TYPE:
        raise WrongPayloadType(
            f"{source}: payloadType is {opened.payload_type!r}; a memrank run is "
            f"{IN_TOTO_PAYLOAD_TYPE!r}"
        )
    keyids = _check_signatures(opened, trust, source)
    data = parse_canonical(opened.payload, source=source)
    _check_subject_names(data, source)
    statement = _check_schema(opened.payload, source)
    _check_policy(statement.predicate, trust, source)
    artifact_id = hashlib.sha256(opened.payload).hexdigest()
    if path.name != f"{artifact_id}.json":
        raise ArtifactNameMismatch(
            f"{source}: the payload's sha256 is {artifact_id}, so the file must be named "
            f"runs/{artifact_id}.json; do not rename artifacts"
        )
    result_path, result_bytes = _check_subject(statement, data, path.parent.parent, source)
    return VerifiedRun(
        artifact_id=artifact_id,
        path=path,
        keyids=keyids,
        statement=statement,
        result_path=result_path,
        result_bytes=result_bytes,
    )


def _read_capped(path: Path, cap: int, unreadable: type[ArtifactRefused]) -> bytes:
    """The file's bytes, refusing one over ``cap`` without reading it all."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(cap + 1)
    except OSError as exc:
        raise unreadable(f"{path}: cannot read it ({exc.strerror})") from None
    if len(raw) > cap:
        raise OversizeFile(f"{path}: over the {cap}-byte cap; this is not a file memrank wrote")
    return raw


# -- the checks, in order --------------------------------------------------------------------


def _check_signatures(opened: Opened, trust: TrustRoot, source: str) -> tuple[str, ...]:
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
    issued = _issued_at(opened.payload)
    for keyid in signers:
        key = trust.root.keys[keyid]
        if issued is not None and not key.valid_at(issued):
            until = key.valid_until.isoformat() if key.valid_until else "open"
            raise KeyOutsideWindow(
                f"{source}: issued at {issued.isoformat()}, outside key {keyid[:16]}...'s window "
                f"{key.valid_from.isoformat()} to {until}; attest with a current release key"
            )
    return tuple(signers)


def _issued_at(payload: bytes) -> datetime | None:
    """The statement's issued_at, read from authenticated bytes; None when it is not readable
    (the canonical and schema checks then refuse the payload)."""
    try:
        moment = datetime.fromisoformat(orjson.loads(payload)["predicate"]["issued_at"])
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None
    return moment if moment.utcoffset() is not None else None


def _check_subject_names(data: Any, source: str) -> None:
    subjects = data.get("subject") if isinstance(data, dict) else None
    for subject in subjects if isinstance(subjects, list) else ():
        name = subject.get("name") if isinstance(subject, dict) else None
        if not isinstance(name, str):
            continue
        posix = PurePosixPath(name)
        if posix.is_absolute() or ".." in posix.parts or PureWindowsPath(name).anchor:
            raise UnsafeSubjectPath(
                f"{source}: subject name {name!r} leaves the artifacts directory; a subject is "
                "results/<sha256>.json"
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


def _check_subject(
    statement: Statement, signed: dict[str, Any], artifacts: Path, source: str
) -> tuple[Path, bytes]:
    subject = statement.subject[0]
    path = artifacts / subject.name
    if not path.is_file():
        raise SubjectMissing(
            f"{source}: the result file {subject.name} is not in {artifacts}; commit it with "
            "the envelope"
        )
    raw = _read_capped(path, MAX_RESULT_BYTES, SubjectMissing)
    if hashlib.sha256(raw).hexdigest() != subject.digest.sha256:
        raise SubjectDigestMismatch(
            f"{source}: {path} does not hash to the signed sha256; the result file was changed "
            "or swapped. Restore it from the attested run"
        )
    try:
        result_file = orjson.loads(raw)
        if result_file.get("schema") != RESULT_SCHEMA:
            raise TypeError(f"schema is {result_file.get('schema')!r}, not {RESULT_SCHEMA!r}")
        facts = facts_of(result_file)
    except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError) as exc:
        raise SubjectDigestMismatch(
            f"{source}: the signed result file {path} is not a memrank result with provenance "
            f"({exc})"
        ) from None
    predicate = signed["predicate"]
    differing = [name for name, value in facts.items() if predicate[name] != value]
    if differing:
        raise SubjectDigestMismatch(
            f"{source}: the statement's {', '.join(differing)} do not match {path}; "
            "attest builds both from one result, so one of them was made by hand"
        )
    return path, raw
