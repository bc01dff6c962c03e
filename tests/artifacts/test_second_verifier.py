"""The format is what docs/artifacts.md says: a second verifier written from it alone, with the
standard library (second_verifier.py), accepts every committed run, refuses tampered runs with
the class memrank's verifier names, and splits a run file into memrank's bytes."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import memrank
from memrank.artifacts import (
    Attested,
    Root,
    canonical_bytes,
    load_trust,
    run_files,
    sign_root,
    verify,
    verify_directory,
)
from memrank.errors import ArtifactRefused, TrustRootRefused

from . import second_verifier as second
from .conftest import LONG_AGO, NOW, Store, keyid
from .second_verifier_crypto import ed25519_verify, sorted_json
from .second_verifier_files import join, scores_of, split

ARTIFACTS = Path(__file__).parents[2] / "artifacts"


def memrank_verdicts(directory: Path) -> dict[str, str]:
    verification = verify_directory(directory)
    verdicts = {run.artifact_id: "ok" for run in verification.runs}
    verdicts.update({r.path.stem: r.error.__name__ for r in verification.refusals})
    return verdicts


def second_verdicts(directory: Path) -> dict[str, str]:
    return {
        artifact_id: verdict.refusal or "ok"
        for artifact_id, verdict in second.verify_directory(directory).items()
    }


def test_every_committed_run_is_accepted_by_the_second_verifier() -> None:
    verdicts = second.verify_directory(ARTIFACTS)
    assert verdicts, "no committed runs"
    refused = {i[:16]: f"{v.refusal}: {v.reason}" for i, v in verdicts.items() if not v.ok}
    assert not refused
    assert {i for i, v in verdicts.items() if v.ok} == {
        run.artifact_id for run in verify_directory(ARTIFACTS).runs
    }
    # Small result files are kept in git: those runs were checked down to the result file.
    kept = {p.name.split(".")[0] for p in (ARTIFACTS / "results").glob("*.json*")}
    assert kept and all(v.result_checked for v in verdicts.values() if _result_of(v) in kept)


def _result_of(verdict: second.Verdict) -> str:
    envelope = json.loads((ARTIFACTS / "runs" / f"{verdict.artifact_id}.json").read_bytes())
    statement = json.loads(base64.b64decode(envelope["payload"]))
    return statement["subject"][1]["digest"]["sha256"]


# -- tampered runs: both verifiers refuse, with one class --------------------------------------


def _envelope(attested: Attested) -> dict[str, Any]:
    return json.loads(attested.envelope.read_bytes())


def _statement(attested: Attested) -> dict[str, Any]:
    return json.loads(base64.b64decode(_envelope(attested)["payload"]))


def _forge(store: Store, attested: Attested, payload: bytes) -> None:
    attested.envelope.unlink()
    store.forge(payload)


def _flip_signature(store: Store, attested: Attested) -> None:
    envelope = _envelope(attested)
    sig = bytearray(base64.b64decode(envelope["signatures"][0]["sig"]))
    sig[5] ^= 0x01
    envelope["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
    attested.envelope.write_text(json.dumps(envelope, indent=1))


def _edit_json(path: Path, edit: Callable[[Any], None]) -> None:
    data = json.loads(path.read_bytes())
    edit(data)
    path.write_bytes(canonical_bytes(data))


def _edit_predicate(edit: Callable[[dict[str, Any]], None]) -> Callable[[Store, Attested], None]:
    def tamper(store: Store, attested: Attested) -> None:
        statement = _statement(attested)
        edit(statement["predicate"])
        _forge(store, attested, canonical_bytes(statement))

    return tamper


def _payload(attested: Attested, *, unlink: bool = False) -> bytes:
    payload = base64.b64decode(_envelope(attested)["payload"])
    if unlink:
        attested.envelope.unlink()
    return payload


def _unsafe_subject(store: Store, attested: Attested) -> None:
    statement = _statement(attested)
    statement["subject"][0]["name"] = "../scores/x.json"
    _forge(store, attested, canonical_bytes(statement))


def _non_canonical(store: Store, attested: Attested) -> None:
    _forge(store, attested, json.dumps(_statement(attested), indent=1).encode())


def _signed_scores_edit(store: Store, attested: Attested) -> None:
    scores = json.loads(attested.scores_file.read_bytes())
    scores["measures"]["word-match"]["values"][3] = 1
    raw = canonical_bytes(scores)
    sha = hashlib.sha256(raw).hexdigest()
    (store.directory / "scores" / f"{sha}.json").write_bytes(raw)
    statement = _statement(attested)
    statement["subject"][0] = {"name": f"scores/{sha}.json", "digest": {"sha256": sha}}
    _forge(store, attested, canonical_bytes(statement))


def _dirty(predicate: dict[str, Any]) -> None:
    predicate["pipeline"]["dirty"] = True
    predicate["publishable"] = False


TAMPERS: dict[str, tuple[Callable[[Store, Attested], None], str]] = {
    "flipped signature byte": (_flip_signature, "BadSignature"),
    "edited scores file": (
        lambda s, a: _edit_json(
            a.scores_file, lambda d: d["measures"]["word-match"]["values"].__setitem__(3, 1)
        ),
        "ScoresDigestMismatch",
    ),
    "edited timings file": (
        lambda s, a: _edit_json(a.timings_file, lambda d: d.update(started=d["finished"])),
        "TimingsDigestMismatch",
    ),
    "wrong division": (_edit_predicate(lambda p: p.update(division="closed")), "SchemaRefused"),
    "task count as a string": (
        _edit_predicate(lambda p: p["evaluation"].update(task_count="5")),
        "SchemaRefused",
    ),
    "an extra field": (_edit_predicate(lambda p: p["system"].update(x=1)), "SchemaRefused"),
    "a field left out": (_edit_predicate(lambda p: p["system"].pop("version")), "SchemaRefused"),
    "no catalog name": (
        _edit_predicate(lambda p: p["system"].update(declared_name=None)),
        "SchemaRefused",
    ),
    "an undocumented kind": (
        _edit_predicate(lambda p: p["system"].update(kind="oracle")),
        "SchemaRefused",
    ),
    "a timestamp with an offset": (
        _edit_predicate(lambda p: p.update(issued_at=p["issued_at"].replace("Z", "+00:00"))),
        "SchemaRefused",
    ),
    "a summary value of a task": (
        _edit_predicate(lambda p: p["summary"][0].update(task_id="t")),
        "SchemaRefused",
    ),
    "evidence not derived": (
        _edit_predicate(lambda p: p.update(evidence="endpoint_observation")),
        "SchemaRefused",
    ),
    "another started_at": (
        _edit_predicate(lambda p: p.update(started_at=p["finished_at"])),
        "TimingsDiffer",
    ),
    "another system version": (
        _edit_predicate(lambda p: p["system"].update(version="9")),
        "SubjectDigestMismatch",
    ),
    "non-canonical payload": (_non_canonical, "NonCanonicalPayload"),
    "dirty build": (_edit_predicate(_dirty), "UncommittedBuild"),
    "missing timings file": (lambda s, a: a.timings_file.unlink(), "TimingsMissing"),
    "missing scores file": (lambda s, a: a.scores_file.unlink(), "ScoresMissing"),
    "edited result file": (
        lambda s, a: a.result_file.write_bytes(a.result_file.read_bytes() + b" "),
        "SubjectDigestMismatch",
    ),
    "signed scores not the result's": (_signed_scores_edit, "ScoresDiffer"),
    "an extra envelope key": (
        lambda s, a: a.envelope.write_text(json.dumps({**_envelope(a), "x": 1})),
        "MalformedEnvelope",
    ),
    "an oversize envelope": (
        lambda s, a: a.envelope.write_bytes(a.envelope.read_bytes() + b" " * (1 << 20)),
        "OversizeFile",
    ),
    "another payload type": (
        lambda s, a: s.forge(_payload(a, unlink=True), payload_type="text/plain"),
        "WrongPayloadType",
    ),
    "a renamed envelope": (
        lambda s, a: a.envelope.rename(a.envelope.with_name("0" * 64 + ".json")),
        "ArtifactNameMismatch",
    ),
    "an unsafe subject name": (_unsafe_subject, "UnsafeSubjectPath"),
    "a development observation": (
        _edit_predicate(
            lambda p: (
                p["pipeline"].update(install="editable"),
                p.update(evidence="development_observation", publishable=False),
            )
        ),
        "DevelopmentObservation",
    ),
    "a slice": (
        _edit_predicate(lambda p: (p["evaluation"].update(slice="x"), p.update(publishable=False))),
        "SliceNotPublishable",
    ),
    "an unknown track": (_edit_predicate(lambda p: p.update(track="coding")), "UnknownTrack"),
    "an unpinned pipeline": (
        _edit_predicate(lambda p: p["pipeline"].update(code_sha256="0" * 64)),
        "UnpinnedPipeline",
    ),
    "an unpinned dataset": (
        _edit_predicate(lambda p: p["dataset_bundle"].update(sha256="0" * 64)),
        "UnpinnedDataset",
    ),
    "other question counts": (
        _edit_predicate(lambda p: p["dataset_bundle"]["question_counts"].update(x=1)),
        "QuestionCountsDiffer",
    ),
    "no failure-rate": (
        _edit_predicate(
            lambda p: p.update(summary=[v for v in p["summary"] if v["measure"] != "failure-rate"])
        ),
        "TasksFailed",
    ),
}


def test_a_signed_run_verifies_with_both(store: Store, attested: Attested) -> None:
    verdicts = second.verify_directory(store.directory)
    assert {i: v.refusal for i, v in verdicts.items()} == {attested.artifact_id: None}
    assert verdicts[attested.artifact_id].result_checked
    assert memrank_verdicts(store.directory) == {attested.artifact_id: "ok"}


def test_a_compressed_result_file_is_read_and_checked(store: Store, attested: Attested) -> None:
    packed = attested.result_file.with_name(attested.result_file.name + ".gz")
    packed.write_bytes(gzip.compress(attested.result_file.read_bytes()))
    attested.result_file.unlink()
    verdict = second.verify_directory(store.directory)[attested.artifact_id]
    assert verdict.ok and verdict.result_checked
    packed.write_bytes(gzip.compress(b"{}"))
    verdict = second.verify_directory(store.directory)[attested.artifact_id]
    assert memrank_verdicts(store.directory) == {attested.artifact_id: verdict.refusal}
    assert verdict.refusal == "SubjectDigestMismatch"
    packed.write_bytes(b"not gzip")
    assert second_verdicts(store.directory) == memrank_verdicts(store.directory)


@pytest.mark.parametrize("name", list(TAMPERS))
def test_a_tampered_run_is_refused_by_both_with_one_class(
    name: str, store: Store, attested: Attested
) -> None:
    tamper, expected = TAMPERS[name]
    tamper(store, attested)
    (path,) = (store.directory / "runs").glob("*.json")
    with pytest.raises(ArtifactRefused) as caught:
        verify(path, store.trust)
    ours = second.verify_run(path, second.load_trust(store.directory))
    assert (caught.type.__name__, ours.refusal) == (expected, expected), ours.reason


# -- the trust root and the release keys ------------------------------------------------------


def _next_version(store: Store, edit: Callable[[Root], Root], signers: list) -> None:
    """Publish the next root version as given, without memrank's own check of the chain."""
    current = store.directory / "root.json"
    (store.directory / "roots").mkdir(exist_ok=True)
    version = json.loads(base64.b64decode(json.loads(current.read_bytes())["payload"]))
    (store.directory / "roots" / f"{version['version']}.json").write_bytes(current.read_bytes())
    later = edit(store.trust.root.next(NOW + timedelta(days=30)))
    current.write_bytes(sign_root(later, signers))


