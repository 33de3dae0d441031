"""Tests of bipartite.contrib.fusion: exponential score fusion, its Pareto search, the nested generator.

References: MTRUB (Liu et al., WWW'22 Companion) §3.4 for the fusion ``Π_k p_k^{γ_k}``; docs/theory.md §11.
Expected values come from independent computations: the plain product with numpy, sklearn's
``roc_auc_score`` per label / per group, and brute-force dominance over the candidate grid.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.metrics import roc_auc_score

from bipartite.contrib.fusion import (
    make_nested_behaviour,
    pareto_search,
    score_fusion,
)
from bipartite.pareto import simplex_grid


@given(
    P=hnp.arrays(np.float64, (7, 3), elements=st.floats(1e-3, 1.0)),
    gam=hnp.arrays(np.float64, (3,), elements=st.floats(0.0, 3.0)),
)
def test_log_fusion_equals_product_on_safe_inputs(P, gam):
    """Claim: for probabilities in [1e-3, 1] (no underflow, no zero), exp(log-score) equals the
    plain product Π_k p_k^{γ_k} to rounding, and the log-score is its logarithm."""
    expected = np.prod(P ** gam, axis=1)
    np.testing.assert_allclose(score_fusion(P, gam, log=False), expected, rtol=1e-12)
    np.testing.assert_allclose(score_fusion(P, gam), np.log(expected), rtol=1e-10, atol=1e-12)


def test_many_exponents_at_once_equal_one_by_one(rng):
    P = rng.uniform(0.01, 1, size=(20, 4))
    G = rng.uniform(0, 2, size=(5, 4))
    many = score_fusion(P, G)
    assert many.shape == (20, 5)
    for j in range(5):
        np.testing.assert_allclose(many[:, j], score_fusion(P, G[j]))


def test_zero_probability_and_zero_exponent():
    # γ_k = 0 removes label k even where p_k = 0 (no 0 * log 0 = NaN) ...
    P = np.array([[0.0, 0.5], [0.3, 0.25]])
    np.testing.assert_allclose(score_fusion(P, [0.0, 1.0], log=False), [0.5, 0.25])
    # ... and with γ_k > 0 an exact zero ranks last but stays finite, keeping the other labels'
    # order among such rows (the plain product would tie them at 0).
    P = np.array([[0.0, 0.9], [0.0, 0.1], [1e-200, 0.5]])
    s = score_fusion(P, [1.0, 1.0])
    assert np.all(np.isfinite(s))
    assert s[0] > s[1] and s[2] > s[0]
    assert np.all(np.prod(P, axis=1)[:2] == 0)


def test_ranking_depends_only_on_the_ray_of_the_exponents(rng):
    """Π p^{cγ} is an increasing function of Π p^{γ} (c > 0): identical AUCs for every label."""
    P = rng.uniform(size=(300, 3))
    Y = (rng.uniform(size=(300, 3)) < P).astype(int)
    gam = np.array([0.2, 0.5, 0.3])
    a = [roc_auc_score(Y[:, k], score_fusion(P, gam)) for k in range(3)]
    b = [roc_auc_score(Y[:, k], score_fusion(P, 7.5 * gam)) for k in range(3)]
    assert a == b


@pytest.mark.parametrize(
    "P, exponents, match",
    [
        ([[0.5, 1.2]], [1, 1], r"'P' parameter must hold probabilities.*1\.2"),
        ([[0.5, 0.2]], [1, -1], r"'exponents' parameter must be non-negative, got -1"),
        ([[0.5, 0.2]], [1, 1, 1], r"'exponents' parameter must have K=2"),
        ([0.5, 0.2], [1, 1], r"'P' parameter must be 2-dimensional"),
        ([[0.5, np.nan]], [1, 1], r"'P' parameter must be finite"),
    ],
)
def test_score_fusion_rejects_bad_input(P, exponents, match):
    with pytest.raises(ValueError, match=match):
        score_fusion(P, exponents)


@pytest.mark.parametrize("K, res", [(1, 5), (2, 4), (3, 6), (4, 3)])
def test_simplex_grid_is_the_full_composition_set(K, res):
    grid = simplex_grid(K, res)
    assert len(grid) == math.comb(res + K - 1, K - 1)
    np.testing.assert_allclose(grid.sum(axis=1), 1.0)
    ints = np.rint(grid * res)
    np.testing.assert_allclose(grid * res, ints, atol=1e-12)
    expected = {c for c in itertools.product(range(res + 1), repeat=K) if sum(c) == res}
    assert {tuple(int(v) for v in row) for row in ints} == expected


def _brute_force_front(A: np.ndarray) -> set[int]:
    front = set()
    for i in range(len(A)):
        if not any(np.all(A[j] >= A[i]) and np.any(A[j] > A[i]) for j in range(len(A))):
            front.add(i)
    return front


def _sklearn_aucs(Y, s, groups=None):
    """Per-label AUC by sklearn; with groups, the pairs-weighted gAUC by counting every
    within-group (positive, negative) pair, ties ½ (the obvious O(n²) definition)."""
    if groups is None:
        return [roc_auc_score(Y[:, k], s) for k in range(Y.shape[1])]
    same = groups[:, None] == groups[None, :]
    win = (s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])
    out = []
    for k in range(Y.shape[1]):
        pairs = same & (Y[:, k][:, None] == 1) & (Y[:, k][None, :] == 0)
        out.append(win[pairs].sum() / pairs.sum())
    return out


@pytest.mark.parametrize("use_groups", [False, True])
def test_pareto_search_matches_brute_force_over_its_grid(rng, use_groups):
    data = make_nested_behaviour(40, seed=3)
    P = np.clip(data.eta + 0.15 * rng.normal(size=data.eta.shape), 0, 1)
    groups = data.groups if use_groups else None
    res = pareto_search(P, data.Y, resolution=5, qid=groups)
    A = np.array([_sklearn_aucs(data.Y, score_fusion(P, g), groups) for g in res.candidates])
    np.testing.assert_allclose(res.candidate_aucs, A, atol=1e-12)
    assert set(res.pareto_index.tolist()) == _brute_force_front(A)
    np.testing.assert_array_equal(res.exponents, res.candidates[res.pareto_index])
    # every candidate off the front is dominated by one on it
    on = res.candidate_aucs[res.pareto_index]
    for i in set(range(len(A))) - set(res.pareto_index.tolist()):
        assert np.any(np.all(on >= A[i], axis=1) & np.any(on > A[i], axis=1))
    best = res.best()
    assert np.mean(A[res.pareto_index], axis=1).max() == pytest.approx(
        np.mean(_sklearn_aucs(data.Y, score_fusion(P, best), groups)))


def test_pareto_search_random_is_seeded_and_keeps_vertices(rng):
    P = rng.uniform(size=(100, 3))
    Y = (rng.uniform(size=(100, 3)) < P).astype(int)
    a = pareto_search(P, Y, n_random=30, seed=5)
    b = pareto_search(P, Y, n_random=30, seed=5)
    np.testing.assert_array_equal(a.candidates, b.candidates)
    assert len(a.candidates) == 33
    np.testing.assert_array_equal(a.candidates[:3], np.eye(3))
    np.testing.assert_allclose(a.candidates.sum(axis=1), 1.0)


def test_pareto_search_rejects_bad_input(rng):
    P = rng.uniform(size=(10, 2))
    Y = rng.integers(0, 2, size=(10, 2))
    with pytest.raises(ValueError, match="same number of labels"):
        pareto_search(P, Y[:, :1])
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        pareto_search(P, Y[:5])
    with pytest.raises(ValueError, match="'Y_val' parameter must contain only 0 and 1"):
        pareto_search(P, Y + 1)
    with pytest.raises(ValueError, match="'n_random' parameter"):
        pareto_search(P, Y, n_random=0)


def test_nested_behaviour_labels_are_nested_and_match_eta():
    """Nesting holds row by row; the labels are draws from the stated exact marginals η
    (Monte Carlo: label means within η-deciles match the mean η to 3 standard errors)."""
    data = make_nested_behaviour(3000, seed=11)
    Y, eta = data.Y, data.eta
    assert np.all(Y[:, 1] <= Y[:, 0]) and np.all(Y[:, 2] <= Y[:, 1])
    assert np.all(np.diff(eta, axis=1) <= 0)
    for k in range(3):
        edges = np.quantile(eta[:, k], np.linspace(0, 1, 11))
        bins = np.clip(np.searchsorted(edges, eta[:, k], side="right") - 1, 0, 9)
        for b in range(10):
            m = bins == b
            se = np.sqrt(np.mean(eta[m, k] * (1 - eta[m, k])) / m.sum())
            assert abs(Y[m, k].mean() - eta[m, k].mean()) < 3 * se + 1e-3
    assert data.X.shape == (30000, 11) and len(np.unique(data.groups)) == 3000


def test_nested_behaviour_is_reproducible_and_validated():
    a = make_nested_behaviour(5, seed=1)
    b = make_nested_behaviour(5, seed=1)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.Y, b.Y)
    # samples drawn with other seeds share the problem (the relevance map), unless problem_seed
    # changes: the exact click logit is a fixed function of the features.
    def click_logit(d):
        return np.log(d.eta[:, 0] / (1 - d.eta[:, 0]))

    def fit_residual(d):
        # c = -1 + 2 <A u, v_2:> / 4 + 1.2 v_0: linear in the products u_q v_j, v_0 and 1
        Z = (d.X[:, :4, None] * d.X[:, None, 6:10]).reshape(len(d.X), -1)
        Z = np.column_stack([Z, d.X[:, 4], np.ones(len(d.X))])
        coef, *_ = np.linalg.lstsq(Z, click_logit(d), rcond=None)
        return coef

    c1 = fit_residual(make_nested_behaviour(30, seed=1))
    c2 = fit_residual(make_nested_behaviour(30, seed=2))
    c3 = fit_residual(make_nested_behaviour(30, seed=2, problem_seed=5))
    np.testing.assert_allclose(c1, c2, atol=1e-8)
    assert not np.allclose(c1, c3, atol=1e-3)
    with pytest.raises(ValueError, match="'n_item_features' parameter"):
        make_nested_behaviour(5, n_item_features=2)


def test_fusion_can_be_dominated_by_a_linear_scorer_but_never_conversely():
    """mtrub-fusion-vs-loss-aggregation, exact population AUCs (docs/theory.md §2, §4, §6) on random
    finite problems (n = 8, K = 2): every linear scorer Σ a_k η_k with a > 0 is Pareto-optimal
    (LA25 Prop 5.2), so no fusion Π η_k^{γ_k} dominates one; but interior fusions (γ > 0) are
    strictly dominated by a linear scorer on some problems (found in about 1 problem in 3)."""
    from bipartite.population import FiniteProblem

    grid = simplex_grid(2, 20)[1:-1]  # strictly positive weights / exponents only
    dominated_fusion = []
    for seed in range(4):
        pb = FiniteProblem.random(8, 2, seed=seed)
        F = np.array([pb.auc(score_fusion(pb.eta, g)) for g in grid])
        L = np.array([pb.auc(pb.eta @ a) for a in grid])
        for lin in L:  # no fusion dominates a linear scorer (beyond rounding)
            assert not np.any(np.all(F >= lin - 1e-12, axis=1) & np.any(F > lin + 1e-12, axis=1))
        dominated_fusion += [
            seed for f in F
            if np.any(np.all(L >= f - 1e-12, axis=1) & np.any(L > f + 1e-12, axis=1))]
    assert 2 in dominated_fusion  # pinned: seed 2 has a fusion dominated by a linear scorer
