"""The subset DP's two exact reductions (docs/theory.md §6.3): only the useful tied blocks
(:func:`bipartite.pareto.dp.useful_blocks`), and the bound that drops prefixes a known
achievable vector beats (``subset_dp(..., lower=...)``).

References: the DP over every block without the bound (``blocks="all"``, the previous algorithm),
brute-force enumeration of all weak orders (n ≤ 8), and the definition of a useful block written
directly on orders evaluated by :meth:`FiniteProblem.auc`.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from bipartite.pareto import exact_frontier, pareto_filter
from bipartite.pareto.dominance import unique_rows
from bipartite.pareto.dp import order_values, pair_weight_stack, subset_dp, useful_blocks
from bipartite.pareto.sweep import seed_values
from bipartite.population import FiniteProblem, enumerate_weak_orders


@functools.cache
def _orders(n: int) -> np.ndarray:
    return np.array(list(enumerate_weak_orders(n)), dtype=np.float64)


def _brute(P: FiniteProblem) -> np.ndarray:
    """Every weak order's AUC vector, then the exact Pareto filter, de-duplicated."""
    V = order_values(pair_weight_stack(P), _orders(P.n))
    F = V[pareto_filter(V)]
    return F[unique_rows(F, 1e-12)]


def _same(A: np.ndarray, B: np.ndarray, tol: float = 1e-10) -> bool:
    if A.shape != B.shape:
        return False
    D = np.max(np.abs(A[:, None, :] - B[None, :, :]), axis=2)
    return bool(np.all(D.min(axis=1) <= tol) and np.all(D.min(axis=0) <= tol))


def _useful_by_definition(P: FiniteProblem) -> set[int]:
    """B is useless iff, with B the tied top block and the other points below in a fixed order,
    one of the two orders that split B into B1 ≻ B2 (either way round) has every AUC at least
    the tied order's. Orders are evaluated by ``P.auc`` (no pair weights)."""
    n = P.n
    out = set()
    for B in range(1, 1 << n):
        members = [i for i in range(n) if B >> i & 1]
        rest = [i for i in range(n) if not B >> i & 1]
        base = np.zeros(n)
        base[rest] = -1.0 - np.arange(len(rest))     # the rest strictly below, in index order
        tied = P.auc(base)
        useful = True
        for size in range(1, len(members)):
            for B1 in itertools.combinations(members, size):
                s = base.copy()
                s[list(B1)] = 1.0                       # B1 above B \ B1 (at 0)
                up = P.auc(s) - tied                    # = d / 2; the other split gives −d / 2
                if np.all(up >= -1e-13) or np.all(up <= 1e-13):
                    useful = False
                    break
            if not useful:
                break
        if useful:
            out.add(B)
    return out


@pytest.mark.parametrize("n, K, seed", [(5, 2, 0), (6, 2, 1), (6, 2, 2), (5, 3, 0), (6, 3, 3),
                                        (5, 4, 1)])
def test_useful_blocks_match_their_definition(n, K, seed):
    """Claim: useful_blocks returns exactly the blocks that no bipartition splits without loss,
    the loss read off concrete orders by FiniteProblem.auc."""
    P = FiniteProblem.random(n, K, seed=seed)
    got = set(useful_blocks(pair_weight_stack(P)).tolist())
    assert got == _useful_by_definition(P)
    assert {1 << i for i in range(n)} <= got      # singletons are always useful


@pytest.mark.parametrize("n, K, seed, det", [(8, 2, 0, False), (9, 2, 1, False), (10, 2, 2, False),
                                             (8, 2, 3, True), (7, 3, 0, False), (6, 3, 1, False),
                                             (6, 3, 2, True), (5, 4, 0, False)])
def test_useful_blocks_and_bound_give_the_previous_frontier(n, K, seed, det):
    """Claim: the DP over useful blocks with the bound returns the same vectors as the DP over
    every block without it (the previous algorithm), and its orders attain them."""
    P = FiniteProblem.random(n, K, seed=seed, deterministic=det)
    if not np.all((P.pi > 0) & (P.pi < 1)):
        pytest.skip("a label with prior 0 or 1 has no AUC")
    Ws = pair_weight_stack(P)
    V0, _ = subset_dp(Ws, 1e-12, blocks="all")
    for kwargs in ({}, {"lower": seed_values(P)}):
        V, S = subset_dp(Ws, 1e-12, **kwargs)
        assert V.shape == V0.shape
        np.testing.assert_allclose(V, V0, rtol=0, atol=1e-12)
        np.testing.assert_allclose(np.array([P.auc(s) for s in S]), V, rtol=0, atol=1e-12)


@pytest.mark.parametrize("n, K, seed", [(9, 2, 0), (7, 3, 1)])
def test_bound_with_the_frontier_itself_drops_nothing_needed(n, K, seed):
    """Claim: no prefix of a Pareto vector is dropped, even with the strongest possible
    ``lower`` (the exact frontier itself, every Pareto vector known in advance)."""
    P = FiniteProblem.random(n, K, seed=seed)
    Ws = pair_weight_stack(P)
    V0, _ = subset_dp(Ws, 1e-12, blocks="all")
    V, _ = subset_dp(Ws, 1e-12, lower=V0)
    np.testing.assert_allclose(V, V0, rtol=0, atol=1e-12)


@pytest.mark.parametrize("n, K, seed, det", [(6, 2, s, d) for s in range(4) for d in (False, True)]
                         + [(7, 2, 0, False), (7, 2, 1, True), (6, 3, 0, False), (7, 3, 2, False)])
def test_exact_frontier_equals_brute_force(n, K, seed, det):
    """Claim: exact_frontier (useful blocks, bound) equals the Pareto filter of every weak
    order's AUC vector."""
    P = FiniteProblem.random(n, K, seed=seed, deterministic=det)
    if not np.all((P.pi > 0) & (P.pi < 1)):
        pytest.skip("a label with prior 0 or 1 has no AUC")
    assert _same(exact_frontier(P, method="dp"), _brute(P))


@pytest.mark.slow
@pytest.mark.parametrize("K, seed", [(2, 0), (2, 1), (3, 0)])
def test_exact_frontier_equals_brute_force_n8(K, seed):
    """Claim: as above at n = 8 (545 835 weak orders)."""
    P = FiniteProblem.random(8, K, seed=seed)
    assert _same(exact_frontier(P, method="dp"), _brute(P))


def test_subset_dp_rejects_bad_options():
    Ws = pair_weight_stack(FiniteProblem.random(4, 2, seed=0))
    with pytest.raises(ValueError, match="'blocks'"):
        subset_dp(Ws, 1e-12, blocks="some")
    with pytest.raises(ValueError, match="'lower'"):
        subset_dp(Ws, 1e-12, lower=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="'lower'"):
        subset_dp(Ws, 1e-12, lower=np.array([[np.nan, 0.5]]))
