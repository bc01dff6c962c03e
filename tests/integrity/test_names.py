"""WireNames: opaque names from a run's secret, the same within a run, unrelated across runs,
and recomputable by anyone holding the secret with nothing but an HMAC."""

from __future__ import annotations

import hashlib
import hmac
import re

import pytest

from memrank.integrity.names import WireNames

SECRET = bytes(range(16))
OTHER = bytes(range(1, 17))
KINDS = {"unit": "u", "document": "d", "session": "s", "run": "r", "evaluation": "e"}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_name_is_its_kind_letter_and_24_hex_digits_the_same_for_one_secret(kind: str) -> None:
    first, again = WireNames(SECRET).of(kind, "conv-26"), WireNames(SECRET).of(kind, "conv-26")
    assert first == again
    assert re.fullmatch(rf"{KINDS[kind]}[0-9a-f]{{24}}", first)


def test_names_differ_across_secrets_kinds_and_real_names() -> None:
    names = WireNames(SECRET)
    assert WireNames(OTHER).of("unit", "conv-26") != names.of("unit", "conv-26")
    assert names.of("unit", "conv-26") != names.of("unit", "conv-30")
    # the same real name as two kinds: two unrelated names, not one letter apart
    assert names.of("unit", "D1:3")[1:] != names.of("document", "D1:3")[1:]
    assert WireNames.fresh().secret != WireNames.fresh().secret


def test_real_of_maps_back_only_the_names_this_run_handed_out() -> None:
    names = WireNames(SECRET)
    sent = {real: names.of("document", real) for real in ("D1:1", "D1:2", "conv-26:canary-0:0")}
    assert {real: names.real_of(opaque) for real, opaque in sent.items()} == {
        real: real for real in sent
    }
    assert names.real_of("D1:1") is None  # a real name is not an opaque one
    assert names.real_of("d" + "0" * 24) is None
    # another run with the same secret names alike, but maps back only what it handed out
    assert WireNames(SECRET).real_of(sent["D1:1"]) is None


@pytest.mark.parametrize("real", ["conv-26", "D12:7", "Zoë's café", ""])
def test_any_hmac_implementation_recomputes_a_name_from_the_secret(real: str) -> None:
    # docs/integrity.md: <kind letter> + the first 24 hex digits of
    # HMAC-SHA256(secret, "<kind>\x00<real name>"), the real name as UTF-8
    for kind, letter in KINDS.items():
        mac = hmac.new(SECRET, kind.encode() + b"\x00" + real.encode("utf-8"), hashlib.sha256)
        assert WireNames(SECRET).of(kind, real) == letter + mac.hexdigest()[:24]


@pytest.mark.parametrize("length", [0, 15, 17, 32])
def test_a_secret_is_16_bytes(length: int) -> None:
    with pytest.raises(ValueError, match="16 bytes"):
        WireNames(bytes(length))
