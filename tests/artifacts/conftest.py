"""Throwaway keys, a trust root pinning the demo, and a signed run to attack."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import memrank
from memrank.artifacts import (
    IN_TOTO_PAYLOAD_TYPE,
    Attested,
    Root,
    TrustRoot,
    attest,
    keyid_of,
    load_trust,
    seal,
    sign_root,
    write_root,
)
from memrank.result import Install, Result
from memrank.systems import WordOverlap

NOW = datetime.now(UTC).replace(microsecond=0)
LONG_AGO = NOW - timedelta(days=400)


def keyid(key: Ed25519PrivateKey) -> str:
    return keyid_of(key.public_key())


@dataclass
class Keys:
    root: Ed25519PrivateKey
    release: Ed25519PrivateKey
    other: Ed25519PrivateKey
    """A key no trust root lists."""


@pytest.fixture(scope="session")
def keys() -> Keys:
    return Keys(*(Ed25519PrivateKey.generate() for _ in range(3)))


BUILT_FROM = "0123456789abcdef0123456789abcdef01234567"
"""The commit a test's wheel-installed run says its wheel was built from."""


def as_installed(result: Result, install: Install = Install.WHEEL) -> Result:
    """The same run as if memrank had run from ``install``: what a run made by a wheel built
    from a clean commit records (the wheel round trip in test_wheel.py makes one for real)."""
    assert result.provenance is not None
    pipeline = result.provenance.pipeline.model_copy(
        update={"install": install, "git_commit": BUILT_FROM, "dirty": False}
    )
    provenance = result.provenance.model_copy(update={"pipeline": pipeline})
    return result.model_copy(update={"provenance": provenance})


@pytest.fixture(scope="session")
def demo_run() -> Result:
    return memrank.run(WordOverlap(), memrank.evaluation("demo"))


@pytest.fixture(scope="session")
def wheel_run(demo_run: Result) -> Result:
    return as_installed(demo_run)


def first_root(keys: Keys, pinned: Result, *, valid_from: datetime = LONG_AGO) -> Root:
    root = Root.first(
        [keys.root.public_key()],
        [keys.release.public_key()],
        root_threshold=1,
        release_threshold=1,
        expires=NOW + timedelta(days=365),
        valid_from=valid_from,
    )
    return root.pinning("textual", pinned)


@dataclass
class Store:
    """An artifacts directory with a trust root and helpers to sign into it."""

    directory: Path
    keys: Keys

    @property
    def trust(self) -> TrustRoot:
        return load_trust(self.directory / "root.json")

    def publish_root(self, root: Root, signers: Sequence[Ed25519PrivateKey]) -> None:
        write_root(self.directory / "root.json", sign_root(root, signers))

    def attest(self, result: Result, **options: object) -> Attested:
        return attest(
            result,
            "textual",
            "open-source",
            options.pop("key", self.keys.release),  # type: ignore[arg-type]
            artifacts=self.directory,
            **options,  # type: ignore[arg-type]
        )

    def forge(
        self,
        payload: bytes,
        signers: Sequence[Ed25519PrivateKey] | None = None,
        *,
        payload_type: str = IN_TOTO_PAYLOAD_TYPE,
    ) -> Path:
        """Sign arbitrary payload bytes with trusted keys, named as attest would name them."""
        envelope = seal(payload_type, payload, signers or [self.keys.release])
        path = self.directory / "runs" / f"{hashlib.sha256(payload).hexdigest()}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(envelope)
        return path


@pytest.fixture
def store(tmp_path: Path, keys: Keys, wheel_run: Result) -> Store:
    made = Store(tmp_path / "artifacts", keys)
    made.publish_root(first_root(keys, wheel_run), [keys.root])
    return made


@pytest.fixture
def attested(store: Store, wheel_run: Result) -> Attested:
    return store.attest(wheel_run)
