"""A run is never silent while it waits on a service: a watch names on stderr, as it happens,
each call that has been in flight past a minute, and keeps the live progress line moving while
nothing finishes (its in-flight part shows the calls waiting and the age of the oldest)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from memrank._inflight import STUCK_AFTER, calls_in_flight

__all__ = ["in_flight_part", "watching"]

_EVERY_S = 1.0


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
        while not stop.wait(_EVERY_S):
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
