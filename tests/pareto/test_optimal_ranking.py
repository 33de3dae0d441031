"""Tests of bipartite.labels.optimal_ranking (docs/theory.md §3 (iii), §6): the best weak order for the
multipartite AUC by the linear-ordering MILP, checked against enumeration of all weak orders."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

from bipartite import UndefinedMetricWarning
from bipartite.bayes import NotRepresentableError, label_aggregation
from bipartite.labels import find_cycle, is_transitive, pairwise_preference
from bipartite.pareto import optimal_ranking
from bipartite.population import FiniteProblem, enumerate_weak_orders


@functools.cache
def all_orders(n: int) -> np.ndarray:
    return np.array(list(enumerate_weak_orders(n)))


def brute_best(P: FiniteProblem, **kw) -> float:
    """Maximum AUC_MP over every weak order of the support points."""
    return max(P.multipartite_auc(s, **kw) for s in all_orders(P.n))


# Pinned intransitive example: K = 3 labels, Ybar = Y_1 + Y_2 + Y_3 (4 levels), uniform costs.
# Found by scanning FiniteProblem.random(4, 3, seed=s) for a cyclic Bayes preference (first hit:
# seed 214); the strict preference has the cycle x1 > x3 > x2 > x1 with margins ~0.009-0.014.
INTRANSITIVE = dict(n=4, K=3, seed=214)


def test_intransitive_four_level_example_is_detected_and_solved():
    P = FiniteProblem.random(INTRANSITIVE["n"], INTRANSITIVE["K"], seed=INTRANSITIVE["seed"])
    levels, _ = P.level_probs()
    assert levels.tolist() == [0.0, 1.0, 2.0, 3.0]
    D = pairwise_preference(P, costs="uniform")
    assert not is_transitive(D)
    cyc = find_cycle(D)
    assert cyc is not None and all(D[cyc[i], cyc[(i + 1) % len(cyc)]] > 1e-3
                                   for i in range(len(cyc)))
    with pytest.raises(NotRepresentableError) as info:
        label_aggregation(P, costs="uniform")
    assert sorted(info.value.cycle) == sorted(cyc)
    f = optimal_ranking(P, costs="uniform")
    best = brute_best(P, costs="uniform")
    assert P.multipartite_auc(f, costs="uniform") == pytest.approx(best, abs=1e-12)
    # with a cycle, the optimum must reverse at least one strictly preferred pair
    violated = [(i, j) for i in range(P.n) for j in range(P.n) if D[i, j] > 1e-12 and f[i] <= f[j]]
    assert violated


@pytest.mark.parametrize(
    "n,K,seed,kw",
    [
        (4, 2, 0, dict(costs="uniform")),
        (5, 2, 1, dict(costs="uniform")),
        (5, 2, 2, dict(costs="linear")),
        (4, 3, 3, dict(costs="squared")),
        (4, 3, 4, dict(costs="gain")),
        (5, 2, 5, dict(aggregate="product", costs="uniform")),
        (4, 3, 6, dict(aggregate=lambda y: float(y[0] + 2 * y[1] * y[2]), costs="uniform")),
        (5, 3, 7, dict(w=[1.0, 2.0, 0.5], costs="uniform")),
    ],
)
def test_optimal_ranking_matches_enumeration(n, K, seed, kw):
    P = FiniteProblem.random(n, K, seed=seed)
    f = optimal_ranking(P, **kw)
    assert P.multipartite_auc(f, **kw) == pytest.approx(brute_best(P, **kw), abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_linear_costs_optimum_equals_bayes_scorer(seed):
    """For linear costs the Bayes scorer E[Ybar|x] (LA25 Prop 5.4) attains the MILP optimum."""
    P = FiniteProblem.random(5, 2, seed=seed)
    f = optimal_ranking(P, costs="linear")
    assert P.multipartite_auc(f) == pytest.approx(P.multipartite_auc(label_aggregation(P)),
                                                  abs=1e-12)


def test_constant_aggregated_label_warns():
    # Y_2 = 1 - Y_1: the summed label is always 1
    P = FiniteProblem([0.5, 0.5], [[0.0, 0.3, 0.7, 0.0], [0.0, 0.6, 0.4, 0.0]])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        f = optimal_ranking(P)
    assert f.tolist() == [0.0, 0.0]
    assert any(issubclass(w.category, UndefinedMetricWarning) for w in rec)
