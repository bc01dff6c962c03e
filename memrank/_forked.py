"""Work split into shares: the first done in this process, the others at the same time in
forked copies of it, the results in the order of the shares (``in_shares``); or handed out in
batches to this process and its forked copies, each taking the next as it comes free, when
items cost unequally (``in_turns``); or items taken in order by a forked worker and by this process whenever it
would wait for one (``in_order``), each leaving what it makes in memory the processes share
(``shared``).

A board of thousands of runs verifies and renders them one by one, and each run's work is
independent of the others'; on a machine with more than one core the shares run side by side.
A fork, not a fresh interpreter: a worker starts with everything this process holds (a trust
root's keys, a built board, compiled templates), none of which has to pickle; only each
share's result comes back, through a pipe. A worker is tied to this process: it is killed when
this process ends, however it ends (Ctrl-C, SIGTERM, SIGKILL), and this process kills its
workers when it is interrupted or a share fails, so nothing is left waiting. Elsewhere than on
Linux, which can tie a worker so, every share is done here.
"""

from __future__ import annotations

import contextlib
import ctypes
import mmap
import os
import pickle
import select
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = [
    "cores",
    "in_order",
    "in_shares",
    "in_turns",
    "shared",
    "split",
]

Share = TypeVar("Share")
Made = TypeVar("Made")
Item = TypeVar("Item")

_PR_SET_PDEATHSIG = 1


def cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _forks() -> bool:
    """Whether work can be forked off to another core."""
    return cores() > 1 and sys.platform == "linux"


