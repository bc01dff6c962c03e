"""The command line for keys, trust, attest and verify, driven through click's runner."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from click.testing import Result as Outcome

from memrank.artifacts import keyid_of, load_public_key, load_trust
from memrank.cli import main
from memrank.result import Result


def invoke(*args: str | Path, env: dict[str, str] | None = None) -> Outcome:
    return CliRunner().invoke(main, [str(a) for a in args], env=env)


@pytest.fixture
def workspace(tmp_path: Path, wheel_run: Result, demo_run: Result) -> Path:
    """Keys made by the CLI, a trust root pinning the demo, and two saved runs."""
    for name in ("root-1", "release-1", "root-2"):
        done = invoke("keys", "generate", "--out", tmp_path / "keys", "--name", name)
        assert done.exit_code == 0, done.output
    wheel_run.save(tmp_path / "wheel-run.json")
    demo_run.save(tmp_path / "checkout-run.json")
    keys, root = tmp_path / "keys", tmp_path / "artifacts" / "root.json"
    done = invoke(
        "trust", "init", "--root", root, "--root-key", keys / "root-1.pub.pem",
        "--release-key", keys / "release-1.pub.pem", "--sign", keys / "root-1.pem",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    done = invoke(
        "trust", "update", "--root", root, "--pin", "textual", tmp_path / "wheel-run.json",
        "--sign", keys / "root-1.pem",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    return tmp_path


def test_keys_generate_writes_a_private_key_only_its_owner_reads(tmp_path: Path) -> None:
    done = invoke("keys", "generate", "--out", tmp_path, "--name", "release-9")
    assert done.exit_code == 0, done.output
    private, public = tmp_path / "release-9.pem", tmp_path / "release-9.pub.pem"
    assert private.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    keyid = keyid_of(load_public_key(public))
    assert f"keyid:      {keyid}" in done.output
    assert invoke("keys", "id", public).output.strip() == keyid
    again = invoke("keys", "generate", "--out", tmp_path, "--name", "release-9")
    assert again.exit_code == 2 and "never overwritten" in again.output


def test_keys_id_refuses_what_is_not_a_public_key(tmp_path: Path) -> None:
    (tmp_path / "x.pem").write_text("hello")
    done = invoke("keys", "id", tmp_path / "x.pem")
    assert done.exit_code == 2 and "not a PEM public key" in done.output


def test_attest_then_verify_reports_ok(workspace: Path) -> None:
    artifacts = workspace / "artifacts"
    done = invoke(
        "attest", workspace / "wheel-run.json", "--track", "textual", "--division", "open-source",
        "--key", workspace / "keys" / "release-1.pem", "--artifacts", artifacts,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "evidence:   reproducible_evidence (publishable)" in done.output
    artifact_id = re.search(r"artifact:\s+(\w+)", done.output)[1]  # type: ignore[index]
    verified = invoke("verify", artifacts)
    assert verified.exit_code == 0, verified.output
    assert f"ok       {artifacts}/runs/{artifact_id}.json" in verified.output
    assert "reproducible_evidence" in verified.output and "1 verified, 0 refused" in verified.output
    # One envelope file, with the trust root given explicitly, verifies the same way.
    single = invoke(
        "verify", artifacts / "runs" / f"{artifact_id}.json", "--trust", artifacts / "root.json"
    )
    assert single.exit_code == 0 and "1 verified" in single.output


def test_attest_into_a_store_then_verify_shallow_and_deep(workspace: Path) -> None:
    artifacts, store = workspace / "artifacts", workspace / "store"
    done = invoke(
        "attest", workspace / "wheel-run.json", "--track", "textual", "--division", "open-source",
        "--key", workspace / "keys" / "release-1.pem", "--artifacts", artifacts,
        "--results-store", store,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert not (artifacts / "results").exists() and len(list(store.glob("*.json"))) == 1
    assert len(list((artifacts / "scores").glob("*.json"))) == 1
    shallow = invoke("verify", artifacts)
    assert shallow.exit_code == 0 and "(result file not checked)" in shallow.output
    unnamed = invoke("verify", artifacts, "--deep")
    assert unnamed.exit_code == 6 and "SubjectMissing" in unnamed.output
    deep = invoke("verify", artifacts, "--deep", "--store", store)
    assert deep.exit_code == 0, deep.output
    assert "1 verified, 0 refused" in deep.output and "not checked" not in deep.output
    wrong = invoke("verify", artifacts, "--deep", "--store", "http://example.org/{sha256}")
    assert wrong.exit_code == 2 and "https://" in wrong.output


def test_verify_reports_each_refusal_and_exits_6(workspace: Path) -> None:
    artifacts, key = workspace / "artifacts", workspace / "keys" / "release-1.pem"
    pem = key.read_text()
    for run in ("wheel-run.json", "checkout-run.json"):
        done = invoke(
            "attest", workspace / run, "--track", "textual", "--division", "commercial",
            "--artifacts", artifacts, env={"MEMRANK_SIGNING_KEY": pem},
        )  # fmt: skip
        assert done.exit_code == 0, done.output
    verified = invoke("verify", artifacts)
    assert verified.exit_code == 6
    assert "refused  DevelopmentObservation:" in verified.output
    assert "1 verified, 1 refused" in verified.output
    assert "1 of 2 artifact(s) refused" in verified.output


def test_attest_without_a_key_says_where_one_comes_from(workspace: Path) -> None:
    done = invoke(
        "attest", workspace / "wheel-run.json", "--track", "textual", "--division", "commercial",
        env={"MEMRANK_SIGNING_KEY": ""},
    )  # fmt: skip
    assert done.exit_code == 2 and "MEMRANK_SIGNING_KEY" in done.output


def test_trust_update_rotates_the_root_key_and_show_prints_the_chain(workspace: Path) -> None:
    keys, root = workspace / "keys", workspace / "artifacts" / "root.json"
    old = keyid_of(load_public_key(keys / "root-1.pub.pem"))
    new = keyid_of(load_public_key(keys / "root-2.pub.pem"))
    missing_new = invoke(
        "trust", "update", "--root", root, "--add-key", "root", keys / "root-2.pub.pem",
        "--remove-key", "root", old, "--sign", keys / "root-1.pem",
    )  # fmt: skip
    assert missing_new.exit_code == 5 and "its own root keys" in missing_new.output
    rotated = invoke(
        "trust", "update", "--root", root, "--add-key", "root", keys / "root-2.pub.pem",
        "--remove-key", "root", old, "--sign", keys / "root-1.pem", "--sign", keys / "root-2.pem",
    )  # fmt: skip
    assert rotated.exit_code == 0, rotated.output
    shown = invoke("trust", "show", "--root", root)
    assert shown.exit_code == 0
    assert "version 3" in shown.output and "chain:      1 -> 2 -> 3" in shown.output
    assert f"  {new}  active" in shown.output and old not in shown.output.split("release:")[0]
    assert "track:      textual accepts reproducible_evidence" in shown.output
    assert load_trust(root).root.roles.root.keyids == (new,)


def test_trust_update_retires_revokes_and_accepts(workspace: Path) -> None:
    keys, root = workspace / "keys", workspace / "artifacts" / "root.json"
    release = keyid_of(load_public_key(keys / "release-1.pub.pem"))
    done = invoke(
        "trust", "update", "--root", root, "--retire", release, "--accept", "textual",
        "reproducible_evidence", "--accept", "textual", "endpoint_observation",
        "--expires", "2099-01-01", "--sign", keys / "root-1.pem",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    trusted = load_trust(root).root
    assert trusted.keys[release].valid_until is not None
    assert [e.value for e in trusted.tracks["textual"].evidence] == [
        "reproducible_evidence",
        "endpoint_observation",
    ]
    assert trusted.expires.year == 2099
    revoked = invoke(
        "trust", "update", "--root", root, "--revoke", release, "--sign", keys / "root-1.pem"
    )
    assert revoked.exit_code == 0 and "revoked" in revoked.output
    unknown = invoke(
        "trust", "update", "--root", root, "--revoke", "ab" * 32, "--sign", keys / "root-1.pem"
    )
    assert unknown.exit_code == 2 and "no key" in unknown.output


def test_trust_init_refuses_to_replace_a_root(workspace: Path) -> None:
    keys = workspace / "keys"
    done = invoke(
        "trust", "init", "--root", workspace / "artifacts" / "root.json",
        "--root-key", keys / "root-1.pub.pem", "--release-key", keys / "release-1.pub.pem",
        "--sign", keys / "root-1.pem",
    )  # fmt: skip
    assert done.exit_code == 2 and "trust update" in done.output


def test_verify_with_an_anchor_refuses_a_replaced_root(workspace: Path, tmp_path: Path) -> None:
    root = workspace / "artifacts" / "root.json"
    anchor = tmp_path / "main-root.json"
    anchor.write_bytes(root.read_bytes())  # version 2, as main has it
    (workspace / "artifacts" / "roots" / "1.json").replace(root)  # back to version 1
    done = invoke("verify", workspace / "artifacts", "--anchor", anchor)
    assert done.exit_code == 5 and "rollback" in done.output
    assert (
        invoke("verify", workspace / "artifacts", "--anchor", tmp_path / "none.json").exit_code == 5
    )
