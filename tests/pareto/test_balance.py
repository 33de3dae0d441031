"""docs/theory.md §12.6–§12.9: when does a label aggregation give a more balanced Bayes scorer
than loss aggregation (K = 2), checked on random finite problems against exact AUCs and, for the
optimality premises, against brute-force enumeration of every weak order.

Each property test states its claim in its docstring. Claims that turned out narrower than first
stated have their counterexample pinned at the bottom (``test_counterexample_*``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bipartite.bayes import effective_weights, label_aggregation, loss_aggregation
from bipartite.labels import aggregate_labels
from bipartite.pareto import (
    Tilt,
    aggregation_tilt,
    balance_condition,
    exchange_rates,
    lexicographic_weights,
    weighted_sum_tilt,
)
from bipartite.population import FiniteProblem, enumerate_weak_orders, label_vectors

TOL = 1e-10
RATIOS = (0.25, 0.5, 1.0, 2.0, 4.0)


def _defined(P: FiniteProblem) -> bool:
    return bool(np.all((P.pi > 1e-6) & (P.pi < 1 - 1e-6)))


@st.composite
def problems(draw, independent: bool = False, max_n: int = 7):
    """Random K = 2 finite problems: arbitrary joints (Dirichlet), deterministic labels, or
    conditionally independent labels with uniform marginals."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(2, max_n))
    rng = np.random.default_rng(seed)
    kind = "independent" if independent else draw(st.sampled_from(
        ["random", "deterministic", "independent"]))
    if kind == "independent":
        P = FiniteProblem.from_eta(rng.dirichlet(np.ones(n)), rng.uniform(0, 1, size=(n, 2)))
    else:
        P = FiniteProblem.random(n, 2, seed=rng, deterministic=kind == "deterministic")
    if not _defined(P):
        P = FiniteProblem.from_eta(np.full(2, 0.5), [[0.9, 0.6], [0.2, 0.1]])
    return P


mixing = st.one_of(st.none(), st.tuples(st.floats(0.1, 10), st.floats(0.1, 10)).map(list))


# ---- §12.6: any scorer --------------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(P=problems(), agg=st.sampled_from(["product", "or", "lex12", "lex21"]), a=mixing)
def test_no_aggregation_beats_loss_aggregation_on_its_own_weighting(P, agg, a):
    """§12.6: for every label aggregation (AND, OR, lexicographic with uniform costs),
    Σ a_k d_k ≤ 0; so label aggregation has the higher Min AUC only if it raises the label that
    loss aggregation under-serves (d_m > 0) and costs the other less than the gap."""
    kw = ({"w": lexicographic_weights([0, 1] if agg == "lex12" else [1, 0]), "costs": "uniform"}
          if agg.startswith("lex") else {})
    r = balance_condition(P, "sum" if agg.startswith("lex") else agg, a=a, **kw)
    assert r["chain_holds"]
    if r["min_winner"] == "label":
        m = r["underserved"]
        assert m >= 0 and r[f"d_{m + 1}"] > 0 and r["no_overshoot"]


# ---- §12.7: weighted sums -----------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(P=problems(), ratio=st.sampled_from(RATIOS), a=mixing)
def test_weighted_sum_moves_toward_its_tilted_label(P, ratio, a):
    """§12.7: Ȳ = Y₁ + ρY₂ with linear costs raises the AUC of t = argmax w_k v_k / a_k and
    0 ≤ D ≤ −d_o ≤ r D with D = (a_t/a_o) d_t; it has the higher Min AUC iff t is the label loss
    aggregation under-serves, d_t > 0 and −d_o < gap (corollary of §12.3 with w∘v for v)."""
    r = balance_condition(P, "sum", w=[1.0, ratio], a=a)
    assert r["tilt_proven"] and r["tilt_rule"] == "weighted_sum"
    assert r["chain_holds"]
    assert r["moved_toward"] in (r["tilt"], -1)
    wins = r["min_winner"] == "label"
    t = r["tilt"]
    predicted = bool(r["can_win"] and r[f"d_{t + 1}"] > TOL and r["no_overshoot"])
    assert wins == predicted or r["min_winner"] == "tie"


