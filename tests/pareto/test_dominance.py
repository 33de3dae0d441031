"""The dominance filters of bipartite.pareto.dominance against the previous quadratic filter and
against brute force (docs/theory.md §6).

Row j dominates row i *at resolution tol* when ``x_j ≥ x_i − tol`` everywhere and
``x_j > x_i + tol`` somewhere. The previous filters (kept below, verbatim, as the reference)
implemented that rule exactly on data whose distinct values are far apart compared with tol
(float noise below tol: the DP's case); with gaps near tol they could differ from it (a row
dominated only by a dropped row, single-linkage chains). The new filters implement it exactly
everywhere, so they equal brute force on every point set and the previous filter on the DP's kind
of data.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from bipartite.pareto.dominance import (
    MarginIndex,
    _merge_close,
    _pareto_filter_2d,
    _pareto_filter_nd,
    dominated_with_margin,
    frontier_rows,
    greedy_unique,
    pareto_filter,
    unique_rows,
)
from bipartite.pareto.dp import subset_dp
from bipartite.population import FiniteProblem

TOLS = [0.0, 1e-12, 1e-6, 0.05]


# ------------------------------------------------------------------------------------------
# References: brute force, and the previous (quadratic) filters verbatim
# ------------------------------------------------------------------------------------------
def brute_mask(P: np.ndarray, tol: float) -> np.ndarray:
    """Row i survives iff no row j has P_j ≥ P_i − tol everywhere and P_j > P_i + tol somewhere."""
    return np.array([
        not np.any(np.all(P >= P[i] - tol, axis=1) & np.any(P > P[i] + tol, axis=1))
        for i in range(len(P))
    ], dtype=bool)


def old_dominated_by(A, B, tol=0.0):
    if len(A) == 0 or len(B) == 0:
        return np.zeros(len(B), dtype=bool)
    ge = np.all(A[None, :, :] >= B[:, None, :] - tol, axis=2)
    gt = np.any(A[None, :, :] > B[:, None, :] + tol, axis=2)
    return np.any(ge & gt, axis=1)


def old_filter_nd(P, tol=0.0):
    """The previous K ≥ 3 filter: rows by decreasing sum, blocks against the rows kept so far."""
    m, K = P.shape
    s = P.sum(axis=1)
    order = np.lexsort(tuple(-P[:, k] for k in range(K - 1, -1, -1)) + (-s,))
    Q, ns = P[order], -s[order]
    keep_sorted = np.zeros(m, dtype=bool)
    kept = np.zeros((0, K))
    step = 256
    a = 0
    while a < m:
        b = min(m, a + step)
        h = int(np.searchsorted(ns, ns[b - 1] + K * tol, side="right"))
        B = Q[a:b]
        alive = ~old_dominated_by(kept, B, tol) & ~old_dominated_by(Q[a:h], B, tol)
        keep_sorted[a:b] = alive
        if alive.any():
            kept = np.concatenate([kept, B[alive]])
            if len(kept) * len(B) * K > 2**24:
                step = max(16, step // 2)
        a = b
    keep = np.empty(m, dtype=bool)
    keep[order] = keep_sorted
    return keep


def old_filter_2d(P, tol=0.0):
    """The previous K = 2 filter: x grouped by single linkage at gap tol."""
    m = len(P)
    order = np.lexsort((-P[:, 1], -P[:, 0]))
    x, y = P[order, 0], P[order, 1]
    new_group = np.empty(m, dtype=bool)
    new_group[0] = True
    new_group[1:] = (x[:-1] - x[1:]) > tol
    gid = np.cumsum(new_group) - 1
    first = np.flatnonzero(new_group)
    group_top = np.maximum.reduceat(y, first)
    before = np.full(len(first), -np.inf)
    before[1:] = np.maximum.accumulate(group_top)[:-1]
    dominated = (before[gid] >= y - tol) | (group_top[gid] > y + tol)
    mask = np.empty(m, dtype=bool)
    mask[order] = ~dominated
    return mask


def old_greedy_unique(V, order, tol):
    kept = []
    for i in order:
        dup = False
        for j in reversed(kept):
            if abs(V[j, 0] - V[i, 0]) > tol:
                break
            if np.max(np.abs(V[i] - V[j])) <= tol:
                dup = True
                break
        if not dup:
            kept.append(int(i))
    return np.array(kept, dtype=np.int64)


def old_filter(P, tol):
    return old_filter_2d(P, tol) if P.shape[1] == 2 else old_filter_nd(P, tol)


def new_filter(P, tol):
    return _pareto_filter_2d(P, tol) if P.shape[1] == 2 else _pareto_filter_nd(P, tol)


def grid_points(rng, m, K, tol):
    """Points on a grid of step 1/4 (many exact ties and duplicates) plus noise of at most tol/4:
    distinct values far apart compared with tol, like the DP's float sums."""
    P = rng.integers(0, 5, size=(m, K)) / 4
    if tol > 0:
        P = P + rng.uniform(-tol / 4, tol / 4, size=P.shape) * rng.integers(0, 2, size=P.shape)
    return P