def split(items: Sequence[Share], least: int) -> list[Sequence[Share]]:
    """``items`` in contiguous shares of at least ``least`` items, one per core at most (one
    share, all of them, when a fork is not worth it or not possible)."""
    workers = min(cores(), len(items) // least)
    if workers < 2 or not _forks():
        return [items]
    size = -(-len(items) // workers)
    return [items[start : start + size] for start in range(0, len(items), size)]


def shared(size: int) -> mmap.mmap | bytearray:
    """``size`` zeroed bytes that a worker forked after this call writes in place and this
    process reads: a result of many megabytes (a column's pair matrices) is then neither
    pickled nor piped, nor held twice. Where no work is forked, plain memory."""
    if not _forks() or not size:
        return bytearray(size)
    return mmap.mmap(-1, size, flags=mmap.MAP_SHARED)


def in_shares(
    work: Callable[[Share], Made],
    shares: Sequence[Share],
) -> list[Made]:
    """``[work(share) for share in shares]``, the first share here and each other one in a
    forked worker meanwhile. What ``work`` returns from a worker must pickle; an exception it
    raises there is raised here."""
    mine, *theirs = shares
    workers = [_Worker.start(work, share) for share in theirs]
    try:
        made = [work(mine)]
        made += [worker.result() for worker in workers]
    except BaseException:
        for worker in workers:
            worker.kill()
        raise
    return made


@contextlib.contextmanager
def in_order(
    work: Callable[[Item], None], items: Sequence[Item]
) -> Iterator[Callable[[int], None]]:
    """``work(item)`` once for each of ``items``, each leaving what it makes in ``shared``
    memory: a forked worker takes them in order, one after another, while the ``with`` block
    runs. The block calls what this yields with ``n`` to wait until the first ``n`` items are
    done; while it waits, this process takes the next item no process has taken and does it
    here, so neither process idles while items are left. An exception the worker raised is
    raised by such a call; the items of a worker that died without a word are done here.
    Where no fork is possible, every item is done here, as the calls ask for them. At most
    ``_PIPE_HOLDS // _NUMBER`` items: their numbers are queued in a pipe before any is read."""
    if len(items) > _PIPE_HOLDS // _NUMBER:
        raise ValueError(f"in_order takes at most {_PIPE_HOLDS // _NUMBER} items")
    done = [False] * len(items)

    def here(at: int) -> None:
        work(items[at])
        done[at] = True

    if not items or not _forks():

        def through_here(count: int) -> None:
            for at in range(count):
                if not done[at]:
                    here(at)

        yield through_here
        return
    queue = _queue(len(items))
    reports, said = os.pipe()

    def every(_: object) -> None:
        while number := os.read(queue, _NUMBER):
            work(items[int.from_bytes(number, "little")])
            os.write(said, number)

    worker: _Worker[None, None] = _Worker.start(every, None)
    os.close(said)
    os.set_blocking(reports, False)

    def through(count: int) -> None:
        while not all(done[:count]):
            if worker.waited:  # it ended: what it left undone is done here
                for at in range(count):
                    if not done[at]:
                        here(at)
            elif _heard(reports, done):
                continue
            elif number := os.read(queue, _NUMBER):
                here(int.from_bytes(number, "little"))
            else:  # every item is taken: wait for the worker's next one
                select.select([reports], [], [])
                if not _heard(reports, done):
                    outcome = worker.outcome()
                    if outcome is not None and not outcome[0]:
                        raise outcome[1]  # type: ignore[misc]

    try:
        yield through
    finally:
        os.close(queue)
        worker.kill()


def _queue(items: int) -> int:
    """The reading end of a pipe holding the numbers 0 to ``items`` - 1, its writing end
    closed, so that a read of an emptied queue ends in every process (a read of a few bytes
    is atomic: each number is taken by one reader)."""
    queue, writing = os.pipe()
    try:
        os.write(writing, b"".join(n.to_bytes(_NUMBER, "little") for n in range(items)))
    finally:
        os.close(writing)
    return queue


def _heard(reports: int, done: list[bool]) -> bool:
    """Mark done each item number the worker has written to ``reports`` (read without
    waiting); False when there was none or the worker has ended (the pipe is closed)."""
    try:
        heard = os.read(reports, _PIPE_HOLDS)
    except BlockingIOError:
        return False
    for at in range(0, len(heard), _NUMBER):
        done[int.from_bytes(heard[at : at + _NUMBER], "little")] = True
    return bool(heard)


def in_turns(
    work: Callable[[Sequence[Item]], list[Made]], items: Sequence[Item], least: int, batch: int
) -> list[Made]:
    """``work(items)``, in batches of ``batch`` items handed out in turn to this process and
    to forked workers (one per core, as ``split`` with ``least`` allows) as each comes free:
    items that cost unequally still keep every core busy to the end. ``work`` returns one
    result per item; the results come back in the order of ``items``."""
    processes = len(split(items, least))
    if processes < 2:
        return work(items)
    # At most as many batches as numbers fit in a pipe's buffer, all written before any is read.
    batch = max(batch, -(-len(items) // (_PIPE_HOLDS // _NUMBER)))
    starts = range(0, len(items), batch)
    queue = _queue(len(starts))

    def take(_: object) -> dict[int, list[Made]]:
        """Batches, by number, until the queue is empty."""
        done = {}
        while number := os.read(queue, _NUMBER):
            at = starts[int.from_bytes(number, "little")]
            done[at] = work(items[at : at + batch])
        return done

    try:
        made: dict[int, list[Made]] = {}
        for taken in in_shares(take, [None] * processes):
            made.update(taken)
    finally:
        os.close(queue)
    # A worker that died without a word took batches with it: they are worked here.
    return [
        result
        for at in starts
        for result in (made[at] if at in made else work(items[at : at + batch]))
    ]


_NUMBER = 4
"""Bytes of a batch number in the queue."""
_PIPE_HOLDS = 4_096
"""What a Linux pipe holds before a write waits, at the least (one page: a user over the
kernel's pipe quota gets no more)."""


@dataclass
class _Worker(Generic[Share, Made]):
    """A forked process working one share, its result to come through a pipe."""

    work: Callable[[Share], Made]
    share: Share
    pid: int
    pipe: int
    """The reading end of the pipe the worker writes its pickled outcome to."""
    waited: bool = False
    """Whether the worker was waited for (its pid may then name another process)."""

    @classmethod
    def start(cls, work: Callable[[Share], Made], share: Share) -> _Worker[Share, Made]:
        parent = os.getpid()
        reading, writing = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: never returns
            os.close(reading)
            _work_and_exit(work, share, writing, parent)
        os.close(writing)
        return cls(work, share, pid, reading)

    def result(self) -> Made:
        """The share's result: what the worker sent, its exception raised; or, when the
        worker died without a word (killed, out of memory), the share worked here."""
        sent = self.outcome()
        if sent is None:
            return self.work(self.share)
        succeeded, outcome = sent
        if not succeeded:
            raise outcome  # type: ignore[misc]
        return outcome  # type: ignore[return-value]

    def outcome(self) -> tuple[bool, object] | None:
        """Once the worker ends: (True, its result) or (False, the exception it raised), as
        it sent them; None when it died without a word."""
        with os.fdopen(self.pipe, "rb") as pipe:
            sent = pipe.read()
        os.waitpid(self.pid, 0)
        self.waited = True
        return pickle.loads(sent) if sent else None

    def kill(self) -> None:
        """End the worker, unless its result was taken already."""
        if self.waited:
            return
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        self.waited = True
        os.close(self.pipe)


def _work_and_exit(work: Callable[[Share], Made], share: Share, pipe: int, parent: int) -> None:
    """In a forked worker: be killed when ``parent`` ends (or end now if it already has), work
    the share, send the pickled outcome, and exit without running this copy's exit handlers
    or flushing the output buffers it inherited."""
    status = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            return
        try:
            outcome: tuple[bool, object] = (True, work(share))
        except BaseException as exc:  # sent to be raised in the parent
            outcome = (False, exc)
        try:
            sent = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # what does not pickle is sent as words
            failed = f"a forked worker's outcome cannot be sent back ({exc}): {outcome[1]!r:.300}"
            sent = pickle.dumps((False, RuntimeError(failed)))
        with os.fdopen(pipe, "wb") as writer:
            writer.write(sent)
        status = 0
    finally:
        os._exit(status)
