"""The trust root's content: roles, keys with validity windows, and per-track baselines.

These are the models of ``root.json``'s payload and the edits a rotation makes; signing and
walking the chain of versions live in ``_trust``.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from memrank._basics import UTCDateTime
from memrank.artifacts._keys import Ed25519PublicKey, keyid_of, public_hex, public_key_from_hex
from memrank.provenance import Evidence
from memrank.result import Result

__all__ = [
    "ROOT_TYPE",
    "DatasetBaseline",
    "KeyStatus",
    "Role",
    "Roles",
    "Root",
    "TrackPolicy",
    "TrustedKey",
]

ROOT_TYPE: Literal["https://memrank.dev/root/v1"] = "https://memrank.dev/root/v1"
_SIGNED = ConfigDict(frozen=True, extra="forbid")
_SHA256 = r"^[0-9a-f]{64}$"


class KeyStatus(StrEnum):
    ACTIVE = "active"
    REVOKED = "revoked"
    """Compromised or withdrawn: nothing it signed counts, whatever date the signed data claims."""


class TrustedKey(BaseModel):
    """A public key and when it may sign."""

    model_config = _SIGNED
    public: str = Field(pattern=r"^[0-9a-f]{64}$")
    """The raw 32-byte Ed25519 public key, lowercase hex; its sha256 is its keyid."""
    valid_from: UTCDateTime
    valid_until: UTCDateTime | None = None
    """Set when the key is retired: runs issued after it are refused, earlier ones still count."""
    status: KeyStatus = KeyStatus.ACTIVE

    def valid_at(self, moment: datetime) -> bool:
        return self.valid_from <= moment and (
            self.valid_until is None or moment <= self.valid_until
        )


class Role(BaseModel):
    """Who may sign for a role, and how many distinct keys must."""

    model_config = _SIGNED
    keyids: tuple[str, ...] = Field(min_length=1)
    threshold: int = Field(ge=1)

    @model_validator(mode="after")
    def _reachable(self) -> Role:
        if len(set(self.keyids)) != len(self.keyids):
            raise ValueError("a role lists a keyid twice")
        if self.threshold > len(self.keyids):
            raise ValueError(f"threshold {self.threshold} exceeds the {len(self.keyids)} key(s)")
        return self


class Roles(BaseModel):
    model_config = _SIGNED
    root: Role
    """Signs root.json; rotating it takes a threshold of the old keys and of the new."""
    release: Role
    """Signs runs."""


class DatasetBaseline(BaseModel):
    """The material an evaluation must have been run on to be admitted to a track."""

    model_config = _SIGNED
    sha256: str = Field(pattern=_SHA256)
    question_counts: dict[str, int]


class TrackPolicy(BaseModel):
    """What a track admits."""

    model_config = _SIGNED
    pipelines: tuple[str, ...] = ()
    """Accepted pipeline code hashes."""
    dataset_bundles: dict[str, DatasetBaseline] = Field(default_factory=dict)
    """By evaluation name."""
    evidence: tuple[Evidence, ...] = (Evidence.REPRODUCIBLE,)
    """Accepted evidence classes; a development observation is refused whatever this says."""

    @field_validator("pipelines")
    @classmethod
    def _hashes(cls, pipelines: tuple[str, ...]) -> tuple[str, ...]:
        for pipeline in pipelines:
            if len(pipeline) != 64 or pipeline.strip("0123456789abcdef"):
                raise ValueError(f"pipeline {pipeline!r} is not a sha256 in lowercase hex")
        return pipelines


class Root(BaseModel):
    """One version of the trust root."""

    model_config = {**_SIGNED, "populate_by_name": True}
    type_: Literal["https://memrank.dev/root/v1"] = Field(default=ROOT_TYPE, alias="_type")
    version: int = Field(ge=1)
    expires: UTCDateTime
    roles: Roles
    keys: dict[str, TrustedKey]
    """By keyid (sha256 of the raw public key, recomputed on load)."""
    tracks: dict[str, TrackPolicy] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _keys_are_named_by_their_digest(self) -> Root:
        for keyid, key in self.keys.items():
            if keyid_of(public_key_from_hex(key.public)) != keyid:
                raise ValueError(f"keys[{keyid[:12]}...] is not the sha256 of its public key")
        for name, role in (("root", self.roles.root), ("release", self.roles.release)):
            unknown = [k for k in role.keyids if k not in self.keys]
            if unknown:
                raise ValueError(f"role {name} lists keyids not in keys: {', '.join(unknown)}")
        return self

    @classmethod
    def first(
        cls,
        root_keys: list[Ed25519PublicKey],
        release_keys: list[Ed25519PublicKey],
        *,
        root_threshold: int,
        release_threshold: int,
        expires: datetime,
        valid_from: datetime,
    ) -> Root:
        """Version 1: the given keys, each valid from ``valid_from``, and no tracks yet."""
        keys = {
            keyid_of(k): TrustedKey(public=public_hex(k), valid_from=valid_from)
            for k in [*root_keys, *release_keys]
        }
        return cls(
            version=1,
            expires=expires,
            roles=Roles(
                root=Role(keyids=_unique(root_keys), threshold=root_threshold),
                release=Role(keyids=_unique(release_keys), threshold=release_threshold),
            ),
            keys=keys,
        )

    # -- the edits a new version makes (each returns a new Root, same version) --------------

    def next(self, expires: datetime) -> Root:
        """The next version, expiring at ``expires``, otherwise unchanged."""
        return self.model_copy(update={"version": self.version + 1, "expires": expires})

    def with_key(
        self, role: Literal["root", "release"], key: Ed25519PublicKey, valid_from: datetime
    ) -> Root:
        keyid = keyid_of(key)
        keys = {**self.keys, keyid: TrustedKey(public=public_hex(key), valid_from=valid_from)}
        current: Role = getattr(self.roles, role)
        if keyid in current.keyids:
            return self.model_copy(update={"keys": keys})
        grown = current.model_copy(update={"keyids": (*current.keyids, keyid)})
        roles = self.roles.model_copy(update={role: grown})
        return self.model_copy(update={"keys": keys, "roles": roles})

    def without_key(self, role: Literal["root", "release"], keyid: str) -> Root:
        """Take a key out of a role (a root key rotated out); a release key is retired instead,
        so that runs it signed inside its window still verify."""
        current: Role = getattr(self.roles, role)
        shrunk = current.model_copy(
            update={"keyids": tuple(k for k in current.keyids if k != keyid)}
        )
        return self.model_copy(update={"roles": self.roles.model_copy(update={role: shrunk})})

    def with_threshold(self, role: Literal["root", "release"], threshold: int) -> Root:
        changed = Role(keyids=getattr(self.roles, role).keyids, threshold=threshold)
        return self.model_copy(update={"roles": self.roles.model_copy(update={role: changed})})

    def with_key_status(
        self, keyid: str, *, valid_until: datetime | None = None, revoked: bool = False
    ) -> Root:
        """Retire (``valid_until``) or revoke a key; it stays listed so old signatures resolve."""
        key = self.keys[keyid]
        changed = key.model_copy(
            update={
                "valid_until": valid_until or key.valid_until,
                "status": KeyStatus.REVOKED if revoked else key.status,
            }
        )
        return self.model_copy(update={"keys": {**self.keys, keyid: changed}})

    def accepting(self, track: str, evidence: tuple[Evidence, ...]) -> Root:
        """Set the evidence classes ``track`` accepts."""
        policy = self.tracks.get(track, TrackPolicy()).model_copy(update={"evidence": evidence})
        return self.model_copy(update={"tracks": {**self.tracks, track: policy}})

    def pinning(self, track: str, result: Result) -> Root:
        """Admit ``result``'s pipeline hash and dataset bundle (question counts too) to ``track``."""
        assert result.provenance is not None
        policy = self.tracks.get(track, TrackPolicy())
        code = result.provenance.pipeline.code_sha256
        bundle = result.provenance.dataset_bundle
        pinned = policy.model_copy(
            update={
                "pipelines": policy.pipelines + (() if code in policy.pipelines else (code,)),
                "dataset_bundles": {
                    **policy.dataset_bundles,
                    result.evaluation.name: DatasetBaseline(
                        sha256=bundle.sha256, question_counts=bundle.question_counts
                    ),
                },
            }
        )
        return self.model_copy(update={"tracks": {**self.tracks, track: pinned}})


def _unique(keys: list[Ed25519PublicKey]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(keyid_of(k) for k in keys))
