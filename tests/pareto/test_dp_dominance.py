"""Point dominance in the subset DP (docs/theory.md §6.3; ``pareto.dp.point_dominance``,
``closed_states``, ``subset_dp(dominance=...)``) and the K = 3 kernels of the DP's filters
(``pareto.dominance._near_dominated``, ``MarginIndex._table_3d``).

References: the swap claim read off concrete orders by :meth:`FiniteProblem.auc`; the DP without
point dominance (and over every tied block without the bound: the route before issue 37);
brute-force enumeration of every weak order; the O(m²) dominance rules written here.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import bipartite.pareto.dominance as dominance
from bipartite.pareto import exact_frontier
from bipartite.pareto.dominance import dominated_with_margin, frontier_rows, unique_rows
from bipartite.pareto.dp import (
    closed_states,
    pair_weight_stack,
    point_dominance,
    subset_dp,
)
from bipartite.pareto.sweep import seed_values
from bipartite.population import FiniteProblem
from tests.pareto.test_subset_dp import _brute, _orders


def _same(A: np.ndarray, B: np.ndarray, tol: float = 1e-9) -> bool:
    if A.shape != B.shape:
        return False
    if len(A) > 2000:  # both are antichains without near-duplicates: compare sorted rows
        A, B = A[np.lexsort(A.T[::-1])], B[np.lexsort(B.T[::-1])]
        return bool(np.max(np.abs(A - B), initial=0.0) <= tol)
    D = np.max(np.abs(A[:, None, :] - B[None, :, :]), axis=2)
    return bool(np.all(D.min(axis=1) <= tol) and np.all(D.min(axis=0) <= tol))


def _problems(n: int, K: int, seeds) -> list[FiniteProblem]:
    out = []
    for seed in seeds:
        for det in (False, True):
            P = FiniteProblem.random(n, K, seed=seed, deterministic=det)
            if np.all((P.pi > 0) & (P.pi < 1)):
                out.append(P)
    return out


@pytest.mark.parametrize("n, K", [(4, 2), (5, 2), (4, 3), (5, 3), (4, 4)])
def test_point_dominance_swap_never_loses(n, K):
    """Claim: for every pair (i, j) of point_dominance and every weak order that places j
    strictly above i, exchanging the two points' scores gives AUCs at least as large in every
    label (evaluated by FiniteProblem.auc); and the relation is acyclic."""
    S = _orders(n)
    found = 0
    for P in _problems(n, K, range(6)):
        E = point_dominance(pair_weight_stack(P))
        assert not np.any(np.diag(E)) and not np.any(E & E.T)
        reach = E.copy()                      # transitive closure: acyclic iff no i reaches i
        for _ in range(n):
            reach = reach | ((reach.astype(int) @ reach.astype(int)) > 0)
        assert not np.any(np.diag(reach))
        for i, j in zip(*np.nonzero(E), strict=True):
            found += 1
            for s in S[S[:, j] > S[:, i]]:
                t = s.copy()
                t[[i, j]] = s[[j, i]]
                assert np.all(P.auc(t) >= P.auc(s) - 1e-13)
    assert found > 0


def test_point_dominance_matches_the_auc_condition():
    """Claim: for AUC pair weights, (i, j) qualifies iff p_i η_ik ≥ p_j η_jk and
    p_i (1 − η_ik) ≤ p_j (1 − η_jk) in every label (docstring), up to the acyclic orientation."""
    for seed in range(5):
        P = FiniteProblem.random(7, 2, seed=seed, deterministic=seed % 2 == 1)
        if not np.all((P.pi > 0) & (P.pi < 1)):
            continue
        E = point_dominance(pair_weight_stack(P))
        a, b = P.mass[:, None] * P.eta, P.mass[:, None] * (1 - P.eta)
        cond = np.all((a[:, None, :] >= a[None, :, :]) & (b[:, None, :] <= b[None, :, :]), axis=2)
        np.fill_diagonal(cond, False)
        assert np.all(E <= cond)                       # every pair of E satisfies it
        assert np.all((E | E.T) == (cond | cond.T))    # each qualifying pair, one way round


def test_closed_states_match_their_definition():
    rng = np.random.default_rng(0)
    n = 6
    E = np.triu(rng.random((n, n)) < 0.3, k=1)
    got = closed_states(E)
    for U in range(1 << n):
        want = all(not (U >> j & 1) or (U >> i & 1) for i in range(n) for j in range(n) if E[i, j])
        assert got[U] == want


@pytest.mark.parametrize("n, K, seeds", [(5, 2, range(4)), (5, 3, range(3)), (5, 4, range(2)),
                                         (4, 3, range(4))])
def test_subset_dp_with_point_dominance_equals_brute_force(n, K, seeds):
    """Claim: the DP restricted to the prefixes that respect point dominance returns the Pareto
    set of every weak order's AUC vector, and its orders attain the values."""
    for P in _problems(n, K, seeds):
        Ws = pair_weight_stack(P)
        V, S = subset_dp(Ws, 1e-12, lower=seed_values(P))
        assert _same(V, _brute(P))
        np.testing.assert_allclose(np.array([P.auc(s) for s in S]), V, rtol=0, atol=1e-12)


@pytest.mark.parametrize("K, ns, seeds", [(2, (7, 9), range(3)), (3, (6, 7), range(3)),
                                          (4, (5, 6), range(2))])
