"""A second verifier of memrank's signed run artifacts, written from docs/artifacts.md alone with
Python's standard library: no memrank import, no third-party package. It walks the trust root
chain, checks every run envelope in the documented order and names the first refusal by the
doc's class name, so tests can hold memrank's own verifier to the doc (test_second_verifier.py).
"""

from __future__ import annotations

import gzip
import hashlib
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from .second_verifier_crypto import (
    JSONRefused,
    canonical_b64,
    ed25519_verify,
    jcs,
    pae,
    parse,
    parse_canonical,
)
from .second_verifier_files import is_clock_value, join, scores_of, scores_problem
from .second_verifier_schema import committed, root_problem, statement_problem, timestamp

IN_TOTO = "application/vnd.in-toto+json"
ROOT_TYPE = "application/vnd.memrank.root+json"
MiB = 1 << 20
TIMINGS_KEYS = {"schema", "result_sha256", "started", "finished", "environment", "traces", "values"}


class Refused(Exception):
    """A refusal, named by the doc's class (``BadSignature``, ``RootExpired``, ...)."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")
        self.name = name
        self.reason = reason


@dataclass
class Verdict:
    artifact_id: str
    """The envelope file's name without .json."""
    refusal: str | None = None
    reason: str = ""
    result_checked: bool = False
    run_id: str | None = None
    supersedes: str | None = None

    @property
    def ok(self) -> bool:
        return self.refusal is None


# -- envelopes and the trust root --------------------------------------------------------------


def open_envelope(raw: bytes, malformed: str) -> tuple[str, bytes, list[tuple[str, bytes]]]:
    """payloadType, payload and (keyid, signature) pairs of a DSSE envelope."""
    try:
        envelope = parse(raw)
    except JSONRefused as exc:
        raise Refused(malformed, f"not UTF-8 JSON without duplicate keys ({exc})") from None
    if not isinstance(envelope, dict) or set(envelope) != {"payload", "payloadType", "signatures"}:
        raise Refused(malformed, "not exactly payload, payloadType and signatures")
    if not isinstance(envelope["payloadType"], str):
        raise Refused(malformed, "payloadType is not a string")
    payload = canonical_b64(envelope["payload"])
    if payload is None:
        raise Refused(malformed, "payload is not canonical base64")
    signatures = envelope["signatures"]
    if not isinstance(signatures, list) or not signatures:
        raise Refused(malformed, "no signatures")
    pairs = []
    for entry in signatures:
        if not isinstance(entry, dict) or set(entry) != {"keyid", "sig"}:
            raise Refused(malformed, "a signature is not exactly keyid and sig")
        sig = canonical_b64(entry["sig"])
        if not isinstance(entry["keyid"], str) or sig is None:
            raise Refused(malformed, "a keyid is not a string or a sig not canonical base64")
        pairs.append((entry["keyid"], sig))
    return envelope["payloadType"], payload, pairs


def _open_root(raw: bytes) -> tuple[dict[str, Any], bytes, list[tuple[str, bytes]]]:
    try:
        kind, payload, signatures = open_envelope(raw, "RootMalformed")
        if kind != ROOT_TYPE:
            raise Refused("RootMalformed", f"payloadType {kind!r}")
        root = parse_canonical(payload)
    except JSONRefused as exc:
        raise Refused("RootMalformed", f"payload is not canonical JSON ({exc})") from None
    problem = root_problem(root)
    if problem:
        raise Refused("RootMalformed", problem)
    return root, payload, signatures


def _signed_by(role_of: dict[str, Any], payload: bytes, signatures: list) -> set[str]:
    """The distinct, unrevoked keys of ``role_of``'s root role whose signatures verify."""
    role, keys = role_of["roles"]["root"], role_of["keys"]
    message = pae(ROOT_TYPE, payload)
    return {
        keyid
        for keyid, sig in signatures
        if keyid in role["keyids"]
        and keys[keyid]["status"] != "revoked"
        and ed25519_verify(bytes.fromhex(keys[keyid]["public"]), sig, message)
    }


