"""The cases that used to pass silently or say something misleading, each now refused or
worded truly, and each output path that used to raise a traceback now refused before any work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from memrank.cli import main


def _invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    outcome = CliRunner().invoke(main, list(args), env=env)
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit), outcome.exc_info
    return outcome.exit_code, outcome.output


def test_an_empty_slice_is_refused_not_run_in_full() -> None:
    code, output = _invoke("run", "word-overlap", "demo:")
    assert code == 2
    assert "'demo:' names no slice" in output


def test_an_option_of_the_wrong_type_is_refused_naming_it() -> None:
    code, output = _invoke("run", "random", "demo", "--option", "seed=abc")
    assert code == 2
    assert "--option seed=abc: random takes seed as int" in output


def test_an_option_is_typed_by_the_constructor(tmp_path: Path) -> None:
    saved = tmp_path / "run.json"
    code, output = _invoke(
        "run", "fixed-context", "demo", "--option", "budget_words=300", "--save", str(saved)
    )
    assert code == 0, output
    assert '"budget_words":300' in saved.read_text()


def test_serve_without_its_extra_prints_nothing_before_refusing(tmp_path: Path) -> None:
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "uvicorn.py").write_text("raise ImportError('not installed')\n")
    done = subprocess.run(
        [sys.executable, "-m", "memrank", "serve", "word-overlap", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(blocker)},
    )
    assert done.returncode == 2, done.stderr
    assert "serving" not in done.stdout
    assert "pip install 'memrank[serve]'" in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("run", "word-overlap", "demo", "--save", "{blocked}/run.json"),
        ("keys", "generate", "--out", "{blocked}/keys"),
        ("build-site", "--out", "{blocked}/site"),
        ("trust", "init", "--root", "{blocked}/root.json"),
    ],
    ids=["run --save", "keys generate --out", "build-site --out", "trust init --root"],
)
def test_an_unwritable_output_is_refused_before_the_work(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("in the way")  # a path under a file can never be written, even by root
    filled = [a.format(blocked=blocked) for a in args]
    if filled[0] == "trust":
        filled += ["--root-key", "x.pub.pem", "--release-key", "y.pub.pem", "--sign", "z.pem"]
    code, output = _invoke(*filled)
    assert code == 2, output
    assert "cannot be written" in output and str(blocked) in output
    assert "Traceback" not in output


def test_attest_into_an_unwritable_artifacts_folder_is_refused_before_signing(
    tmp_path: Path,
) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    import memrank

    run = memrank.run(memrank.system("word-overlap"), memrank.evaluation("demo"))
    saved = run.save(tmp_path / "run.json")
    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    blocked = tmp_path / "a-file"
    blocked.write_text("in the way")
    code, output = _invoke(
        "attest", str(saved), "--track", "textual", "--division", "open-source",
        "--artifacts", str(blocked / "artifacts"),
        env={"MEMRANK_SIGNING_KEY": pem.decode()},
    )  # fmt: skip
    assert code == 2, output
    assert f"--artifacts {blocked / 'artifacts'}: cannot be written" in output