def test_subset_dp_equals_the_previous_route(K, ns, seeds):
    """Claim: the DP as exact_frontier runs it (useful blocks, bound, point dominance, the K = 3
    kernels) returns the same vectors as the DP without point dominance and as the DP over every
    tied block without the bound (the route before the useful-block reduction)."""
    for n in ns:
        for P in _problems(n, K, seeds):
            Ws = pair_weight_stack(P)
            V, _ = subset_dp(Ws, 1e-12, lower=seed_values(P))
            V1, _ = subset_dp(Ws, 1e-12, lower=seed_values(P), dominance=False)
            V0, _ = subset_dp(Ws, 1e-12, blocks="all", dominance=False)
            assert _same(V, V1) and _same(V, V0)
            assert _same(exact_frontier(P, method="dp"), V0[unique_rows(V0, 1e-12)])


# ------------------------------------------------------------------------------------------
# The K = 3 kernels
# ------------------------------------------------------------------------------------------
def _brute_margin(E, X, tol):
    return np.array([bool(np.any(np.all(E >= x, axis=1) & np.any(E > x + tol, axis=1)))
                     for x in X], dtype=bool)


def _brute_filter(P, tol):
    m = len(P)
    return np.array([not np.any(np.all(P >= P[i] - tol, axis=1) & np.any(P > P[i] + tol, axis=1))
                     for i in range(m)], dtype=bool)


@pytest.mark.parametrize("rows", [1, 7, 60, 600])
def test_dominated_with_margin_3d_table_and_sweep(rows):
    """The prefix table (at most _TABLE_MAX_ROWS rows of E) and the orthant sweeps (more) both
    equal the definition, on grid points with ties and offsets of ±tol."""
    rng = np.random.default_rng(rows)
    for tol in (0.0, 1e-12, 0.25):
        E = rng.integers(0, 5, size=(rows, 3)) / 2.0
        X = rng.integers(0, 5, size=(300, 3)) / 2.0 + rng.choice([0, tol, -tol], size=(300, 3))
        np.testing.assert_array_equal(dominated_with_margin(E, X, tol), _brute_margin(E, X, tol))


@pytest.mark.parametrize("pairs", [0, 5, 1 << 22])
def test_filter_3d_near_screen_and_its_fallback(monkeypatch, pairs):
    """The K = 3 filter at resolution tol tests only near rows pairwise; with the pair budget
    exceeded it falls back to the orthant queries: both equal the O(m²) rule."""
    monkeypatch.setattr(dominance, "_NEAR_PAIRS", pairs)
    rng = np.random.default_rng(pairs % 97)
    for trial in range(30):
        m = int(rng.integers(1, 250))
        P = rng.integers(0, 4, size=(m, 3)) / 4.0
        tol = [0.0, 1e-12, 0.1, 0.3][trial % 4]
        P = P + rng.uniform(-tol, tol, size=P.shape) * rng.integers(0, 2, size=P.shape)
        np.testing.assert_array_equal(dominance._pareto_filter_nd(P, tol), _brute_filter(P, tol))


def test_frontier_rows_3d_noise_duplicates():
    """Float-noise copies of DP vectors (1e-16 apart) merge, and a vector better by more than
    tol in one column at equal (within noise) others dominates (the frontier_rows docstring)."""
    base = np.array([[0.0, 1.0, 0.76], [0.0, 1.0 - 1e-16, 0.77], [0.5, 0.5, 0.5],
                     [0.5 + 1e-16, 0.5, 0.5 - 1e-16]])
    keep = frontier_rows(base, 1e-12)
    got = {tuple(np.round(base[k], 12)) for k in keep}
    assert got == {(0.0, 1.0, 0.77), (0.5, 0.5, 0.5)}
    assert len(keep) == 2


@pytest.mark.parametrize("perm", list(itertools.permutations(range(3))))
def test_filter_3d_column_order_does_not_matter(perm):
    rng = np.random.default_rng(3)
    P = np.round(rng.random((400, 3)), 2)
    np.testing.assert_array_equal(dominance._pareto_filter_nd(P[:, perm], 0.005),
                                  _brute_filter(P, 0.005))


def test_sweep_large_blocks_equal_small_blocks(monkeypatch):
    """The staircase sweep gives the same covers with its large-input block size (512 rows,
    forced here on a small input) as with 128, and both equal the O(m²) rule."""
    rng = np.random.default_rng(5)
    m = 3000
    U, V = np.round(rng.random(m), 2), np.round(rng.random(m), 2)
    is_pt, is_q = rng.random(m) < 0.8, rng.random(m) < 0.8
    want = np.array([bool(np.any(is_pt[:q] & (U[:q] >= U[q]) & (V[:q] >= V[q]))) and is_q[q]
                     for q in range(m)])
    small, _ = dominance._sweep_2d(U, V, is_pt, is_q)
    monkeypatch.setattr(dominance, "_SWEEP_LARGE", 1)
    large, wit = dominance._sweep_2d(U, V, is_pt, is_q)
    np.testing.assert_array_equal(small & is_q, want)
    np.testing.assert_array_equal(large & is_q, want)
    h = np.flatnonzero(large & is_q)
    assert np.all((wit[h] < h) & is_pt[wit[h]] & (U[wit[h]] >= U[h]) & (V[wit[h]] >= V[h]))
