"""What a build starts from: board.toml, the trust root, and every envelope verified against it.

The verifier is memrank.artifacts' own (what ``memrank verify`` runs): a refused artifact,
a development observation among them, is reported with its reason and never reaches a page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memrank.artifacts import Root, Verification, held_by_store, load_trust, verify_directory
from memrank.board.config import BoardConfig
from memrank.board.config import load as load_config
from memrank.board.field import FIELD_TOML, FieldPage, load_field
from memrank.board.identity import SYSTEMS_TOML, load_identities
from memrank.board.memo import NO_MEMO, Memo
from memrank.board.model import Identity

__all__ = ["BOARD_TOML", "Loaded", "load"]

BOARD_TOML = "board.toml"
ROOT_JSON = "root.json"


@dataclass(frozen=True)
class Loaded:
    """The inputs of a build, every artifact already verified or refused."""

    config: BoardConfig
    trust: Root
    roots: tuple[Root, ...]
    """Every trust-root version the chain walk verified, oldest first, ending with ``trust``."""
    verification: Verification
    identities: dict[str, Identity]
    """artifacts/systems.toml: who each system is, by signed name."""
    stored: frozenset[str]
    """artifacts/results-store.json: the result files the results store is known to hold."""
    field: FieldPage | None = None
    """artifacts/field.toml: the field's published numbers, when the file is there."""


def load(artifacts: Path, memo: Memo = NO_MEMO, spare: Callable[[], None] | None = None) -> Loaded:
    """Read ``artifacts/board.toml``, ``systems.toml`` and ``field.toml``, and verify every
    ``artifacts/runs/*.json`` against ``artifacts/root.json``; a trust root that cannot be
    trusted raises. ``memo`` remembers which artifacts' scores files passed every check;
    ``spare()`` is called once the verifying leaves a core to spare (``verify_all``)."""
    config = load_config(artifacts / BOARD_TOML)
    trust = load_trust(artifacts / ROOT_JSON)
    entry = memo.entry("artifacts whose scores file passed every check")
    known = memo.get(entry)
    known_good = set(known.decode().split()) if known else set()
    before = len(known_good)
    verification = verify_directory(artifacts, trust, known_good=known_good, spare=spare)
    if memo.active and len(known_good) > before:
        memo.put(entry, "\n".join(sorted(known_good)).encode())
    return Loaded(
        config=config,
        trust=trust.root,
        roots=trust.chain,
        verification=verification,
        identities=load_identities(artifacts / SYSTEMS_TOML),
        stored=held_by_store(artifacts),
        field=load_field(artifacts / FIELD_TOML),
    )