def load_trust(directory: Path, now: datetime | None = None) -> dict[str, Any]:
    """Walk roots/1.json, roots/2.json, ... then root.json; the newest root payload."""
    older = list((directory / "roots").glob("*.json"))
    if any(not path.stem.isdigit() for path in older):
        raise Refused("RootMalformed", "files in roots/ are named <version>.json")
    older.sort(key=lambda path: int(path.stem))
    trusted: dict[str, Any] | None = None
    trusted_payload = b""
    for path in [*older, directory / "root.json"]:
        raw = path.read_bytes()
        if len(raw) > MiB:
            raise Refused("RootMalformed", f"{path.name} is over 1 MiB")
        root, payload, signatures = _open_root(raw)
        version = root["version"]
        if path.parent.name == "roots" and version != int(path.stem):
            raise Refused("RootMalformed", f"{path.name} holds version {version}")
        if trusted is None:
            if version != 1:
                raise Refused("RootVersionSkipped", "the walk starts at version 1")
            signers = [_signed_by(root, payload, signatures)]
            needed = [root]
        else:
            current = trusted["version"]
            if version < current:
                raise Refused("RootRollback", f"version {version} after {current}")
            if version == current:
                if payload != trusted_payload:
                    raise Refused("RootVersionRepeated", f"another version {version}")
                continue
            if version > current + 1:
                raise Refused("RootVersionSkipped", f"version {version} after {current}")
            signers = [_signed_by(trusted, payload, signatures)]
            signers.append(_signed_by(root, payload, signatures))
            needed = [trusted, root]
        for keyids, by in zip(signers, needed, strict=True):
            if len(keyids) < by["roles"]["root"]["threshold"]:
                raise Refused("RootSignaturesUnmet", f"version {version}")
        trusted, trusted_payload = root, payload
    assert trusted is not None
    if timestamp(trusted["expires"]) <= (now or datetime.now(UTC)):  # type: ignore[operator]
        raise Refused("RootExpired", f"version {trusted['version']} expired")
    return trusted


# -- one run -------------------------------------------------------------------------------------


def _issued_at(payload: bytes) -> datetime | None:
    try:
        return timestamp(parse(payload)["predicate"]["issued_at"])
    except (JSONRefused, KeyError, TypeError):
        return None


def _check_signatures(kind: str, payload: bytes, signatures: list, root: dict) -> None:
    release, keys = root["roles"]["release"], root["keys"]
    signers: list[str] = []
    for keyid, sig in signatures:
        if keyid not in release["keyids"]:
            raise Refused("UnknownKey", f"key {keyid[:16]} is not a release key")
        if keys[keyid]["status"] == "revoked":
            raise Refused("RevokedKey", f"key {keyid[:16]} is revoked")
        if not ed25519_verify(bytes.fromhex(keys[keyid]["public"]), sig, pae(kind, payload)):
            raise Refused("BadSignature", f"key {keyid[:16]}'s signature does not verify")
        if keyid not in signers:
            signers.append(keyid)
    if len(signers) < release["threshold"]:
        raise Refused("ThresholdUnmet", f"{len(signers)} of {release['threshold']} keys")
    issued = _issued_at(payload)
    for keyid in signers if issued is not None else ():
        since, until = (timestamp(keys[keyid][k]) for k in ("valid_from", "valid_until"))
        if issued < since or (until is not None and issued > until):  # type: ignore[operator]
            raise Refused("KeyOutsideWindow", f"issued_at outside key {keyid[:16]}'s window")


def _check_policy(predicate: dict[str, Any], root: dict[str, Any]) -> None:
    pipeline, evaluation, bundle = (
        predicate[k] for k in ("pipeline", "evaluation", "dataset_bundle")
    )
    if predicate["evidence"] == "development_observation":
        raise Refused("DevelopmentObservation", "memrank ran from a checkout")
    if evaluation["slice"] is not None:
        raise Refused("SliceNotPublishable", f"slice {evaluation['slice']!r}")
    if not committed(pipeline):
        raise Refused("UncommittedBuild", "no commit, or a dirty tree")
    track = root["tracks"].get(predicate["track"])
    if track is None:
        raise Refused("UnknownTrack", predicate["track"])
    if predicate["evidence"] not in track["evidence"]:
        raise Refused("EvidenceNotAccepted", predicate["evidence"])
    if pipeline["code_sha256"] not in track["pipelines"]:
        raise Refused("UnpinnedPipeline", pipeline["code_sha256"])
    pinned = track["dataset_bundles"].get(evaluation["name"])
    if pinned is None or pinned["sha256"] != bundle["sha256"]:
        raise Refused("UnpinnedDataset", evaluation["name"])
    if pinned["question_counts"] != bundle["question_counts"]:
        raise Refused("QuestionCountsDiffer", evaluation["name"])
    failures = [v for v in predicate["summary"] if v["measure"] == "failure-rate"]
    if not failures or failures[0]["count"] != 0:
        raise Refused("TasksFailed", "a failure-rate that is missing or not 0 of n")


