"""The aggregation table (bipartite.labels.AGGREGATIONS, docs/theory.md §5.1) against independent
formulas, iterated through every consumer: the Bayes scorer, both learners and the K = 2 balance
comparison.

**Adding an aggregation** is one entry in ``AGGREGATIONS`` plus its line in ``PSI_REFERENCES``
below: ψ(v; w) written independently in NumPy. Every test here iterates the table.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bipartite.bayes import label_aggregation, label_aggregation_scores
from bipartite.dictatorship import ORDER_KINDS, label_vector_order
from bipartite.labels import AGGREGATES, AGGREGATIONS, aggregate_labels, get_aggregation
from bipartite.objectives import Objective
from bipartite.population import FiniteProblem, independent_joint

#: ψ(v; w) of each tabled aggregation, one independent line each (w is None unless weighted).
PSI_REFERENCES = {
    "sum": lambda v, w: float(np.dot(v, np.ones(len(v)) if w is None else w)),
    "product": lambda v, w: float(all(v)),
    "or": lambda v, w: float(any(v)),
}

NAMES = list(AGGREGATIONS)


def _vectors(K: int) -> np.ndarray:
    return np.array(list(itertools.product([0, 1], repeat=K)), dtype=np.float64)


def _weights(name: str, K: int, seed: int = 0) -> np.ndarray | None:
    if not AGGREGATIONS[name].weighted:
        return None
    return np.random.default_rng(seed).uniform(0.5, 2.0, size=K)


def _reference(name: str, w: np.ndarray | None):
    """ψ as a callable of one label vector (the form a user passes)."""
    def psi(v):
        return PSI_REFERENCES[name](v, w)
    psi.__name__ = f"ref_{name}"
    return psi


def test_every_entry_has_a_reference_and_the_lists_follow_the_table():
    """One reference line per entry; the option lists are the table's keys."""
    assert set(PSI_REFERENCES) == set(AGGREGATIONS)
    assert AGGREGATES == tuple(AGGREGATIONS)
    assert ORDER_KINDS == ("loss", *AGGREGATIONS)
    assert all(g.name == name for name, g in AGGREGATIONS.items())


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("K", [1, 2, 3, 4])
def test_map_and_properties_match_the_reference(name, K):
    """The map equals the reference on all 2**K label vectors; binary, affine and needs_joint
    equal what brute force over those values says (two values; ψ(v) = ψ(0) + Σ_k (ψ(e_k) − ψ(0))
    v_k); the affine form gives the values back; and a callable with the same values gets the
    same properties (get_aggregation)."""
    g = AGGREGATIONS[name]
    V = _vectors(K)
    w = _weights(name, K)
    ref = np.array([PSI_REFERENCES[name](v, w) for v in V])
    np.testing.assert_allclose(aggregate_labels(V, name, w), ref, rtol=0, atol=1e-12)
    c0 = ref[0]
    unit = np.array([PSI_REFERENCES[name](np.eye(K)[k], w) for k in range(K)]) - c0
    affine = np.allclose(c0 + V @ unit, ref, rtol=0, atol=1e-12)
    if K >= 2:  # with one label every ψ is affine and at most binary: the flags are for all K
        assert g.binary == (len(np.unique(ref)) == 2)
        assert (g.affine is not None) == affine
        assert g.needs_joint == (not affine)
    if g.affine is not None:
        c, b = g.affine(K, w)
        np.testing.assert_allclose(c + V @ b, ref, rtol=0, atol=1e-12)
    derived = get_aggregation(_reference(name, w), K)
    assert derived.binary == (len(np.unique(ref)) == 2)
    assert (derived.affine is not None) == affine
    assert derived.tilt == "none" and derived.rate is None


