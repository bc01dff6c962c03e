"""Finding a signed run by what a reader has in hand: an id, a file, or a run page's address."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import orjson

from memrank.errors import UsageError

__all__ = ["envelope_naming", "locate"]

_HEX = re.compile(r"[0-9a-f]{8,64}")
_RUN_PAGE = re.compile(r"runs/([0-9a-f]{8,64})(?:/|\.html|$)")


def locate(target: str, artifacts: Path, *, what: str = "RUN") -> Path:
    """The envelope ``target`` names: an envelope file, an artifact id (or a unique prefix of at
    least 8 hex digits), or the address of its run page on a board."""
    path = Path(target)
    if path.is_file():
        return path
    page = _RUN_PAGE.search(target)
    prefix = page.group(1) if page else target.lower()
    if not _HEX.fullmatch(prefix):
        raise UsageError(
            f"{what} {target!r} is neither a file, an artifact id nor a run page's address; "
            "give one of them (memrank verify lists the artifact ids)"
        )
    found = sorted((artifacts / "runs").glob(f"{prefix}*.json"))
    if len(found) != 1:
        count = "no artifact" if not found else f"{len(found)} artifacts"
        raise UsageError(
            f"{what} {target!r}: {count} in {artifacts / 'runs'} start with {prefix}; give more "
            "of the artifact id, or --artifacts where the run is"
        )
    return found[0]


def envelope_naming(scores_file: Path, artifacts: Path) -> Path:
    """The envelope in ``artifacts/runs`` whose statement names ``scores_file`` (by digest)."""
    digest = hashlib.sha256(scores_file.read_bytes()).hexdigest()
    wanted = f"scores/{digest}.json".encode()
    for envelope in sorted((artifacts / "runs").glob("*.json")):
        try:
            payload = base64.b64decode(orjson.loads(envelope.read_bytes())["payload"])
        except (OSError, ValueError, KeyError, TypeError, orjson.JSONDecodeError):
            continue
        if wanted in payload:
            return envelope
    raise UsageError(
        f"{scores_file}: no envelope in {artifacts / 'runs'} names this scores file; give the "
        "artifact id instead, or --artifacts where its envelope is"
    )
