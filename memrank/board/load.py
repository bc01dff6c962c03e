"""The build's first stage: what it starts from, before any envelope is read.

board.toml (how the board is laid out), the trust root and its chain, artifacts/systems.toml
(who each system is), artifacts/results-store.json (which result files the store holds) and
artifacts/field.toml (the field's published numbers); the envelopes are the next stage's
(``memrank.board.verify``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memrank.artifacts import TrustRoot, held_by_store, load_trust
from memrank.board.config import BoardConfig
from memrank.board.config import load as load_config
from memrank.board.field import FIELD_TOML, FieldPage, load_field
from memrank.board.identity import SYSTEMS_TOML, load_identities
from memrank.board.model import Identity

__all__ = ["BOARD_TOML", "ROOT_JSON", "Inputs", "load"]

BOARD_TOML = "board.toml"
ROOT_JSON = "root.json"


@dataclass(frozen=True)
class Inputs:
    """What a build is made from besides the envelopes."""

    config: BoardConfig
    trust: TrustRoot
    """The newest trust root, every envelope is verified against, with the chain of versions
    walked to it."""
    identities: dict[str, Identity]
    """artifacts/systems.toml: who each system is, by signed name."""
    stored: frozenset[str]
    """artifacts/results-store.json: the result files the results store is known to hold."""
    field: FieldPage | None = None
    """artifacts/field.toml: the field's published numbers, when the file is there."""


def load(artifacts: Path) -> Inputs:
    """Read ``artifacts/board.toml``, ``root.json`` (walking its chain), ``systems.toml``,
    ``results-store.json`` and ``field.toml``; a trust root that cannot be trusted raises."""
    return Inputs(
        config=load_config(artifacts / BOARD_TOML),
        trust=load_trust(artifacts / ROOT_JSON),
        identities=load_identities(artifacts / SYSTEMS_TOML),
        stored=held_by_store(artifacts),
        field=load_field(artifacts / FIELD_TOML),
    )