@pytest.mark.parametrize("ratio", RATIOS)
def test_weighted_sum_tilt_formula(ratio):
    """§12.7 by hand: at π = (0.556, 0.160) (Bank Marketing) v = (0.2469, 0.1344); the weighted
    sum tilts toward label 2 exactly when w₂/w₁ > v₁/v₂ = 1.837, with r = max/min of w∘v."""
    pi = np.array([0.556, 0.160])
    v = pi * (1 - pi)
    t = weighted_sum_tilt(pi, [1.0, ratio])
    assert t.label == (1 if ratio > v[0] / v[1] else 0)
    g = np.array([1.0, ratio]) * v
    assert t.ratio == pytest.approx(g.max() / g.min(), rel=1e-12)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 8),
       ratio=st.sampled_from([0.25, 0.5, 2.0, 4.0]))
def test_deterministic_labels_no_unequal_weighted_sum_wins(seed, n, ratio):
    """§12.10: with deterministic labels a weighted sum with w₁ ≠ w₂ ranks lexicographically, as
    loss aggregation does (skewed label first); the balanced-first order loses the cross pairs
    (1,0)–(0,1) against the smaller v_s, so it never has the higher Min AUC."""
    P = FiniteProblem.random(n, 2, seed=seed, deterministic=True)
    if not _defined(P):
        return
    r = balance_condition(P, "sum", w=[1.0, ratio])
    assert r["min_winner"] != "label"


def test_weighted_sum_at_the_loss_rate_is_loss_aggregation():
    """w₂/w₁ = v₁/v₂ is loss aggregation with a = 1: tilt −1, identical AUCs."""
    P = FiniteProblem.random(6, 2, seed=3)
    v = P.pi * (1 - P.pi)
    r = balance_condition(P, "sum", w=[1.0, v[0] / v[1]])
    assert r["tilt"] == -1 and r["d_1"] == 0.0 and r["d_2"] == 0.0
    assert r["min_winner"] == "tie"


@pytest.mark.parametrize("seed", range(6))
def test_premises_by_enumeration_of_every_weak_order(seed):
    """The premises of §12.6–§12.8, by brute force over all 541 weak orders of n = 5 points: the
    loss-aggregation scorer maximises Σ a_k AUC_k; the weighted-sum scorer maximises
    Σ w_k v_k AUC_k; the AND and OR scorers maximise the AUC of their binary label."""
    rng = np.random.default_rng(seed)
    P = FiniteProblem.random(5, 2, seed=rng)
    a, w = rng.uniform(0.2, 3.0, 2), np.array([1.0, rng.choice(RATIOS)])
    v = P.pi * (1 - P.pi)
    V = label_vectors(2)
    orders = np.array(list(enumerate_weak_orders(5)), dtype=float)
    aucs = np.array([P.auc(s) for s in orders])
    assert a @ P.auc(loss_aggregation(P.eta, P.pi, a)) >= (aucs @ a).max() - 1e-12
    assert (w * v) @ P.auc(label_aggregation(P, w=w)) >= (aucs @ (w * v)).max() - 1e-12
    for agg in ("product", "or"):
        top = aggregate_labels(V, agg)
        Pbar = FiniteProblem(P.mass, np.column_stack([P.label_probs @ (1 - top),
                                                      P.label_probs @ top]))
        best = max(Pbar.auc(s)[0] for s in orders)
        assert Pbar.auc(label_aggregation(P, aggregate=agg))[0] >= best - 1e-12


# ---- §12.8: AND and OR --------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(P=problems(independent=True), agg=st.sampled_from(["product", "or"]), a=mixing)
def test_and_or_follow_the_exchange_rate_with_independent_labels(P, agg, a):
    """§12.8: with conditionally independent labels, if the exchange rate of P(Ȳ=1|x) is on one
    side of α₂/α₁ at every support point, the aggregation raises that label (weakly), lowers the
    other at least as much (in a-units), and cannot win when that label is not the under-served
    one."""
    r = balance_condition(P, agg, a=a)
    if not r["tilt_proven"]:
        return
    assert r["chain_holds"]
    assert r["moved_toward"] in (r["tilt"], -1)
    if r["can_win"] is False:
        assert r["min_winner"] != "label"


