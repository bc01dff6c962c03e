"""Golden vectors for the bytes: DSSE PAE, RFC 8785 payloads, and one envelope exactly."""

from __future__ import annotations

import base64
import hashlib

import orjson
import pytest
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from memrank.artifacts import (
    IN_TOTO_PAYLOAD_TYPE,
    canonical_bytes,
    keyid_of,
    pae,
    parse_canonical,
    seal,
)
from memrank.errors import NonCanonicalPayload, NotCanonicalizable

FIXED_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
FIXED_STATEMENT = {
    "_type": "https://in-toto.io/Statement/v1",
    "subject": [{"name": "results/" + "ab" * 32 + ".json", "digest": {"sha256": "ab" * 32}}],
    "predicateType": "https://memrank.dev/run/v1",
    "predicate": {
        "run_id": "20260101-000000__demo__000000",
        "summary": [{"measure": "failure-rate", "value": 0.0, "count": 0, "total": 5}],
        "note": "caf\u00e9 \u2028",
    },
}
FIXED_PAYLOAD = (
    b'{"_type":"https://in-toto.io/Statement/v1","predicate":{"note":"caf\xc3\xa9 \xe2\x80\xa8",'
    b'"run_id":"20260101-000000__demo__000000","summary":[{"count":0,"measure":"failure-rate",'
    b'"total":5,"value":0}]},"predicateType":"https://memrank.dev/run/v1","subject":[{"digest":'
    b'{"sha256":"abababababababababababababababababababababababababababababababab"},"name":'
    b'"results/abababababababababababababababababababababababababababababababab.json"}]}'
)
FIXED_ENVELOPE = (
    b'{"payload":"eyJfdHlwZSI6Imh0dHBzOi8vaW4tdG90by5pby9TdGF0ZW1lbnQvdjEiLCJwcmVkaWNhdGUiOnsibm9'
    b"0ZSI6ImNhZsOpIOKAqCIsInJ1bl9pZCI6IjIwMjYwMTAxLTAwMDAwMF9fZGVtb19fMDAwMDAwIiwic3VtbWFyeSI6W3s"
    b"iY291bnQiOjAsIm1lYXN1cmUiOiJmYWlsdXJlLXJhdGUiLCJ0b3RhbCI6NSwidmFsdWUiOjB9XX0sInByZWRpY2F0ZVR5"
    b"cGUiOiJodHRwczovL21lbXJhbmsuZGV2L3J1bi92MSIsInN1YmplY3QiOlt7ImRpZ2VzdCI6eyJzaGEyNTYiOiJhYmFiY"
    b"WJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiIn0sIm5hbWUiOi"
    b"JyZXN1bHRzL2FiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmF"
    b'iYWIuanNvbiJ9XX0=","payloadType":"application/vnd.in-toto+json","signatures":[{"keyid":"56475a'
    b'a75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c","sig":"O4V5Mqmr1pmGispNvk1IuK6yoV'
    b'L5GbqdP9L6ZUnauKTv8X/LOH4njSZCMkZz1TLbgwx0zxpFHF5qn4c3Tx8FCQ=="}]}'
)


def test_pae_matches_the_dsse_specification_example() -> None:
    assert (
        pae("http://example.com/HelloWorld", b"hello world")
        == b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    )


def test_pae_counts_bytes_not_characters() -> None:
    assert pae("t", "é".encode()) == b"DSSEv1 1 t 2 \xc3\xa9"


def test_fixed_key_and_statement_give_exact_payload_and_envelope_bytes() -> None:
    payload = canonical_bytes(FIXED_STATEMENT)
    assert payload == FIXED_PAYLOAD
    assert seal(IN_TOTO_PAYLOAD_TYPE, payload, [FIXED_KEY]) == FIXED_ENVELOPE


def test_the_golden_envelope_verifies_from_first_principles() -> None:
    # What a verifier in another language does, spelled out without memrank's helpers.
    public = FIXED_KEY.public_key()
    raw = bytes.fromhex("03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8")
    assert keyid_of(public) == hashlib.sha256(raw).hexdigest()
    assert keyid_of(public) == "56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c"
    payload = base64.b64decode(
        FIXED_ENVELOPE.split(b'"payload":"')[1].split(b'"')[0], validate=True
    )
    assert payload == FIXED_PAYLOAD
    signature = base64.b64decode(FIXED_ENVELOPE.split(b'"sig":"')[1].split(b'"')[0])
    message = b"DSSEv1 28 application/vnd.in-toto+json %d " % len(payload) + payload
    public.verify(signature, message)  # raises InvalidSignature if not


