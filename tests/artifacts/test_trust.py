"""The trust root: key windows and revocation, expiry, and the chain of versions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memrank.artifacts import Root, load_trust, sign_root, verify, write_root
from memrank.errors import (
    KeyOutsideWindow,
    RevokedKey,
    RootExpired,
    RootMalformed,
    RootRollback,
    RootSignaturesUnmet,
    RootVersionRepeated,
    RootVersionSkipped,
)
from memrank.result import Result

from .conftest import LONG_AGO, NOW, Keys, Store, first_root, keyid

# -- release keys: revocation and validity windows ---------------------------------------------


def test_a_revoked_key_counts_for_nothing_even_on_a_back_dated_run(
    store: Store, wheel_run: Result
) -> None:
    honest = store.attest(wheel_run)
    revoked_at = datetime.now(UTC)
    store.publish_root(
        store.trust.root.next(NOW + timedelta(days=30)).with_key_status(
            keyid(store.keys.release), revoked=True
        ),
        [store.keys.root],
    )
    # Whoever holds the stolen key can claim any date; revocation ignores the claim.
    back_dated = store.attest(wheel_run, issued_at=wheel_run.finished)
    assert back_dated.statement.predicate.issued_at < revoked_at
    for attested in (back_dated, honest):
        with pytest.raises(RevokedKey, match="whatever its date"):
            verify(attested.envelope, store.trust)


def test_a_retired_key_counts_inside_its_window_only(store: Store, wheel_run: Result) -> None:
    inside = store.attest(wheel_run)
    retired_at = inside.statement.predicate.issued_at + timedelta(seconds=1)
    store.publish_root(
        store.trust.root.next(NOW + timedelta(days=30))
        .with_key("release", store.keys.other.public_key(), LONG_AGO)
        .with_key_status(keyid(store.keys.release), valid_until=retired_at),
        [store.keys.root],
    )
    assert verify(inside.envelope, store.trust).keyids == (keyid(store.keys.release),)
    outside = store.attest(wheel_run, issued_at=retired_at + timedelta(seconds=1))
    with pytest.raises(KeyOutsideWindow, match="outside key"):
        verify(outside.envelope, store.trust)
    successor = store.attest(wheel_run, key=store.keys.other, issued_at=retired_at)
    assert verify(successor.envelope, store.trust).keyids == (keyid(store.keys.other),)


def test_a_key_does_not_count_before_its_window_opens(
    tmp_path: Path, keys: Keys, wheel_run: Result
) -> None:
    store = Store(tmp_path, keys)
    store.publish_root(first_root(keys, wheel_run, valid_from=NOW + timedelta(days=1)), [keys.root])
    with pytest.raises(KeyOutsideWindow, match="outside key"):
        verify(store.attest(wheel_run).envelope, store.trust)


# -- the root itself ----------------------------------------------------------------------------


def test_an_expired_root_is_refused(tmp_path: Path, keys: Keys, wheel_run: Result) -> None:
    path = tmp_path / "root.json"
    root = first_root(keys, wheel_run).model_copy(update={"expires": NOW - timedelta(days=1)})
    write_root(path, sign_root(root, [keys.root]), now=NOW - timedelta(days=2))
    with pytest.raises(RootExpired, match="expired"):
        load_trust(path)
    assert load_trust(path, now=NOW - timedelta(days=2)).root.version == 1


def test_a_new_version_that_would_not_verify_is_never_written(store: Store) -> None:
    path = store.directory / "root.json"
    before = path.read_bytes()
    unsigned_by_root = sign_root(store.trust.root.next(NOW + timedelta(days=9)), [store.keys.other])
    with pytest.raises(RootSignaturesUnmet):
        write_root(path, unsigned_by_root)
    assert path.read_bytes() == before and not (store.directory / "roots").exists()


def _rotate_root_key(store: Store) -> Root:
    """Version 2 hands the root role from keys.root to keys.other."""
    return (
        store.trust.root.next(NOW + timedelta(days=30))
        .with_key("root", store.keys.other.public_key(), LONG_AGO)
        .without_key("root", keyid(store.keys.root))
    )


def test_rotation_signed_by_old_and_new_root_keys_walks(store: Store) -> None:
    store.publish_root(_rotate_root_key(store), [store.keys.root, store.keys.other])
    trust = store.trust
    assert trust.versions == (1, 2)
    assert trust.root.roles.root.keyids == (keyid(store.keys.other),)
    # From now on only the new root key can sign version 3.
    store.publish_root(trust.root.next(NOW + timedelta(days=60)), [store.keys.other])
    assert store.trust.versions == (1, 2, 3)


def test_rotation_missing_the_old_threshold_is_refused(store: Store) -> None:
    with pytest.raises(RootSignaturesUnmet, match="version 1's root keys"):
        store.publish_root(_rotate_root_key(store), [store.keys.other])


def test_rotation_missing_the_new_threshold_is_refused(store: Store) -> None:
    with pytest.raises(RootSignaturesUnmet, match="its own root keys"):
        store.publish_root(_rotate_root_key(store), [store.keys.root])


def _three_versions(store: Store) -> list[bytes]:
    """Publish versions 2 and 3; returns every version's envelope bytes, oldest first."""
    for days in (30, 60):
        store.publish_root(store.trust.root.next(NOW + timedelta(days=days)), [store.keys.root])
    history = store.directory / "roots"
    return [
        (history / "1.json").read_bytes(),
        (history / "2.json").read_bytes(),
        (store.directory / "root.json").read_bytes(),
    ]