def _rotated(store: Store, signers: Callable[[Store], list]) -> None:
    keys = store.keys
    _next_version(
        store,
        lambda r: r.with_key("root", keys.other.public_key(), LONG_AGO).without_key(
            "root", keyid(keys.root)
        ),
        signers(store),
    )


def _first_version_lost(store: Store) -> None:
    _next_version(store, lambda r: r, [store.keys.root])
    (store.directory / "roots" / "1.json").unlink()


def _expired(store: Store) -> None:
    _next_version(
        store,
        lambda r: r.model_copy(update={"expires": NOW - timedelta(days=1)}),
        [store.keys.root],
    )


ROOTS: dict[str, tuple[Callable[[Store], None], str]] = {
    "a rotation signed by old and new": (
        lambda s: _rotated(s, lambda s: [s.keys.root, s.keys.other]),
        "ok",
    ),
    "a rotation signed by the new key only": (
        lambda s: _rotated(s, lambda s: [s.keys.other]),
        "RootSignaturesUnmet",
    ),
    "a rotation signed by the old key only": (
        lambda s: _rotated(s, lambda s: [s.keys.root]),
        "RootSignaturesUnmet",
    ),
    "a chain without its first version": (_first_version_lost, "RootVersionSkipped"),
    "an expired newest version": (_expired, "RootExpired"),
}


