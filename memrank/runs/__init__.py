"""Runs the command line tracks: the crash-safe journal a run appends its traces to, the local
registry of runs (submit, watch, ls, show, kill), and the progress line a long run prints.

The states of a run are here, apart from the registry, so the command line can list them
without loading pydantic (``memrank --help`` stays fast).
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["RunState"]


class RunState(StrEnum):
    """Where a run is in its life."""

    RUNNING = "running"
    DONE = "done"
    """Finished and saved (refused runs and runs with failed tasks too; see exit_code)."""
    FAILED = "failed"
    """Stopped by an error before a result was made."""
    INTERRUPTED = "interrupted"
    """Stopped by Ctrl-C; its journal resumes it."""
    KILLED = "killed"
    """Stopped by ``memrank kill``; its journal resumes it."""
    LOST = "lost"
    """Recorded as running, but its process is gone (killed hard, or the machine stopped)."""
