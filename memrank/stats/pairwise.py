"""Every pair of a board column's runs read at once: the p of the paired test and the mean
difference, as two runs x runs matrices.

The tests (``kernels``) need, per pair, the per-cluster sums of the paired differences and the
per-cluster counts of paired tasks. For two runs that each valued every task of a cluster, that
sum is the difference of the two runs' cluster totals, so the totals are summed once per run
and the part that grows with the square of the runs is a subtraction of small arrays. Only a
run that left tasks without a value needs its tasks read against each other run's (a sum over
the tasks it valued, per cluster), and only for its own rows and columns.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from memrank.errors import UsageError
from memrank.stats._dist import distinct
from memrank.stats.clustered import check_binary, checked_codes, clusters_side_by_side
from memrank.stats.kernels import binary_p, continuous_p, cr2

__all__ = ["PairMatrices", "PairTests", "pair_spans", "pairwise_p_values", "pairwise_tests"]

_CELLS_PER_CHUNK = 2_000_000
"""Pair x cluster cells held at a time (a few arrays of them): memory stays bounded however
many runs and clusters."""


@dataclass(frozen=True)
class PairMatrices:
    """Every two rows of a runs x tasks matrix, read over the tasks both valued."""

    p_values: np.ndarray
    """Two-sided p, symmetric; NaN on the diagonal and where no test is possible."""
    differences: np.ndarray
    """``[i, j]``: the mean of row j minus row i; 0 on the diagonal and where none paired."""


def pairwise_p_values(
    matrix: np.ndarray, clusters: np.ndarray | Sequence[int], *, binary: bool
) -> np.ndarray:
    """Every pair of rows (runs) compared on the columns (tasks) both valued: an R x R matrix of
    two-sided p, symmetric, NaN on the diagonal and where no test is possible.

    The same kernels as ``paired_reading``, so ``p[i, j]`` is the p of
    ``paired_reading(matrix[i], matrix[j], clusters, binary=binary)``.
    """
    return pairwise_tests(matrix, clusters, binary=binary).p_values


def pairwise_tests(
    matrix: np.ndarray,
    clusters: np.ndarray | Sequence[int],
    *,
    binary: bool,
    rows: Sequence[int] | None = None,
) -> PairMatrices:
    """``pairwise_p_values`` and the mean difference of every pair, from one pass. With
    ``rows``, only the pairs that hold one of them are tested (the rest of both matrices is
    NaN and 0): a pair's test reads its two rows alone, so a column that gained a few runs
    tests only theirs."""
    tests = PairTests(matrix, clusters, binary=binary)
    into = tests.untested()
    if rows is None:
        tests.test(0, tests.runs, into)
    else:
        wanted = np.array(distinct(rows), dtype=np.intp)
        unwalked = np.ones(tests.runs, dtype=bool)  # their pairs with a wanted row meet here
        unwalked[wanted] = False
        tests._test_walked(wanted, unwalked, into)
    return into


class PairTests:
    """A runs x tasks matrix made ready for its pairs to be tested a span of rows at a time
    (``test``), so that processes can share a column's tests out: a pair is always tested the
    same way, whichever span and process it falls to, so the bytes are the same."""

    def __init__(
        self, matrix: np.ndarray, clusters: np.ndarray | Sequence[int], *, binary: bool
    ) -> None:
        values = np.asarray(matrix, dtype=float)
        if values.ndim != 2:
            raise UsageError(f"pairwise tests need a runs x tasks matrix; got shape {values.shape}")
        self.runs, tasks = values.shape
        codes = checked_codes(clusters, tasks)
        if binary:
            check_binary(values)
        self._binary = binary
        self._sums = _Sums.of(values, codes) if self.runs >= 2 and tasks else None

    def untested(self) -> PairMatrices:
        """Both matrices as no pair is tested yet: NaN p values and 0 differences."""
        return PairMatrices(np.full((self.runs, self.runs), np.nan), np.zeros((self.runs,) * 2))

    def test(self, first: int, last: int, into: PairMatrices) -> None:
        """Test every pair i < j with ``first <= i < last``, writing both entries of each in
        ``into``."""
        walked = np.arange(first, min(last, self.runs - 1))
        self._test_walked(walked, np.zeros(self.runs, dtype=bool), into)

    def _test_walked(self, walked: np.ndarray, unwalked: np.ndarray, into: PairMatrices) -> None:
        """Test the pairs ``_Sums.pairs`` gives for ``walked`` rows into ``into``."""
        if self._sums is None:
            return
        p, differences = into.p_values, into.differences
        for i, j, sums, counts in self._sums.pairs(walked, unwalked):
            paired = counts.sum(axis=1)
            if self._binary:
                chunk = np.where(paired > 0, binary_p(sums, counts), np.nan)
            else:
                chunk = continuous_p(cr2(sums, counts))
            mean = sums.sum(axis=1) / np.maximum(paired, 1)  # 0 where none paired
            p[i, j] = chunk
            p[j, i] = chunk
            differences[i, j] = mean
            differences[j, i] = 0.0 - mean  # not -mean: a tie reads 0.0 both ways, never -0.0


def pair_spans(runs: int, parts: int) -> list[tuple[int, int]]:
    """``PairTests.test``'s row spans (first, last) splitting the pairs of ``runs`` rows into
    ``parts`` of about as many pairs each (row i leads ``runs - 1 - i`` of them)."""
    pairs = runs * (runs - 1) // 2
    spans: list[tuple[int, int]] = []
    first, led = 0, 0
    for i in range(runs - 1):
        led += runs - 1 - i
        if led * parts >= pairs * (len(spans) + 1) or i == runs - 2:
            spans.append((first, i + 1))
            first = i + 1
    return spans


@dataclass(frozen=True)
class _Sums:
    """A matrix laid out for its per-cluster pair sums (``pairs``).

    The tests (``kernels``) need, per pair, the per-cluster sums of x_j - x_i over the tasks
    both valued and the per-cluster counts of those tasks. With v a task's 1/0 "valued" and x
    its value (0 where absent), the sum for cluster g is sum v_i x_j - sum v_j x_i: the first
    term is j's cluster total where i valued all of g's tasks, the second i's where j did, and
    the count is sum v_i v_j. Only the rows that left a task unvalued take the sums over their
    own tasks (``_masked_sums``)."""

    filled: np.ndarray
    valid: np.ndarray
    spans: list[tuple[int, int]]
    totals: np.ndarray
    """``[r, g]``: row r's sum over cluster g."""
    counted: np.ndarray
    gaps: np.ndarray
    """Rows that left some task unvalued."""
    patterns: list[tuple[np.ndarray, np.ndarray]]

    @classmethod
    def of(cls, values: np.ndarray, codes: np.ndarray) -> _Sums:
        filled, valid, codes, starts = clusters_side_by_side(values, codes)
        spans = list(zip(starts.tolist(), [*starts[1:].tolist(), len(codes)], strict=True))
        gaps = np.flatnonzero(~valid.all(axis=1))
        return cls(
            filled=filled,
            valid=valid,
            spans=spans,
            totals=np.add.reduceat(filled, starts, axis=1),
            counted=np.add.reduceat(valid.astype(np.int64), starts, axis=1),
            gaps=gaps,
            patterns=[_patterns(valid[:, a:b]) for a, b in spans] if len(gaps) else [],
        )

    def pairs(self, walked: np.ndarray, unwalked: np.ndarray) -> Iterator[tuple[np.ndarray, ...]]:
        """Each pair of a ``walked`` row i with a row j after it, or with an ``unwalked`` row
        j (whose pairs with walked rows are met only here), in chunks of rows i: (i, j, the
        per-cluster sums, the per-cluster counts), clusters in code order."""
        filled, valid, totals, counted, gaps = (
            self.filled,
            self.valid,
            self.totals,
            self.counted,
            self.gaps,
        )
        rows, clusters = len(filled), len(self.spans)
        step = max(1, _CELLS_PER_CHUNK // (rows * clusters))
        for first in range(0, len(walked), step):
            block = walked[first : first + step]
            # The rows j a pair of the block can hold: any unwalked row, else those after its
            # first row (a board's column walks its rows in order, so later blocks pair with
            # ever fewer rows).
            low = 0 if unwalked.any() else int(block.min()) + 1
            width, others = rows - low, np.arange(low, rows)[None, :]
            here = gaps[gaps >= low]
            # [i, j, g] as if i valued every task: then v_i x_j sums to j's total and v_i v_j
            # counts j's valued tasks; as if j did: v_j x_i sums to i's total.
            theirs = np.repeat(totals[None, low:], len(block), axis=0)
            counts = np.repeat(counted[None, low:], len(block), axis=0)
            mine = np.repeat(totals[block][:, None], width, axis=1)
            gapped = np.flatnonzero(~valid[block].all(axis=1))
            for g, (start, end) in enumerate(self.spans if len(gapped) or len(here) else ()):
                x, v = filled[:, start:end], valid[:, start:end]
                valued, which = self.patterns[g]  # made: a row gapped here is among the gaps
                if len(gapped):
                    theirs[gapped, :, g] = _masked_sums(
                        x[low:], valued, which[block[gapped]], totals[low:, g]
                    )
                    # a product of 0/1 masks sums whole numbers: exact in any order, BLAS or not
                    both = v[block[gapped]].astype(float) @ v[low:].T.astype(float)
                    counts[gapped, :, g] = np.rint(both).astype(np.int64)
                if len(here):
                    mine[:, here - low, g] = _masked_sums(
                        x[block], valued, which[here], totals[block, g]
                    ).T
            # j after i, or j a row that is not walked (its pair with i is met only here)
            later = (others > block[:, None]) | (unwalked[None, low:] & (others != block[:, None]))
            at, j = np.nonzero(later)
            yield block[at], j + low, (theirs - mine)[later], counts[later]


def _patterns(valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``valid`` (which tasks a run valued), and which one each row is."""
    numbered: dict[bytes, int] = {}
    which = np.array(
        [numbered.setdefault(row.tobytes(), len(numbered)) for row in np.packbits(valid, axis=1)],
        dtype=np.intp,
    )
    firsts = np.unique(which, return_index=True)[1]
    return valid[firsts], which


def _masked_sums(
    x: np.ndarray, patterns: np.ndarray, wanted: np.ndarray, totals: np.ndarray
) -> np.ndarray:
    """``[k, r]``: the sum of row r of ``x`` over the columns that pattern ``wanted[k]`` of
    ``patterns`` (rows of 0/1) holds; ``totals`` is each row's sum over all of them.

    Summed by numpy, not as a product through BLAS, whose order of summation (and so the last
    bit of each sum) depends on the processor: the board's published bytes must not. Each
    pattern is summed once (the runs of a column mostly leave the same tasks unvalued), over
    whichever side of it is smaller: what it holds, or what it leaves out, subtracted. The
    columns picked are laid out row by row before they are summed: numpy sums a row held in
    one piece pairwise, but the columns of several rows as picked lie column by column and
    were summed one after another, so a row's last bit depended on how many rows came with
    it."""
    needed, back = np.unique(wanted, return_inverse=True)
    sums = np.empty((len(needed), len(x)))
    for at, pattern in enumerate(needed.tolist()):
        held = patterns[pattern]
        if 2 * held.sum() <= len(held):
            sums[at] = np.add.reduce(np.ascontiguousarray(x[:, held]), axis=1)
        else:
            sums[at] = totals - np.add.reduce(np.ascontiguousarray(x[:, ~held]), axis=1)
    return sums[back.ravel()]
