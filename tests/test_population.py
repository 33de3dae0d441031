"""FiniteProblem: exact population quantities against brute force (docs/theory.md §1, §2, §3)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from bipartite import UndefinedMetricWarning
from bipartite.labels import cost_matrix
from bipartite.population import (
    FiniteProblem,
    enumerate_weak_orders,
    gaussian_copula_joint,
    independent_joint,
    label_vectors,
    win_matrix,
)


def brute_auc(P, f):
    """Σ_{i,j} p_i p_j η_ik (1 − η_jk) s(f_i, f_j) / (π_k (1 − π_k)), diagonal included."""
    S = (f[:, None] > f[None, :]) + 0.5 * (f[:, None] == f[None, :])
    out = []
    for k in range(P.K):
        e = P.eta[:, k]
        num = np.sum(np.outer(P.mass * e, P.mass * (1 - e)) * S)
        out.append(num / (P.pi[k] * (1 - P.pi[k])))
    return np.array(out)


def brute_multipartite(P, f, psi, costs):
    vals = np.array([psi(v) for v in P.label_vectors], dtype=float)
    levels = np.unique(vals)
    C = cost_matrix(levels, costs)
    q = np.stack([P.label_probs[:, vals == lv].sum(1) for lv in levels], 1)
    num = den = 0.0
    for i, j in itertools.product(range(P.n), repeat=2):
        s = 1.0 if f[i] > f[j] else 0.5 if f[i] == f[j] else 0.0
        for a, b in itertools.product(range(len(levels)), repeat=2):
            c = C[a, b] * P.mass[i] * q[i, a] * P.mass[j] * q[j, b]
            num += c * s
            den += c
    return num / den


@pytest.mark.parametrize("seed", range(10))
def test_population_auc_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    P = FiniteProblem.random(int(rng.integers(2, 9)), int(rng.integers(1, 4)), seed=seed)
    f = rng.integers(0, 3, P.n).astype(float)
    np.testing.assert_allclose(P.auc(f), brute_auc(P, f), atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("costs", ["uniform", "linear", "squared", "gain"])
def test_population_multipartite_matches_brute_force(seed, costs):
    rng = np.random.default_rng(seed)
    P = FiniteProblem.random(int(rng.integers(2, 7)), 3, seed=seed)
    f = rng.integers(0, 3, P.n).astype(float)
    w = np.array([1.0, 2.0, 0.5])
    got = P.multipartite_auc(f, aggregate="sum", w=w, costs=costs)
    assert got == pytest.approx(brute_multipartite(P, f, lambda v: v @ w, costs), abs=1e-12)
    got_or = P.multipartite_auc(f, aggregate="or", costs=costs)
    assert got_or == pytest.approx(brute_multipartite(P, f, max, costs), abs=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_constant_scorer_scores_exactly_half(seed):
    P = FiniteProblem.random(6, 3, seed=seed, deterministic=seed % 2 == 0)
    f = np.full(P.n, 3.7)
    pi = P.pi
    ok = (pi > 0) & (pi < 1)
    if not ok.all():
        with pytest.warns(UndefinedMetricWarning):
            vals = P.auc(f)
        assert np.all(np.isnan(vals[~ok]))
    else:
        vals = P.auc(f)
    assert np.all(vals[ok] == 0.5)
    levels, q = P.level_probs()
    if (P.mass @ q > 0).sum() >= 2:
        assert P.multipartite_auc(f, costs="uniform") == 0.5


def test_auc_with_self_pairs_dropped_is_a_different_number():
    """docs/theory.md §2: dropping the diagonal is a classic bug; the exact AUC keeps it."""
    P = FiniteProblem.from_eta([0.5, 0.5], [[0.9], [0.2]])
    f = np.array([0.0, 0.0])
    no_diag = np.sum(
        np.outer(P.mass * P.eta[:, 0], P.mass * (1 - P.eta[:, 0]))
        * (1 - np.eye(2))
        * 0.5
    ) / (P.pi[0] * (1 - P.pi[0]))
    assert P.auc(f)[0] == 0.5 and no_diag != 0.5


def test_label_vector_order_and_eta_pi():
    assert label_vectors(2).tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    Q = np.array([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]])
    P = FiniteProblem([0.25, 0.75], Q)
    # eta_1 = P(Y_1 = 1) = Q[:, (1,0)] + Q[:, (1,1)], eta_2 = Q[:, (0,1)] + Q[:, (1,1)]
    np.testing.assert_allclose(P.eta, [[0.7, 0.6], [0.5, 0.5]])
    np.testing.assert_allclose(P.pi, [0.25 * 0.7 + 0.75 * 0.5, 0.25 * 0.6 + 0.75 * 0.5])


def test_from_eta_is_independent():
    eta = np.array([[0.3, 0.8, 0.5]])
    Q = independent_joint(eta)
    for m, v in enumerate(label_vectors(3)):
        assert Q[0, m] == pytest.approx(np.prod(np.where(v == 1, eta[0], 1 - eta[0])))


def test_sampler_matches_mass_and_label_probs():
    P = FiniteProblem.random(4, 2, seed=3)
    N = 200_000
    idx, Y = P.sample(N, seed=11)
    counts = np.zeros((4, 4))
    np.add.at(counts, (idx, Y @ np.array([2, 1])), 1)
    expected = N * P.mass[:, None] * P.label_probs
    # Pearson chi-square over 16 cells (15 dof): P(chi2 > 60) < 1e-6
    chi2 = np.sum((counts - expected) ** 2 / expected)
    assert chi2 < stats.chi2.ppf(1 - 1e-6, 15)
    idx2, Y2 = P.sample(10, seed=11)
    np.testing.assert_array_equal(idx2, P.sample(10, seed=11)[0])


def test_gaussian_copula_bivariate_matches_scipy_and_keeps_marginals():
    rng = np.random.default_rng(0)
    eta = rng.uniform(0.05, 0.95, (30, 2))
    for rho in [-0.9, -0.3, 0.4, 0.95]:
        Q = gaussian_copula_joint(eta, rho)
        np.testing.assert_allclose(Q @ label_vectors(2), eta, atol=1e-12)
        z = stats.norm.ppf(eta)
        p11 = [stats.multivariate_normal.cdf(zz, cov=[[1, rho], [rho, 1]]) for zz in z]
        np.testing.assert_allclose(Q[:, 3], p11, atol=1e-7)


def test_gaussian_copula_trivariate_matches_monte_carlo():
    eta = np.array([[0.3, 0.6, 0.45]])
    rho = 0.5
    Q = gaussian_copula_joint(eta, rho)
    np.testing.assert_allclose(Q @ label_vectors(3), eta, atol=1e-9)
    rng = np.random.default_rng(1)
    N = 400_000
    R = np.full((3, 3), rho) + (1 - rho) * np.eye(3)
    Z = rng.multivariate_normal(np.zeros(3), R, size=N)
    Y = (Z <= stats.norm.ppf(eta[0])).astype(int)
    freq = np.bincount(Y @ np.array([4, 2, 1]), minlength=8) / N
    se = np.sqrt(Q[0] * (1 - Q[0]) / N)
    assert np.all(np.abs(freq - Q[0]) < 5 * se + 1e-12)


def test_gaussian_copula_frechet_bounds_have_exact_zeros():
    """At rho = -1 with eta_2 = 1 - eta_1 the labels are exactly anti-correlated: the cells (0,0)
    and (1,1) must be exactly 0 (not 1e-16), so that the summed label is a.s. constant."""
    e = np.linspace(0.05, 0.95, 7)
    Q = gaussian_copula_joint(np.stack([e, 1 - e], 1), -1.0)
    assert np.all(Q[:, 0] == 0.0) and np.all(Q[:, 3] == 0.0)
    P = FiniteProblem(np.full(7, 1 / 7), Q)
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(P.multipartite_auc(e))


def test_gaussian_copula_bounds_and_errors():
    eta = np.array([[0.3, 0.6]])
    np.testing.assert_allclose(gaussian_copula_joint(eta, 1.0)[0, 3], 0.3)  # min(η)
    np.testing.assert_allclose(gaussian_copula_joint(eta, -1.0)[0, 3], 0.0)  # max(0, Σ−1)
    np.testing.assert_allclose(gaussian_copula_joint(eta, 0.0), independent_joint(eta))
    with pytest.raises(ValueError, match="'rho'.*\\[-1, 1\\]"):
        gaussian_copula_joint(eta, 1.5)
    with pytest.raises(ValueError, match="-1/\\(K-1\\)"):
        gaussian_copula_joint(np.full((1, 3), 0.5), -0.9)


def test_enumerate_weak_orders_counts_are_fubini_numbers():
    assert [sum(1 for _ in enumerate_weak_orders(n)) for n in range(1, 6)] == [1, 3, 13, 75, 541]
    orders = {tuple(f) for f in enumerate_weak_orders(4)}
    assert len(orders) == 75


def test_win_matrix():
    S = win_matrix([2.0, 1.0, 2.0])
    assert S.tolist() == [[0.5, 1.0, 0.5], [0.0, 0.5, 0.0], [0.5, 1.0, 0.5]]


# ---- bad input -----------------------------------------------------------------------------------
def test_finite_problem_rejects_bad_input():
    with pytest.raises(ValueError, match="'mass'.*sum to 1"):
        FiniteProblem([0.5, 0.6], np.full((2, 2), 0.5))
    with pytest.raises(ValueError, match="'mass'.*positive.*index 1"):
        FiniteProblem([1.0, 0.0], np.full((2, 2), 0.5))
    with pytest.raises(ValueError, match="rows of 'label_probs' must sum to 1.*row 1"):
        FiniteProblem([0.5, 0.5], [[0.5, 0.5], [0.5, 0.6]])
    with pytest.raises(ValueError, match="'label_probs'.*non-negative"):
        FiniteProblem([0.5, 0.5], [[1.5, -0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="2\\*\\*K columns.*3"):
        FiniteProblem([0.5, 0.5], np.full((2, 3), 1 / 3))
    with pytest.raises(ValueError, match="'label_probs'.*finite.*nan"):
        FiniteProblem([0.5, 0.5], [[np.nan, 1.0], [0.5, 0.5]])
    with pytest.raises(ValueError, match="Inconsistent"):
        FiniteProblem([0.5, 0.5], np.full((3, 2), 0.5))
    P = FiniteProblem.random(3, 2, seed=0)
    with pytest.raises(ValueError, match="'scores'.*one score per support point \\(3\\)"):
        P.auc([1.0, 2.0])
    with pytest.raises(ValueError, match="'eta'.*probabilities.*1.2"):
        FiniteProblem.from_eta([1.0], [[1.2, 0.1]])


def test_fubini_number_formula_for_reference():
    # a(n) = Σ_k k! S(n, k); independent check of the counts used above and in docs/theory.md §6.
    def stirling2(n, k):
        return sum((-1) ** j * math.comb(k, j) * (k - j) ** n for j in range(k + 1)) // math.factorial(k)

    fub = [sum(math.factorial(k) * stirling2(n, k) for k in range(1, n + 1)) for n in range(1, 8)]
    assert fub == [1, 3, 13, 75, 541, 4683, 47293]
