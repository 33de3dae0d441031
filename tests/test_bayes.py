"""Bayes-optimal scorers are optimal: proof by enumeration of all weak orders (docs/theory.md §4, §5).

For every random finite problem below, the value of the Bayes scorer (computed by the package's
one-sort kernel) is compared with the maximum over *all* weak orders of the n points, computed
here independently as Σ_ij A_ij S_ij with explicit pair-weight matrices and win matrices.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest

from bipartite import UndefinedMetricWarning
from bipartite.bayes import (
    NotRepresentableError,
    anticorrelation_identity,
    effective_weights,
    label_aggregation,
    label_aggregation_scores,
    loss_aggregation,
)
from bipartite.labels import (
    aggregate_labels,
    cost_matrix,
    find_cycle,
    is_transitive,
    pairwise_preference,
)
from bipartite.population import FiniteProblem, enumerate_weak_orders


@cache
def all_win_matrices(n):
    F = np.array(list(enumerate_weak_orders(n)))
    return F, (F[:, :, None] > F[:, None, :]) + 0.5 * (F[:, :, None] == F[:, None, :])


def loss_values(P, a):
    """Σ_k a_k AUC_k for every weak order, from explicit pair weights (docs/theory.md §2)."""
    _, S = all_win_matrices(P.n)
    total = np.zeros(len(S))
    for k in range(P.K):
        e = P.eta[:, k]
        W = np.outer(P.mass * e, P.mass * (1 - e)) / (P.pi[k] * (1 - P.pi[k]))
        total += a[k] * np.einsum("mij,ij->m", S, W)
    return total


def multipartite_values(P, psi_values, costs):
    _, S = all_win_matrices(P.n)
    levels = np.unique(psi_values)
    C = cost_matrix(levels, costs)
    q = np.stack([P.label_probs[:, psi_values == lv].sum(1) for lv in levels], 1)
    pq = P.mass[:, None] * q
    A = pq @ C @ pq.T  # A_ij = Σ_{a>b} c_ab p_i q_ia p_j q_jb
    with np.errstate(invalid="ignore"):  # A.sum() == 0: Ȳ a.s. constant, callers skip
        return np.einsum("mij,ij->m", S, A) / A.sum(), A


def problems():
    """≥ 200 random problems: K = 2..4, stochastic and deterministic labels, n = 4..6, every
    prior strictly inside (0, 1)."""
    out = []
    for K, det, n in itertools.product([2, 3, 4], [False, True], [4, 5, 6]):
        seed, found = 1000 * K + 100 * det + 10 * n, 0
        while found < 12:
            P = FiniteProblem.random(n, K, seed=seed, deterministic=det)
            seed += 1
            if np.all((P.pi > 1e-9) & (P.pi < 1 - 1e-9)):
                out.append(P)
                found += 1
    return out


PROBLEMS = problems()


def test_there_are_at_least_200_problems():
    assert len(PROBLEMS) >= 200


@pytest.mark.parametrize("i", range(len(PROBLEMS)))
def test_bayes_scorers_are_optimal_by_enumeration(i):
    P = PROBLEMS[i]
    rng = np.random.default_rng(i)
    # --- loss aggregation, uniform and random mixing weights -----------------------------------
    for a in [np.ones(P.K), rng.uniform(0.1, 2.0, P.K)]:
        f = loss_aggregation(P.eta, P.pi, a)
        value = float(a @ P.auc(f))
        best = loss_values(P, a).max()
        assert value == pytest.approx(best, abs=1e-10)
    # --- label aggregation, linear costs on a weighted sum, product and or -----------------------
    w = rng.uniform(0.2, 2.0, P.K)
    cases = [("sum", w, "linear"), ("sum", None, "linear"), ("product", None, "uniform"),
             ("or", None, "squared")]
    for agg, wts, costs in cases:
        psi = aggregate_labels(P.label_vectors, agg, wts)
        vals, A = multipartite_values(P, psi, costs)
        if A.sum() <= 0:  # aggregated label a.s. constant
            continue
        f = label_aggregation(P, aggregate=agg, w=wts, costs=costs)
        got = P.multipartite_auc(f, aggregate=agg, w=wts, costs=costs)
        assert got == pytest.approx(vals.max(), abs=1e-10), (agg, costs)
    # --- uniform costs on the sum: a scorer iff the strict preference is acyclic ---------------
    psi = aggregate_labels(P.label_vectors, "sum")
    vals, A = multipartite_values(P, psi, "uniform")
    if A.sum() <= 0:  # deterministic (0,1)/(1,0)-only problems: Ȳ is a.s. constant
        return
    try:
        f = label_aggregation(P, aggregate="sum", costs="uniform")
    except NotRepresentableError as err:
        # no weak order attains every pair's preferred order: the best is strictly below the
        # pairwise upper bound Σ_{i<j} max(A_ij, A_ji) + ½ Σ_i A_ii
        bound = (np.triu(np.maximum(A, A.T), 1).sum() + 0.5 * np.trace(A)) / A.sum()
        assert vals.max() < bound - 1e-12
        assert len(err.cycle) >= 3
    else:
        got = P.multipartite_auc(f, aggregate="sum", costs="uniform")
        assert got == pytest.approx(vals.max(), abs=1e-10)


def test_constant_scorer_is_half_and_bayes_beats_it():
    P = PROBLEMS[0]
    f0 = np.zeros(P.n)
    assert np.all(P.auc(f0) == 0.5)
    f = loss_aggregation(P.eta, P.pi)
    assert P.auc(f).sum() >= 1.0


def test_uniform_costs_expected_sum_is_sometimes_strictly_suboptimal():
    """docs/theory.md §3: with uniform costs on Ȳ = Y_1 + Y_2, sorting by η_1 + η_2 (optimal for linear
    costs) is strictly suboptimal on some problems. Measured fraction over 120 random problems,
    and one pinned witness."""
    strict = 0
    witness = None
    for seed in range(120):
        P = FiniteProblem.random(5, 2, seed=seed)
        vals, _ = multipartite_values(P, aggregate_labels(P.label_vectors, "sum"), "uniform")
        f = P.eta.sum(1)
        if P.multipartite_auc(f, costs="uniform") < vals.max() - 1e-12:
            strict += 1
            witness = witness if witness is not None else seed
    assert 0.05 < strict / 120 < 0.5  # about one in six (docs/theory.md §3); measured: see README
    P = FiniteProblem.random(5, 2, seed=witness)
    f_opt = label_aggregation(P, costs="uniform")
    assert P.multipartite_auc(f_opt, costs="uniform") > P.multipartite_auc(
        P.eta.sum(1), costs="uniform"
    )


def test_pinned_intransitive_four_level_problem():
    """Intransitive dice: three points whose 4-level aggregated labels (Ȳ = Y_1 + Y_2 + Y_3) beat
    each other in a cycle under uniform costs."""
    # level distributions of three classic intransitive dice on levels {0, 1, 2, 3}
    # (found by exhaustive search over quarter probabilities): Δ_01 = Δ_12 = Δ_20 = 1/8
    dice = {0: [0, 3 / 4, 0, 1 / 4], 1: [1 / 2, 0, 0, 1 / 2], 2: [1 / 4, 0, 3 / 4, 0]}
    V = np.array(list(itertools.product([0, 1], repeat=3)))
    sums = V.sum(1)
    Q = np.zeros((3, 8))
    for i, d in dice.items():
        for level, prob in enumerate(d):
            first = np.flatnonzero(sums == level)[0]  # put the level's mass on one label vector
            Q[i, first] += prob
    P = FiniteProblem(np.full(3, 1 / 3), Q)
    D = pairwise_preference(P, costs="uniform")
    assert not is_transitive(D)
    assert sorted(find_cycle(D)) == [0, 1, 2]
    with pytest.raises(NotRepresentableError) as err:
        label_aggregation(P, costs="uniform")
    assert sorted(err.value.cycle) == [0, 1, 2]
    # linear costs on the same problem have the closed form E[Ȳ|x]
    np.testing.assert_allclose(label_aggregation(P, costs="linear"), Q @ sums)


def test_label_aggregation_sum_equals_loss_aggregation_with_prior_variance_weights():
    """docs/theory.md §5: w = 1 equals loss aggregation with a_k = π_k (1 − π_k)."""
    for seed in range(20):
        P = FiniteProblem.random(6, 3, seed=seed)
        a = P.pi * (1 - P.pi)
        np.testing.assert_allclose(label_aggregation(P), loss_aggregation(P.eta, P.pi, a))


def test_label_aggregation_linear_is_prior_free_but_loss_aggregation_is_not():
    eta = np.array([[0.9, 0.0], [0.0, 0.5], [0.4, 0.4]])
    la = label_aggregation_scores(eta)
    np.testing.assert_allclose(la, eta.sum(1))
    f1 = loss_aggregation(eta, [0.5, 0.5])
    f2 = loss_aggregation(eta, [0.5, 0.05])
    assert np.argmax(f1) == 0 and np.argmax(f2) == 1  # the rare label takes over


def test_effective_weights_formula():
    np.testing.assert_allclose(effective_weights([0.5, 0.1], [2.0, 1.0]), [8.0, 1 / 0.09])


# ---- K = 2 anti-correlation identity (docs/theory.md §5) ----------------------------------------------
def test_k2_identity_holds_for_random_joints():
    rng = np.random.default_rng(0)
    J = rng.dirichlet(np.ones(4), size=500)
    lhs, rhs = anticorrelation_identity(J)
    np.testing.assert_allclose(lhs, rhs, atol=1e-12)


def test_perfectly_anticorrelated_labels_make_the_summed_label_constant():
    rng = np.random.default_rng(1)
    t = rng.uniform(size=5)
    J = np.stack([np.zeros(5), 1 - t, t, np.zeros(5)], 1)  # Y_2 = 1 − Y_1
    P = FiniteProblem(np.full(5, 0.2), J)
    lhs, rhs = anticorrelation_identity(J)
    np.testing.assert_allclose(lhs, 1.0)
    np.testing.assert_allclose(rhs, 1.0)
    with pytest.warns(UndefinedMetricWarning, match="constant"):
        assert np.isnan(P.multipartite_auc(rng.normal(size=5)))
    with pytest.warns(UndefinedMetricWarning, match="every scorer is optimal"):
        f = label_aggregation(P)
    np.testing.assert_allclose(f, 1.0)  # E[Ȳ|x] = η_1 + η_2 = 1: the constant scorer
    # ... while each label's AUC is still defined, and loss aggregation still ranks
    assert np.all(np.isfinite(P.auc(t)))


# ---- bad input ----------------------------------------------------------------------------------
def test_loss_aggregation_rejects_degenerate_prior_naming_the_label():
    with pytest.raises(ValueError, match="label 1 has pi=0"):
        loss_aggregation([[0.5, 0.0]], [0.5, 0.0])
    with pytest.raises(ValueError, match="label 0 has pi=1"):
        effective_weights([1.0, 0.3])
    with pytest.raises(ValueError, match="'a'.*non-negative.*-1"):
        effective_weights([0.5, 0.3], [1.0, -1.0])
    with pytest.raises(ValueError, match="'pi'.*probabilities.*1.5"):
        effective_weights([1.5, 0.3])
    with pytest.raises(ValueError, match="2 labels but 'pi' has 3"):
        loss_aggregation([[0.5, 0.5]], [0.5, 0.5, 0.5])


def test_costs_and_aggregate_errors():
    with pytest.raises(ValueError, match="'costs'.*one of.*'cubic'"):
        cost_matrix([0, 1], "cubic")
    with pytest.raises(ValueError, match="'costs'.*non-negative.*-2"):
        cost_matrix([0, 1], [[0, 0], [-2, 0]])
    with pytest.raises(ValueError, match="'costs' matrix must have shape \\(2, 2\\)"):
        cost_matrix([0, 1], np.ones((3, 3)))
    with pytest.raises(ValueError, match="'costs'.*finite"):
        cost_matrix([0, 1], [[0, 0], [np.inf, 0]])
    with pytest.raises(ValueError, match="'levels'.*strictly increasing"):
        cost_matrix([1, 0], "linear")
    with pytest.raises(ValueError, match="'aggregate'.*one of.*'max'"):
        aggregate_labels([[0, 1]], "max")
    with pytest.raises(ValueError, match="'w'.*shape \\(2,\\)"):
        aggregate_labels([[0, 1]], "sum", [1.0])
    P = FiniteProblem.random(4, 2, seed=0)
    with pytest.raises(ValueError, match="'costs'.*one of"):
        label_aggregation(P, costs="quadratic")


def test_sum_aggregation_plugin_needs_only_the_marginals_at_any_K():
    """Claim: for aggregate='sum' with linear costs the Bayes scorer is Σ_k w_k η_k, computed
    without the 2**K label vectors, so K = 174 (CAL500) works; it equals the joint route for
    small K, and an all-zero w (constant aggregate) is refused as before."""
    from bipartite.bayes import label_aggregation_scores
    from bipartite.population import label_vectors

    rng = np.random.default_rng(7)
    E = rng.random((6, 174))
    w = rng.random(174)
    np.testing.assert_allclose(label_aggregation_scores(E, w=w), E @ w, rtol=1e-12)
    # small K: the marginal shortcut equals E[Σ w_k Y_k] from an independent joint
    E3 = rng.random((4, 3))
    V = label_vectors(3)
    joint = np.prod(np.where(V[None] == 1, E3[:, None, :], 1 - E3[:, None, :]), axis=2)
    w3 = np.array([0.5, 2.0, 1.0])
    np.testing.assert_allclose(label_aggregation_scores(E3, w=w3),
                               label_aggregation_scores(joint=joint, w=w3), rtol=1e-12)
    with pytest.raises(ValueError, match="constant"):
        label_aggregation_scores(E, w=np.zeros(174))
