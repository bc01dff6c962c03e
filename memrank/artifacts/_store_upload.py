"""Uploading a results store folder to the GitHub release that is the results store.

Every file of the folder is checked before anything is sent: named ``<sha256>.json``, and its
bytes have that sha256. Each is then uploaded unless the release holds it whole already. An
upload that broke off leaves GitHub a partial asset (state ``starter``) that blocks its name:
it is deleted and the file uploaded again, so the command's own retry, or running it again,
finishes with one asset per digest. An asset of a file's name counts as the file only when its
size is the file's and its sha256 is the name: GitHub's ``digest``, or, for an asset from before
GitHub computed one, the asset read back as any reader reads it. Last, the digests of every
whole asset the release holds are written to ``artifacts/results-store.json``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from memrank.artifacts._github_release import Asset, GitHubReleases
from memrank.artifacts._results_store import DIGEST, ResultsStore, record_stored
from memrank.errors import ArtifactRefused, StoreUploadFailed, UsageError

__all__ = ["UPLOAD_ATTEMPTS", "StoreUpload", "result_files", "upload_results"]

UPLOAD_ATTEMPTS = 3
"""Uploads of one file before the command gives up (each after a look at what GitHub kept)."""


@dataclass(frozen=True)
class StoreUpload:
    """What uploading a results store folder did."""

    release_id: int
    """GitHub's id of the release."""
    created: bool
    """The release was made by this upload."""
    outcomes: dict[str, str]
    """Each result file's digest: ``uploaded``, ``resumed`` (a partial upload of it deleted
    first) or ``present`` (the release holds it whole, uploaded by an earlier run, another
    one meanwhile, or this one's try whose answer was lost)."""
    held: frozenset[str]
    """The digests of every whole result file the release holds: results-store.json."""
    unlisted: tuple[str, ...]
    """Assets named by a digest GitHub says their bytes do not have: left out of ``held``."""


def result_files(store: Path) -> dict[str, Path]:
    """The result files of a results store folder by digest, each checked: named
    ``<sha256>.json`` and holding bytes of that sha256."""
    if not store.is_dir():
        raise UsageError(
            f"{store}: no such results store folder; give the folder `memrank attest "
            "--results-store` placed the result files in"
        )
    found: dict[str, Path] = {}
    for path in sorted(store.glob("*.json")):
        if not DIGEST.fullmatch(path.stem):
            raise UsageError(
                f"{path}: not named <sha256>.json; a results store folder holds only result "
                "files named by their digest: move it out"
            )
        try:
            with path.open("rb") as handle:
                actual = hashlib.file_digest(handle, "sha256").hexdigest()
        except OSError as exc:
            raise UsageError(f"{path}: cannot read it ({exc.strerror})") from None
        if actual != path.stem:
            raise UsageError(
                f"{path}: its sha256 is {actual}, not its name; it is not the result file its "
                "name says: remove it, or place the attested file again"
            )
        found[path.stem] = path
    return found


def upload_results(
    store: Path, artifacts: Path, releases: GitHubReleases, *, tag: str
) -> StoreUpload:
    """Upload the result files of ``store`` to the release tagged ``tag`` (made when there is
    none) and write what it holds to ``artifacts/results-store.json``."""
    files = result_files(store)
    release_id, created = releases.release(tag)
    listed = {asset.name: asset for asset in releases.assets(release_id)}
    outcomes = {
        digest: _put(releases, release_id, digest, path.read_bytes(), listed.get(path.name))
        for digest, path in files.items()
    }
    held, unlisted = _held(releases.assets(release_id))
    record_stored(artifacts, held)
    return StoreUpload(release_id, created, outcomes, held, unlisted)


def _put(
    releases: GitHubReleases, release_id: int, digest: str, data: bytes, existing: Asset | None
) -> str:
    """Upload one result file unless the release holds it whole; its outcome."""
    name = f"{digest}.json"
    deleted = False
    why = ""
    for attempt in range(UPLOAD_ATTEMPTS + 1):
        if existing is not None and existing.whole:  # listed, or named by a 422, or both
            _check(existing, digest, data)
            return "present"
        if attempt == UPLOAD_ATTEMPTS:
            break
        if existing is not None:  # a partial upload holds the name
            releases.delete(existing)
            deleted = True
        made = releases.upload(release_id, name, data)
        if isinstance(made, Asset) and made.whole:
            _check(made, digest, data)
            return "resumed" if deleted else "uploaded"
        why = made if isinstance(made, str) else f"GitHub kept it in state {made.state!r}"
        existing = next((a for a in releases.assets(release_id) if a.name == name), None)
    raise StoreUploadFailed(
        f"{name}: not uploaded after {UPLOAD_ATTEMPTS} tries (the last: {why}); run again"
    )


def _check(asset: Asset, digest: str, data: bytes) -> None:
    """The release's asset is the result file: its size, and its sha256 (GitHub's digest, or
    the asset read back when GitHub gives none)."""
    if asset.size != len(data):
        raise StoreUploadFailed(
            f"{asset.name}: the release's asset has {asset.size} bytes, the result file "
            f"{len(data)}; delete the asset from the release and run again"
        )
    if asset.digest is not None:
        if asset.digest != f"sha256:{digest}":
            raise StoreUploadFailed(
                f"{asset.name}: GitHub gives the release's asset the digest {asset.digest}, not "
                "its name; delete the asset from the release and run again"
            )
        return
    try:
        ResultsStore(asset.download_url, url_template=asset.download_url).fetch(digest, len(data))
    except ArtifactRefused as exc:
        raise StoreUploadFailed(
            f"{asset.name}: the release's asset, read back: {exc.message}"
        ) from None


def _held(assets: Iterable[Asset]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The digests of the whole result files among ``assets``, and the names of assets whose
    GitHub digest is not their name (left out)."""
    held: set[str] = set()
    unlisted: list[str] = []
    for asset in assets:
        digest = asset.name.removesuffix(".json")
        if not (asset.whole and asset.name.endswith(".json") and DIGEST.fullmatch(digest)):
            continue
        if asset.digest not in (None, f"sha256:{digest}"):
            unlisted.append(asset.name)
            continue
        held.add(digest)
    return frozenset(held), tuple(sorted(unlisted))
