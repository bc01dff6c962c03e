"""Runs in the background: ``submit`` starts one and returns at once, ``stop`` ends one.

A submitted run is an ordinary ``memrank run`` in a process of its own (its own session, so
the terminal's Ctrl-C does not reach it), writing its output to the run folder's log.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from memrank._basics import now_utc
from memrank._files import write_atomic
from memrank.errors import UsageError
from memrank.runs.registry import (
    LOG,
    PID,
    RunRecord,
    RunState,
    find,
    process_of,
    run_folder,
    save_record,
)
from memrank.runs.request import Request, new_record

__all__ = ["stop", "submit"]

_GRACE_S = 10.0


def submit(request: Request) -> RunRecord:
    """Record the run, start it in the background, and return its record at once."""
    arguments = []
    if request.concurrency != Request.concurrency:  # the default goes without saying
        arguments += ["--concurrency", str(request.concurrency)]
    for option in request.options:
        arguments += ["--option", option]
    if request.save is not None:
        arguments += ["--save", str(request.save.absolute())]
    if request.place is not None:
        arguments += ["--on", request.place]
    record = save_record(new_record(request).model_copy(update={"arguments": tuple(arguments)}))
    folder = run_folder(record.id)
    command = [sys.executable, "-m", "memrank", "run", request.target, request.evaluation]
    command += ["--run-id", record.id, "--progress", *arguments]
    with (folder / LOG).open("ab") as log:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_interruptible,
        )
    write_atomic(folder / PID, str(process.pid).encode())
    return record


def _interruptible() -> None:
    """The background run answers ``stop``'s SIGINT even when submit itself was started with
    SIGINT ignored, as a script's background job (``cmd &``) is: an ignored SIGINT is
    inherited, and Python then never turns it into KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def stop(run_id: str) -> RunRecord:
    """Interrupt a running run (its journal keeps what it did), killing it if it will not stop.
    A run recorded as running with no process known is only recorded killed, so it can be
    resumed or removed."""
    record = find(run_id)
    if record.state is not RunState.RUNNING:
        raise UsageError(f"run {record.id} is {record.state.value}, not running; nothing to kill")
    pid = process_of(record)
    try:
        if pid is not None:
            os.kill(pid, signal.SIGINT)
            if not _ended(pid, _GRACE_S):
                os.kill(pid, signal.SIGKILL)
                _ended(pid, _GRACE_S)
    except ProcessLookupError:
        pass
    stopped = find(record.id).model_copy(
        update={"state": RunState.KILLED, "pid": None, "finished": now_utc(), "error": "killed"}
    )
    return save_record(stopped)


def _ended(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            finished, _ = os.waitpid(pid, os.WNOHANG)  # our own child: reap it
            if finished == pid:
                return True
        except ChildProcessError:  # not our child: ask whether it is there
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
        time.sleep(0.05)
    return False
