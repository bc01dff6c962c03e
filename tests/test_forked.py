"""Work in shares: the first here, the others in forked workers, results in order."""

from __future__ import annotations

import os

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
