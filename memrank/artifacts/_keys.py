"""Ed25519 keys as PKCS8 PEM files, and the keyid every signature and trust root uses."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from memrank._files import write_atomic
from memrank.errors import KeyFileError, UsageError

__all__ = [
    "SIGNING_KEY_VARIABLE",
    "Ed25519PrivateKey",
    "Ed25519PublicKey",
    "generate_key_files",
    "keyid_of",
    "load_private_key",
    "load_public_key",
    "private_key_from_pem",
    "public_key_from_hex",
    "public_hex",
    "signing_key",
]

SIGNING_KEY_VARIABLE = "MEMRANK_SIGNING_KEY"
"""The environment variable that may hold the signing key's PEM text instead of --key FILE."""


def _raw(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def public_hex(key: Ed25519PublicKey) -> str:
    """The raw 32-byte public key in lowercase hex: how a trust root lists it."""
    return _raw(key).hex()


def keyid_of(key: Ed25519PublicKey) -> str:
    """sha256 of the raw 32-byte public key, lowercase hex."""
    return hashlib.sha256(_raw(key)).hexdigest()


def public_key_from_hex(text: str) -> Ed25519PublicKey:
    """The key a trust root lists as 64 hex digits; ValueError when it is not one."""
    raw = bytes.fromhex(text)
    if len(raw) != 32 or raw.hex() != text:
        raise ValueError("a public key is 64 lowercase hex digits (the raw 32-byte Ed25519 key)")
    return Ed25519PublicKey.from_public_bytes(raw)


def private_key_from_pem(data: bytes, *, source: str) -> Ed25519PrivateKey:
    """An unencrypted PKCS8 PEM Ed25519 private key (what ``openssl genpkey -algorithm ed25519``
    or ``memrank keys generate`` writes)."""
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise KeyFileError(
            f"{source}: not an unencrypted PKCS8 PEM private key ({exc}); make one with "
            "`memrank keys generate --out DIR`"
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{source}: a {type(key).__name__}, not an Ed25519 private key")
    return key


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise KeyFileError(f"{path}: cannot read the {what} ({exc.strerror})") from None


def load_private_key(path: Path) -> Ed25519PrivateKey:
    return private_key_from_pem(_read(path, "private key"), source=str(path))


def load_public_key(path: Path) -> Ed25519PublicKey:
    """A SubjectPublicKeyInfo PEM Ed25519 public key (``keys generate`` writes NAME.pub.pem)."""
    try:
        key = serialization.load_pem_public_key(_read(path, "public key"))
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise KeyFileError(
            f"{path}: not a PEM public key ({exc}); give the .pub.pem that "
            "`memrank keys generate` wrote beside the private key"
        ) from None
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileError(f"{path}: a {type(key).__name__}, not an Ed25519 public key")
    return key


def signing_key(path: Path | None) -> Ed25519PrivateKey:
    """The key from ``path``, else the PEM text in MEMRANK_SIGNING_KEY."""
    if path is not None:
        return load_private_key(path)
    pem = os.environ.get(SIGNING_KEY_VARIABLE)
    if not pem:
        raise KeyFileError(
            f"no signing key: give --key FILE or put the key's PEM text in {SIGNING_KEY_VARIABLE}"
        )
    return private_key_from_pem(pem.encode(), source=SIGNING_KEY_VARIABLE)


_KEY_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")
"""A plain file stem: no separator to climb out of the folder, no dot first to hide the key."""


def generate_key_files(directory: Path, name: str) -> tuple[Path, Path, str]:
    """Write NAME.pem (private, mode 0600) and NAME.pub.pem; returns both paths and the keyid.
    NAME is a plain file stem, so the private key lands in ``directory`` and nowhere else."""
    if not _KEY_NAME.fullmatch(name):
        raise UsageError(
            f"--name {name!r}: give a plain file stem (letters, digits, '-', '_' and '.', not "
            "'.' first), so the key is written inside --out"
        )
    private_path, public_path = directory / f"{name}.pem", directory / f"{name}.pub.pem"
    for path in (private_path, public_path):
        if path.exists():
            raise KeyFileError(f"{path} already exists; a key is never overwritten")
    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    try:
        write_atomic(private_path, private_pem, mode=0o600, replace=False)
        write_atomic(public_path, public_pem, mode=0o644, replace=False)
    except FileExistsError as exc:
        raise KeyFileError(f"{exc.filename} already exists; a key is never overwritten") from None
    return private_path, public_path, keyid_of(key.public_key())