def _read(path: Path, cap: int, missing: str) -> bytes:
    if not path.is_file():
        raise Refused(missing, f"{path.name} is not in the artifacts directory")
    if path.stat().st_size > cap:
        raise Refused("OversizeFile", f"{path.name} is over {cap} bytes")
    return path.read_bytes()


def _check_scores(directory: Path, statement: dict[str, Any]) -> bytes:
    subject, result = statement["subject"][0], statement["subject"][1]["digest"]["sha256"]
    evaluation = statement["predicate"]["evaluation"]
    raw = _read(directory / subject["name"], 16 * MiB, "ScoresMissing")
    if hashlib.sha256(raw).hexdigest() != subject["digest"]["sha256"]:
        try:
            names = parse(raw).get("result_sha256")
        except (JSONRefused, AttributeError):
            names = None
        if isinstance(names, str) and names != result:
            raise Refused("ScoresSwapped", "the scores file of another result")
        raise Refused("ScoresDigestMismatch", "the scores file was edited")
    try:
        scores = parse_canonical(raw)
    except JSONRefused as exc:
        raise Refused("ScoresMalformed", str(exc)) from None
    problem = scores_problem(scores)
    if problem:
        raise Refused("ScoresMalformed", problem)
    if (
        scores["result_sha256"] != result
        or scores["evaluation"]["name"] != evaluation["name"]
        or scores["evaluation"]["version"] != evaluation["version"]
        or len(scores["tasks"]["id"]) != evaluation["task_count"]
    ):
        raise Refused("ScoresSwapped", "a scores file of another run")
    return raw


def _check_timings(directory: Path, statement: dict[str, Any]) -> dict[str, Any]:
    subject, result = statement["subject"][2], statement["subject"][1]["digest"]["sha256"]
    predicate = statement["predicate"]
    raw = _read(directory / subject["name"], 16 * MiB, "TimingsMissing")
    if hashlib.sha256(raw).hexdigest() != subject["digest"]["sha256"]:
        raise Refused("TimingsDigestMismatch", "the timings file was edited")
    try:
        timings = parse_canonical(raw)
    except JSONRefused as exc:
        raise Refused("TimingsDiffer", str(exc)) from None
    if not isinstance(timings, dict) or set(timings) != TIMINGS_KEYS:
        raise Refused("TimingsDiffer", "not the timings file's seven keys")
    clock = [v for v in predicate["summary"] if is_clock_value(v)]
    if (
        timings["schema"] != "memrank.timings/v1"
        or timings["result_sha256"] != result
        or timings["started"] != predicate["started_at"]
        or timings["finished"] != predicate["finished_at"]
        or jcs(timings["environment"]) != jcs(predicate["environment"])
        or jcs(timings["values"]) != jcs(clock)
    ):
        raise Refused("TimingsDiffer", "the timings file is not the statement's")
    return timings


