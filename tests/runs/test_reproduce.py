"""memrank reproduce, end to end: a committed run rebuilt from its recorded commit reruns
byte-identical; a run whose scores were edited and signed again is read as differing, with
the flipped task named; verify --deep --reproduce makes a missing result file again.

Each recreates the recorded build (a worktree at the commit, its wheel, the recorded
distributions from the package index), so they run under CI and with MEMRANK_SLOW=1."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from memrank.artifacts import (
    IN_TOTO_PAYLOAD_TYPE,
    Root,
    canonical_bytes,
    read_root,
    results_cache,
    seal,
    sign_root,
    write_root,
)
from memrank.cli import main
from tests.artifacts.conftest import NOW
from tests.committed_runs import ARTIFACTS, committed_run
from tests.runs.conftest import slow

REPOSITORY = ARTIFACTS.parent


def memrank_cli(*args: str | Path, shared_data: Path) -> tuple[int, str]:
    os.environ["MEMRANK_DATA_DIR"] = str(shared_data)
    done = CliRunner().invoke(main, [str(a) for a in args])
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception
    return done.exit_code, done.output


def test_every_committed_run_records_a_commit_this_repository_holds() -> None:
    # reproduce rebuilds a run's wheel from the commit its build recorded: a commit dropped
    # from history (a squash, a rebase after signing) would leave that run unreproducible.
    missing = []
    for envelope in sorted((ARTIFACTS / "runs").glob("*.json")):
        payload = base64.b64decode(json.loads(envelope.read_bytes())["payload"])
        pipeline = json.loads(payload)["predicate"]["pipeline"]
        if pipeline["install"] != "wheel":
            continue  # an endpoint observation's client, re-measured, not rebuilt
        commit = pipeline["git_commit"]
        held = subprocess.run(
            ["git", "-C", str(REPOSITORY), "merge-base", "--is-ancestor", commit, "HEAD"],
            capture_output=True,
            timeout=60,
        )
        if held.returncode != 0:
            missing.append(f"{envelope.name}: {commit}")
    assert not missing, missing


@slow
def test_the_committed_bm25_locomo_run_reproduces_byte_identical_from_a_fresh_clone(
    tmp_path: Path, shared_data: Path
) -> None:
    envelope, _ = committed_run("bm25", "locomo")
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "--quiet", str(REPOSITORY), str(clone)], check=True, timeout=300
    )
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["MEMRANK_DATA_DIR"] = str(shared_data)
    done = subprocess.run(
        ["uv", "run", "--quiet", "memrank", "reproduce", envelope.stem, "--no-progress"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "verdict:    byte-identical" in done.stdout
    _, statement = committed_run("bm25", "locomo")
    result_digest = statement["subject"][1]["digest"]["sha256"]
    assert (results_cache() / f"{result_digest}.json").is_file()  # the store is a cache


@slow
def test_a_run_whose_scores_were_edited_and_signed_again_differs(
    tmp_path: Path, shared_data: Path
) -> None:
    envelope, statement = committed_run("bm25", "demo")
    artifacts = tmp_path / "artifacts"
    (artifacts / "runs").mkdir(parents=True)
    for folder in ("scores", "timings"):
        (artifacts / folder).mkdir()
    timings = statement["subject"][2]["name"]
    shutil.copyfile(ARTIFACTS / timings, artifacts / timings)
    # One task's word-match turned from a miss into a hit, and the run signed again by a
    # release key of a trust root of the test's own (the result file is not at hand).
    scores = json.loads((ARTIFACTS / statement["subject"][0]["name"]).read_bytes())
    column = scores["measures"]["word-match"]
    flipped = next(i for i, v in enumerate(column["values"]) if v == 0)
    column["values"][flipped] = 1
    edited = canonical_bytes(scores)
    digest = hashlib.sha256(edited).hexdigest()
    (artifacts / "scores" / f"{digest}.json").write_bytes(edited)
    statement["subject"][0] = {"name": f"scores/{digest}.json", "digest": {"sha256": digest}}
    root_key, release_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    committed = read_root(ARTIFACTS / "root.json")
    root = Root.first(
        [root_key.public_key()],
        [release_key.public_key()],
        root_threshold=1,
        release_threshold=1,
        expires=NOW + timedelta(days=365),
        valid_from=NOW - timedelta(days=3650),
    ).model_copy(update={"tracks": committed.tracks})
    write_root(artifacts / "root.json", sign_root(root, [root_key]))
    payload = canonical_bytes(statement)
    forged = artifacts / "runs" / f"{hashlib.sha256(payload).hexdigest()}.json"
    forged.write_bytes(seal(IN_TOTO_PAYLOAD_TYPE, payload, [release_key]))

    code, output = memrank_cli(
        "reproduce", forged.stem[:16], "--artifacts", artifacts, "--repository", REPOSITORY,
        "--no-progress", shared_data=shared_data,
    )  # fmt: skip
    assert code == 9, output
    assert "verdict:    differs" in output
    assert f"  {scores['tasks']['id'][flipped]}  1 -> 0" in output
    assert "word-match: 1 of" in output
    assert envelope.stem not in output  # the forged artifact, not the committed one
    # the rerun made the signed result file: the digests name the cause, not nondeterminism
    assert "cause:      the signed scores file is not the function of the signed result" in output
    assert digest in output and "own variation" not in output


@slow
def test_verify_deep_reproduce_makes_a_missing_result_file_again(
    tmp_path: Path, shared_data: Path
) -> None:
    envelope, statement = committed_run("bm25", "demo")
    artifacts = tmp_path / "artifacts"
    shutil.copytree(ARTIFACTS, artifacts)
    result_name = statement["subject"][1]["name"]
    (artifacts / result_name).unlink()
    (results_cache() / result_name.split("/")[1]).unlink(missing_ok=True)
    target = artifacts / "runs" / envelope.name

    code, output = memrank_cli("verify", "--deep", target, shared_data=shared_data)
    assert code == 6 and ("SubjectMissing" in output or "ResultStoreError" in output), output

    code, output = memrank_cli("verify", "--deep", "--reproduce", target, shared_data=shared_data)
    assert code == 0, output
    assert "byte-identical" in output and "1 verified, 0 refused" in output
