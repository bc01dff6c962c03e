"""Work in shares: the first here, the others in forked workers, results in order."""

from __future__ import annotations

import functools
import mmap
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memrank import _forked


def _pid_and_sum(share: list[int]) -> tuple[int, int]:
    return os.getpid(), sum(share)


def test_each_share_after_the_first_is_worked_in_another_process_and_comes_back_in_order() -> None:
    made = _forked.in_shares(_pid_and_sum, [[1, 2], [3], [4, 5, 6]])
    assert [total for _, total in made] == [3, 3, 15]
    pids = [pid for pid, _ in made]
    assert pids[0] == os.getpid()
    assert os.getpid() not in pids[1:] and len(set(pids[1:])) == 2


def _refuse_odd(share: list[int]) -> list[int]:
    if sum(share) % 2:
        raise ValueError(f"odd share {share}")
    return share


def test_an_exception_in_a_worker_is_raised_here() -> None:
    with pytest.raises(ValueError, match=r"odd share \[3\]"):
        _forked.in_shares(_refuse_odd, [[2], [3]])


def test_split_makes_contiguous_shares_one_per_core_and_none_below_the_least(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_forked, "cores", lambda: 3)
    assert _forked.split(list(range(7)), 2) == [[0, 1, 2], [3, 4, 5], [6]]
    assert _forked.split(list(range(7)), 4) == [list(range(7))]  # a second share would hold 3
    monkeypatch.setattr(_forked, "cores", lambda: 1)
    assert _forked.split(list(range(700)), 2) == [list(range(700))]


def _die_in_a_worker(share: list[int]) -> int:
    if os.getpid() != PARENT:
        os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer would
    return sum(share)


PARENT = os.getpid()


def test_a_share_whose_worker_died_without_a_word_is_worked_here() -> None:
    assert _forked.in_shares(_die_in_a_worker, [[1], [2, 3]]) == [1, 5]


class _Unpicklable(Exception):
    def __init__(self) -> None:
        super().__init__("holds a lock")
        self.lock = threading.Lock()


def _raise_unpicklable(share: list[int]) -> list[int]:
    if share == [2]:
        raise _Unpicklable
    return share


def test_an_exception_that_does_not_pickle_comes_back_as_its_words() -> None:
    with pytest.raises(RuntimeError, match="cannot be sent back .*holds a lock"):
        _forked.in_shares(_raise_unpicklable, [[1], [2]])


def _interrupted_once_the_worker_works(pid_file: Path) -> None:
    if os.getpid() == PARENT:  # Ctrl-C here while the worker works
        while not pid_file.exists() or not pid_file.read_text():
            time.sleep(0.01)
        raise KeyboardInterrupt
    pid_file.write_text(str(os.getpid()))
    time.sleep(60)


def _gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_an_interrupted_parent_kills_its_workers_at_once(tmp_path: Path) -> None:
    pid_file = tmp_path / "worker.pid"
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        _forked.in_shares(_interrupted_once_the_worker_works, [pid_file, pid_file])
    assert time.monotonic() - started < 30  # not the worker's 60 s
    # killed and waited for at once (a worker not waited for lingers, and os.kill finds it)
    assert _gone(int(pid_file.read_text()), within=0.5)


_PARENT_THAT_DIES = """
import os, sys, time
from pathlib import Path
from memrank import _forked

def work(share):
    if share == "worker":
        Path(sys.argv[1]).write_text(str(os.getpid()))
        time.sleep(60)
    else:
        time.sleep(60)

_forked.in_shares(work, ["here", "worker"])
"""


def test_a_worker_ends_when_the_process_that_forked_it_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "worker.pid"
    parent = subprocess.Popen([sys.executable, "-c", _PARENT_THAT_DIES, str(pid_file)])
    try:
        deadline = time.monotonic() + 30
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the worker never started"
            time.sleep(0.05)
        worker = int(pid_file.read_text())
    finally:
        parent.kill()  # SIGKILL: no handler of the parent's runs
        parent.wait()
    assert _gone(worker)


def _pid_of_each_slow_first(items: list[int]) -> list[tuple[int, int]]:
    if 0 in items:
        time.sleep(0.5)  # the first batch costs more than all the others together
    return [(os.getpid(), item) for item in items]


def test_batches_are_handed_out_as_processes_come_free_and_come_back_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_forked, "cores", lambda: 2)
    made = _forked.in_turns(_pid_of_each_slow_first, list(range(40)), least=1, batch=2)
    assert [item for _, item in made] == list(range(40))
    slow = made[0][0]
    others = [pid for pid, _ in made if pid != slow]
    assert len(set(others)) == 1 and len(others) >= 30  # the other process took the rest


