"""The progress line of a long run, on stderr: tasks and units done, the rate, the time left, and
the calls in flight to a running service.

On a terminal it redraws one line in place, at most ten times a second; elsewhere (a log file,
a pipe) it writes one line per finished unit, and only when asked to (``--progress``).

A run is never silent while it waits on a service: a watch names on stderr, as it happens,
each call that has been in flight past a minute, and keeps the live progress line moving while
nothing finishes (its in-flight part shows the calls waiting and the age of the oldest).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from memrank._drive import Observer, UnitOutcome
from memrank._inflight import STUCK_AFTER, calls_in_flight
from memrank._units import PartDone
from memrank.integrity.canaries import is_canary
from memrank.trace import Trace

__all__ = ["Progress", "fitted", "in_flight_part", "watching"]

_REDRAW_S = 0.1
_WATCH_EVERY_S = 1.0


class Progress:
    """Counts tasks and units as they finish, passing every event on to ``inner``."""

    def __init__(
        self,
        stream: TextIO,
        *,
        tasks: int,
        units: int,
        label: str,
        inner: Observer | None = None,
        live: bool,
    ) -> None:
        self.stream, self.inner, self.live, self.label = stream, inner, live, label
        self.total_tasks, self.total_units = tasks, units
        self.tasks_done = self.units_done = self.kept = 0
        self._started = time.monotonic()
        self._drawn = 0.0
        self._ended = False
        self._lock = threading.Lock()

    def done(self, unit: str) -> UnitOutcome | None:
        earlier = self.inner.done(unit) if self.inner is not None else None
        with self._lock:
            if earlier is not None:
                asked = _benchmark_tasks(earlier.traces)
                self.kept += asked
                self.tasks_done += asked
                self.units_done += not isinstance(earlier, PartDone)  # the rest is still to run
            elif self.live:  # a unit's documents can take a while to be told: say so at once
                self.stream.write(
                    "\r" + fitted(f"{self.line()}  unit {unit}: starting", self.stream) + "\033[K"
                )
                self.stream.flush()
        return earlier

    def task_finished(self, trace: Trace) -> None:
        if self.inner is not None:
            self.inner.task_finished(trace)
        with self._lock:
            self.tasks_done += not is_canary(trace.task)  # canaries are not the evaluation's
        self.redraw()

    def redraw(self) -> None:
        """Redraw the live line, at most ten times a second (also while nothing finishes), until
        it is finished."""
        if not self.live:
            return
        with self._lock:
            now = time.monotonic()
            if not self._ended and now - self._drawn >= _REDRAW_S:
                self._drawn = now
                self.stream.write("\r" + fitted(self.line(), self.stream) + "\033[K")
                self.stream.flush()

    def unit_finished(self, unit: str, outcome: UnitOutcome) -> None:
        if self.inner is not None:
            self.inner.unit_finished(unit, outcome)
        with self._lock:
            self.units_done += 1
            self.stream.write(
                ("\r" + fitted(self.line(), self.stream) + "\033[K")
                if self.live
                else self.line() + "\n"
            )
            self.stream.flush()

    def finish(self) -> None:
        """End the redrawn line, once, so what follows (the stages after the last unit, the
        result) starts on a line of its own; it is not drawn again."""
        with self._lock:
            if self.live and not self._ended:
                self.stream.write("\n")
                self.stream.flush()
            self._ended = True

    def line(self) -> str:
        """``label  312/1986 tasks (15%)  3/10 units  145.2 tasks/s  ETA 0:00:11``, then the
        calls in flight to a service, if any (``2 calls in flight, oldest 14 s``)."""
        elapsed = max(time.monotonic() - self._started, 1e-9)
        ran = self.tasks_done - self.kept  # tasks kept from a journal took no time here
        rate = ran / elapsed
        left = self.total_tasks - self.tasks_done
        eta = _clock(left / rate) if rate > 0 else "--:--:--"
        share = 100 * self.tasks_done // self.total_tasks if self.total_tasks else 100
        waiting = in_flight_part()
        return (
            f"{self.label}  {self.tasks_done}/{self.total_tasks} tasks ({share}%)  "
            f"{self.units_done}/{self.total_units} units  {rate:.1f} tasks/s  ETA {_clock_or(left, eta)}"
        ) + (f"  {waiting}" if waiting else "")


def fitted(line: str, stream: TextIO) -> str:
    """``line`` cut to the width of the terminal ``stream`` is (stderr, wherever stdout goes):
    a redrawn line that wraps cannot be redrawn, and leaves a stale row behind at every redraw.
    Off a terminal, ``$COLUMNS`` or 80."""
    import os

    try:
        width = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):  # no descriptor, or not a terminal
        width = 0
    if width <= 0:  # a terminal that does not say its size counts as not one
        columns = os.environ.get("COLUMNS", "")
        width = int(columns) if columns.isdigit() and int(columns) > 0 else 80
    return line if len(line) < width else line[: max(width - 2, 1)] + "…"


def _clock(seconds: float) -> str:
    whole = int(seconds + 0.5)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def _clock_or(left: int, eta: str) -> str:
    return "0:00:00" if left == 0 else eta


def _benchmark_tasks(traces: list[Trace]) -> int:
    """The traces of the evaluation's own tasks, canaries left out."""
    return sum(not is_canary(trace.task) for trace in traces)


def in_flight_part() -> str:
    """The progress line's in-flight piece: ``2 calls in flight, oldest 14 s``; empty when none."""
    calls = calls_in_flight()
    if not calls:
        return ""
    return (
        f"{len(calls)} call{'s' if len(calls) > 1 else ''} in flight, oldest {calls[0].age():.0f} s"
    )


@contextmanager
def watching(
    stream: TextIO, redraw: Callable[[], None] | None = None, stuck_after: float = STUCK_AFTER
) -> Iterator[None]:
    """For the block's length, once a second: name each call in flight longer than
    ``stuck_after`` seconds on ``stream`` (once per call), and call ``redraw``."""
    stop = threading.Event()
    named: set[int] = set()

    def watch() -> None:
        while not stop.wait(_WATCH_EVERY_S):
            for call in calls_in_flight():
                if call.number not in named and call.age() >= stuck_after:
                    named.add(call.number)
                    stream.write(
                        f"\rstill waiting after {call.age():.0f} s: {call.what}\033[K\n"
                        if stream.isatty()
                        else f"still waiting after {call.age():.0f} s: {call.what}\n"
                    )
                    stream.flush()
            if redraw is not None:
                redraw()

    watcher = threading.Thread(target=watch, name="memrank-watch", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        stop.set()
        watcher.join()