@pytest.mark.parametrize("name", NAMES)
def test_bayes_scorer_is_the_conditional_mean_of_the_reference(name):
    """With linear costs the Bayes scorer is E[ψ(Y) | x] = Σ_v ψ(v) Q(v | x) (docs/theory.md
    §5.2), computed here from the reference values; the callable form gives the same scores; a
    binary ψ has the same scorer for uniform costs."""
    P = FiniteProblem.random(7, 3, seed=3)
    w = _weights(name, 3)
    ref = P.label_probs @ np.array([PSI_REFERENCES[name](v, w) for v in _vectors(3)])
    got = label_aggregation(P, aggregate=name, w=w)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(label_aggregation(P, aggregate=_reference(name, w)), ref,
                               rtol=1e-12, atol=1e-12)
    if AGGREGATIONS[name].binary:
        np.testing.assert_allclose(label_aggregation(P, aggregate=name, costs="uniform"), ref,
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_marginal_closed_form_exactly_when_affine(name):
    """The closed form from the marginals alone exists exactly for an affine ψ, named or
    callable; otherwise the joint is asked for."""
    P = FiniteProblem.random(5, 3, seed=4)
    w = _weights(name, 3)
    for aggregate in (name, _reference(name, w)):
        ww = w if isinstance(aggregate, str) else None
        if get_aggregation(aggregate, 3).affine is not None:
            np.testing.assert_allclose(
                label_aggregation_scores(P.eta, aggregate=aggregate, w=ww),
                label_aggregation_scores(P.eta, P.label_probs, aggregate=aggregate, w=ww),
                rtol=1e-12, atol=1e-12)
        else:
            with pytest.raises(ValueError, match="needs the joint"):
                label_aggregation_scores(P.eta, aggregate=aggregate, w=ww)


@pytest.mark.parametrize("name", NAMES)
def test_label_vector_order_follows_the_reference(name):
    """label_vector_order of every tabled ψ: tiers of equal reference values, ascending."""
    w = _weights(name, 3)
    ref = {tuple(int(x) for x in v): PSI_REFERENCES[name](v, w) for v in _vectors(3)}
    tiers = label_vector_order(name, K=3, w=w)
    values = [{round(ref[v], 12) for v in tier} for tier in tiers]
    assert all(len(t) == 1 for t in values)
    assert [t.pop() for t in values] == sorted({round(x, 12) for x in ref.values()})


def _data(seed=0, n=90, K=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    Y = (rng.random((n, K)) < 1 / (1 + np.exp(-X[:, :K]))).astype(int)
    return X, Y


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("method", ["pairwise", "plugin"])
def test_mlp_ranker_named_and_callable_psi_agree(name, method):
    """MLPRanker with a tabled ψ and with its reference as a callable: the same head (the joint
    head exactly when ψ is not affine), the same scores for one seed. A callable ψ works in the
    plug-in route (it used to be refused: "needs the joint label probabilities")."""
    from bipartite.learners import MLPRanker

    X, Y = _data()
    w = _weights(name, 2)
    kw = dict(objective="label_aggregation", method=method, hidden=(4,), epochs=3,
              batch_size=32, n_iter_no_change=2, random_state=0, device="cpu")
    named = MLPRanker(aggregate=name, w=w, **kw).fit(X, Y)
    called = MLPRanker(aggregate=_reference(name, w), **kw).fit(X, Y)
    if method == "plugin":
        assert named.joint_head_ == called.joint_head_ == AGGREGATIONS[name].needs_joint
    s = named.decision_function(X)
    assert np.all(np.isfinite(s))
    np.testing.assert_allclose(called.decision_function(X), s, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("method", ["pairwise", "plugin"])
def test_xgb_ranker_named_and_callable_psi_agree(name, method):
    """XGBRanker, as the MLP test: the same head and the same scores for a tabled ψ and its
    reference callable."""
    pytest.importorskip("xgboost")
    from bipartite.learners import XGBRanker

    X, Y = _data(1)
    w = _weights(name, 2)
    kw = dict(objective="label_aggregation", method=method, n_estimators=4, max_depth=2,
              n_jobs=1, random_state=0)
    named = XGBRanker(aggregate=name, w=w, **kw).fit(X, Y)
    called = XGBRanker(aggregate=_reference(name, w), **kw).fit(X, Y)
    assert named.joint_head_ == called.joint_head_
    s = named.decision_function(X)
    assert np.all(np.isfinite(s))
    np.testing.assert_allclose(called.decision_function(X), s, rtol=1e-6, atol=1e-9)


def _expected_value(name, w, eta):
    """h(η₁, η₂) = E[ψ(Y)] with independent labels, from the reference values."""
    J = independent_joint(np.atleast_2d(eta))
    return J @ np.array([PSI_REFERENCES[name](v, w) for v in _vectors(2)])


@pytest.mark.parametrize("name", NAMES)
def test_balance_condition_and_exchange_rate_per_entry(name):
    """K = 2: balance_condition holds its chain for every tabled ψ, with the label scorer its
    Bayes scorer; an entry's exchange rate equals ∂₂h/∂₁h of h = E[ψ(Y)] under conditional
    independence (central differences of the reference), and its tilt rule is the one
    aggregation_tilt applies (the typical-point fallback where the proof does not apply)."""
    from bipartite.pareto.balance import aggregation_tilt, balance_condition

    g = AGGREGATIONS[name]
    w = _weights(name, 2)
    eta = np.random.default_rng(5).uniform(0.1, 0.9, size=(6, 2))
    P = FiniteProblem.from_eta(np.full(6, 1 / 6), eta)
    row = balance_condition(P, name, w=w)
    assert row["chain_holds"]
    np.testing.assert_allclose([row["label_1"], row["label_2"]],
                               P.auc(label_aggregation(P, aggregate=name, w=w)), atol=1e-9)
    tilt = aggregation_tilt(P, name, w=w)
    assert tilt.rule == g.tilt or (g.tilt == "exchange_rate" and tilt.rule == "typical_point")
    assert aggregation_tilt(P, _reference(name, w)).rule == "none"
    if g.rate is not None:
        h = 1e-6
        d1 = (_expected_value(name, w, eta + [h, 0]) - _expected_value(name, w, eta - [h, 0]))
        d2 = (_expected_value(name, w, eta + [0, h]) - _expected_value(name, w, eta - [0, h]))
        num, den = g.rate(eta, w)
        np.testing.assert_allclose(num / den, d2 / d1, rtol=1e-6)


def test_objective_reads_the_table():
    """The Objective's joint / binary answers are the table's; a callable is judged by its values
    at K labels (affine: marginals suffice; else the joint)."""
    for name, g in AGGREGATIONS.items():
        obj = Objective("label_aggregation", aggregate=name)
        assert obj.needs_joint == obj.joint_needed(3) == g.needs_joint
        assert obj.binary_aggregate == g.binary
    assert not Objective("label_aggregation", aggregate=lambda v: v[0] + 2 * v[1]).joint_needed(2)
    assert Objective("label_aggregation", aggregate=lambda v: v[0] * v[1]).joint_needed(2)
    assert Objective("label_aggregation", aggregate="sum", costs="gain").joint_needed(2)
    assert not Objective("loss_aggregation").joint_needed(2)
