"""Facts recorded with every run, and the evidence class derived from them.

``capture(evaluation)`` records which memrank ran (its version, the hash of the code that
produces measurements, how it was installed and, for a checkout, the git state), the
evaluation's dataset bundle, and the machine. ``evidence_of`` turns those facts into the
evidence class; nobody chooses it.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import sys
import sysconfig
from enum import StrEnum
from functools import cache
from pathlib import Path

import orjson

from memrank.evaluation import Evaluation
from memrank.result import EnvironmentRecord, Install, PipelineRecord, Provenance

__all__ = [
    "Evidence",
    "capture",
    "code_sha256",
    "distributions",
    "environment",
    "evidence_of",
    "install_kind",
    "is_committed_build",
    "is_publishable",
    "pipeline",
]

PACKAGE_DIR = Path(__file__).resolve().parent
BUILD_FILE = "_build.json"
"""What a wheel's build recorded of its source (hatch_build.py writes it): not code, so not
part of the code hash — one code hash may be built from many commits."""
# Board templates are presentation, not measurement; bytecode differs between installs.
_SKIPPED_DIRS = frozenset({"__pycache__", "templates"})
_SKIPPED_SUFFIXES = frozenset({".pyc", ".pyo"})
_SHA256 = re.compile(r"[0-9a-f]{64}")


class Evidence(StrEnum):
    """What a run is evidence of, derived from its provenance."""

    REPRODUCIBLE = "reproducible_evidence"
    """memrank ran from an installed wheel, and the system ran in-process."""
    ENDPOINT = "endpoint_observation"
    """The system was reached over the network: only its declared version says what answered."""
    DEVELOPMENT = "development_observation"
    """memrank ran from a mutable checkout (editable or source tree), however clean."""


def evidence_of(install: Install, transport: str) -> Evidence:
    """The evidence class of a run made by memrank installed as ``install``."""
    if install is not Install.WHEEL:
        return Evidence.DEVELOPMENT
    if transport != "in-process":
        return Evidence.ENDPOINT
    return Evidence.REPRODUCIBLE


def is_publishable(evidence: Evidence, slice_name: str | None, pipeline: PipelineRecord) -> bool:
    """A development observation is never publishable, and neither is a slice, nor a run of a
    wheel whose build records no commit or a dirty tree (nobody could rebuild what ran)."""
    return (
        evidence is not Evidence.DEVELOPMENT and slice_name is None and is_committed_build(pipeline)
    )


def is_committed_build(pipeline: PipelineRecord) -> bool:
    """Whether the build names the commit it was made from, and that tree was clean."""
    return pipeline.git_commit is not None and pipeline.dirty is False


def capture(evaluation: Evaluation) -> Provenance:
    """The facts of a run of ``evaluation`` by the memrank running now."""
    return Provenance(
        pipeline=pipeline(),
        dataset_bundle=evaluation.dataset_bundle(),
        environment=environment(),
    )


def memrank_version() -> str:
    """The installed distribution's version (``memrank.__version__``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memrank")
    except PackageNotFoundError:  # a tree that was never installed
        return "0.0.0+unknown"


@cache
def pipeline() -> PipelineRecord:
    """The running memrank: computed once per process (its files do not change under a run)."""
    install = install_kind()
    commit, dirty = _built_from() if install is Install.WHEEL else _git_state(PACKAGE_DIR)
    return PipelineRecord(
        memrank_version=memrank_version(),
        code_sha256=code_sha256(PACKAGE_DIR),
        install=install,
        git_commit=commit,
        dirty=dirty,
        wheel_sha256=_wheel_sha256() if install is Install.WHEEL else None,
        python=platform.python_version(),
        platform=sysconfig.get_platform(),
        distributions=distributions(),
    )


def distributions() -> tuple[str, ...]:
    """Every distribution importable here as ``name==version``: the name normalised as PEP 503
    says, one entry per name (the first on the path, as import finds it), sorted."""
    from importlib.metadata import distributions as installed

    found: dict[str, str | None] = {}
    for dist in installed():
        # what dist.metadata reads; dist.metadata and dist.version each parse it whole
        text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or dist.read_text("")
        name, version = _name_and_version(text or "")
        if name:
            found.setdefault(re.sub(r"[-_.]+", "-", name).lower(), version)
    return tuple(f"{name}=={version}" for name, version in sorted(found.items()))


