"""The acceptance round trip: memrank built as a wheel and installed into a fresh virtualenv
runs the demo; that run attests and verifies as reproducible evidence, while the same run
from this checkout is a development observation the verifier refuses."""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

import memrank
from memrank.artifacts import attest, verify
from memrank.errors import DevelopmentObservation, UncommittedBuild
from memrank.provenance import Evidence, code_sha256
from memrank.result import Install, Result

from .conftest import NOW, Keys, Store, first_root

REPOSITORY = Path(__file__).parents[2]
RUN_THE_DEMO = """
import sys
import memrank
from memrank.provenance import PACKAGE_DIR, code_sha256
memrank.run(memrank.system("word-overlap"), memrank.evaluation("demo")).save(sys.argv[1])
print(PACKAGE_DIR)
print(code_sha256(PACKAGE_DIR))
"""


def _uv() -> str:
    found = os.environ.get("UV") or shutil.which("uv")
    assert found, "the wheel round trip needs uv on PATH (the README's setup installs it)"
    return found


def _call(*args: str | Path, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{args[:3]} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel_made_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Result, Path, str, str]:
    """A demo run by memrank installed from its wheel: the result, where it ran, its code hash,
    the wheel's sha256."""
    work = tmp_path_factory.mktemp("wheel")
    uv = _uv()
    _call(uv, "build", "--wheel", "--out-dir", work / "dist", REPOSITORY, cwd=work)
    (wheel,) = (work / "dist").glob("memrank-*.whl")
    _call(uv, "venv", "--python", sys.executable, work / "venv", cwd=work)
    python = work / "venv" / "bin" / "python"
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    # The #sha256 fragment is how the installation records which wheel it came from.
    _call(uv, "pip", "install", "--python", python, f"memrank @ {wheel.as_uri()}#sha256={digest}",
          cwd=work)  # fmt: skip
    printed = _call(python, "-c", RUN_THE_DEMO, work / "run.json", cwd=work).split()
    return Result.load(work / "run.json"), Path(printed[0]), printed[1], digest


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(REPOSITORY), *args], capture_output=True, text=True, check=True
    ).stdout


def test_the_wheel_records_itself_as_a_wheel_with_the_checkouts_code_hash(
    wheel_made_run: tuple[Result, Path, str, str],
) -> None:
    result, package_dir, wheel_hash, wheel_sha256 = wheel_made_run
    assert "site-packages" in package_dir.parts
    assert result.provenance is not None
    pipeline = result.provenance.pipeline
    assert pipeline.install is Install.WHEEL
    # The build recorded the tree it was made from: this checkout's commit and state.
    assert pipeline.git_commit == _git("rev-parse", "HEAD").strip()
    assert pipeline.dirty is bool(_git("status", "--porcelain").strip())
    assert pipeline.wheel_sha256 == wheel_sha256
    assert f"memrank=={memrank.__version__}" in pipeline.distributions
    assert any(d.startswith("pydantic==") for d in pipeline.distributions)
    assert pipeline.python == platform.python_version()
    # Same files, same hash: the installed wheel and this checkout of the same tree.
    assert pipeline.code_sha256 == wheel_hash == code_sha256(Path(memrank.__file__).parent)
    assert result.provenance.dataset_bundle == memrank.evaluation("demo").dataset_bundle()


def test_the_wheel_run_verifies_and_the_checkout_run_is_refused(
    wheel_made_run: tuple[Result, Path, str, str], tmp_path: Path, keys: Keys
) -> None:
    wheel_result = wheel_made_run[0]
    store = Store(tmp_path / "artifacts", keys)
    store.publish_root(
        first_root(keys, wheel_result, valid_from=NOW - timedelta(days=1)), [keys.root]
    )
    attested = attest(
        wheel_result, "textual", "open-source", keys.release, artifacts=store.directory
    )
    assert wheel_result.provenance is not None
    if wheel_result.provenance.pipeline.dirty:  # a checkout being worked on: not publishable
        with pytest.raises(UncommittedBuild):
            verify(attested.envelope, store.trust)
    else:  # a clean clone, as CI's
        run = verify(attested.envelope, store.trust)
        assert run.predicate.evidence is Evidence.REPRODUCIBLE and run.predicate.publishable
        assert run.result == wheel_result

    checkout_result = memrank.run(memrank.system("word-overlap"), memrank.evaluation("demo"))
    checkout = attest(
        checkout_result, "textual", "open-source", keys.release, artifacts=store.directory
    )
    assert checkout.statement.predicate.evidence is Evidence.DEVELOPMENT
    with pytest.raises(DevelopmentObservation):
        verify(checkout.envelope, store.trust)