@pytest.mark.parametrize("name", list(ROOTS))
def test_the_trust_root_chain_is_judged_alike(name: str, store: Store, attested: Attested) -> None:
    change, expected = ROOTS[name]
    change(store)
    try:
        load_trust(store.directory / "root.json")
        theirs = "ok"
    except TrustRootRefused as exc:
        theirs = type(exc).__name__
    try:
        second.load_trust(store.directory)
        ours = "ok"
    except second.Refused as refusal:
        ours = refusal.name
    assert (theirs, ours) == (expected, expected)
    if expected == "ok":
        assert second_verdicts(store.directory) == memrank_verdicts(store.directory)


KEYS: dict[str, tuple[Callable[[Root, Store], Root], str]] = {
    "a revoked release key": (
        lambda r, s: r.with_key_status(keyid(s.keys.release), revoked=True),
        "RevokedKey",
    ),
    "a retired release key": (
        lambda r, s: r.with_key_status(keyid(s.keys.release), valid_until=LONG_AGO),
        "KeyOutsideWindow",
    ),
    "a key no longer in the release role": (
        lambda r, s: r.with_key("release", s.keys.other.public_key(), LONG_AGO).without_key(
            "release", keyid(s.keys.release)
        ),
        "UnknownKey",
    ),
}


@pytest.mark.parametrize("name", list(KEYS))
def test_release_keys_are_judged_alike(name: str, store: Store, attested: Attested) -> None:
    change, expected = KEYS[name]
    _next_version(store, lambda r: change(r, store), [store.keys.root])
    assert second_verdicts(store.directory) == memrank_verdicts(store.directory)
    assert second_verdicts(store.directory) == {attested.artifact_id: expected}