@pytest.mark.parametrize(
    "value,message",
    [
        (2**53, "exceeds safe integer domain"),
        (-(2**53), "exceeds safe integer domain"),
        (float("nan"), "not representable"),
        (float("inf"), "not representable"),
        (2.0**60, "exceeds safe integer domain"),  # prints as an integer beyond 2^53
    ],
)
def test_numbers_canonical_json_cannot_carry_are_refused_at_signing(
    value: float, message: str
) -> None:
    with pytest.raises(NotCanonicalizable, match=message):
        canonical_bytes({"predicate": {"n": value}})
    assert canonical_bytes({"n": 2**53 - 1}) == b'{"n":9007199254740991}'


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": 1}',  # whitespace
        b'{"b":1,"a":2}',  # key order
        b'{"a":1.0}',  # 1.0 for 1
        b'{"a":"\\u00e9"}',  # escaped where canonical JSON writes it literally
        b'{"publishable":false,"publishable":true}',  # a duplicate key
        b'{"a":9007199254740993}',  # beyond 2^53
        b'{"a":-9007199254740992}',  # beyond -(2^53 - 1)
        b'{"a":NaN}',
        b'{"a":"\xff"}',  # not UTF-8
        b"[" * 5000 + b"]" * 5000,  # deeper than any parser should follow
    ],
    ids=["space", "order", "1.0", "escaped", "duplicate", "2^53", "-2^53", "nan", "utf8", "deep"],
)
def test_only_canonical_bytes_parse(raw: bytes) -> None:
    with pytest.raises(NonCanonicalPayload, match="payload"):
        parse_canonical(raw, source="runs/x.json")


def test_canonical_bytes_parse_back_to_themselves() -> None:
    parsed = parse_canonical(FIXED_PAYLOAD, source="runs/x.json")
    assert parsed["predicate"]["summary"][0]["value"] == 0
    assert canonical_bytes(parsed) == FIXED_PAYLOAD


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=1500, deadline=None, database=None)
@given(value=_JSON)
def test_parse_canonical_accepts_exactly_the_rfc_8785_bytes(value: object) -> None:
    # orjson's encoding is a near miss of RFC 8785 (floats, big integers, keys beyond U+FFFF):
    # whatever the fast path accepts must be what the reference encoder writes.
    near_miss = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    try:
        canonical: bytes | None = canonical_bytes(value)
    except NotCanonicalizable:
        canonical = None
    if canonical is not None:
        assert canonical == rfc8785.dumps(value)
        assert canonical_bytes(parse_canonical(canonical, source="x")) == canonical
    if near_miss != canonical:
        with pytest.raises(NonCanonicalPayload):
            parse_canonical(near_miss, source="x")


@pytest.mark.parametrize(
    "value",
    [
        {"a": 'ends in a quote\\"', "b": 5.0},  # an escaped quote must not hide the 5.0 after it
        {"a": "\\", "b": -0.0},
        {"1e5": 2.0, "x": "5.0"},
        {"n": [0.1, 9007199254740990.0]},
        {"n": 1e-6, "m": "1e-6"},
        [1234567890123456, 0.1234567890123456],
        5.0,  # the last token, with nothing after it
        {"t": [1.5e-7, 1e-300, 0.5], "why": "re-attest 1e-7"},
        [-(2**53 - 1), 2**53 - 1],
    ],
)
def test_a_number_printed_otherwise_by_rfc_8785_is_never_taken_for_plain(value: object) -> None:
    # The fast path screens orjson's bytes for what an integral float or an exponent looks
    # like; a number beside a string that looks like one, after an escaped quote, or last in
    # the document is still seen and printed the RFC's way.
    near_miss = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    canonical = canonical_bytes(value)
    assert canonical == rfc8785.dumps(value)
    if near_miss != canonical:
        with pytest.raises(NonCanonicalPayload):
            parse_canonical(near_miss, source="x")