def _result_bytes(directory: Path, digest: str, results: Path | None) -> bytes | None:
    cap = 256 * MiB
    plain = [results / f"{digest}.json"] if results else []
    plain.append(directory / "results" / f"{digest}.json")
    for path in plain:
        if path.is_file():
            return _read(path, cap, "SubjectMissing")
    packed = directory / "results" / f"{digest}.json.gz"
    if not packed.is_file():
        return None
    try:
        with gzip.open(packed) as stream:
            raw = stream.read(cap + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise Refused("SubjectDigestMismatch", f"{packed.name} does not inflate ({exc})") from None
    if len(raw) > cap:
        raise Refused("OversizeFile", f"{packed.name} inflates past {cap} bytes")
    return raw


def run_id_of(run: dict[str, Any]) -> str:
    started = run["started"]
    stamp = started[0:4] + started[5:7] + started[8:10] + "-" + started[11:13]
    stamp += started[14:16] + started[17:19]
    text = f"{run['system']['name']}\n{run['evaluation']['version']}\n{started}"
    return f"{stamp}__{run['evaluation']['name']}__{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def _check_result(raw: bytes, statement: dict, timings: dict, scores: bytes) -> None:
    digest, predicate = statement["subject"][1]["digest"]["sha256"], statement["predicate"]
    if hashlib.sha256(raw).hexdigest() != digest:
        raise Refused("SubjectDigestMismatch", "the result file changed or was swapped")
    try:
        run = join(parse(raw), timings)
        facts = {
            "run_id": run_id_of(run),
            "system": run["system"],
            "evaluation": run["evaluation"],
            "dataset_bundle": run["provenance"]["dataset_bundle"],
            "pipeline": run["provenance"]["pipeline"],
            "environment": run["provenance"]["environment"],
            "started_at": run["started"],
            "finished_at": run["finished"],
            "summary": [v for v in run["values"] if v["task_id"] is None and v["group"] is None],
        }
    except (JSONRefused, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise Refused("SubjectDigestMismatch", f"does not join into a run file ({exc})") from None
    for name, fact in facts.items():
        if jcs(fact) != jcs(predicate[name]):
            raise Refused("SubjectDigestMismatch", f"{name} is not the joined run file's")
    try:
        made = scores_of(raw)
    except (ValueError, KeyError, TypeError) as exc:
        raise Refused("ScoresDiffer", f"no scores file can be made ({exc})") from None
    if made != scores:
        raise Refused("ScoresDiffer", "not the scores file the result file gives")


def check_run(path: Path, root: dict[str, Any], results: Path | None = None) -> Verdict:
    """Verify runs/<artifact-id>.json against the trust root; Refused at the first failure."""
    directory = path.parent.parent
    raw = path.read_bytes()
    if len(raw) > MiB:
        raise Refused("OversizeFile", "the envelope is over 1 MiB")
    kind, payload, signatures = open_envelope(raw, "MalformedEnvelope")
    if kind != IN_TOTO:
        raise Refused("WrongPayloadType", kind)
    _check_signatures(kind, payload, signatures, root)
    try:
        statement = parse_canonical(payload)
    except JSONRefused as exc:
        raise Refused("NonCanonicalPayload", str(exc)) from None
    subjects = statement.get("subject") if isinstance(statement, dict) else None
    for subject in subjects if isinstance(subjects, list) else ():
        name = subject.get("name") if isinstance(subject, dict) else None
        if isinstance(name, str):
            posix = PurePosixPath(name)
            if posix.is_absolute() or ".." in posix.parts or PureWindowsPath(name).drive:
                raise Refused("UnsafeSubjectPath", name)
    problem = statement_problem(statement)
    if problem:
        raise Refused("SchemaRefused", problem)
    predicate = statement["predicate"]
    _check_policy(predicate, root)
    artifact_id = hashlib.sha256(payload).hexdigest()
    if path.name != f"{artifact_id}.json":
        raise Refused("ArtifactNameMismatch", f"the payload's sha256 is {artifact_id}")
    scores = _check_scores(directory, statement)
    timings = _check_timings(directory, statement)
    digest = statement["subject"][1]["digest"]["sha256"]
    result = _result_bytes(directory, digest, results)
    if result is not None:
        _check_result(result, statement, timings, scores)
    return Verdict(
        artifact_id, None, "", result is not None, predicate["run_id"], predicate["supersedes"]
    )


def verify_run(path: Path, root: dict[str, Any], results: Path | None = None) -> Verdict:
    try:
        return check_run(path, root, results)
    except Refused as refusal:
        return Verdict(path.stem, refusal.name, refusal.reason)


def _one_chain(group: list[Verdict]) -> bool:
    ids = {v.artifact_id for v in group}
    heads = [v for v in group if v.supersedes not in ids]
    targets = [v.supersedes for v in group if v.supersedes in ids]
    if len(heads) != 1 or len(targets) != len(set(targets)):
        return False
    by_id = {v.artifact_id: v for v in group}
    for verdict in group:
        seen, at = set(), verdict
        while at.supersedes in ids:
            if at.artifact_id in seen:
                return False
            seen.add(at.artifact_id)
            at = by_id[at.supersedes]  # type: ignore[index]
        if at is not heads[0]:
            return False
    return True


def verify_directory(
    directory: Path, *, results: Path | None = None, now: datetime | None = None
) -> dict[str, Verdict]:
    """Every runs/*.json of an artifacts directory, by artifact id (file stem). Refused when
    the trust root chain is refused: then no run counts."""
    root = load_trust(directory, now)
    verdicts = {
        path.stem: verify_run(path, root, results)
        for path in sorted((directory / "runs").glob("*.json"))
    }
    runs: dict[str, list[Verdict]] = {}
    for verdict in verdicts.values():
        if verdict.ok:
            runs.setdefault(verdict.run_id, []).append(verdict)  # type: ignore[arg-type]
    for group in runs.values():
        if len(group) > 1 and not _one_chain(group):
            for verdict in group:
                verdict.refusal, verdict.reason = "RunConflict", "one run_id, no one chain"
    return verdicts
