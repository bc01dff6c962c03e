"""Pinned material: where an evaluation's files are looked for, fetched to, and how they are checked.

A file is pinned by its URL, sha256 and size. It is looked for at the path the caller gives
(the file itself or a folder holding it), else at the path in the evaluation's environment
variable, else at ``<data dir>/<evaluation>/<name>``, where the data dir is ``MEMRANK_DATA_DIR``
or the user's cache dir. Only that last place is downloaded into when the file is missing.
Size and sha256 are checked on every load, not only after a download.

An evaluation read from hundreds of files (MemoryCode's 360 dialogues) pins each of them the
same way, but their digests live in a manifest file under ``memrank/evaluations/data/``
(``<sha256> <size> <name>`` a line), and the manifest itself is pinned by the one digest the
code holds: the dataset bundle's (sha256 over ``<name> <sha256>`` lines in name order, as
``bundle`` computes it). So an edited manifest is refused before any file is read, and every
file is checked on every load.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from memrank._files import user_cache_dir, write_atomic
from memrank.errors import DatasetMismatch, DatasetMissing
from memrank.evaluation import BundleFile, DatasetBundle, question_counts
from memrank.task import Task

__all__ = [
    "DATA_DIR_VARIABLE",
    "Manifest",
    "Material",
    "Pin",
    "bundle",
    "data_dir",
    "load",
    "load_all",
    "read",
]

DATA_DIR_VARIABLE = "MEMRANK_DATA_DIR"
_TIMEOUT_S = 30.0
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Pin:
    """One file of an evaluation's material, pinned."""

    evaluation: str
    """The folder under the data dir (``locomo``)."""
    name: str
    """The file's path inside that folder (``locomo10.json``, ``100K-conv1/chat.json``)."""
    url: str
    """Where it is downloaded from when it is missing."""
    sha256: str
    size: int


@dataclass(frozen=True)
class Material:
    """A file's bytes as read, where from, and its entry in the dataset bundle."""

    path: Path
    raw: bytes
    file: BundleFile


def data_dir() -> Path:
    """``MEMRANK_DATA_DIR`` when set, else memrank's folder in the user's cache dir."""
    given = os.environ.get(DATA_DIR_VARIABLE)
    return Path(given).expanduser() if given else user_cache_dir() / "memrank"


def load(pin: Pin, given: str | Path | None, variable: str) -> Material:
    """The pinned file's bytes, after its size and sha256 were checked against the pin."""
    if given is None and os.environ.get(variable):
        given = os.environ[variable]
        source = f"${variable}"
    else:
        source = "the path given"
    if given is not None:
        path = Path(given).expanduser()
        path = path / pin.name if path.is_dir() else path
        if not path.is_file():
            raise DatasetMissing(
                f"{path}: no such file ({source}); put {pin.name} there "
                f"(from {pin.url}) or point {variable} at a copy"
            )
    else:
        path = data_dir() / pin.evaluation / pin.name
        if not path.is_file():
            _download(pin, path, variable)
    raw = path.read_bytes()
    _check(pin, path, raw, named_by=None if given is None else source)
    return Material(
        path=path, raw=raw, file=BundleFile(name=pin.name, sha256=pin.sha256, size=pin.size)
    )


def read(path: str | Path, name: str) -> Material:
    """A file that is not pinned, read as it is; its bundle entry records its own digest."""
    path = Path(path).expanduser()
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DatasetMissing(f"{path}: cannot read it ({exc.strerror})") from None
    digest = hashlib.sha256(raw).hexdigest()
    return Material(path=path, raw=raw, file=BundleFile(name=name, sha256=digest, size=len(raw)))


def bundle(files: Sequence[BundleFile], tasks: Sequence[Task]) -> DatasetBundle:
    """The dataset bundle of the tasks read from these files.

    One file's digest is the bundle's; several files are digested by name and sha256, in
    name order, so the bundle changes exactly when one of its files does.
    """
    if len(files) == 1:
        digest = files[0].sha256
    else:
        lines = "".join(f"{f.name} {f.sha256}\n" for f in sorted(files, key=lambda f: f.name))
        digest = hashlib.sha256(lines.encode()).hexdigest()
    return DatasetBundle(
        sha256=digest,
        files=tuple(sorted(files, key=lambda f: f.name)),
        question_counts=question_counts(tuple(tasks)),
    )


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
    text = resources.files("memrank.evaluations").joinpath("data", manifest.manifest).read_text()
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


def _check(pin: Pin, path: Path, raw: bytes | bytearray, named_by: str | None = None) -> None:
    """Refuse a file that is not the pinned one. ``named_by`` says who named the path (an
    environment variable, a path given): such a file is never downloaded, so deleting it
    would not bring the pinned one back."""
    actual = hashlib.sha256(raw).hexdigest()
    if actual == pin.sha256 and len(raw) == pin.size:
        return
    if len(raw) < pin.size:  # shorter says nothing of how: cut short, or another version
        what = f"is {len(raw):,} bytes, shorter than the pinned {pin.size:,}"
    elif len(raw) > pin.size:
        what = f"is {len(raw):,} bytes, longer than the pinned {pin.size:,}"
    else:
        what = "has the pinned size but different bytes"
    raise DatasetMismatch(
        f"{path} {what}; its sha256 is {actual}, the pin expects {pin.sha256}. It is not the "
        f"pinned {pin.name}: "
        + (
            f"replace it with {pin.url}, or stop naming it ({named_by}) to use the data dir"
            if named_by
            else f"delete it to download it again, or replace it with {pin.url}"
        )
    )


def _download(pin: Pin, path: Path, variable: str) -> None:
    """Fetch the pinned file to ``path``: held in memory (a load reads it whole anyway) and
    written only once it is checked."""
    import httpx

    received = bytearray()
    try:
        with httpx.stream("GET", pin.url, follow_redirects=True, timeout=_TIMEOUT_S) as response:
            response.raise_for_status()
            for chunk in response.iter_bytes(_CHUNK):
                received += chunk
                if len(received) > pin.size:
                    break  # already not the pinned file; _check says so below
    except httpx.HTTPError as exc:
        raise DatasetMissing(
            f"{path}: not there, and downloading it from {pin.url} failed ({exc}). Offline? "
            f"Put {pin.name} (sha256 {pin.sha256}) at {path}, set {DATA_DIR_VARIABLE} to a "
            f"folder holding {pin.evaluation}/{pin.name}, or point {variable} at a copy"
        ) from None
    _check(pin, path, received)
    write_atomic(path, received)
