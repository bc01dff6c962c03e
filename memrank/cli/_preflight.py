"""Checks a command makes before any work: outputs it can write, and signing the trust root admits."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memrank.errors import AttestRefused

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

__all__ = ["check_signable"]


def check_signable(artifacts: Path, keys: Sequence[Ed25519PrivateKey], track: str) -> None:
    """Refuse before writing anything what the verifier would refuse later: a key the release
    role does not list (the root key, say), a revoked key, or a track the root does not list,
    and signing into a directory with no root.json, whose every run the verifier refuses."""
    from memrank.artifacts import KeyStatus, keyid_of, load_trust

    root_file = artifacts / "root.json"
    if not root_file.is_file():
        raise AttestRefused(
            f"no trust root at {root_file}: nothing signed here could be verified. Create it "
            "first (`memrank trust init`), or give the --artifacts that holds it"
        )
    root = load_trust(root_file).root
    release = root.roles.release.keyids
    for key in keys:
        keyid = keyid_of(key.public_key())
        if keyid not in release:
            role = (
                " (it is a root key: root keys sign root.json, never runs)"
                if (keyid in root.roles.root.keyids)
                else ""
            )
            raise AttestRefused(
                f"key {keyid} is not a release key of {root_file}{role}; sign with a release key "
                "(`memrank trust show` lists them)"
            )
        if root.keys[keyid].status is KeyStatus.REVOKED:
            raise AttestRefused(f"key {keyid} is revoked in {root_file}; sign with another")
    if track not in root.tracks:
        known = ", ".join(sorted(root.tracks)) or "none yet"
        raise AttestRefused(
            f"--track {track!r} is not a track of {root_file} (tracks: {known}); check the "
            "spelling, or add it with `memrank trust update --accept`"
        )
