"""Tests of the weight-space arrangement (bipartite.pareto.arrangement, docs/theory.md §6.2,
§13.2): the K = 3 walk and its cell ownership, and the cells of the recursion over flats (K ≥ 4).

The walk computes AUC vectors as ``C + Σ_p sgn(a·h_p) g_p`` without sorting; the references are
the routes that sort one order per face or read the vertices off the exact frontier:
``supported_frontier(method="frontier")`` (the DP frontier and one LP per hull vertex),
``reachable_orders`` (the recursion over flats, one sort per face, AUCs by ``FiniteProblem.auc``)
and ``max_min_supported(method="faces")``.
"""

from __future__ import annotations

import numpy as np
import pytest

from bipartite.pareto import max_min_supported, reachable_orders, supported_frontier
from bipartite.pareto.arrangement import best_faces, walk_faces
from bipartite.pareto.dominance import unique_rows
from bipartite.pareto.frontier import ARRANGEMENT_MAX_K
from bipartite.population import FiniteProblem

TOL = 1e-9


def distinct(V: np.ndarray) -> np.ndarray:
    return V[unique_rows(V, TOL)]


def defined(n: int, seed: int, det: bool) -> bool:
    """Every prior strictly inside (0, 1) (deterministic labels can leave a label constant)."""
    pi = FiniteProblem.random(n, 3, seed=seed, deterministic=det).pi
    return bool(np.all((pi > 0) & (pi < 1)))


def cases(ns, seeds=range(3)):
    return [(n, s, d) for n in ns for s in seeds for d in (False, True) if defined(n, s, d)]


# the frontier route takes ~10 CPU s at n = 7 (one LP over the whole frontier per hull vertex)
CASES = cases((3, 4, 5, 6)) + [pytest.param(*c, marks=pytest.mark.slow) for c in cases((7, 8))]


@pytest.mark.parametrize(("n", "seed", "det"), CASES)
def test_supported_frontier_walk_equals_frontier_route(n, seed, det):
    """The supported points by the walk equal the old route's (exact frontier + vertex LP), and
    each returned order has the returned AUC vector."""
    P = FiniteProblem.random(n, 3, seed=seed, deterministic=det)
    old = supported_frontier(P, method="frontier")
    new, S = supported_frontier(P, return_scores=True)
    assert new.shape == old.shape
    np.testing.assert_allclose(new, old, atol=TOL)
    np.testing.assert_allclose(np.array([P.auc(s) for s in S]), new, atol=TOL)


@pytest.mark.parametrize(("n", "seed", "det"), cases((4, 6)))
def test_walk_meets_every_face_of_the_recursion(n, seed, det):
    """The vectors of all faces met by the walk (vertices, edges, cells, the closed simplex's
    boundary included) are exactly the vectors of the orders of reachable_orders."""
    P = FiniteProblem.random(n, 3, seed=seed, deterministic=det)
    _, S, _ = reachable_orders(P)
    ref = distinct(np.array([P.auc(s) for s in S]))
    walk = distinct(best_faces(P, lambda lf: np.ones(len(lf.dim), dtype=bool)).V)
    assert walk.shape == ref.shape
    np.testing.assert_allclose(walk, ref, atol=TOL)


@pytest.mark.parametrize(("n", "seed", "det", "c"),
                         [(*case, c) for case in cases((5, 8)) for c in (None, (1.0, 0.8, 1.2))]
                         + [pytest.param(*case, None, marks=pytest.mark.slow)
                            for case in cases((12, 16))])
def test_max_min_supported_walk_equals_faces(n, seed, det, c):
    """max_min_supported by the walk picks an order of the same value, AUCs and kind (cell or
    tie) as the recursion over faces, and its weighting induces that order."""
    P = FiniteProblem.random(n, 3, seed=seed, deterministic=det)
    ref = max_min_supported(P, weights=c, method="faces")
    new = max_min_supported(P, weights=c)
    assert new.value == pytest.approx(ref.value, abs=1e-12)
    np.testing.assert_allclose(new.auc, ref.auc, atol=1e-12)
    assert new.tie == ref.tie
    np.testing.assert_allclose(P.auc(new.scores), new.auc, atol=1e-12)
    # f_a at the returned weighting, ties at the score resolution (a tie face's weighting lies
    # on its tie lines only up to rounding), is the returned order
    from bipartite.pareto.arrangement import effective_scores, lex_scores

    np.testing.assert_array_equal(lex_scores(effective_scores(P), [new.a]), new.scores)


def test_walk_vectors_are_the_sorted_orders():
    """On every line, each face's vector from the cumulative sums equals the AUCs of the order of
    f at its symbolic point (one sort per face; n = 6)."""
    from bipartite.pareto.arrangement import effective_scores, lex_scores

    P = FiniteProblem.random(6, 3, seed=4)
    E = effective_scores(P)
    for lf in walk_faces(P):
        for V, lv in zip(lf.V, lf.levels, strict=True):
            levels = list(lv) if np.any(lv[1]) else [lv[0]]
            np.testing.assert_allclose(P.auc(lex_scores(E, levels)), V, atol=TOL)


def test_method_errors():
    P2 = FiniteProblem.random(4, 2, seed=0)
    with pytest.raises(ValueError, match="'method' parameter is 'walk'"):
        max_min_supported(P2, method="walk")
    with pytest.raises(ValueError, match="method"):
        supported_frontier(P2, method="sweep")
    with pytest.raises(ValueError, match="K = 3 walk"):
        next(walk_faces(P2))


