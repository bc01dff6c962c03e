"""The cyclic garbage collector, paused while work makes many long-lived objects at once."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector: reading a result, verifying a directory and building a
    board make hundreds of thousands of small objects and keep them, and the collector walked
    them over and over for nothing (a third of a 3,000-run verification; more than half of a
    build). Reference counting still frees whatever is dropped. On the way out, freeze and
    unfreeze file everything still alive under the oldest generation, so switching the
    collector back on does not start with one pass over all of it. Within a region that froze
    objects itself (``memrank.run``), what is alive is frozen and left so: unfreezing would
    thaw that region's objects too, and the region unfreezes them when it ends."""
    was_enabled, frozen = gc.isenabled(), gc.get_freeze_count()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if not frozen:
            gc.unfreeze()
        if was_enabled:
            gc.enable()
