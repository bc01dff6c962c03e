"""attest checks its key and track against the trust root before writing anything: what the
verifier would refuse later is refused now, and the artifacts directory stays as it was."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from memrank.cli import main
from memrank.result import Result
from tests.artifacts.conftest import Store, keyid


def _pem(key: Ed25519PrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def _attest(store: Store, run: Path, key: Ed25519PrivateKey, track: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(
        main,
        ["attest", str(run), "--track", track, "--division", "open-source",
         "--artifacts", str(store.directory)],
        env={"MEMRANK_SIGNING_KEY": _pem(key)},
    )  # fmt: skip
    return outcome.exit_code, outcome.output


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_the_root_key_is_refused_before_anything_is_written(
    store: Store, wheel_run: Result, tmp_path: Path
) -> None:
    run = wheel_run.save(tmp_path / "run.json")
    before = _files(store.directory)
    code, output = _attest(store, run, store.keys.root, "textual")
    assert code == 3, output
    assert f"key {keyid(store.keys.root)} is not a release key" in output
    assert "it is a root key" in output
    assert _files(store.directory) == before


def test_an_unlisted_key_is_refused(store: Store, wheel_run: Result, tmp_path: Path) -> None:
    run = wheel_run.save(tmp_path / "run.json")
    code, output = _attest(store, run, store.keys.other, "textual")
    assert code == 3 and "is not a release key" in output and "root key" not in output


def test_a_mistyped_track_is_refused_naming_the_tracks(
    store: Store, wheel_run: Result, tmp_path: Path
) -> None:
    run = wheel_run.save(tmp_path / "run.json")
    before = _files(store.directory)
    code, output = _attest(store, run, store.keys.release, "textural")
    assert code == 3, output
    assert "--track 'textural' is not a track of" in output and "tracks: textual" in output
    assert _files(store.directory) == before


def test_the_release_key_on_a_listed_track_attests(
    store: Store, wheel_run: Result, tmp_path: Path
) -> None:
    run = wheel_run.save(tmp_path / "run.json")
    code, output = _attest(store, run, store.keys.release, "textual")
    assert code == 0, output
