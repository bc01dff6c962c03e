"""The run registry of every test here lives in a temporary MEMRANK_HOME."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memrank.runs.registry import HOME_VARIABLE


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv(HOME_VARIABLE, str(folder))
    return folder


class Gate:
    """Holds every run a test starts after its first ``after`` units until ``open()``
    (tests/runs/gate/sitecustomize.py): the test signals a run it knows is part way."""

    def __init__(self, file: Path) -> None:
        self.file = file

    def open(self) -> None:
        self.file.touch()


@pytest.fixture
def gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    """Runs started by this test (and the background runs they submit) wait before their
    second unit until the test opens the gate; it is opened at the test's end in any case."""
    held = Gate(tmp_path / "gate-open")
    folder = Path(__file__).parent / "gate"
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    )
    monkeypatch.setenv("MEMRANK_TEST_GATE", str(held.file))
    yield held
    held.open()


@pytest.fixture
def locomo_file(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = shared_data / "locomo" / "locomo10.json"
    monkeypatch.setenv("MEMRANK_LOCOMO_FILE", str(path))
    return path


def _as_from_a_terminal() -> None:
    """Ctrl-C reaches the child as it does a command typed at a terminal, even when the tests
    themselves run with SIGINT ignored (started as a script's background job, ``cmd &``)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def memrank_process(*args: str, **more: object) -> subprocess.Popen[str]:
    """``memrank ARGS`` in a process of its own, as a user starts it."""
    return subprocess.Popen(
        [sys.executable, "-m", "memrank", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
        preexec_fn=_as_from_a_terminal,
        **more,  # type: ignore[arg-type]
    )


def memrank_cli(
    *args: str, timeout: float = 120, ignoring_sigint: bool = False
) -> subprocess.CompletedProcess[str]:
    """``memrank ARGS`` run to its end in a process of its own (``ignoring_sigint``: started
    as a script's background job is, with SIGINT ignored)."""
    return subprocess.run(
        [sys.executable, "-m", "memrank", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ),
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        if ignoring_sigint
        else _as_from_a_terminal,
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
