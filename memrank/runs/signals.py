"""SIGTERM and SIGHUP stop a tracked run as Ctrl-C does: raised in the main thread as a
KeyboardInterrupt that remembers its signal, so the run keeps its journal, records itself
stopped, and exits 128 + the signal's number with the command that resumes it."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from memrank.errors import HungUp, Interrupted, Terminated

__all__ = ["Signalled", "signals_as_interrupts", "stopped_by"]


class Signalled(KeyboardInterrupt):
    """SIGTERM or SIGHUP, stopping the run as Ctrl-C does."""

    def __init__(self, signal_number: int) -> None:
        super().__init__(signal_number)
        self.signal_number = signal_number


def _raise_signalled(signal_number: int, frame: object) -> None:
    raise Signalled(signal_number)


@contextmanager
def signals_as_interrupts() -> Iterator[None]:
    """What CI cancellation, ``docker stop`` and systemd send (SIGTERM) and a closed terminal
    (SIGHUP) stop the run as Ctrl-C does: its journal kept, its record stopped."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = (signal.SIGTERM, signal.SIGHUP)
    earlier = {number: signal.signal(number, _raise_signalled) for number in wanted}
    try:
        yield
    finally:
        for number, handler in earlier.items():
            signal.signal(number, handler)


def stopped_by(signal_number: int) -> type[Interrupted]:
    """The error a run stopped by ``signal_number`` exits with (130, 143 or 129)."""
    by_signal: dict[int, type[Interrupted]] = {signal.SIGTERM: Terminated, signal.SIGHUP: HungUp}
    return by_signal.get(signal_number, Interrupted)