# ------------------------------------------------------------------------------------------
# Filters
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("tol", TOLS)
@pytest.mark.parametrize("K", [2, 3, 4, 5])
def test_filter_equals_previous_filter_and_brute_force(K, tol):
    rng = np.random.default_rng(100 * K + TOLS.index(tol))
    for _ in range(25):
        m = int(rng.integers(1, 300))
        P = grid_points(rng, m, K, tol)
        want = brute_mask(P, tol)
        np.testing.assert_array_equal(new_filter(P, tol), want)
        np.testing.assert_array_equal(old_filter(P, tol), want)


@pytest.mark.parametrize("tol", [0.0, 0.01, 0.1, 0.3])
@pytest.mark.parametrize("K", [2, 3, 4])
def test_filter_equals_brute_force_when_gaps_are_near_tol(K, tol):
    """Continuous points and coarse rounding (gaps of the order of tol, chains of near ties):
    the rule itself, where the previous filters could deviate."""
    rng = np.random.default_rng(7 * K + int(100 * tol))
    for trial in range(25):
        m = int(rng.integers(1, 250))
        P = rng.random((m, K)) if trial % 2 else np.round(rng.random((m, K)), 1)
        np.testing.assert_array_equal(new_filter(P, tol), brute_mask(P, tol))


@pytest.mark.parametrize("K", [3, 4])
def test_filter_large_sets_cross_the_sweep_blocks(K):
    """Sets much larger than the sweep block and the divide-and-conquer leaf (antichain-heavy
    points near a sphere plus dominated filler), exact and at a resolution."""
    rng = np.random.default_rng(K)
    D = rng.normal(size=(3000, K))
    front = np.abs(D) / np.linalg.norm(D, axis=1, keepdims=True)
    P = np.round(np.concatenate([front, front * rng.random((3000, 1))]), 3)[::3]
    for tol in (0.0, 1e-3):
        np.testing.assert_array_equal(new_filter(P, tol), brute_mask(P, tol))
    np.testing.assert_array_equal(pareto_filter(P), brute_mask(P, 0.0))


@pytest.mark.parametrize("K", [1, 2, 3, 4])
def test_pareto_filter_is_exact_dominance_and_keeps_duplicates(K):
    rng = np.random.default_rng(K)
    for _ in range(20):
        P = rng.integers(0, 3, size=(int(rng.integers(1, 80)), K)).astype(float)
        np.testing.assert_array_equal(pareto_filter(P), brute_mask(P, 0.0))
        np.testing.assert_array_equal(pareto_filter(-P, maximize=False), brute_mask(P, 0.0))


@pytest.mark.parametrize("K", [2, 3, 4])
def test_dominated_with_margin_matches_definition(K):
    rng = np.random.default_rng(K)
    for tol in (0.0, 1e-9, 0.2):
        E = rng.integers(0, 4, size=(60, K)) / 2.0
        X = rng.integers(0, 4, size=(200, K)) / 2.0 + rng.choice([0, tol, -tol], size=(200, K))
        want = [bool(np.any(np.all(E >= x, axis=1) & np.any(E > x + tol, axis=1))) for x in X]
        np.testing.assert_array_equal(dominated_with_margin(E, X, tol), want)
    assert dominated_with_margin(np.zeros((0, K)), np.zeros((3, K)), 0.0).tolist() == [False] * 3


@pytest.mark.parametrize("K,rows", [(2, 40), (3, 40), (3, 600), (4, 30)])
def test_one_margin_index_answers_many_queries(K, rows):
    """Claim: a MarginIndex built once (the subset DP asks its known vectors about every state)
    answers every later query as the definition does, tables reused (K = 3 past the table's
    row limit takes the orthant queries)."""
    rng = np.random.default_rng(K * 7 + rows)
    E = rng.integers(0, 5, size=(rows, K)) / 4.0
    idx = MarginIndex(E)
    tables = idx.tables
    for tol in (0.0, 1e-9, 0.3, 0.0):
        X = rng.integers(0, 5, size=(int(rng.integers(0, 90)), K)) / 4.0
        want = [bool(np.any(np.all(E >= x, axis=1) & np.any(E > x + tol, axis=1))) for x in X]
        assert idx(X, tol).tolist() == want
        assert idx.tables is tables  # built once
    assert (tables is None) == (K == 4 or rows > 512)
    with pytest.raises(ValueError, match=f"must have {K} columns"):
        idx(np.zeros((2, K + 1)), 0.0)


