"""The tests and intervals of memrank.stats against independent implementations: scipy for
the distributions and McNemar, brute-force enumeration for the sign-flip test, a plain loop for
CR2 and Durkalski's statistic."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import binomtest, chi2
from scipy.stats import t as t_distribution

from memrank.errors import UsageError
from memrank.stats import (
    EXACT_MAX_CLUSTERS,
    PairTests,
    cluster_codes,
    mcnemar_exact,
    mean_interval,
    pair_spans,
    paired_reading,
    pairwise,
    pairwise_p_values,
    pairwise_tests,
)
from memrank.stats._dist import chi2_1_sf, t_quantile, t_two_sided_p
from memrank.stats.kernels import _sign_flip_p, mcnemar_exact_many


def _tables(count: int) -> list[tuple[int, int]]:
    """Discordant counts: empty, tiny, moderate and over a thousand, mixed at random."""
    rng = np.random.default_rng(2026)
    tables = [(0, 0), (1, 0), (0, 1), (600, 601)]
    while len(tables) < count:
        n = int(rng.choice([rng.integers(0, 3), rng.integers(1, 40), rng.integers(1001, 2500)]))
        only_a = int(rng.binomial(n, rng.uniform(0.2, 0.8)))
        tables.append((only_a, n - only_a))
    return tables


def test_exact_mcnemar_agrees_with_scipy_binomtest_over_1000_tables() -> None:
    tables = _tables(1000)
    many = mcnemar_exact_many(np.array([a for a, _ in tables]), np.array([b for _, b in tables]))
    for (only_a, only_b), vectorised in zip(tables, many, strict=True):
        n = only_a + only_b
        p = mcnemar_exact(only_a, only_b)
        assert abs(vectorised - p) <= 1e-12, (only_a, only_b)
        if n == 0:
            assert p == 1.0  # no task differs: nothing to explain (scipy refuses n = 0)
            continue
        expected = binomtest(min(only_a, only_b), n, 0.5).pvalue
        assert abs(p - expected) <= 1e-12, (only_a, only_b, p, expected)


def test_exact_mcnemar_by_hand() -> None:
    assert mcnemar_exact(3, 0) == 0.25  # 2 * (1/2)^3
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(1, 9) == pytest.approx(2 * 11 / 1024)
    with pytest.raises(UsageError, match="non-negative"):
        mcnemar_exact(-1, 2)


@pytest.mark.parametrize("df", [1, 2, 3, 4, 9, 10, 49, 50, 499, 1535])
def test_t_distribution_agrees_with_scipy(df: int) -> None:
    t = np.array([0.0, 0.3, 1.0, 1.96, 2.5, 4.0, 12.0, 80.0])
    assert np.max(np.abs(t_two_sided_p(t, np.array(df)) - 2 * t_distribution.sf(t, df))) < 1e-13
    assert t_quantile(df) == pytest.approx(t_distribution.ppf(0.975, df), abs=1e-10)


def test_chi_square_one_agrees_with_scipy() -> None:
    x = np.array([0.0, 0.5, 3.84, 10.0, 40.0])
    assert np.max(np.abs(chi2_1_sf(x) - chi2.sf(x, 1))) < 1e-14


def _brute_sign_flip(difference: np.ndarray, codes: np.ndarray) -> float:
    """Every way of swapping A and B within whole clusters, enumerated one by one."""
    sums = [difference[codes == g].sum() for g in np.unique(codes)]
    observed = abs(sum(sums))
    patterns = list(itertools.product((1, -1), repeat=len(sums)))
    hits = sum(
        abs(sum(s * x for s, x in zip(signs, sums, strict=True))) >= observed - 1e-9
        for signs in patterns
    )
    return hits / len(patterns)


@pytest.mark.parametrize("largest", [2**14 - 1, 2**14, 2**15 + 1])
def test_the_sign_flip_walk_is_exact_at_the_edge_of_its_integer_width(largest: int) -> None:
    # The walk keeps its totals in the narrowest integer that holds every total a pattern
    # reaches and twice any one cluster's sum; one too narrow wraps around and miscounts. (The
    # first cluster's sign is never swapped, so the large sums come later.)
    half = largest // 2
    rows = np.array([[1, half - 1, largest - half - 1, 1], [1, largest - 3, -1, 1]])
    for row, p in zip(rows, _sign_flip_p(rows.astype(float)), strict=True):
        observed = abs(row.sum())
        patterns = list(itertools.product((1, -1), repeat=len(row)))
        hits = sum(abs(int(np.dot(signs, row))) >= observed for signs in patterns)
        assert p == hits / len(patterns), (largest, row)


@pytest.mark.parametrize("full", [True, False])
def test_rows_with_zero_sums_get_the_p_of_their_own_clusters(full: bool) -> None:
    # Rows with fewer non-zero cluster sums than the widest are walked at its width (``full``:
    # one row has every cluster non-zero) or packed to the front; either way a row's p is the
    # share of its own clusters' sign patterns, exactly.
    rng = np.random.default_rng(7)
    rows = rng.integers(-6, 7, size=(200, 8))
    rows[rng.random(rows.shape) < 0.3] = 0
    rows[0] = [0, 0, 3, 0, 0, -1, 0, 2]  # the first cluster's sign fixed, and it is zero
    rows[1] = [1, -2, 3, 4, -5, 6, 7, 1] if full else [1, -2, 3, 4, -5, 6, 7, 0]
    if not full:
        rows[:, 7] = 0
    for row, p in zip(rows, _sign_flip_p(rows.astype(float)), strict=True):
        own = row[row != 0]
        patterns = list(itertools.product((1, -1), repeat=len(own)))
        hits = sum(abs(int(np.dot(signs, own))) >= abs(own.sum()) for signs in patterns)
        assert p == (hits / len(patterns) if len(own) else 1.0), row


def _brute_cr2(difference: np.ndarray, codes: np.ndarray) -> tuple[float, float, float, float]:
    """The CR2 (Bell-McCaffrey) standard error of a mean, cluster by cluster, and t(G-1)."""
    n, mean = len(difference), difference.mean()
    groups = np.unique(codes)
    variance = 0.0
    for g in groups:
        inside = codes == g
        variance += (difference[inside] - mean).sum() ** 2 / (1 - inside.sum() / n)
    se = variance**0.5 / n
    df = len(groups) - 1
    half = t_distribution.ppf(0.975, df) * se
    return mean - half, mean + half, se, 2 * t_distribution.sf(abs(mean) / se, df)


def _clustered_binary(seed: int, clusters: int, shift: float = 0.0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 30, clusters)
    codes = np.repeat(np.arange(clusters), sizes)
    lean = np.repeat(rng.normal(0, 1.0, clusters), sizes)
    a = (rng.normal(size=len(codes)) - lean / 2 > 0).astype(float)
    b = (rng.normal(size=len(codes)) + lean / 2 + shift > 0).astype(float)
    return a, b, codes


@pytest.mark.parametrize("seed", range(6))
def test_binary_readings_agree_with_brute_force(seed: int) -> None:
    a, b, codes = _clustered_binary(seed, clusters=3 + 2 * seed, shift=0.1 * seed)
    reading = paired_reading(a, b, codes, binary=True)
    assert reading.method == "exact cluster sign-flip test"
    assert reading.p_value == pytest.approx(_brute_sign_flip(b - a, codes), abs=1e-12)
    low, high, _, _ = _brute_cr2(b - a, codes)
    assert (reading.low, reading.high) == (
        pytest.approx(low, abs=1e-12),
        pytest.approx(high, abs=1e-12),
    )
    assert reading.n_clusters == 3 + 2 * seed and reading.caution is not None


def test_many_clusters_use_durkalski_against_chi_square() -> None:
    a, b, codes = _clustered_binary(11, clusters=40, shift=0.2)
    reading = paired_reading(a, b, codes, binary=True)
    sums = np.array([(b - a)[codes == g].sum() for g in range(40)])
    statistic = sums.sum() ** 2 / (sums**2).sum()
    assert reading.method.startswith("clustered McNemar")
    assert reading.p_value == pytest.approx(chi2.sf(statistic, 1), abs=1e-13)
    assert reading.caution is None and reading.n_clusters == 40 > EXACT_MAX_CLUSTERS


def test_every_task_its_own_cluster_is_exact_mcnemar() -> None:
    a, b, _ = _clustered_binary(4, clusters=30)
    singles = np.arange(len(a))
    reading = paired_reading(a, b, singles, binary=True)
    only_a, only_b = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
    assert reading.method == "McNemar exact test" and reading.caution is None
    assert reading.p_value == pytest.approx(mcnemar_exact(only_a, only_b), abs=1e-12)


def test_continuous_readings_agree_with_a_plain_cr2() -> None:
    rng = np.random.default_rng(5)
    codes = np.repeat(np.arange(10), rng.integers(20, 200, 10))
    a = rng.uniform(0, 1, len(codes))
    b = a + np.repeat(rng.normal(0.05, 0.1, 10), np.bincount(codes)) + rng.normal(0, 0.2, len(a))
    reading = paired_reading(a, b, codes, binary=False)
    low, high, _, p = _brute_cr2(b - a, codes)
    assert reading.low == pytest.approx(low, abs=1e-12)
    assert reading.high == pytest.approx(high, abs=1e-12)
    assert reading.p_value == pytest.approx(p, abs=1e-12)
    assert "only 10 clusters" in (reading.caution or "")
    one = mean_interval(b, codes)
    low, high, _, _ = _brute_cr2(b, codes)
    assert (one.low, one.high, one.n_clusters) == (pytest.approx(low), pytest.approx(high), 10)


def test_missing_values_are_left_out_not_zero() -> None:
    a, b, codes = _clustered_binary(2, clusters=8)
    a[:5] = np.nan
    reading = paired_reading(a, b, codes, binary=True)
    assert reading.n_tasks == len(a) - 5
    kept = ~np.isnan(a)
    assert reading.p_value == paired_reading(a[kept], b[kept], codes[kept], binary=True).p_value


def test_the_pairwise_matrix_is_the_readings_of_every_pair() -> None:
    rng = np.random.default_rng(9)
    codes = np.repeat(np.arange(10), 20)
    matrix = (rng.random((6, 200)) < rng.uniform(0.2, 0.8, (6, 1))).astype(float)
    matrix[2, :30] = np.nan
    for binary in (True, False):
        pairs = pairwise_tests(matrix, codes, binary=binary)
        p, differences = pairs.p_values, pairs.differences
        assert np.array_equal(p, pairwise_p_values(matrix, codes, binary=binary), equal_nan=True)
        assert np.isnan(np.diag(p)).all() and np.array_equal(p, p.T, equal_nan=True)
        assert np.array_equal(differences, -differences.T) and not np.diag(differences).any()
        for i, j in itertools.combinations(range(6), 2):
            reading = paired_reading(matrix[i], matrix[j], codes, binary=binary)
            assert p[i, j] == pytest.approx(reading.p_value, abs=1e-12)
            assert differences[i, j] == pytest.approx(reading.difference, abs=1e-12)


@pytest.mark.parametrize("rows", [[0], [3], [7], [1, 4, 6], []])
def test_the_pairs_of_some_rows_are_the_same_bits_as_in_the_whole_matrix(rows: list[int]) -> None:
    # A rebuild tests only the pairs that hold a new run and takes the rest from the memo:
    # every number must be the very bits a test of the whole matrix gives.
    rng = np.random.default_rng(len(rows))
    codes = np.repeat(np.arange(10), 20)
    shares = (rng.random((8, 200)) < rng.uniform(0.2, 0.8, (8, 1))).astype(float)
    numbers = rng.normal(size=(8, 200)).round(3)
    for matrix in (shares, numbers):
        matrix[2, :30] = matrix[6, 150:] = np.nan  # rows that left tasks undecided
    held = np.zeros((8, 8), dtype=bool)
    held[rows, :] = held[:, rows] = True
    for matrix, binary in ((shares, True), (shares, False), (numbers, False)):
        whole = pairwise_tests(matrix, codes, binary=binary)
        some = pairwise_tests(matrix, codes, binary=binary, rows=rows)
        for name in ("p_values", "differences"):
            mine, all_of = getattr(some, name), getattr(whole, name)
            assert mine[held].tobytes() == all_of[held].tobytes(), name
        assert np.isnan(some.p_values[~held]).all() and not some.differences[~held].any()
    # and each pair is tested once: all of them without rows, those that hold one with them
    laid_out = pairwise._Sums.of(shares, codes)
    unwalked = np.ones(8, dtype=bool)
    unwalked[rows] = False
    for walked, others in (
        (np.arange(7), np.zeros(8, dtype=bool)),
        (np.array(rows, dtype=np.intp), unwalked),
    ):
        met = [
            frozenset(pair)
            for i, j, _, _ in laid_out.pairs(walked, others)
            for pair in zip(i.tolist(), j.tolist(), strict=True)
        ]
        assert (
            len(met) == len(set(met)) == held[np.triu_indices(8, 1)].sum() if others.any() else 28
        )


def test_one_rows_pairs_are_the_same_bits_as_in_the_whole_matrix_beside_gapped_rows() -> None:
    # A rebuild that added one run tests its row alone. Where another row left eight or more
    # of a cluster's tasks unvalued, numpy summed them pairwise for a lone row but one after
    # another for a block of rows, and row 18's p values came out a bit apart.
    rng = np.random.default_rng(40)
    codes = rng.integers(0, 10, 300)
    numbers = rng.normal(size=(23, 300)).round(3)
    numbers[4, :40] = numbers[17, 250:] = np.nan
    whole = pairwise_tests(numbers, codes, binary=False)
    for row in range(23):
        alone = pairwise_tests(numbers, codes, binary=False, rows=[row])
        assert alone.p_values[row].tobytes() == whole.p_values[row].tobytes(), row
        assert alone.differences[row].tobytes() == whole.differences[row].tobytes(), row


@pytest.mark.parametrize("parts", [1, 2, 3, 5, 40])
def test_pairs_tested_in_parts_are_the_same_bits_as_in_one_pass(parts: int) -> None:
    # A board's column is tested in parts by whichever process is free: its bytes must not
    # depend on how the rows were cut or who tested them.
    rng = np.random.default_rng(parts)
    codes = rng.integers(0, 10, 300)
    shares = (rng.random((23, 300)) < rng.uniform(0.2, 0.8, (23, 1))).astype(float)
    numbers = rng.normal(size=(23, 300)).round(3)
    for matrix in (shares, numbers):
        matrix[4, :40] = matrix[17, 250:] = np.nan
    for matrix, binary in ((shares, True), (numbers, False)):
        whole = pairwise_tests(matrix, codes, binary=binary)
        tests = PairTests(matrix, codes, binary=binary)
        spans = pair_spans(23, parts)
        into = tests.untested()
        for first, last in reversed(spans):
            tests.test(first, last, into)
        assert into.p_values.tobytes() == whole.p_values.tobytes()
        assert into.differences.tobytes() == whole.differences.tobytes()
    # the spans follow each other over every row that leads a pair, about as many pairs each
    assert [first for first, _ in spans] == [0, *(last for _, last in spans[:-1])]
    assert spans[-1][1] == 22 and len(spans) == (parts if parts < 22 else 22)
    led = [sum(22 - i for i in range(first, last)) for first, last in spans]
    assert all(abs(pairs - 253 / len(spans)) <= 22 for pairs in led)  # within one row's pairs


def test_a_declared_binary_measure_must_hold_zeros_and_ones() -> None:
    with pytest.raises(UsageError, match="declared binary but holds 0.5"):
        paired_reading([0.0, 0.5], [1.0, 1.0], [0, 1], binary=True)
    with pytest.raises(UsageError, match="one integer cluster index per task"):
        paired_reading([0.0, 1.0], [1.0, 1.0], [0], binary=True)
    with pytest.raises(UsageError, match="runs x tasks"):
        pairwise_p_values(np.zeros(3), [0, 1, 2], binary=True)


def test_cluster_codes_keep_named_groups_and_give_ungrouped_tasks_their_own() -> None:
    assert cluster_codes(["b", None, "a", "b", None]).tolist() == [1, 2, 0, 1, 3]


def test_nothing_paired_and_one_cluster_say_so() -> None:
    empty = paired_reading([np.nan], [1.0], [0], binary=True)
    assert empty.n_tasks == 0 and empty.p_value is None and empty.caution
    one = paired_reading([0.1, 0.3], [0.2, 0.9], [0, 0], binary=False)
    assert one.low is None and one.p_value is None and "only 1 cluster" in (one.caution or "")


def test_the_pairwise_matrix_holds_for_a_task_per_cluster_too() -> None:
    # 40 runs x 1,500 single-task clusters is too big for one block: pairs go in chunks
    rng = np.random.default_rng(10)
    matrix = (rng.random((40, 1500)) < rng.uniform(0.3, 0.7, (40, 1))).astype(float)
    matrix[rng.random(matrix.shape) < 0.02] = np.nan
    codes = np.arange(1500)
    for binary in (True, False):
        p = pairwise_p_values(matrix, codes, binary=binary)
        for i, j in [(0, 1), (3, 39), (20, 7)]:
            reading = paired_reading(matrix[i], matrix[j], codes, binary=binary)
            assert p[i, j] == pytest.approx(reading.p_value, abs=1e-12)
            assert reading.method == ("McNemar exact test" if binary else reading.method)


def test_a_far_tail_p_is_tiny_never_zero() -> None:
    # scipy's 2 * t.sf(t, 9): 5.073089766e-15 at t = 100 and 5.091792200e-33 at t = 1e4
    far = t_two_sided_p(np.array([100.0, 1e4]), np.array([9, 9]))
    assert far == pytest.approx([5.073089766e-15, 5.091792200e-33], rel=1e-3)
