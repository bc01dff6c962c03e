"""attest then verify: the round trip, and every refusal with its own class, in order."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest

import memrank
from memrank.artifacts import (
    MAX_ENVELOPE_BYTES,
    MAX_RESULT_BYTES,
    Attested,
    canonical_bytes,
    join,
    parse_canonical,
    run_files,
    scores_of,
    seal,
    verify,
)
from memrank.errors import (
    ArtifactNameMismatch,
    BadSignature,
    MalformedEnvelope,
    NonCanonicalPayload,
    OversizeFile,
    ResultFileError,
    SchemaRefused,
    SubjectDigestMismatch,
    SubjectMissing,
    ThresholdUnmet,
    TimingsDiffer,
    TimingsDigestMismatch,
    TimingsMissing,
    UnknownKey,
    UnsafeSubjectPath,
    WrongPayloadType,
)
from memrank.provenance import Evidence
from memrank.result import Result

from .conftest import NOW, Store, as_installed, keyid

SORTED = orjson.OPT_SORT_KEYS


def payload_of(attested: Attested) -> dict[str, Any]:
    envelope = orjson.loads(attested.envelope.read_bytes())
    return orjson.loads(base64.b64decode(envelope["payload"]))


def edited(attested: Attested, change: Callable[[dict[str, Any]], None]) -> bytes:
    statement = payload_of(attested)
    change(statement)
    return canonical_bytes(statement)


def test_a_timings_file_changed_after_verifying_is_refused_not_read(
    store: Store, attested: Attested
) -> None:
    # a verified run keeps no timings bytes (a board holds thousands of runs): its result
    # reads the file again, and only the bytes the statement signs
    run = verify(attested.envelope, store.trust)
    run.timings_path.write_bytes(run.timings_path.read_bytes() + b" ")
    with pytest.raises(TimingsDigestMismatch, match="changed since it was verified"):
        _ = run.result


def test_round_trip_verifies_as_reproducible_evidence(
    store: Store, attested: Attested, wheel_run: Result
) -> None:
    run = verify(attested.envelope, store.trust)
    assert run.artifact_id == attested.artifact_id == attested.envelope.stem
    assert run.predicate.evidence is Evidence.REPRODUCIBLE and run.predicate.publishable
    assert run.keyids == (keyid(store.keys.release),)
    assert run.result == wheel_run
    assert wheel_run.finished <= run.predicate.issued_at <= datetime.now(UTC)
    assert [v.measure for v in run.predicate.summary] == [
        "failure-rate",
        "latency.ingest.p50",
        "latency.ingest.p95",
        "latency.retrieve.p50",
        "latency.retrieve.p95",
    ]
    failure_rate = run.predicate.summary[0]
    assert (failure_rate.count, failure_rate.total) == (0, 5)


def test_each_file_is_named_by_its_digest(attested: Attested, wheel_run: Result) -> None:
    content = attested.result_file.read_bytes()
    timings = attested.timings_file.read_bytes()
    # The result file and the timings file are the run file split in two, and join back.
    assert orjson.dumps(join(orjson.loads(content), orjson.loads(timings)), option=SORTED) == (
        wheel_run.to_bytes()
    )
    assert attested.result_file.name == hashlib.sha256(content).hexdigest() + ".json"
    assert attested.timings_file.name == hashlib.sha256(timings).hexdigest() + ".json"
    scores = attested.scores_file.read_bytes()
    assert scores == scores_of(content)
    assert attested.scores_file.name == hashlib.sha256(scores).hexdigest() + ".json"
    assert payload_of(attested)["subject"] == [
        {"name": f"{folder}/{path.name}", "digest": {"sha256": path.stem}}
        for folder, path in (
            ("scores", attested.scores_file),
            ("results", attested.result_file),
            ("timings", attested.timings_file),
        )
    ]


def test_the_result_file_holds_nothing_of_the_clock_or_the_machine(attested: Attested) -> None:
    result = orjson.loads(attested.result_file.read_bytes())
    assert "started" not in result and "environment" not in result["provenance"]
    assert not any(key in trace for trace in result["traces"] for key in ("started", "timings_ms"))
    assert not any(v["measure"].startswith("latency") for v in result["values"])
    timings = orjson.loads(attested.timings_file.read_bytes())
    assert timings["result_sha256"] == attested.result_file.stem
    assert [v["measure"] for v in timings["values"]][0] == "latency.ingest.p50"


def test_a_statement_whose_latency_differs_from_its_timings_is_refused(
    store: Store, attested: Attested
) -> None:
    payload = edited(attested, lambda s: s["predicate"]["summary"][-1].update(value=0.001))
    with pytest.raises(TimingsDiffer, match="latency"):
        verify(store.forge(payload), store.trust)


def test_an_edited_timings_file_is_refused(store: Store, attested: Attested) -> None:
    attested.timings_file.write_bytes(attested.timings_file.read_bytes().replace(b"Z", b"Z "))
    with pytest.raises(TimingsDigestMismatch, match="edited"):
        verify(attested.envelope, store.trust)
    attested.timings_file.unlink()
    with pytest.raises(TimingsMissing, match="commit it"):
        verify(attested.envelope, store.trust)


def test_payload_bytes_are_canonical_and_the_artifact_id_is_their_digest(
    attested: Attested,
) -> None:
    envelope = orjson.loads(attested.envelope.read_bytes())
    payload = base64.b64decode(envelope["payload"])
    assert canonical_bytes(parse_canonical(payload, source="x")) == payload
    assert hashlib.sha256(payload).hexdigest() == attested.artifact_id


# -- tampering with the envelope ---------------------------------------------------------------


def _rewrite_envelope(attested: Attested, change: Callable[[dict[str, Any]], None]) -> None:
    envelope = orjson.loads(attested.envelope.read_bytes())
    change(envelope)
    attested.envelope.write_bytes(orjson.dumps(envelope))


def _flip(text: str, position: int = 10) -> str:
    raw = bytearray(base64.b64decode(text))
    raw[position] ^= 0x01
    return base64.b64encode(bytes(raw)).decode()


@pytest.mark.parametrize(
    "change,error",
    [
        (lambda e: e.update(payload=_flip(e["payload"])), BadSignature),
        (lambda e: e.update(payloadType="application/vnd.in-toto+jsoN"), WrongPayloadType),
        (lambda e: e["signatures"][0].update(sig=_flip(e["signatures"][0]["sig"])), BadSignature),
        (lambda e: e["signatures"][0].update(sig=e["signatures"][0]["sig"][:40]), BadSignature),
        (
            lambda e: e["signatures"][0].update(sig=base64.b64encode(b"\0" * 32).decode()),
            BadSignature,
        ),
        (lambda e: e["signatures"][0].update(sig=""), BadSignature),
        (lambda e: e.update(payload=e["payload"][:-2] + "!!"), MalformedEnvelope),
        (lambda e: e.update(payload=" " + e["payload"]), MalformedEnvelope),
        (lambda e: e.update(extra=1), MalformedEnvelope),
        (lambda e: e.update(signatures=[]), MalformedEnvelope),
        (lambda e: e["signatures"][0].update(keyid="0" * 64), UnknownKey),
    ],
    ids=[
        "payload-bit",
        "payload-type",
        "signature-bit",
        "signature-truncated-base64",
        "signature-truncated",
        "signature-empty",
        "bad-base64",
        "base64-with-space",
        "unknown-field",
        "no-signatures",
        "unknown-keyid",
    ],
)
def test_tampered_envelopes_are_refused(
    store: Store, attested: Attested, change: Callable[[dict[str, Any]], None], error: type
) -> None:
    _rewrite_envelope(attested, change)
    with pytest.raises(error) as caught:
        verify(attested.envelope, store.trust)
    assert str(attested.envelope) in caught.value.message


def test_duplicate_keys_in_the_envelope_are_refused(store: Store, attested: Attested) -> None:
    raw = attested.envelope.read_bytes()
    attested.envelope.write_bytes(raw.replace(b'{"payload":', b'{"payloadType":"x","payload":'))
    with pytest.raises(MalformedEnvelope, match="appears twice"):
        verify(attested.envelope, store.trust)


def test_duplicate_keys_in_a_signature_are_refused(store: Store, attested: Attested) -> None:
    raw = attested.envelope.read_bytes()
    attested.envelope.write_bytes(raw.replace(b'{"keyid":', b'{"keyid":"x","keyid":'))
    with pytest.raises(MalformedEnvelope, match="'keyid' appears twice"):
        verify(attested.envelope, store.trust)


def test_an_envelope_verifies_however_its_json_is_spelled(store: Store, attested: Attested) -> None:
    # Whitespace and key order are not signed: only the payload and the signatures are.
    envelope = orjson.loads(attested.envelope.read_bytes())
    spelled = {key: envelope[key] for key in ("signatures", "payloadType", "payload")}
    attested.envelope.write_bytes(orjson.dumps(spelled, option=orjson.OPT_INDENT_2))
    assert verify(attested.envelope, store.trust).artifact_id == attested.artifact_id


def test_a_signature_by_an_unknown_key_is_refused(store: Store, attested: Attested) -> None:
    path = store.forge(
        base64.b64decode(orjson.loads(attested.envelope.read_bytes())["payload"]),
        [store.keys.other],
    )
    with pytest.raises(UnknownKey, match="does not list"):
        verify(path, store.trust)


def test_a_trusted_keyid_over_another_keys_signature_is_refused(
    store: Store, attested: Attested
) -> None:
    forged = orjson.loads(attested.envelope.read_bytes())
    payload = base64.b64decode(forged["payload"])
    by_other = orjson.loads(seal(forged["payloadType"], payload, [store.keys.other]))
    forged["signatures"] = [
        {"keyid": keyid(store.keys.release), "sig": by_other["signatures"][0]["sig"]}
    ]
    attested.envelope.write_bytes(orjson.dumps(forged))
    with pytest.raises(BadSignature, match="does not verify"):
        verify(attested.envelope, store.trust)


def test_one_key_signing_twice_counts_once(store: Store, attested: Attested) -> None:
    store.publish_root(
        store.trust.root.next(NOW + timedelta(days=30))
        .with_key("release", store.keys.other.public_key(), NOW - timedelta(days=1))
        .with_threshold("release", 2),
        [store.keys.root],
    )
    payload = base64.b64decode(orjson.loads(attested.envelope.read_bytes())["payload"])
    twice = store.forge(payload, [store.keys.release, store.keys.release])
    with pytest.raises(ThresholdUnmet, match="1 distinct release key"):
        verify(twice, store.trust)
    both = store.forge(payload, [store.keys.release, store.keys.other])
    assert verify(both, store.trust).keyids == (keyid(store.keys.release), keyid(store.keys.other))


# -- tampering with the payload (re-signed with a trusted key) ---------------------------------


@pytest.mark.parametrize(
    "spoil",
    [
        lambda p: p.replace(b'{"_type"', b'{ "_type"'),
        lambda p: (
            b'{"predicateType":"https://memrank.dev/run/v1",'
            + p[1:].replace(b',"predicateType":"https://memrank.dev/run/v1"', b"")
        ),
        lambda p: p.replace(b'"total":5,"value":0,', b'"total":5,"value":0.0,'),
        lambda p: p.replace(b'"name":"demo"', b'"name":"d\\u0065mo"'),
        lambda p: p.replace(b'"publishable":true', b'"publishable":false,"publishable":true'),
    ],
    ids=["whitespace", "key-order", "1.0-for-1", "escaped-unicode", "duplicate-publishable"],
)
def test_non_canonical_payloads_are_refused(
    store: Store, attested: Attested, spoil: Callable[[bytes], bytes]
) -> None:
    payload = base64.b64decode(orjson.loads(attested.envelope.read_bytes())["payload"])
    spoiled = spoil(payload)
    assert spoiled != payload and orjson.loads(spoiled)
    with pytest.raises(NonCanonicalPayload, match="canonical"):
        verify(store.forge(spoiled), store.trust)


@pytest.mark.parametrize("name", ["/etc/passwd", "results/../../secret.json", "C:\\x.json"])
def test_subject_names_may_not_leave_the_directory(
    store: Store, attested: Attested, name: str
) -> None:
    payload = edited(attested, lambda s: s["subject"][0].update(name=name))
    with pytest.raises(UnsafeSubjectPath, match="leaves the artifacts directory"):
        verify(store.forge(payload), store.trust)


@pytest.mark.parametrize(
    "change,match",
    [
        (
            lambda s: (
                s["predicate"].update(evidence="reproducible_evidence", publishable=True)
                or s["predicate"]["pipeline"].update(install="editable")
            ),
            "evidence is reproducible",
        ),
        (lambda s: s["predicate"].update(publishable=False), "publishable is False"),
        (lambda s: s["predicate"].update(division="closed"), "division"),
        (lambda s: s["predicate"].update(surprise=1), "surprise"),
        (lambda s: s.update(predicateType="https://example.com/other"), "predicateType"),
        (lambda s: s["subject"].append(s["subject"][0]), "subject"),
        (lambda s: s["predicate"]["environment"].update(cpus="2"), "cpus"),
    ],
    ids=[
        "evidence-not-derived",
        "publishable",
        "division",
        "unknown-field",
        "predicate-type",
        "two-subjects",
        "string-for-int",
    ],
)
def test_statements_that_are_not_memrank_runs_are_refused(
    store: Store, attested: Attested, change: Callable[[dict[str, Any]], None], match: str
) -> None:
    with pytest.raises(SchemaRefused, match=match):
        verify(store.forge(edited(attested, change)), store.trust)


# -- the files around the envelope -------------------------------------------------------------


def test_an_envelope_not_named_by_its_artifact_id_is_refused(
    store: Store, attested: Attested
) -> None:
    renamed = attested.envelope.with_name("0" * 64 + ".json")
    attested.envelope.rename(renamed)
    with pytest.raises(ArtifactNameMismatch, match=attested.artifact_id):
        verify(renamed, store.trust)


def test_a_missing_result_file_still_verifies_and_says_it_was_not_checked(
    store: Store, attested: Attested
) -> None:
    attested.result_file.unlink()
    run = verify(attested.envelope, store.trust)
    assert not run.result_checked and run.note == "result file not checked"
    assert run.result_bytes is None and run.scores.measures["word-match"].values
    with pytest.raises(ResultFileError, match="results store"):
        run.result  # noqa: B018 - the property raises
    with pytest.raises(SubjectMissing, match="no results store is named"):
        verify(attested.envelope, store.trust, deep=True)


def test_a_swapped_result_file_is_refused(store: Store, attested: Attested) -> None:
    other = as_installed(memrank.run(memrank.system("bm25"), memrank.evaluation("demo")))
    attested.result_file.write_bytes(run_files(other.to_bytes()).result)
    with pytest.raises(SubjectDigestMismatch, match="changed or swapped"):
        verify(attested.envelope, store.trust)


def test_a_statement_that_disagrees_with_its_result_is_refused(
    store: Store, attested: Attested
) -> None:
    payload = edited(attested, lambda s: s["predicate"]["summary"][0].update(why="all good"))
    with pytest.raises(SubjectDigestMismatch, match="summary"):
        verify(store.forge(payload), store.trust)


def test_an_oversize_envelope_is_refused(store: Store, attested: Attested) -> None:
    attested.envelope.write_bytes(b" " * (MAX_ENVELOPE_BYTES + 1))
    with pytest.raises(OversizeFile, match="cap"):
        verify(attested.envelope, store.trust)


def test_an_oversize_result_file_is_refused(store: Store, attested: Attested) -> None:
    with attested.result_file.open("r+b") as handle:  # sparse: no disk is spent on it
        handle.truncate(MAX_RESULT_BYTES + 1)
    with pytest.raises(OversizeFile, match="cap"):
        verify(attested.envelope, store.trust)
