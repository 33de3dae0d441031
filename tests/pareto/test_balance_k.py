"""docs/theory.md §12.11–§12.14: loss aggregation against label aggregation for K ≥ 3 labels.

Checked against references written here: a brute-force population AUC (double loop over the
support, ties ½, the diagonal included: docs/theory.md §2.2), the Bayes scorers written out from
the joint, a linear program for the necessary conditions, and enumeration of every weak order for
the optimality premises (through ``analysis/balance_k.py``, whose verifier is itself shown to
fail on a planted error). Each property test states its claim in its docstring; counterexamples
to claims that hold only for K = 2 are pinned at the bottom."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from bipartite.pareto import (
    balance_condition,
    balance_from_aucs,
    equivalent_loss_weights,
    lexicographic_weights,
    typical_point_weights,
)
from bipartite.pareto.balance_k import _min_ruled_out, _spread_ruled_out
from bipartite.population import FiniteProblem, enumerate_weak_orders
from tests._scripts import load_script


def _load_script():
    return load_script("analysis/balance_k.py", "balance_k_script")


BK = _load_script()


# ---- independent references ---------------------------------------------------------------------
def brute_auc(mass: np.ndarray, eta: np.ndarray, s: np.ndarray) -> np.ndarray:
    """AUC_k = Σ_{i,j} p_i p_j η_ik (1 − η_jk) ([s_i > s_j] + ½[s_i = s_j]) / (π_k (1 − π_k)),
    the diagonal i = j included (docs/theory.md §2.2): a plain double loop."""
    n, K = eta.shape
    out = np.zeros(K)
    for k in range(K):
        pik = sum(mass[i] * eta[i, k] for i in range(n))
        tot = 0.0
        for i in range(n):
            for j in range(n):
                win = 1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0
                tot += mass[i] * eta[i, k] * mass[j] * (1.0 - eta[j, k]) * win
        out[k] = tot / (pik * (1.0 - pik))
    return out


def bayes_scores(P: FiniteProblem, agg: str, w=None) -> np.ndarray:
    """The Bayes scorers written out from the joint Q (rows over itertools.product order):
    sum Σ w_k η_k; OR 1 − Q(0…0 | x); AND Q(1…1 | x); at-least-two P(Σ Y ≥ 2 | x)."""
    V = np.array(list(itertools.product([0, 1], repeat=P.K)))
    Q = P.label_probs
    eta = Q @ V
    if agg == "sum":
        return eta @ (np.ones(P.K) if w is None else np.asarray(w, float))
    if agg == "or":
        return 1.0 - Q[:, 0]
    if agg == "product":
        return Q[:, -1]
    return Q @ (V.sum(axis=1) >= 2).astype(float)


def loss_scores(P: FiniteProblem) -> np.ndarray:
    """Loss aggregation with a = 1: Σ_k η_k / (π_k (1 − π_k)) (docs/theory.md §4)."""
    eta = P.label_probs @ np.array(list(itertools.product([0, 1], repeat=P.K)))
    pi = P.mass @ eta
    return eta @ (1.0 / (pi * (1.0 - pi)))


def _at_least_two(y):
    return float(y.sum() >= 2)


# ---- "Done when": any K, every aggregation, AUCs against brute force ----------------------------
@pytest.mark.parametrize("K", [3, 4])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_any_k_min_aucs_match_brute_force(K, seed):
    """balance_condition(FiniteProblem.random(6, K, seed), ψ) works for every aggregation; its
    loss and label AUC vectors (hence min_loss, min_label) equal the brute-force population AUC
    of the Bayes scorers written out here. Lexicographic aggregation with uniform costs has no
    closed form: its label scorer must attain the brute-force best multipartite objective over
    all weak orders, and its AUCs equal the brute-force AUCs of that scorer."""
    P = FiniteProblem.random(6, K, seed=seed)
    w_rand = np.random.default_rng(seed).uniform(0.25, 4.0, K)
    w_lex = lexicographic_weights(np.arange(K)[::-1])
    L_ref = brute_auc(P.mass, P.eta, loss_scores(P))
    cases = [("sum", None, "sum", {}), ("sum", w_rand, "sum", {}), ("or", None, "or", {}),
             ("product", None, "product", {}), ("sum", w_lex, "sum", {}),
             (_at_least_two, None, "atleast2", {})]
    for agg, w, ref, extra in cases:
        r = balance_condition(P, agg, w=w, **extra)
        A_ref = brute_auc(P.mass, P.eta, bayes_scores(P, ref, w))
        np.testing.assert_allclose(r["loss_aucs"], L_ref, atol=1e-12)
        np.testing.assert_allclose(r["label_aucs"], A_ref, atol=1e-12)
        assert r["min_loss"] == pytest.approx(L_ref.min(), abs=1e-12)
        assert r["min_label"] == pytest.approx(A_ref.min(), abs=1e-12)
        assert r["spread_label"] == pytest.approx(np.ptp(A_ref), abs=1e-12)
        win = A_ref.min() > L_ref.min() + 1e-12
        assert r["can_win"] or not win
        assert r["min_winner"] == ("label" if win else "loss" if A_ref.min() < L_ref.min() - 1e-12
                                   else "tie")


def test_lexicographic_uniform_costs_any_k_is_a_brute_force_optimum():
    """K = 3, uniform costs on the 8 lexicographic levels: the label scorer used by
    balance_condition maximises Σ_{ij} p_i p_j P(Ȳ_i > Ȳ_j) S_ij over all 4 683 weak orders of
    6 points (brute force), and its AUCs are the brute-force AUCs of that scorer."""
    from bipartite.bayes import NotRepresentableError, label_aggregation
    from bipartite.pareto import optimal_ranking

    P = FiniteProblem.random(6, 3, seed=4)
    w = lexicographic_weights([2, 0, 1])
    V = np.array(list(itertools.product([0, 1], repeat=3)))
    lev = V @ w
    above = (lev[:, None] > lev[None, :]).astype(float)
    M = P.mass[:, None] * P.mass[None, :] * (P.label_probs @ above @ P.label_probs.T)

    def objective(s):
        S = (s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])
        return float((M * S).sum())

    best = max(objective(f) for f in enumerate_weak_orders(6))
    try:
        s = label_aggregation(P, w=w, costs="uniform")
    except NotRepresentableError:
        s = optimal_ranking(P, w=w, costs="uniform")
    assert objective(s) == pytest.approx(best, abs=1e-12)
    r = balance_condition(P, "sum", w=w, costs="uniform")
    np.testing.assert_allclose(r["label_aucs"], brute_auc(P.mass, P.eta, s), atol=1e-12)
    assert r["tilt_rule"] == "none" and r["sufficient"] is None


# ---- §12.11: the weighted-sum equivalence ---------------------------------------------------------
@pytest.mark.parametrize("K", [3, 5])
def test_weighted_sum_is_loss_aggregation_with_b(K):
    """§12.11: Σ_k w_k Y_k with linear costs has the Bayes scorer of loss aggregation with
    a_k = w_k π_k (1 − π_k): both scorers are Σ_k w_k η_k, so the AUC vectors are equal."""
    from bipartite.bayes import loss_aggregation

    P = FiniteProblem.random(6, K, seed=K)
    w = np.random.default_rng(K).uniform(0.0, 3.0, K)
    b = equivalent_loss_weights(P.pi, w)
    np.testing.assert_allclose(b, w * P.pi * (1 - P.pi), rtol=1e-15)
    np.testing.assert_allclose(P.auc(loss_aggregation(P.eta, P.pi, b)),
                               brute_auc(P.mass, P.eta, bayes_scores(P, "sum", w)), atol=1e-12)


def test_typical_point_weights_linearise_and_or():
    """§12.13: the gradient of Π η_k (AND) at η = π is ∝ 1/π_k, of 1 − Π(1 − η_k) (OR) ∝
    1/(1 − π_k); as mixing weights of loss aggregation (a_k = α_k π_k(1 − π_k)) that is
    a ∝ 1 − π (AND) and a ∝ π (OR). Checked by finite differences."""
    pi = np.array([0.5, 0.2, 0.05, 0.7])
    v = pi * (1 - pi)
    hs = {"product": lambda e: np.prod(e), "or": lambda e: 1 - np.prod(1 - e)}
    for agg, h in hs.items():
        grad = np.array([(h(pi + 1e-7 * np.eye(4)[k]) - h(pi - 1e-7 * np.eye(4)[k])) / 2e-7
                         for k in range(4)])
        a_equiv = grad * v
        ref = typical_point_weights(pi, agg)
        np.testing.assert_allclose(a_equiv / a_equiv.max(), ref / ref.max(), rtol=1e-6)


# ---- §12.12: the necessary conditions, against a linear program ----------------------------------
def _lp_can_win(L, a, b, spread=False):
    """Reference: is there a d with a·d ≤ 0, b·d ≥ 0 (if b), −L ≤ d ≤ 1 − L and
    min(L + d) > min L (or spread(L + d) < spread L)? Maximise the margin s by linprog."""
    K = len(L)
    lo, hi = L.min(), L.max()
    nv = K + 1 + (2 if spread else 0)  # d, s, [u, l]
    A_ub, b_ub = [np.r_[a, np.zeros(nv - K)]], [0.0]
    if b is not None:
        A_ub.append(np.r_[-b, np.zeros(nv - K)])
        b_ub.append(0.0)
    for k in range(K):
        if spread:  # L_k + d_k <= u, L_k + d_k >= l
            row = np.zeros(nv)
            row[k], row[K + 1] = 1.0, -1.0
            A_ub.append(row)
            b_ub.append(-L[k])
            row = np.zeros(nv)
            row[k], row[K + 2] = -1.0, 1.0
            A_ub.append(row)
            b_ub.append(L[k])
        else:  # L_k + d_k >= lo + s
            row = np.zeros(nv)
            row[k], row[K] = -1.0, 1.0
            A_ub.append(row)
            b_ub.append(L[k] - lo)
    if spread:  # u - l <= (hi - lo) - s
        row = np.zeros(nv)
        row[K], row[K + 1], row[K + 2] = 1.0, 1.0, -1.0
        A_ub.append(row)
        b_ub.append(hi - lo)
    c = np.zeros(nv)
    c[K] = -1.0
    bounds = [(-L[k], 1 - L[k]) for k in range(K)] + [(None, 1.0)] + [(None, None)] * (nv - K - 1)
    res = linprog(c, A_ub=np.array(A_ub), b_ub=b_ub, bounds=bounds, method="highs")
    assert res.status == 0
    return -res.fun > 1e-7


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), K=st.integers(2, 6),
       kind=st.sampled_from(["generic", "one_tilted", "none"]))
def test_closed_form_necessary_conditions_equal_the_linear_program(seed, K, kind):
    """§12.12: the closed forms of can_win (no win iff N = ∅, or g = b/a constant on the
    non-worst labels N with max_W g ≤ g_N) and can_win_spread (no win iff the spread is 0, or
    every middle label has g = ḡ = Σb/Σa, every worst g ≤ ḡ, every best g ≥ ḡ) equal the
    feasibility of (P1), (P2) and the box for a strictly higher Min / lower spread (an LP), away
    from AUC 0 or 1. "one_tilted": b = a except one label (the weights where the condition can
    bite); "none": no (P2)."""
    rng = np.random.default_rng(seed)
    L = rng.uniform(0.3, 0.95, K)
    if rng.random() < 0.3:  # ties among the worst / best labels
        L[rng.integers(K)] = L.min()
    a = rng.uniform(0.2, 3.0, K)
    b = None
    if kind == "generic":
        b = rng.uniform(0.2, 3.0, K)
    elif kind == "one_tilted":
        b = a.copy()
        b[rng.integers(K)] *= rng.choice([0.5, 2.0])
    tol = 1e-12
    assert (not _min_ruled_out(L, a, b, tol)) == _lp_can_win(L, a, b)
    assert (not _spread_ruled_out(L, a, b, tol)) == _lp_can_win(L, a, b, spread=True)


def test_k2_necessary_condition_is_the_tilt_verdict():
    """§12.12 at K = 2 is §12.7: for weighted sums, can_win (tilt toward the under-served label)
    equals the necessary condition `necessary`, on 100 random problems × 5 weight ratios."""
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(100):
        P = BK.draw_problem(5, 2, "random", rng)
        for ratio in (0.25, 0.5, 1.0, 2.0, 4.0):
            r = balance_condition(P, "sum", w=[1.0, ratio])
            assert r["necessary"] == r["can_win"]
            seen.add(r["can_win"])
    assert seen == {True, False}


# ---- the propositions on random problems --------------------------------------------------------
@st.composite
def problems(draw, K_values=(3, 4, 5)):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    return BK.draw_problem(draw(st.integers(2, 6)), draw(st.sampled_from(K_values)),
                           draw(st.sampled_from(BK.KINDS)), rng), rng


@settings(max_examples=40, deadline=None)
@given(case=problems())
def test_propositions_hold_on_random_problems(case):
    """§12.11–§12.13 for K = 3..5: (P1) a·d ≤ 0 for every aggregation, (P2) b·d ≥ 0 for weighted
    sums (linear costs); can_win False ⇒ no strictly higher Min AUC; can_win_spread False ⇒ no
    strictly lower spread; sufficient ⇒ a strictly higher Min AUC."""
    P, rng = case
    for name, kw in BK.family(P.K, P.pi, rng).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = balance_condition(P, **kw)
            except ValueError as exc:
                assert "constant" in str(exc)
                continue
        assert r["premises_hold"], name
        if r["can_win"] is False:
            assert r["min_winner"] != "label", name
        if r["can_win_spread"] is False:
            assert r["spread_winner"] != "label", name
        if r["sufficient"]:
            assert r["min_winner"] == "label", name


def _failures(rows):
    table = BK.summarise(rows)
    return int(table[[c for c in table if c.startswith("fail_")]].to_numpy().sum()), table


@pytest.mark.parametrize("K", [3, 4, 5])
def test_propositions_by_enumeration_on_random_problems(K):
    """§12.11–§12.13 on 300 random problems of 4 points per K (a third each arbitrary joints,
    deterministic labels, independent labels), 9 aggregations each, the optimality premises
    checked against all 75 weak orders: 0 failures. The conditions are exercised: some
    problems are ruled out and some wins are guaranteed by `sufficient`. (The 1 000-problem runs
    are the slow tests below.)"""
    rows = [r for kind in BK.KINDS for r in BK.check_problems(K, 4, 100, kind=kind, seed=7)]
    assert len({(r["kind"], r["problem"]) for r in rows}) == 300
    fails, table = _failures(rows)
    assert fails == 0, table.to_string()
    assert table.ruled_out.sum() > 0 and table.sufficient.sum() > 0


@pytest.mark.slow
@pytest.mark.parametrize("n", [4, 5])
@pytest.mark.parametrize("K", [3, 4, 5])
def test_propositions_by_enumeration_on_1000_problems_per_kind(K, n):
    """As above with 1 000 problems per kind (3 000 per K), on 4 points (75 weak orders) and on
    5 points (541 weak orders; the run whose counts docs/theory.md §12.14 records, from
    analysis/balance_k.py): 0 failures."""
    rows = [r for kind in BK.KINDS for r in BK.check_problems(K, n, 1000, kind=kind, seed=1)]
    assert len({(r["kind"], r["problem"]) for r in rows}) == 3000
    fails, table = _failures(rows)
    assert fails == 0, table.to_string()
    assert table.ruled_out.sum() > 0 and table.sufficient.sum() > 0


def test_the_verifier_can_fail(monkeypatch):
    """The enumeration verifier flags a planted error: a balance_condition whose can_win is
    always False, and one whose `sufficient` is always True, give failures."""
    real = BK.balance_condition

    def never(*args, **kw):
        return {**real(*args, **kw), "necessary": False, "can_win": False}

    def always(*args, **kw):
        r = real(*args, **kw)
        return {**r, "sufficient": r["sufficient"] is not None}

    for fake, col in ((never, "fail_N_min"), (always, "fail_S")):
        monkeypatch.setattr(BK, "balance_condition", fake)
        _, table = _failures(BK.check_problems(3, 4, 30, seed=3))
        assert table[col].sum() > 0


# ---- balance_from_aucs at large K, and bad input --------------------------------------------------
def test_balance_from_aucs_at_k_174():
    """No finite problem needed: K = 174 (CAL500) with the sum's b = π(1 − π) and a = 1; the
    worst labels, the Min and spread winners follow from the vectors by hand."""
    rng = np.random.default_rng(0)
    pi = rng.uniform(0.02, 0.5, 174)
    L = rng.uniform(0.6, 0.9, 174)
    A = L + rng.normal(0, 0.01, 174)
    A[int(np.argmin(L))] += 0.05
    r = balance_from_aucs(L, A, pi=pi, b=equivalent_loss_weights(pi))
    assert r["K"] == 174 and r["worst_loss"] == [int(np.argmin(L))]
    assert r["worst_label"] == [int(np.argmin(A))]
    assert r["min_winner"] == ("label" if A.min() > L.min() else "loss")
    assert r["spread_winner"] == ("label" if np.ptp(A) < np.ptp(L) else "loss")
    assert r["can_win"] and r["can_win_spread"] and r["tilt_proven"]
    g = pi * (1 - pi)
    np.testing.assert_allclose(r["tilt_weights"], g / g.max(), rtol=1e-12)


def test_balance_from_aucs_refuses_bad_input_by_name():
    with pytest.raises(ValueError, match="'loss_aucs'"):
        balance_from_aucs([0.5, 0.6, 0.7], [0.5, 0.6], pi=[0.5, 0.5])
    with pytest.raises(ValueError, match="'label_aucs'"):
        balance_from_aucs([0.5, 0.6], [0.5, 1.6], pi=[0.5, 0.5])
    with pytest.raises(ValueError, match="'pi'"):
        balance_from_aucs([0.5, 0.6], [0.5, 0.6], pi=[0.5, 1.0])
    with pytest.raises(ValueError, match="'b'"):
        balance_from_aucs([0.5, 0.6], [0.5, 0.6], pi=[0.5, 0.5], b=[0.0, 0.0])
    with pytest.raises(ValueError, match="'b'"):
        balance_from_aucs([0.5, 0.6], [0.5, 0.6], pi=[0.5, 0.5], b=[1.0, 1.0], aggregate="or")
    with pytest.raises(ValueError, match="'a'"):
        balance_from_aucs([0.5, 0.6], [0.5, 0.6], pi=[0.5, 0.5], a=[1.0, 0.0])
    with pytest.raises(ValueError, match="'aggregate'"):
        balance_from_aucs([0.5, 0.6], [0.5, 0.6], pi=[0.5, 0.5], aggregate="xor")
    with pytest.raises(ValueError, match="'pi'"):
        balance_from_aucs([0.5], [0.5], pi=[0.5])


# ---- counterexamples: what is new for K ≥ 3 -------------------------------------------------------
def test_counterexample_k3_weighted_sum_wins_without_tilting_toward_the_worst_label():
    """For K = 2 a weighted sum wins only if its tilt weight g = b/a is largest on the
    under-served label (§12.7). Not for K = 3: on this problem loss aggregation under-serves
    label 2, the weighted sum's g is smallest there (0.07 of the largest), and it still has the
    higher Min AUC (+0.023): it raises label 1, label 2 comes along, label 3 pays."""
    rng = np.random.default_rng(3186)
    P = FiniteProblem.random(4, 3, seed=rng)
    r = balance_condition(P, "sum", w=rng.uniform(0.25, 4.0, 3))
    g = np.array(r["tilt_weights"])
    assert r["worst_loss"] == [1] and int(np.argmin(g)) == 1 and g[1] < 0.1
    assert r["tilt_toward_worst"] is False and r["min_winner"] == "label"
    assert r["min_label"] - r["min_loss"] > 0.02
    assert r["d"][0] > 0 and r["d"][1] > 0 and r["d"][2] < -0.05


def test_counterexample_k3_gain_on_the_worst_label_is_not_sufficient():
    """For K = 2 a gain d_m > 0 on the under-served label with −d_o < gap wins; with K = 3 the
    gain can be bought by a third label that falls below: on FiniteProblem.random(4, 3,
    seed=41) the sum tilts toward the worst label 3 and raises it by 0.11, but label 2 falls by
    0.19 and becomes the worst: the worst-served label changes and loss aggregation wins."""
    r = balance_condition(FiniteProblem.random(4, 3, seed=41), "sum")
    assert r["worst_loss"] == [2] and r["tilt_toward_worst"]
    assert r["d"][2] > 0.1 and r["d"][1] < -0.15
    assert r["worst_changed"] and r["worst_label"] == [1] and r["min_winner"] == "loss"
    assert r["can_win"] and not r["sufficient"]


def test_counterexample_k3_min_win_without_spread_win():
    """For K = 2 a higher Min AUC implies a lower Diff AUC (§12.3). Not for K = 3: on
    FiniteProblem.random(4, 3, seed=249) the sum raises the Min AUC (0.478 → 0.485) and the
    spread grows too (0.174 → 0.178), because the best label gains more."""
    r = balance_condition(FiniteProblem.random(4, 3, seed=249), "sum")
    assert r["min_winner"] == "label" and r["spread_winner"] == "loss"
    assert r["spread_label"] > r["spread_loss"] + 1e-3


@pytest.mark.parametrize(("agg", "seed"), [("product", 2), ("or", 3)])
def test_counterexample_typical_point_tilt_is_a_heuristic_for_k3(agg, seed):
    """The typical-point tilt of AND (toward rare labels) and OR (toward common ones) is a
    heuristic: on these K = 3 problems it is not largest on the worst label, yet the aggregation
    raises that label and has the higher Min AUC."""
    r = balance_condition(FiniteProblem.random(4, 3, seed=seed), agg)
    assert r["tilt_rule"] == "typical_point" and not r["tilt_proven"]
    assert r["tilt_toward_worst"] is False and r["min_winner"] == "label"
    m = r["worst_loss"][0]
    assert r["d"][m] > 0


def test_downweighting_the_worst_label_rules_a_win_out():
    """§12.12 example: loss aggregation with the worst-served label's weight halved (b = a except
    b_m = a_m/2, a weighted sum w = b/(π(1 − π))) can never have the higher Min AUC: g is
    constant (1) on the other labels and smaller on m. Doubling it leaves the verdict open."""
    for seed in range(30):
        P = FiniteProblem.random(5, 4, seed=seed)
        v = P.pi * (1 - P.pi)
        m = int(np.argmin(balance_condition(P, "sum", w=1 / v)["loss_aucs"]))
        for factor, ruled_out in ((0.5, True), (2.0, False)):
            w = np.ones(4) / v
            w[m] *= factor
            r = balance_condition(P, "sum", w=w)
            assert r["can_win"] is (not ruled_out)
            if ruled_out:
                assert r["min_winner"] != "label"