def test_batches_a_dead_worker_took_are_worked_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_forked, "cores", lambda: 2)
    here = os.getpid()

    def dies_in_a_worker(items: list[int]) -> list[int]:
        if os.getpid() != here:
            os._exit(1)  # as the out-of-memory killer would end it, without a word
        time.sleep(0.05)  # so that the worker takes a batch before this process has them all
        return [item * 10 for item in items]

    assert _forked.in_turns(dies_in_a_worker, list(range(9)), least=1, batch=2) == [
        item * 10 for item in range(9)
    ]


def test_in_turns_below_the_least_works_everything_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_forked, "cores", lambda: 2)
    made = _forked.in_turns(_pid_of_each_slow_first, [1, 2, 3], least=2, batch=1)
    assert made == [(os.getpid(), 1), (os.getpid(), 2), (os.getpid(), 3)]


def _pid_into(memory: mmap.mmap | bytearray, share: int) -> int:
    memory[4 * share : 4 * share + 4] = os.getpid().to_bytes(4, "little")
    return os.getpid()


def test_what_a_worker_leaves_in_shared_memory_is_read_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_forked, "cores", lambda: 2)
    memory = _forked.shared(8)
    here, worker = _forked.in_shares(functools.partial(_pid_into, memory), [0, 1])
    assert here == os.getpid() != worker
    assert int.from_bytes(memory[4:8], "little") == worker
    monkeypatch.setattr(_forked, "cores", lambda: 1)  # no fork to share with: plain memory
    assert isinstance(_forked.shared(8), bytearray)


def _note_pid(memory: mmap.mmap | bytearray, item: int) -> None:
    """Write the pid that did ``item``, and count how many times it was done."""
    memory[8 * item : 8 * item + 4] = os.getpid().to_bytes(4, "little")
    times = int.from_bytes(memory[8 * item + 4 : 8 * item + 8], "little")
    memory[8 * item + 4 : 8 * item + 8] = (times + 1).to_bytes(4, "little")


def _note_pid_slowly(memory: mmap.mmap | bytearray, item: int) -> None:
    time.sleep(0.05)  # long enough that a call not waiting for its item would find it undone
    _note_pid(memory, item)


def _pids_noted(memory: mmap.mmap | bytearray, items: int) -> list[int]:
    return [int.from_bytes(memory[8 * n : 8 * n + 4], "little") for n in range(items)]


def _times_done(memory: mmap.mmap | bytearray, items: int) -> list[int]:
    return [int.from_bytes(memory[8 * n + 4 : 8 * n + 8], "little") for n in range(items)]


def test_in_order_shares_the_items_with_the_worker_and_says_when_the_first_n_are_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_forked, "cores", lambda: 2)
    memory = _forked.shared(8 * 6)
    with _forked.in_order(functools.partial(_note_pid_slowly, memory), range(6)) as through:
        for count in range(1, 7):
            through(count)
            # the first ``count`` items are in memory once the call returns
            assert 0 not in _pids_noted(memory, count)
    pids = _pids_noted(memory, 6)
    # while this process waited for an item the worker had, it did the next one itself
    assert os.getpid() in pids and len(set(pids)) == 2
    assert _times_done(memory, 6) == [1] * 6


def test_in_order_without_a_fork_does_what_each_call_asks_for_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_forked, "cores", lambda: 1)
    memory = _forked.shared(8 * 3)
    with _forked.in_order(functools.partial(_note_pid, memory), [0, 1, 2]) as through:
        through(1)
        assert _pids_noted(memory, 3) == [os.getpid(), 0, 0]
        through(3)
    assert _pids_noted(memory, 3) == [os.getpid()] * 3
    assert _times_done(memory, 3) == [1] * 3


def _die_at_second(memory: mmap.mmap | bytearray, item: int) -> None:
    if item == 1 and os.getpid() != PARENT:
        os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer would
    _note_pid_slowly(memory, item)


def test_in_order_does_here_the_items_a_dead_worker_left(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_forked, "cores", lambda: 2)
    memory = _forked.shared(8 * 4)
    with _forked.in_order(functools.partial(_die_at_second, memory), range(4)) as through:
        through(4)
    pids = _pids_noted(memory, 4)
    assert 0 not in pids and pids[1] == os.getpid()
    assert _times_done(memory, 4) == [1] * 4


def _refused_in_a_worker(item: int) -> None:
    if os.getpid() != PARENT:  # refused in the worker alone: raised from there
        raise ValueError(f"item {item} refused")
    time.sleep(0.2)  # the worker takes an item before this process can take them all


def test_in_order_raises_what_the_worker_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_forked, "cores", lambda: 2)
    with (
        _forked.in_order(_refused_in_a_worker, range(3)) as through,
        pytest.raises(ValueError, match=r"item \d refused"),
    ):
        through(3)


def test_in_order_takes_no_more_items_than_a_pipe_holds_at_once() -> None:
    with (
        pytest.raises(ValueError, match="at most 1024 items"),
        _forked.in_order(_refused_in_a_worker, range(1025)),
    ):
        pass
