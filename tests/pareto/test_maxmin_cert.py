"""Tests of the certified max-min MILP route (bipartite.pareto.maxmin_cert, docs/theory.md
§13.1): the weighted-sum dual bound, the route against brute-force enumeration of all weak
orders and against the full model, and the certificate check failing on a wrong certificate."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import bipartite.pareto.maxmin as MM
from bipartite.pareto import WeakOrderMILP, max_min_point
from bipartite.pareto.maxmin_cert import check_certificate, dual_nested
from bipartite.population import FiniteProblem
from tests.pareto.test_maxmin import all_orders, brute_aucs, full_model_max_min, valid

# n = 5 in the default suite, n = 6, 7 among the slow tests (the suite's time on 2 cores)
CASES = [pytest.param(n, K, s, det, marks=[pytest.mark.slow] if n > 5 else [])
         for n in (5, 6, 7) for K in (2, 3) for s in range(3)
         for det in (False, True) if not (n == 7 and K == 3)]


def problem(n: int, K: int, seed: int, det: bool) -> FiniteProblem:
    P = FiniteProblem.random(n, K, seed=seed, deterministic=det)
    if not valid(P):
        pytest.skip("a label with a single class")
    return P


@pytest.mark.parametrize("n,K,seed,det", [(5, 2, 0, False), (6, 2, 3, True), (5, 3, 1, False),
                                          (6, 3, 2, False)])
def test_dual_bound_against_enumeration(n, K, seed, det):
    """Claim: dual_nested returns λ ≥ 0 with λ·c' = 1 and UB(λ) = max over every weak order of
    λ·AUC (the enumerated maximum), at least the max-min value, and no larger (up to 1e-12) than
    the same maximum at any λ of a grid on the simplex."""
    P = problem(n, K, seed, det)
    c = np.random.default_rng(seed).uniform(0.5, 2.0, size=K)
    cn = c / c.max()
    V = brute_aucs(P, all_orders(n))
    lam, ub, g = dual_nested(P, cn)
    assert np.all(lam >= 0) and lam @ cn == pytest.approx(1.0)
    assert ub == pytest.approx(np.max(V @ lam), abs=1e-13)
    assert ub >= np.min(V / cn, axis=1).max() - 1e-13
    assert np.min(P.auc(g) / cn) <= np.min(V / cn, axis=1).max() + 1e-13
    grid = np.random.default_rng(seed).dirichlet(np.ones(K), size=400) / cn
    grid /= (grid @ cn)[:, None]
    assert ub <= np.max(V @ grid.T, axis=0).min() + 1e-12


@pytest.mark.parametrize("n,K,seed,det", CASES)
def test_milp_route_equals_enumeration(n, K, seed, det):
    """Claim: method="milp" (certified restriction) returns the enumerated max-min value and a
    Pareto-optimal point, with and without criterion weights."""
    P = problem(n, K, seed, det)
    V = brute_aucs(P, all_orders(n))
    for c in (np.ones(K), np.random.default_rng(seed).uniform(0.5, 2.0, size=K)):
        top = max_min_point(P, weights=c, method="milp")
        assert top.method == "milp"
        assert top.value == pytest.approx(np.min(V / c, axis=1).max(), abs=1e-9)
        np.testing.assert_allclose(top.auc, P.auc(top.scores), atol=1e-12)
        assert not np.any(np.all(V >= top.auc - 1e-12, axis=1) & np.any(V > top.auc + 1e-9, axis=1))


@pytest.mark.slow
@pytest.mark.parametrize("n,K,seed", [(12, 2, 3), (14, 2, 4), (10, 3, 5)])
def test_milp_route_equals_full_model(n, K, seed):
    """Claim: the restricted solve equals the max-min programme on the full model."""
    P = FiniteProblem.random(n, K, seed=seed)
    assert max_min_point(P, method="milp").value == pytest.approx(full_model_max_min(P), abs=1e-8)


def _captured(monkeypatch, P):
    """The certificate and fixings of a real run of the MILP route."""
    seen = {}

    def spy(cert, fixed, const, coef, tol):
        seen.update(cert=cert, fixed=fixed.copy(), const=const, coef=coef, tol=tol)
        return check_certificate(cert, fixed, const, coef, tol)

    monkeypatch.setattr(MM, "check_certificate", spy)
    max_min_point(P, method="milp")
    return seen


def test_certificate_check_rejects_wrong_certificates(monkeypatch):
    """Claim: check_certificate accepts the run's certificate and raises on each kind of wrong
    one: a bound below UB(λ), a budget below UB − t_best + slack, a fixing that costs less than
    the budget to break, a solver bound above the best value."""
    P = FiniteProblem.random(20, 2, seed=1)
    s = _captured(monkeypatch, P)
    cert, fixed, const, coef, tol = s["cert"], s["fixed"], s["const"], s["coef"], s["tol"]
    check_certificate(cert, fixed, const, coef, tol)           # the real one holds
    gap = cert.ub - cert.t_best
    assert gap > 0
    with pytest.raises(RuntimeError, match="certificate check failed"):
        check_certificate(dataclasses.replace(cert, ub=cert.ub - 1e-6), fixed, const, coef, tol)
    with pytest.raises(RuntimeError, match="certificate check failed"):
        check_certificate(dataclasses.replace(cert, theta=0.5 * (gap + cert.slack)), fixed,
                          const, coef, tol)
    with pytest.raises(RuntimeError, match="certificate check failed"):
        check_certificate(dataclasses.replace(cert, dual_t=cert.t_best + 10 * tol), fixed,
                          const, coef, tol)
    a = cert.lam @ coef
    cheap = np.flatnonzero((a > 0) & (2 * a <= cert.theta))
    wrong = fixed.copy()
    if len(cheap):
        wrong[cheap[0]] = 1.0       # a pair the budget allows to reverse, fixed
    else:
        wrong[np.flatnonzero(a > 0)[0]] = 0.0   # a pair fixed against its sign
    with pytest.raises(RuntimeError, match="certificate check failed"):
        check_certificate(cert, wrong, const, coef, tol)


@pytest.mark.slow
def test_restricted_model_is_small():
    """Claim: at n = 60 the certified restriction frees a small part of the n(n−1) binaries."""
    P = FiniteProblem.random(60, 2, seed=0)
    sizes = []
    orig = WeakOrderMILP.max_min

    def spy(self, *args, **kw):
        sizes.append(len(self.free))
        return orig(self, *args, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(WeakOrderMILP, "max_min", spy)
        max_min_point(P, method="milp")
    assert 0 < max(sizes) < 60 * 59 // 4


@pytest.mark.parametrize("n,K,seed", [(6, 1, 0), (5, 4, 1), (5, 4, 2)])
def test_milp_route_kelley_weights_equal_enumeration(n, K, seed):
    """Claim: for K = 1 and K ≥ 4 (weights by Kelley's cutting planes) the certified route still
    returns the enumerated max-min value, with a certificate."""
    P = problem(n, K, seed, False)
    V = brute_aucs(P, all_orders(n))
    top = max_min_point(P, method="milp")
    assert top.value == pytest.approx(np.min(V, axis=1).max(), abs=1e-9)
    assert top.certificate is not None and top.certificate.theta >= 0
