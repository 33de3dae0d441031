"""Regression tests for bad inputs found by the fuzz campaign (reliability issue): each call used to
return a silent wrong value, hang, exhaust memory or fail with an internal error; each must now be
refused with an error that names the argument (and the bad value or the limit)."""

from __future__ import annotations

import numpy as np
import pytest

from bipartite import bayes, consistency, dictatorship, labels, pareto, population, surrogates
from bipartite.population import FiniteProblem

P = FiniteProblem.random(5, 2, seed=0)


@pytest.mark.parametrize("call, error, match", [
    # nonsense tolerances and time limits gave wrong answers
    (lambda: pareto.exact_frontier(P, tol=np.inf), ValueError, "'tol'.*inf"),
    (lambda: pareto.exact_frontier(P, tol=-1e-9), ValueError, "'tol'"),
    (lambda: pareto.exact_frontier(P, eps=np.nan), ValueError, "'eps'"),
    (lambda: pareto.is_pareto_optimal(P, np.zeros(5), tol=np.nan), ValueError, "'tol'.*nan"),
    (lambda: pareto.supported_frontier(P, tol=np.nan), ValueError, "'tol'"),
    (lambda: bayes.label_aggregation(P, costs="uniform", atol=np.nan), ValueError, "'atol'"),
    (lambda: bayes.label_aggregation(P, costs="uniform", atol=-1), ValueError, "'atol'.*-1"),
    (lambda: labels.find_cycle(np.zeros((2, 2)), atol=np.inf), ValueError, "'atol'"),
    (lambda: pareto.exact_frontier(P, time_limit=-1), ValueError, "'time_limit'"),
    (lambda: pareto.exact_frontier(P, time_limit=0), ValueError, "'time_limit'"),
    (lambda: consistency.exponential_fixed_point(P, max_iter=0), ValueError, "'max_iter'"),
    (lambda: consistency.exponential_fixed_point(P, tol=np.nan), ValueError, "'tol'"),
    (lambda: surrogates.sigmoid_step(np.array([0.0]), 0.0), ValueError, "'tau'"),
    (lambda: surrogates.sigmoid_step(np.array([1.0]), -1.0), ValueError, "'tau'"),
    # 2**K and 3**n paths are refused before allocating
    (lambda: population.label_vectors(30), ValueError, "2\\*\\*30.*max_labels = 20"),
    (lambda: FiniteProblem.from_eta([1.0], np.full((1, 30), 0.5)), ValueError, "max_labels"),
    (lambda: population.gaussian_copula_joint(np.full((1, 25), 0.5), 0.3), ValueError,
     "max_labels"),
    (lambda: dictatorship.label_vector_order("loss", K=30, pi=[0.5] * 30), ValueError,
     "max_labels"),
    (lambda: pareto.exact_frontier(FiniteProblem.random(20, 2, seed=0), method="dp"), ValueError,
     "dp_max_n = 12"),
    (lambda: pareto.simplex_grid(30, 30), ValueError, "max_points"),
    # silent wrong values
    (lambda: labels.aggregate_labels([[0, 2], [1, 0]]), ValueError, "'Y'.*0 and 1"),
    (lambda: labels.aggregate_labels([[-1, 1], [1, 1]]), ValueError, "'Y'"),
    (lambda: bayes.label_aggregation_scores(np.full((2, 2), 0.5), np.full((2, 4), 0.5)),
     ValueError, "'joint'.*sum to 1"),
    (lambda: bayes.anticorrelation_identity(np.full((2, 4), 0.5)), ValueError, "'joint'"),
    (lambda: labels.cost_matrix([0, 1100], "gain"), ValueError, "overflow.*'levels'"),
    # internal errors instead of named ones
    (lambda: bayes.label_aggregation(None), TypeError, "'problem'.*FiniteProblem"),
    (lambda: consistency.surrogate_minimizer(1), TypeError, "'problem'"),
    (lambda: consistency.auc_regret("x", [0.0]), TypeError, "'problem'"),
    (lambda: dictatorship.population_win_rate("x", [1, 2], 0, 1), TypeError, "'problem'"),
    (lambda: labels.pairwise_preference([1]), TypeError, "'problem'"),
    (lambda: P.pair_weights(True), ValueError, "'k'"),
    (lambda: FiniteProblem.random(4, 2, seed=-1), ValueError, "'seed'.*-1"),
    (lambda: consistency.surrogate_minimizer(P, solver="BOGUS"), ValueError, "'solver'.*BOGUS"),
    (lambda: labels.aggregate_labels([[0, 1]], lambda r: "x"), TypeError, "'aggregate'"),
])
def test_bad_input_is_refused_by_name(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_limits_can_be_raised_deliberately():
    assert population.label_vectors(21, max_labels=21).shape == (2**21, 21)
    J = population.independent_joint(np.full((1, 3), 0.5), max_labels=3)
    assert J.shape == (1, 8)
    with pytest.raises(ValueError, match="max_labels = 2"):
        population.independent_joint(np.full((1, 3), 0.5), max_labels=2)
    assert len(pareto.simplex_grid(3, 4, max_points=15)) == 15


def test_errors_are_both_value_and_type_errors_for_parameters():
    """One InvalidParameterError for scalar parameters (sklearn's convention): callers may catch
    either ValueError or TypeError."""
    with pytest.raises(TypeError):
        pareto.exact_frontier(P, tol="small")
    with pytest.raises(ValueError):
        pareto.exact_frontier(P, tol="small")