def test_exchange_rate_tilt_is_found():
    """A problem where the §12.8 condition applies: η₁/η₂ ≥ α₂/α₁ everywhere."""
    P = FiniteProblem.from_eta([0.5, 0.5], [[0.9, 0.2], [0.4, 0.1]])
    rate = effective_weights(P.pi)[1] / effective_weights(P.pi)[0]
    assert np.all(exchange_rates(P.eta, "product") >= rate)
    t = aggregation_tilt(P, "product")
    assert (t.label, t.proven, t.rule) == (1, True, "exchange_rate") and np.isnan(t.ratio)
    assert isinstance(t, Tilt)


def test_exchange_rates_formulas():
    """ρ = ∂₂h/∂₁h: w₂/w₁ for a sum, η₁/η₂ for AND (h = η₁η₂), (1−η₁)/(1−η₂) for OR; by finite
    differences of h."""
    E = np.array([[0.6, 0.2], [0.3, 0.7], [0.05, 0.9]])
    hs = {"product": lambda e: e[:, 0] * e[:, 1],
          "or": lambda e: 1 - (1 - e[:, 0]) * (1 - e[:, 1])}
    eps = 1e-6
    for agg, h in hs.items():
        d1 = (h(E + [eps, 0]) - h(E - [eps, 0])) / (2 * eps)
        d2 = (h(E + [0, eps]) - h(E - [0, eps])) / (2 * eps)
        np.testing.assert_allclose(exchange_rates(E, agg), d2 / d1, rtol=1e-6)
    np.testing.assert_allclose(exchange_rates(E, "sum", w=[2.0, 3.0]), 1.5)


def test_exchange_rate_undefined_warns():
    with pytest.warns(UserWarning, match="undefined"):
        rho = exchange_rates([[0.0, 0.0], [0.5, 0.2]], "product")
    assert np.isnan(rho[0]) and rho[1] == pytest.approx(2.5)


# ---- §12.9: lexicographic -----------------------------------------------------------------------
def test_lexicographic_weights_order_label_vectors():
    """Σ w_k Y_k with lexicographic weights gives every label vector its own level, in the
    lexicographic order (first label first)."""
    V = label_vectors(3)
    order = [2, 0, 1]
    levels = aggregate_labels(V, "sum", lexicographic_weights(order))
    keys = [tuple(v[order]) for v in V]
    assert sorted(range(8), key=lambda i: levels[i]) == sorted(range(8), key=lambda i: keys[i])
    assert len(set(levels.tolist())) == 8


def test_lexicographic_with_linear_costs_is_the_weighted_sum():
    """§12.9: lexicographic aggregation, label 2 first, with linear costs is the weighted sum
    w₂/w₁ = 2 (same label, same Bayes scorer), so §12.7 applies with ratio 2."""
    P = FiniteProblem.random(6, 2, seed=11)
    np.testing.assert_array_equal(label_aggregation(P, w=lexicographic_weights([1, 0])),
                                  label_aggregation(P, w=[1.0, 2.0]))
    assert aggregation_tilt(P, "sum", w=lexicographic_weights([1, 0])) == weighted_sum_tilt(
        P.pi, [1.0, 2.0])


def test_lexicographic_uniform_costs_has_no_closed_form_tilt():
    P = FiniteProblem.random(6, 2, seed=11)
    t = aggregation_tilt(P, "sum", w=lexicographic_weights([0, 1]), costs="uniform")
    assert t.label is None and not t.proven and t.rule == "none"


# ---- counterexamples: claims that are narrower than first stated ------------------------------
def test_counterexample_typical_point_rule_is_a_heuristic():
    """The typical-point rule (AND moves toward the rarer label) is not a theorem: on
    FiniteProblem.random(4, 2, seed=5) it says AND moves toward label 2, which loss aggregation
    does not under-serve, yet AND raises label 1 and has the higher Min AUC."""
    P = FiniteProblem.random(4, 2, seed=5)
    r = balance_condition(P, "product")
    assert not r["tilt_proven"] and r["tilt"] == 1 and r["underserved"] == 0
    assert r["can_win"] is False
    assert r["moved_toward"] == 0 and r["min_winner"] == "label"
    assert r["d_1"] == pytest.approx(0.0021763, abs=1e-6)


