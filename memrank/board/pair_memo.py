"""A column's pair matrices in the build memo, from one build to the next.

The all-pairs test is the one part of reading a column that grows with the square of its runs.
A pair's test reads its two runs' task values and nothing else, so the memo keeps a column's
two matrices with the scores digest of each row they test: one entry per column (its
configuration, test, tasks and clusters), rewritten by each build. A column that gained runs
since is tested only in the pairs that hold a new one: a rebuild after one run was added to a
column of a thousand tests a thousand pairs, not half a million.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memrank.board.config import Column
from memrank.board.memo import Memo, key, pack_files, unpack_files
from memrank.stats import PairMatrices, pairwise_tests

__all__ = ["PairsKept", "afresh", "keep_pairs", "kept_pairs", "tested_pairs"]

_DIGESTS, _P_VALUES, _DIFFERENCES = "digests", "p_values", "differences"


@dataclass(frozen=True)
class PairsKept:
    """What an earlier build tested of a column (nothing, without a memo or an entry)."""

    entry: str
    """The column's entry in the memo ("" without a memo)."""
    digests: tuple[str, ...] = ()
    """The scores digest of each row the matrices test, in their order."""
    pairs: PairMatrices | None = None

    def untested(self, digests: Sequence[str]) -> int:
        """How many of the rows ``digests`` names have no pairs kept here."""
        held = set(self.digests)
        return sum(1 for digest in digests if digest not in held)


def kept_pairs(
    memo: Memo, column: Column, binary: bool, task_ids: Sequence[str], clusters: np.ndarray
) -> PairsKept:
    """The column's pair matrices as an earlier build left them in ``memo``."""
    if not memo.active:
        return PairsKept("")
    entry = memo.entry(
        "column pairs", column.model_dump_json(), str(binary), key(*task_ids), clusters.tobytes()
    )
    found = memo.get(entry)
    if found is None:
        return PairsKept(entry)
    files = unpack_files(found)
    digests = tuple(files[_DIGESTS].decode().split())
    rows = len(digests)
    if any(len(files[name]) != rows * rows * 8 for name in (_P_VALUES, _DIFFERENCES)):
        return PairsKept(entry)  # not what this code writes: test afresh
    p_values, differences = (
        np.frombuffer(files[name], dtype=np.float64).reshape(rows, rows)
        for name in (_P_VALUES, _DIFFERENCES)
    )
    return PairsKept(entry, digests, PairMatrices(p_values, differences))


def tested_pairs(
    matrix: np.ndarray,
    clusters: np.ndarray,
    binary: bool,
    digests: Sequence[str],
    kept: PairsKept,
    memo: Memo,
) -> tuple[np.ndarray, np.ndarray]:
    """The p value and mean difference of every two rows of ``matrix`` (runs x tasks, each
    row's scores digest in ``digests``): taken from ``kept`` for the pairs it holds, tested
    for the others; the matrices are then kept in ``memo`` for the next build."""
    earlier = kept.pairs
    if earlier is None or afresh(kept, digests):
        pairs = pairwise_tests(matrix, clusters, binary=binary)
    elif kept.digests == tuple(digests):
        return earlier.p_values, earlier.differences
    else:
        at = {digest: row for row, digest in enumerate(kept.digests)}
        old = [row for row, digest in enumerate(digests) if digest in at]
        new = [row for row, digest in enumerate(digests) if digest not in at]
        pairs = pairwise_tests(matrix, clusters, binary=binary, rows=new)
        was = np.array([at[digests[row]] for row in old], dtype=np.intp)
        pairs.p_values[np.ix_(old, old)] = earlier.p_values[np.ix_(was, was)]
        pairs.differences[np.ix_(old, old)] = earlier.differences[np.ix_(was, was)]
    keep_pairs(memo, kept, digests, pairs)
    return pairs.p_values, pairs.differences


def afresh(kept: PairsKept, digests: Sequence[str]) -> bool:
    """Whether every pair of the rows ``digests`` names is to be tested: nothing is kept, or a
    repeated digest leaves no mapping from kept rows to these."""
    return kept.pairs is None or len(set(digests)) < len(digests)


def keep_pairs(memo: Memo, kept: PairsKept, digests: Sequence[str], pairs: PairMatrices) -> None:
    """Keep a column's tested matrices in ``memo`` for the next build (``kept_pairs``)."""
    if memo.active:
        memo.put(
            kept.entry,
            pack_files(
                {
                    _DIGESTS: "\n".join(digests).encode(),
                    _P_VALUES: pairs.p_values.tobytes(),
                    _DIFFERENCES: pairs.differences.tobytes(),
                }
            ),
        )