def _name_and_version(metadata: str) -> tuple[str | None, str | None]:
    """The first ``Name`` and ``Version`` headers of a core-metadata file, as the email parser
    reads them (names in any case, up to the first blank line), without parsing every header as
    it would: some 20 ms of CPU a run saves with about 180 distributions installed."""
    found: dict[str, str] = {}
    for line in metadata.partition("\n\n")[0].splitlines():
        if not line.strip():
            break
        key, colon, value = line.partition(":")
        key = key.lower()
        if colon and key in ("name", "version") and key not in found and not line[0].isspace():
            found[key] = value.strip()
    return found.get("name"), found.get("version")


def _built_from() -> tuple[str | None, bool | None]:
    """The commit and dirtiness the wheel's build recorded; None, None when it recorded none
    (a wheel built before builds were recorded, or from a tree outside git)."""
    try:
        record = orjson.loads((PACKAGE_DIR / BUILD_FILE).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None, None
    commit, dirty = record.get("git_commit"), record.get("dirty")
    return (
        commit if isinstance(commit, str) else None,
        dirty if isinstance(dirty, bool) else None,
    )


def _wheel_sha256() -> str | None:
    """The wheel's sha256 as PEP 610 ``direct_url.json`` records it: ``archive_info.hashes``,
    the older ``archive_info.hash``, or a ``#sha256=`` fragment on the URL it came from."""
    from importlib.metadata import PackageNotFoundError, distribution
    from urllib.parse import urlparse

    try:
        direct = orjson.loads(distribution("memrank").read_text("direct_url.json") or "{}")
    except (PackageNotFoundError, orjson.JSONDecodeError):
        return None
    archive = direct.get("archive_info") or {}
    candidates = [
        (archive.get("hashes") or {}).get("sha256"),
        str(archive.get("hash") or "").removeprefix("sha256="),
        urlparse(str(direct.get("url", ""))).fragment.removeprefix("sha256="),
    ]
    return next((c for c in candidates if isinstance(c, str) and _SHA256.fullmatch(c)), None)


def code_sha256(package_dir: Path) -> str:
    """sha256 of the manifest ``"<sha256 of file>  <relative path>\\n"`` (as ``sha256sum`` prints).

    Paths are relative to the package's parent (``memrank/run.py``), POSIX-separated and sorted;
    bytecode and board templates are left out, so a wheel install and a checkout of the same
    commit give the same hash.
    """
    files = {}
    for path in package_dir.rglob("*"):
        relative = path.relative_to(package_dir.parent)
        if (
            path.is_file()
            and path.suffix not in _SKIPPED_SUFFIXES
            and not _SKIPPED_DIRS.intersection(relative.parts[:-1])
            and relative.parts != ("memrank", BUILD_FILE)
        ):
            files[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    manifest = "".join(f"{files[name]}  {name}\n" for name in sorted(files))
    return hashlib.sha256(manifest.encode()).hexdigest()


def install_kind() -> Install:
    """How the running memrank was installed, read from PEP 610 ``direct_url.json``."""
    from importlib.metadata import PackageNotFoundError, distribution
    from urllib.parse import unquote, urlparse

    try:
        dist = distribution("memrank")
    except PackageNotFoundError:
        return Install.SOURCE
    direct = orjson.loads(dist.read_text("direct_url.json") or "{}")
    if direct.get("dir_info", {}).get("editable"):
        checkout = Path(unquote(urlparse(direct.get("url", "")).path)).resolve()
        return Install.EDITABLE if PACKAGE_DIR.is_relative_to(checkout) else Install.SOURCE
    recorded = any(str(f) == "memrank/__init__.py" for f in dist.files or ())
    installed = Path(str(dist.locate_file("memrank/__init__.py"))).resolve()
    if recorded and installed == PACKAGE_DIR / "__init__.py":
        return Install.WHEEL
    return Install.SOURCE  # another copy is installed, but this tree is what runs


def _git_state(directory: Path) -> tuple[str | None, bool | None]:
    """The commit and dirtiness of the checkout holding ``directory``; None when there is none."""
    import subprocess

    try:
        head = subprocess.run(
            ["git", "-C", str(directory), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if head.returncode != 0:
            return None, None
        status = subprocess.run(
            ["git", "-C", str(directory), "status", "--porcelain"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):  # no git on this machine
        return None, None
    dirty = bool(status.stdout.strip()) if status.returncode == 0 else None
    return head.stdout.strip(), dirty


def environment() -> EnvironmentRecord:
    """The interpreter and machine, for the reader."""
    return EnvironmentRecord(
        python=platform.python_version(),
        platform=f"{sys.platform}-{platform.machine()}",
        cpus=os.cpu_count(),
    )