def test_counterexample_exchange_rate_needs_independent_labels():
    """§12.8 needs conditionally independent labels: on FiniteProblem.random(4, 2, seed=325)
    (a dependent joint) η₁/η₂ ≥ α₂/α₁ at every point, yet AND (scorer P(Y=(1,1)|x), not η₁η₂)
    raises label 1, not label 2. aggregation_tilt does not claim a proof there."""
    P = FiniteProblem.random(4, 2, seed=325)
    rate = effective_weights(P.pi)[1] / effective_weights(P.pi)[0]
    assert np.all(exchange_rates(P.eta, "product") >= rate)
    r = balance_condition(P, "product")
    assert not r["tilt_proven"]
    assert r["moved_toward"] == 0 and r["d_1"] > 1e-3


def test_counterexample_and_can_lower_both_labels():
    """Unlike a weighted sum (§12.7), AND is not a point of the frontier: on
    FiniteProblem.random(4, 2, seed=7) it lowers both AUCs, so no chain d_t ≥ 0 exists for it in
    general (§12.6 still holds)."""
    r = balance_condition(FiniteProblem.random(4, 2, seed=7), "product")
    assert r["moved_toward"] is None and r["d_1"] < -0.05 and r["d_2"] < 0
    assert r["chain_holds"] and r["min_winner"] == "loss"


def test_counterexample_lexicographic_uniform_costs_can_move_to_its_second_label():
    """Lexicographic aggregation with uniform costs, label 1 first, on
    FiniteProblem.random(4, 2, seed=20) raises label 2, while its linear-costs twin (the weighted
    sum (2, 1)) tilts toward label 1: with non-linear costs there is no closed-form tilt."""
    P = FiniteProblem.random(4, 2, seed=20)
    w = lexicographic_weights([0, 1])
    assert weighted_sum_tilt(P.pi, w).label == 0
    r = balance_condition(P, "sum", w=w, costs="uniform")
    assert r["moved_toward"] == 1 and r["d_2"] > 1e-3


# ---- bad input ----------------------------------------------------------------------------------
def test_bad_input_is_refused_by_name():
    P3 = FiniteProblem.random(4, 3, seed=0)
    with pytest.raises(ValueError, match="K = 2"):
        aggregation_tilt(P3)  # balance_condition takes any K >= 2 (§12.11-§12.14)
    with pytest.raises(ValueError, match="K >= 2"):
        balance_condition(FiniteProblem.random(4, 1, seed=0))
    with pytest.raises(ValueError, match="'pi'"):
        weighted_sum_tilt([0.5, 0.1, 0.2], [1, 1])
    with pytest.raises(ValueError, match="'w'"):
        weighted_sum_tilt([0.5, 0.1], [0, 0])
    with pytest.raises(ValueError, match="'a'"):
        weighted_sum_tilt([0.5, 0.1], [1, 1], a=[1, 0])
    with pytest.raises(ValueError, match="'aggregate'"):
        exchange_rates([[0.5, 0.5]], "xor")
    with pytest.raises(ValueError, match="'order'"):
        lexicographic_weights([0, 0])
    with pytest.raises(ValueError, match="'tol'"):
        balance_condition(FiniteProblem.random(4, 2, seed=0), tol=-1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="prior"):
            balance_condition(FiniteProblem.from_eta([0.5, 0.5], [[1.0, 0.5], [1.0, 0.2]]))


def test_printed_tilt_ratios_of_section_12_7_match_weighted_sum_tilt():
    """docs/theory.md §12.7 prints r for Bank Marketing (π = (0.556, 0.160)) at
    w₂/w₁ = ¼, ½, 1, 2, 4 with three significant digits: each printed value is
    weighted_sum_tilt's ratio so rounded (r = 3.67 was once printed as 3.6)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "theory.md").read_text()
    sec = text[text.index("### 12.7"):text.index("### 12.8")]
    mortgage = re.search(r"mortgage label \(\$r=([\d.]+)\$, ([\d.]+),\s+([\d.]+)\)", sec)
    loan = re.search(r"loan label \(\$r=([\d.]+)\$, ([\d.]+)\)", sec)
    printed = [*mortgage.groups(), *loan.groups()]
    pi = [0.556, 0.160]
    expected = [f"{weighted_sum_tilt(pi, [1.0, r]).ratio:.3g}" for r in RATIOS]
    assert printed == expected