def test_rollback_is_refused(store: Store) -> None:
    versions = _three_versions(store)
    (store.directory / "root.json").write_bytes(versions[1])  # root.json back to version 2
    (store.directory / "roots" / "3.json").write_bytes(versions[2])
    with pytest.raises(RootRollback, match="version 2 after version 3"):
        load_trust(store.directory / "root.json")


def test_rollback_past_an_anchor_is_refused(store: Store, tmp_path: Path) -> None:
    versions = _three_versions(store)
    anchor = tmp_path / "trusted-root.json"
    anchor.write_bytes(versions[2])  # what main already trusts: version 3
    (store.directory / "roots" / "2.json").unlink()
    (store.directory / "root.json").write_bytes(versions[1])
    with pytest.raises(RootRollback, match="version 2 after version 3"):
        load_trust(store.directory / "root.json", anchor=anchor)


def test_a_same_version_swap_is_refused(store: Store, tmp_path: Path) -> None:
    versions = _three_versions(store)
    anchor = tmp_path / "trusted-root.json"
    anchor.write_bytes(versions[2])
    # Validly signed by the root key, but a different version 3 than the one already trusted.
    swapped = sign_root(
        Root.model_validate_json(_payload(versions[2])).model_copy(
            update={"expires": NOW + timedelta(days=90)}
        ),
        [store.keys.root],
    )
    (store.directory / "root.json").write_bytes(swapped)
    with pytest.raises(RootVersionRepeated, match="also claims version 3"):
        load_trust(store.directory / "root.json", anchor=anchor)
    (store.directory / "roots" / "3.json").write_bytes(versions[2])  # in-repo history has it too
    with pytest.raises(RootVersionRepeated, match="also claims version 3"):
        load_trust(store.directory / "root.json")


def test_a_skipped_version_is_refused(store: Store) -> None:
    _three_versions(store)
    (store.directory / "roots" / "2.json").unlink()
    with pytest.raises(RootVersionSkipped, match="version 2 is missing"):
        load_trust(store.directory / "root.json")


def test_a_history_file_must_hold_the_version_it_is_named_for(store: Store) -> None:
    versions = _three_versions(store)
    (store.directory / "roots" / "2.json").write_bytes(versions[0])
    with pytest.raises(RootMalformed, match="holds version 1, not 2"):
        load_trust(store.directory / "root.json")


def test_a_root_naming_a_key_by_the_wrong_keyid_is_refused(store: Store) -> None:
    root = store.trust.root
    wrong = {**root.model_dump(mode="json", by_alias=True)}
    release = keyid(store.keys.release)
    wrong["keys"][release]["public"] = root.keys[keyid(store.keys.root)].public
    with pytest.raises(ValueError, match="not the sha256 of its public key"):
        Root.model_validate(wrong)


def _payload(envelope: bytes) -> bytes:
    import base64

    import orjson

    return base64.b64decode(orjson.loads(envelope)["payload"])


def test_the_chain_holds_every_version_walked_from_the_anchor(store: Store, tmp_path: Path) -> None:
    versions = _three_versions(store)
    trust = load_trust(store.directory / "root.json")
    assert [root.version for root in trust.chain] == [1, 2, 3] and trust.chain[-1] == trust.root
    assert trust.chain[0].expires == NOW + timedelta(days=365)
    anchor = tmp_path / "trusted-root.json"
    anchor.write_bytes(versions[1])  # versions before the anchor are not walked, so not listed
    assert load_trust(store.directory / "root.json", anchor=anchor).versions == (2, 3)