def test_ed25519_rfc8032_vector_1() -> None:
    public = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    signature = bytes.fromhex(
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e"
        "39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
    )
    assert ed25519_verify(public, signature, b"")
    flipped = bytearray(signature)
    flipped[40] ^= 0x10
    assert not ed25519_verify(public, bytes(flipped), b"")
    assert not ed25519_verify(public, signature, b"\x00")


# -- the split, the join and the scores file: memrank's bytes ----------------------------------


def test_the_split_join_and_scores_are_memranks_bytes() -> None:
    run_bytes = memrank.run(memrank.system("bm25"), memrank.evaluation("demo")).to_bytes()
    files = run_files(run_bytes)
    result, timings = split(run_bytes)
    assert (result, timings) == (files.result, files.timings)
    assert scores_of(result) == files.scores
    joined = join(json.loads(result), json.loads(timings))
    assert sorted_json(joined).encode() == run_bytes


def test_numbers_are_written_as_the_result_file_writes_them() -> None:
    import orjson

    floats = [1.0, 0.5, -0.0, 1e-7, 2.5e-6, 1e-5, 1.2345e-5, -3.5e-5, 1e-4, 1e15, 1e16, 1e21]
    floats += [1 / 3, 123456789.125, 5e-324, 1.7976931348623157e308, 1.2345678901234567e16]
    assert sorted_json(floats) == orjson.dumps(floats).decode()
