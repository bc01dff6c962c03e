"""The trust root as a chain of signed versions: sign, archive, and walk it.

``root.json`` is the newest version; every earlier one is kept as ``roots/<version>.json``
beside it. Walking starts at version 1 (or at an anchor the caller already trusts) and admits
version N+1 only when a threshold of version N's root keys and a threshold of its own signed it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from pydantic import ValidationError

from memrank._basics import now_utc
from memrank._files import read_at_most, write_atomic
from memrank.artifacts._canonical import canonical_bytes, parse_canonical
from memrank.artifacts._envelope import Opened, open_envelope, pae, seal
from memrank.artifacts._keys import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
    keyid_of,
    public_key_from_hex,
)
from memrank.artifacts._root import KeyStatus, Role, Root
from memrank.errors import (
    ArtifactRefused,
    RootExpired,
    RootMalformed,
    RootRollback,
    RootSignaturesUnmet,
    RootVersionRepeated,
    RootVersionSkipped,
)

__all__ = [
    "MAX_ROOT_BYTES",
    "ROOT_PAYLOAD_TYPE",
    "TrustRoot",
    "load_trust",
    "read_root",
    "sign_root",
    "write_root",
]

ROOT_PAYLOAD_TYPE = "application/vnd.memrank.root+json"
MAX_ROOT_BYTES = 1 << 20
HISTORY = "roots"


@dataclass(frozen=True)
class TrustRoot:
    """The newest verified root version, with its keys ready to verify signatures."""

    root: Root
    path: Path
    chain: tuple[Root, ...]
    """Every version walked and verified, oldest first (version 1, or the anchor), ending with
    ``root``: what a history of the trust root may be read from."""
    public_keys: dict[str, Ed25519PublicKey] = field(repr=False)

    @property
    def versions(self) -> tuple[int, ...]:
        """The versions walked, oldest first."""
        return tuple(root.version for root in self.chain)


def sign_root(root: Root, keys: Sequence[Ed25519PrivateKey]) -> bytes:
    """The envelope bytes of ``root`` signed by ``keys`` (re-validated before signing)."""
    try:
        checked = Root.model_validate_json(root.model_dump_json(by_alias=True))
    except ValidationError as exc:
        raise RootMalformed(f"root version {root.version} is not a valid root: {exc}") from None
    payload = canonical_bytes(checked.model_dump(mode="json", by_alias=True), what="the root")
    return seal(ROOT_PAYLOAD_TYPE, payload, keys)


def write_root(path: Path, envelope: bytes, *, now: datetime | None = None) -> TrustRoot:
    """Make ``envelope`` the newest version at ``path``, keeping the one it replaces in roots/.

    The chain is walked with the new version in place before anything is written, so a
    version that would not verify never replaces a good one.
    """
    chain = _history(path)
    previous = _parse(path, _read(path)) if path.exists() else None
    if previous is not None:
        chain.append(previous)
    walked = _walk([*chain, _parse(path, envelope)], anchor=None, now=now or now_utc(), newest=path)
    if previous is not None:
        write_atomic(path.parent / HISTORY / f"{previous.root.version}.json", previous.raw)
    write_atomic(path, envelope)
    return walked


def read_root(path: Path) -> Root:
    """The newest version's content, unverified: the starting point of the next version.

    ``write_root`` walks the whole chain before the next version replaces it.
    """
    return _parse(path, _read(path)).root


def load_trust(path: Path, *, anchor: Path | None = None, now: datetime | None = None) -> TrustRoot:
    """Walk ``roots/*.json`` then ``path`` and return the newest root, or refuse.

    ``anchor`` is a root file the caller already trusts (say, the one on the main branch):
    the walk starts there, so a chain that replaces or rolls back past it is refused.
    """
    chain = [*_history(path), _parse(path, _read(path))]
    trusted = None if anchor is None else _parse(anchor, _read(anchor))
    return _walk(chain, anchor=trusted, now=now or now_utc(), newest=path)


# -- the walk -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Version:
    """One root file, parsed but not yet trusted."""

    source: Path
    raw: bytes
    opened: Opened
    root: Root


def _walk(
    versions: list[_Version],
    *,
    anchor: _Version | None,
    now: datetime,
    newest: Path,
) -> TrustRoot:
    if anchor is not None:
        # History before the anchor was accepted when the anchor was; the newest must not be.
        trusted = anchor
        older = [v for v in versions[:-1] if v.root.version >= anchor.root.version]
        versions = [*older, versions[-1]]
    else:
        trusted = versions.pop(0)
        if trusted.root.version != 1:
            raise RootVersionSkipped(
                f"{trusted.source}: the chain starts at version {trusted.root.version}; keep "
                f"every earlier version as {HISTORY}/<version>.json beside root.json"
            )
    _require_threshold(trusted, trusted.root, "its own")
    walked = [trusted.root]
    for candidate in versions:
        version, current = candidate.root.version, trusted.root.version
        if version == current:
            if candidate.opened.payload != trusted.opened.payload:
                raise RootVersionRepeated(
                    f"{candidate.source}: a different root also claims version {version}; a "
                    "published version is never replaced, sign version "
                    f"{current + 1} instead"
                )
            continue
        if version < current:
            raise RootRollback(
                f"{candidate.source}: version {version} after version {current} is a rollback; "
                "restore the newest root"
            )
        if version > current + 1:
            raise RootVersionSkipped(
                f"{candidate.source}: version {version} follows version {current}; version "
                f"{current + 1} is missing from {HISTORY}/"
            )
        _require_threshold(candidate, trusted.root, f"version {current}'s")
        _require_threshold(candidate, candidate.root, "its own")
        trusted = candidate
        walked.append(candidate.root)
    if trusted.root.expires <= now:
        raise RootExpired(
            f"{newest}: root version {trusted.root.version} expired at "
            f"{trusted.root.expires.isoformat()}; the root keys must sign a new version "
            "(`memrank trust update --expires`)"
        )
    return TrustRoot(
        root=trusted.root,
        path=newest,
        chain=tuple(walked),
        public_keys={k: public_key_from_hex(v.public) for k, v in trusted.root.keys.items()},
    )


def _require_threshold(version: _Version, signers: Root, whose: str) -> None:
    """At least ``threshold`` distinct, unrevoked root-role keys of ``signers`` signed.

    Signatures by other keys are ignored rather than refused: a rotation is signed by the old
    keys and the new, and each side knows only its own.
    """
    role: Role = signers.roles.root
    message = pae(version.opened.payload_type, version.opened.payload)
    good = set()
    for keyid, signature in version.opened.signatures:
        key = signers.keys.get(keyid)
        if keyid not in role.keyids or key is None or key.status is KeyStatus.REVOKED:
            continue
        public = public_key_from_hex(key.public)
        try:
            public.verify(signature, message)
        except InvalidSignature:
            continue
        good.add(keyid_of(public))
    if len(good) < role.threshold:
        raise RootSignaturesUnmet(
            f"{version.source}: version {version.root.version} carries valid signatures from "
            f"{len(good)} of {whose} root keys; it needs {role.threshold}. Sign it with "
            "`memrank trust update --sign KEY` for each key required"
        )


def _parse(source: Path, raw: bytes) -> _Version:
    try:
        opened = open_envelope(raw, source=str(source))
        if opened.payload_type != ROOT_PAYLOAD_TYPE:
            raise RootMalformed(
                f"{source}: payloadType is {opened.payload_type!r}, not {ROOT_PAYLOAD_TYPE!r}"
            )
        parse_canonical(opened.payload, source=str(source))
        root = Root.model_validate_json(opened.payload, strict=True)
    except ArtifactRefused as exc:
        raise RootMalformed(exc.message) from None
    except ValidationError as exc:
        raise RootMalformed(f"{source}: not a valid memrank root: {exc}") from None
    return _Version(source=source, raw=raw, opened=opened, root=root)


def _history(path: Path) -> list[_Version]:
    """The earlier versions kept in roots/, oldest first, each named by the version it holds."""
    numbered = []
    for file in (path.parent / HISTORY).glob("*.json"):
        if not file.stem.isdigit():
            raise RootMalformed(f"{file}: files in {HISTORY}/ are named <version>.json")
        numbered.append((int(file.stem), file))
    chain = []
    for number, file in sorted(numbered):
        version = _parse(file, _read(file))
        if version.root.version != number:
            raise RootMalformed(f"{file}: holds version {version.root.version}, not {number}")
        chain.append(version)
    return chain


def _read(path: Path) -> bytes:
    try:
        raw = read_at_most(path, MAX_ROOT_BYTES)
    except OSError as exc:
        raise RootMalformed(
            f"{path}: cannot read the trust root ({exc.strerror}); create one with "
            "`memrank trust init`"
        ) from None
    if len(raw) > MAX_ROOT_BYTES:
        raise RootMalformed(f"{path}: over the {MAX_ROOT_BYTES}-byte cap for a root file")
    return raw