def test_supported_routes_agree_k2():
    """K = 2: the breakpoint sweep gives the frontier route's points."""
    P = FiniteProblem.random(6, 2, seed=1)
    np.testing.assert_allclose(supported_frontier(P), supported_frontier(P, method="frontier"),
                               atol=TOL)


def cases_k(ns, K, seeds=range(3)):
    out = []
    for n in ns:
        for seed in seeds:
            for det in (False, True):
                pi = FiniteProblem.random(n, K, seed=seed, deterministic=det).pi
                if np.all((pi > 0) & (pi < 1)):
                    out.append((n, K, seed, det))
    return out


@pytest.mark.parametrize(("n", "K", "seed", "det"),
                         cases_k((3, 4, 5), 4) + cases_k((3, 4), 5) + cases_k((3, 4), 6)
                         + [pytest.param(*c, marks=pytest.mark.slow) for c in cases_k((6,), 4)])
def test_supported_frontier_cells_equal_frontier_route_any_k(n, K, seed, det):
    """K >= 4: the cells of the arrangement (recursion over flats; the default up to K = 5)
    give the same supported points as the exact frontier plus one LP per hull vertex (the
    default beyond), and each returned order has the returned AUC vector."""
    P = FiniteProblem.random(n, K, seed=seed, deterministic=det)
    old = supported_frontier(P, method="frontier")
    new, S = supported_frontier(P, method="arrangement", return_scores=True)
    np.testing.assert_array_equal(supported_frontier(P),
                                  old if K > ARRANGEMENT_MAX_K else new)
    assert new.shape == old.shape
    np.testing.assert_allclose(new, old, atol=TOL)
    np.testing.assert_allclose(np.array([P.auc(s) for s in S]), new, atol=TOL)


def cell_orders(P: FiniteProblem, owned_only: bool) -> list[tuple]:
    """The orders of the cells the walk meets: every copy (one per edge side), or the owned."""
    from bipartite.pareto.arrangement import effective_scores, lex_scores

    E = effective_scores(P)
    out = []
    for lf in walk_faces(P):
        for lv, dim, own in zip(lf.levels, lf.dim, lf.own, strict=True):
            if dim == 2 and (own or not owned_only):
                out.append(tuple(lex_scores(E, list(lv)).astype(np.int64)))
    return out


@pytest.mark.parametrize(("n", "seed", "det"), cases((2, 3, 4, 5, 6, 7, 8), seeds=range(4)))
def test_walk_owns_every_cell_exactly_once(n, seed, det):
    """Every cell of the arrangement is owned by exactly one (line, vertex) of the walk: the owned
    copies have pairwise distinct orders (a strict order is one cell), and their orders are the
    orders of all cells that the walk meets (every copy) and of the cells of the recursion over
    flats (reachable_orders, faces of dimension 2): three degenerate vertices included (the three
    tie lines of three points always meet in one vertex), deterministic labels too."""
    P = FiniteProblem.random(n, 3, seed=seed, deterministic=det)
    owned = cell_orders(P, owned_only=True)
    assert len(owned) == len(set(owned))
    assert set(owned) == set(cell_orders(P, owned_only=False))
    _, S, dim = reachable_orders(P)
    assert set(owned) == {tuple(s.astype(np.int64)) for s in S[dim == 2]}


def test_seed_values_bounded_for_many_labels():
    """The DP's seed orders stay few for many labels (issue 35: n = 2, K = 12 took 32 s) and
    the frontier is unchanged: n = 2 has 3 weak orders, checked by enumeration."""
    from bipartite.pareto import exact_frontier
    from bipartite.pareto.dominance import pareto_filter
    from bipartite.pareto.sweep import _SEED_MAX_ORDERS, seed_values

    P = FiniteProblem.random(2, 12, seed=0)
    assert len(seed_values(P)) <= 3
    P3 = FiniteProblem.random(7, 9, seed=0)
    assert len(seed_values(P3)) <= _SEED_MAX_ORDERS
    orders = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    A = np.array([P.auc(s) for s in orders])
    ref = A[pareto_filter(A)]
    F = exact_frontier(P)
    assert same_sets(F, ref)


def same_sets(A: np.ndarray, B: np.ndarray) -> bool:
    A, B = distinct(A), distinct(B)
    return A.shape == B.shape and bool(np.allclose(A, B, atol=TOL))


@pytest.mark.parametrize("d0", [0.2, -0.2])
@pytest.mark.parametrize("toward", [0.0, 1.0])
def test_a_one_ulp_difference_does_not_make_a_facet_a_tie_line(d0, toward):
    """Two points whose η differ in label 1 and agree up to one ulp in label 2: their tie normal
    is a facet a_2 = 0 up to rounding, not a line cutting the simplex. The K = 3 walk gives the
    frontier route's points, none Pareto-dominated (found by review: it took cells outside the
    simplex and returned 1–3 dominated points)."""
    from bipartite.pareto.dominance import pareto_filter

    eta = np.array([[0.40, 0.30, 0.55], [0.60, 0.30, 0.55], [0.70, 0.20, 0.35],
                    [0.30, 0.65, 0.60], [0.50, 0.45, 0.25]])
    eta[1, 0] = eta[0, 0] + d0
    eta[1, 1] = np.nextafter(eta[0, 1], toward)
    P = FiniteProblem.from_eta([0.2] * 5, eta)
    walk = supported_frontier(P, method="arrangement")
    ref = supported_frontier(P, method="frontier")
    assert pareto_filter(walk).all()
    np.testing.assert_allclose(np.unique(np.round(walk, 12), axis=0),
                               np.unique(np.round(ref, 12), axis=0), atol=1e-12)
