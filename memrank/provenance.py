"""Facts recorded with every run, and the evidence class derived from them.

``capture(evaluation)`` records which memrank ran (its version, the hash of the code that
produces measurements, how it was installed and, for a checkout, the git state), the
evaluation's dataset bundle, and the machine. ``evidence_of`` turns those facts into the
evidence class; nobody chooses it.
"""

from __future__ import annotations

import hashlib
import os
import sys
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
    "environment",
    "evidence_of",
    "install_kind",
    "is_publishable",
    "pipeline",
]

PACKAGE_DIR = Path(__file__).resolve().parent
# Board templates are presentation, not measurement; bytecode differs between installs.
_SKIPPED_DIRS = frozenset({"__pycache__", "templates"})
_SKIPPED_SUFFIXES = frozenset({".pyc", ".pyo"})


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


def is_publishable(evidence: Evidence, slice_name: str | None) -> bool:
    """A development observation is never publishable, and neither is a slice."""
    return evidence is not Evidence.DEVELOPMENT and slice_name is None


def capture(evaluation: Evaluation) -> Provenance:
    """The facts of a run of ``evaluation`` by the memrank running now."""
    return Provenance(
        pipeline=pipeline(),
        dataset_bundle=evaluation.dataset_bundle(),
        environment=environment(),
    )


@cache
def pipeline() -> PipelineRecord:
    """The running memrank: computed once per process (its files do not change under a run)."""
    from memrank import __version__

    install = install_kind()
    commit, dirty = (None, None) if install is Install.WHEEL else _git_state(PACKAGE_DIR)
    return PipelineRecord(
        memrank_version=__version__,
        code_sha256=code_sha256(PACKAGE_DIR),
        install=install,
        git_commit=commit,
        dirty=dirty,
    )


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
    import platform

    return EnvironmentRecord(
        python=platform.python_version(),
        platform=f"{sys.platform}-{platform.machine()}",
        cpus=os.cpu_count(),
    )
