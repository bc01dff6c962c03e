"""The run registry of every test here lives in a temporary MEMRANK_HOME."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memrank.runs.registry import HOME_VARIABLE


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv(HOME_VARIABLE, str(folder))
    return folder


@pytest.fixture
def locomo_file(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = shared_data / "locomo" / "locomo10.json"
    monkeypatch.setenv("MEMRANK_LOCOMO_FILE", str(path))
    return path


def memrank_process(*args: str, **more: object) -> subprocess.Popen[str]:
    """``memrank ARGS`` in a process of its own, as a user starts it."""
    return subprocess.Popen(
        [sys.executable, "-m", "memrank", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
        **more,  # type: ignore[arg-type]
    )


def memrank_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``memrank ARGS`` run to its end in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "memrank", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ),
    )


def memrank_here(*args: str) -> subprocess.CompletedProcess[str]:
    """``memrank ARGS`` through click's runner, in this process (no interpreter to start)."""
    from click.testing import CliRunner

    from memrank.cli import main

    outcome = CliRunner().invoke(main, list(args))
    if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
        raise outcome.exception
    return subprocess.CompletedProcess(args, outcome.exit_code, outcome.stdout, outcome.stderr)


slow = pytest.mark.skipif(
    not (os.environ.get("MEMRANK_SLOW") or os.environ.get("CI")),
    reason="slow (a whole second run, or a wheel built and installed): set MEMRANK_SLOW=1; "
    "CI always runs it",
)
"""A test too slow for the everyday suite, run under CI and whenever MEMRANK_SLOW is set."""
