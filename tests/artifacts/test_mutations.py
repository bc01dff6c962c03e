"""Property: whatever is done to a valid envelope, the verifier refuses cleanly or the signed
bytes are exactly what was signed."""

from __future__ import annotations

import base64

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memrank.artifacts import Attested, TrustRoot, open_envelope, verify
from memrank.errors import ArtifactRefused

from .conftest import Store

# A mutation is a short list of edits at positions given as fractions of the current length.
_EDIT = st.one_of(
    st.tuples(st.just("flip"), st.floats(0, 1), st.integers(0, 7)),
    st.tuples(st.just("delete"), st.floats(0, 1), st.integers(1, 8)),
    st.tuples(st.just("insert"), st.floats(0, 1), st.binary(min_size=1, max_size=8)),
    st.tuples(
        st.just("replace"), st.floats(0, 1), st.sampled_from([b'"', b"{", b"=", b"A", b"\\"])
    ),
)


def _apply(raw: bytes, edits: list[tuple[str, float, object]]) -> bytes:
    data = bytearray(raw)
    for kind, where, arg in edits:
        at = min(int(where * len(data)), max(len(data) - 1, 0))
        if kind == "flip" and data:
            data[at] ^= 1 << int(arg)  # type: ignore[call-overload]
        elif kind == "delete":
            del data[at : at + int(arg)]  # type: ignore[call-overload]
        elif kind == "insert":
            data[at:at] = arg  # type: ignore[assignment]
        elif kind == "replace" and data:
            data[at : at + 1] = arg  # type: ignore[assignment]
    return bytes(data)


def _signed_bytes(raw: bytes) -> tuple[str, bytes]:
    opened = open_envelope(raw, source="original")
    return opened.payload_type, opened.payload


def test_mutated_envelopes_never_crash_and_never_pass_with_other_signed_bytes(
    store: Store, attested: Attested
) -> None:
    trust: TrustRoot = store.trust
    original = attested.envelope.read_bytes()
    signed = _signed_bytes(original)
    outcomes = {"refused": 0, "accepted": 0}

    @settings(
        max_examples=2000,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(edits=st.lists(_EDIT, min_size=1, max_size=3))
    def mutate(edits: list[tuple[str, float, object]]) -> None:
        mutated = _apply(original, edits)
        attested.envelope.write_bytes(mutated)
        try:
            run = verify(attested.envelope, trust)
        except ArtifactRefused:
            outcomes["refused"] += 1
            return
        outcomes["accepted"] += 1
        # Accepted: then only unsigned framing changed (say, whitespace between JSON tokens).
        assert _signed_bytes(mutated) == signed
        assert run.artifact_id == attested.artifact_id

    mutate()
    assert outcomes["refused"] > 1000, outcomes


def test_payload_edits_behind_the_signature_are_always_refused(
    store: Store, attested: Attested
) -> None:
    trust = store.trust
    envelope = orjson.loads(attested.envelope.read_bytes())
    payload = base64.b64decode(envelope["payload"])

    @settings(
        max_examples=300,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(position=st.integers(0, len(payload) - 1), bit=st.integers(0, 7))
    def flip(position: int, bit: int) -> None:
        changed = bytearray(payload)
        changed[position] ^= 1 << bit
        attested.envelope.write_bytes(
            orjson.dumps({**envelope, "payload": base64.b64encode(bytes(changed)).decode()})
        )
        try:
            verify(attested.envelope, trust)
        except ArtifactRefused:
            return
        raise AssertionError(f"a flipped bit at {position} was accepted")

    flip()
