"""Material of many files, pinned by a manifest that ships in the package.

An evaluation read from hundreds of files (MemoryCode's 360 dialogues) pins each of them the
way ``_cache.Pin`` pins one: by sha256 and size. Their digests live in a manifest file under
``memrank/evaluations/data/`` (``<sha256> <size> <name>`` a line), and the manifest itself is
pinned by the one digest the code holds: the dataset bundle's (sha256 over ``<name>
<sha256>`` lines in name order, as ``_cache.bundle`` computes it). So an edited manifest is
refused before any file is read, and every file is checked on every load.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from memrank.errors import DatasetMismatch
from memrank.evaluations._cache import Material, Pin, load

__all__ = ["Manifest", "load_all"]


@dataclass(frozen=True)
class Manifest:
    """Where an evaluation's files come from, and the digest their manifest must have."""

    evaluation: str
    """The folder under the data dir (``memorycode``)."""
    manifest: str
    """The manifest's file name in ``memrank/evaluations/data/``."""
    url: str
    """The base URL a file's name is appended to, to download it."""
    bundle_sha256: str
    variable: str
    """The environment variable naming a folder that holds the files."""


def _pins(manifest: Manifest) -> list[Pin]:
    """The pinned files the manifest lists, after its own digest was checked."""
    text = files("memrank.evaluations").joinpath("data", manifest.manifest).read_text()
    listed = []
    for line in text.splitlines():
        sha256, size, name = line.split(" ", 2)
        listed.append(Pin(manifest.evaluation, name, manifest.url + name, sha256, int(size)))
    lines = "".join(f"{p.name} {p.sha256}\n" for p in sorted(listed, key=lambda p: p.name))
    actual = hashlib.sha256(lines.encode()).hexdigest()
    if actual != manifest.bundle_sha256:
        raise DatasetMismatch(
            f"memrank/evaluations/data/{manifest.manifest}: the manifest's digest is {actual}, "
            f"the code pins {manifest.bundle_sha256}; reinstall memrank"
        )
    return listed


def load_all(manifest: Manifest, given: str | Path | None) -> list[Material]:
    """Every file the manifest pins, each checked against its sha256 and size."""
    return [load(pin, given, manifest.variable) for pin in _pins(manifest)]
