"""The journal keeps whole lines only, begins a unit again from nothing, and refuses another
version; the progress line counts tasks and units, and is silent unless asked off a terminal."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

import memrank
from memrank._basics import now_utc
from memrank.errors import UsageError
from memrank.runs.journal import Journal, read_journal
from memrank.runs.progress import Progress
from tests.runs.conftest import memrank_cli


def _journaled(path: Path) -> memrank.Result:
    demo = memrank.evaluation("demo")
    journal = Journal.start(path, "demo", demo.version, now_utc())
    try:
        return memrank.run(memrank.system("word-overlap"), demo, observer=journal)
    finally:
        journal.close()


def test_a_torn_last_line_is_dropped_and_the_unit_runs_again(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    result = _journaled(path)
    whole = path.read_bytes()
    cut = whole[: whole.rindex(b'\n{"unit"') + 1] + b'{"unit": "demo_al'  # killed mid-write
    path.write_bytes(cut)
    earlier = read_journal(path)
    assert earlier.units == {} and earlier.pending == len(result.traces)

    journal = Journal.resume(path, memrank.evaluation("demo").version)
    try:
        again = memrank.run(
            memrank.system("word-overlap"), memrank.evaluation("demo"), observer=journal
        )
    finally:
        journal.close()
    reread = read_journal(path)
    (outcome,) = reread.units.values()
    assert [t.task.id for t in outcome.traces] == [t.task.id for t in again.traces]
    assert reread.pending == 0  # the unit begun again dropped the traces of its first try


def test_a_complete_unit_is_handed_back_not_run(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    first = _journaled(path)
    journal = Journal.resume(path, memrank.evaluation("demo").version)
    try:
        spy = memrank.system("word-overlap")
        again = memrank.run(spy, memrank.evaluation("demo"), observer=journal)
    finally:
        journal.close()
    assert again.traces == first.traces and again.values == first.values


def test_another_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    _journaled(path)
    with pytest.raises(UsageError, match="the evaluation is now at other@v2; start a new run"):
        Journal.resume(path, "other@v2")


def test_the_progress_line_counts_tasks_units_rate_and_time_left() -> None:
    stream = io.StringIO()
    progress = Progress(stream, tasks=5, units=1, label="word-overlap × demo", live=False)
    memrank.run(memrank.system("word-overlap"), memrank.evaluation("demo"), observer=progress)
    line = stream.getvalue()
    assert re.fullmatch(
        r"word-overlap × demo  5/5 tasks \(100%\)  1/1 units  [\d.]+ tasks/s  ETA 0:00:00\n", line
    ), line


def test_progress_is_silent_off_a_terminal_unless_asked() -> None:
    quiet = memrank_cli("run", "word-overlap", "demo")
    assert quiet.returncode == 0
    assert "tasks (" not in quiet.stderr and " units  " not in quiet.stderr, quiet.stderr
    assert quiet.stderr.startswith("run:        "), quiet.stderr  # the id first, at once
    asked = memrank_cli("run", "word-overlap", "demo", "--progress")
    assert "5/5 tasks (100%)  1/1 units" in asked.stderr


def test_a_redrawn_progress_line_is_cut_to_the_terminal_width(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    from memrank._drive import UnitOutcome
    from memrank.runs.progress import Progress

    monkeypatch.setenv("COLUMNS", "40")
    stream = io.StringIO()
    progress = Progress(stream, tasks=1986, units=10, label="hybrid × locomo", live=True)
    progress.unit_finished("conv-26", UnitOutcome([], None, None))
    drawn = stream.getvalue().removeprefix("\r").removesuffix("\033[K")
    assert len(drawn) < 40 and drawn.endswith("…") and drawn.startswith("hybrid × locomo  0/1986")


def test_a_live_progress_line_says_a_unit_is_starting_before_its_first_task(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    monkeypatch.setenv("COLUMNS", "200")
    from memrank.runs.progress import Progress

    stream = io.StringIO()
    progress = Progress(stream, tasks=1986, units=10, label="hybrid × locomo", live=True)
    assert progress.done("conv-26") is None
    assert "0/1986 tasks (0%)  0/10 units" in stream.getvalue()
    assert "unit conv-26: starting" in stream.getvalue()


def test_the_progress_line_fits_the_terminal_it_is_drawn_on_not_stdouts() -> None:
    """stderr a 40-column terminal, stdout redirected (``memrank run ... > out.txt``): every
    redrawn line is cut to 40 columns, the width of the stream the line is written to."""
    import fcntl
    import os
    import struct
    import subprocess
    import sys
    import termios

    master, terminal = os.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))
    environment = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    process = subprocess.Popen(
        [sys.executable, "-m", "memrank", "run", "word-overlap", "demo"],
        stdout=subprocess.PIPE,
        stderr=terminal,
        env=environment,
    )
    os.close(terminal)
    drawn = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal's other end closed: the run is over
            break
        if not chunk:
            break
        drawn += chunk
    os.close(master)
    process.communicate(timeout=60)
    assert process.returncode == 0, drawn
    segments = re.split(r"[\r\n]+", drawn.decode().replace("\033[K", ""))
    redrawn = [s for s in segments if s.startswith("word-overlap × demo  ")]
    assert redrawn, segments
    assert max(len(s) for s in redrawn) < 40, redrawn