# ------------------------------------------------------------------------------------------
# Near-duplicate merging and the DP's filter
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("tol", [1e-12, 0.05, 0.3])
def test_greedy_unique_equals_the_walk(tol):
    """Runs of first coordinates within tol (pairs, tight clusters, chains longer than tol and
    equal first coordinates with distinct others), both directions of the order."""
    rng = np.random.default_rng(int(tol * 1000))
    for trial in range(60):
        m, K = int(rng.integers(1, 120)), int(rng.integers(1, 4))
        V = np.round(rng.random((m, K)) * rng.choice([1, 3, 10]), 1) + rng.uniform(
            -tol, tol, size=(m, K)) * rng.integers(0, 2, size=(m, K))
        order = np.argsort(V[:, 0], kind="stable")
        if trial % 2:
            order = order[::-1]
        np.testing.assert_array_equal(greedy_unique(V, order, tol),
                                      old_greedy_unique(V, order, tol))
        np.testing.assert_array_equal(unique_rows(V, tol),
                                      old_greedy_unique(V, np.lexsort(np.round(V, 12).T[::-1]),
                                                        tol))


@pytest.mark.parametrize("K", [2, 3])
def test_frontier_rows_equals_previous(K):
    """The DP's filter (dominance at resolution tol, then merging): the same row indices as the
    previous implementation on grid data with float noise."""
    rng = np.random.default_rng(K)
    for tol in (1e-12, 1e-3):
        for _ in range(30):
            C = grid_points(rng, int(rng.integers(2, 200)), K, tol)
            keep = np.flatnonzero(old_filter(C, tol))
            old = keep[_merge_close_old(C[keep], tol)]
            np.testing.assert_array_equal(frontier_rows(C, tol), old)


def _merge_close_old(V, tol):
    if V.shape[1] == 2:
        return old_greedy_unique(V, np.lexsort((V[:, 1], -V[:, 0])), tol)
    return old_greedy_unique(V, np.lexsort(V.T[::-1]), tol)


def test_merge_close_keeps_the_first_of_each_cluster_in_order():
    """K = 2: x descending, so of two rows within tol the one with the larger x stays."""
    V = np.array([[0.5, 0.5], [0.5 + 1e-13, 0.5 - 1e-13], [0.4, 0.6]])
    np.testing.assert_array_equal(_merge_close(V, 1e-12), [1, 2])
    np.testing.assert_array_equal(_merge_close(V, 1e-12), _merge_close_old(V, 1e-12))


# ------------------------------------------------------------------------------------------
# The subset DP: chunk pruning changes nothing
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n, K, seed", [(9, 2, 0), (9, 2, 2), (6, 3, 0), (7, 3, 1), (5, 4, 0)])
def test_subset_dp_same_frontier_for_every_chunk_size(n, K, seed):
    """Dropping candidate chunks whose maximum is dominated with margin is exact: the values and
    the weak orders do not depend on the chunk size (``chunk`` ≥ n·max|F| prunes nothing at the
    chunk level)."""
    P = FiniteProblem.random(n, K, seed=seed)
    Ws = np.stack([P.pair_weights(k) for k in range(K)])
    V0, S0 = subset_dp(Ws, 1e-12, chunk=1 << 40)
    for chunk in (1, 4, 16):
        V, S = subset_dp(Ws, 1e-12, chunk=chunk)
        np.testing.assert_array_equal(V, V0)
        np.testing.assert_array_equal(S, S0)
    A = np.array([P.auc(s) for s in S0])
    np.testing.assert_allclose(A, V0, atol=1e-12)


def test_subset_dp_rejects_non_finite_weights():
    P = FiniteProblem.random(4, 2, seed=0)
    Ws = np.stack([P.pair_weights(k) for k in range(2)])
    Ws[0, 0, 1] = np.nan
    with pytest.raises(ValueError, match="'Ws'"):
        subset_dp(Ws, 1e-12)


# ------------------------------------------------------------------------------------------
# Property: on any point set with ties and duplicates, the filters are the rule itself
# ------------------------------------------------------------------------------------------
@st.composite
def tied_point_sets(draw):
    """Up to 400 rows of K = 2..5 columns from a small integer grid (exact ties, duplicates,
    whole rows repeated), scaled by a power of two (exact) and shifted."""
    K = draw(st.integers(2, 5))
    m = draw(st.integers(1, 400))
    levels = draw(st.integers(1, 6))
    P = draw(hnp.arrays(np.int64, (m, K), elements=st.integers(0, levels)))
    scale = 2.0 ** draw(st.integers(-3, 3))
    return P * scale - draw(st.sampled_from([0.0, 1.0, -3.5]))


@settings(max_examples=150, deadline=None)
@given(P=tied_point_sets(), tol_steps=st.sampled_from([0.0, 0.5, 1.0, 1.5]))
def test_filters_equal_brute_force_on_tied_point_sets(P, tol_steps):
    """The output-sensitive filters (K = 2 sweep, K = 3 staircase, divide and conquer for K > 3)
    equal the O(m²) brute-force rule, exactly (tol = 0) and at resolutions of the order of the
    grid step (ties within tol, chains of near ties); pareto_filter keeps every duplicate of a
    non-dominated row."""
    step = np.min(np.diff(np.unique(P)), initial=1.0)
    tol = tol_steps * step
    np.testing.assert_array_equal(new_filter(P, tol), brute_mask(P, tol))
    exact = brute_mask(P, 0.0)
    np.testing.assert_array_equal(pareto_filter(P), exact)
    np.testing.assert_array_equal(pareto_filter(-P, maximize=False), exact)
