"""Label dictatorship (docs/theory.md §7; LA25 §6, Prop 6.1, Fig. 1): effective weights, the dictator and
its skew threshold, the partial orders of Fig. 1, cross-pair win rates and near ties against slow
O(n²) loops, the population win rate against brute force, and label aggregation by sum as loss
aggregation with a_k = π_k(1 − π_k). Registry: papers/la25/claims_dictatorship.toml.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from bipartite import UndefinedMetricWarning, bayes
from bipartite.bayes import label_aggregation, loss_aggregation
from bipartite.dictatorship import (
    cross_pair_win_rate,
    cross_pair_win_rates,
    dictator,
    dictator_threshold,
    dictatorship_index,
    effective_weight_shares,
    effective_weights,
    label_vector_order,
    near_tie_rate,
    near_tie_rates,
    population_win_rate,
    report,
)
from bipartite.metrics import multilabel_auc
from bipartite.population import FiniteProblem


# ---- slow references ----------------------------------------------------------------------------
def s_(a, b):
    return 1.0 if a > b else 0.5 if a == b else 0.0


def slow_win_rate(Y, f, k, j, w=None):
    """W_{k>j} by the O(n²) double loop over (k-only, j-only) pairs, ties ½."""
    w = np.ones(len(f)) if w is None else w
    num = den = 0.0
    for x in range(len(f)):
        for xp in range(len(f)):
            if Y[x, k] == 1 and Y[x, j] == 0 and Y[xp, j] == 1 and Y[xp, k] == 0:
                num += w[x] * w[xp] * s_(f[x], f[xp])
                den += w[x] * w[xp]
    return num / den


def slow_near_tie(Y, f, k, j, tol, w=None):
    w = np.ones(len(f)) if w is None else w
    num = den = 0.0
    for x in range(len(f)):
        for xp in range(len(f)):
            if Y[x, k] == 1 and Y[x, j] == 0 and Y[xp, j] == 1 and Y[xp, k] == 0:
                # |f(x) − f(x')| ≤ tol, boundaries evaluated as near_tie_rate documents
                num += w[x] * w[xp] * (f[x] - tol <= f[xp] <= f[x] + tol)
                den += w[x] * w[xp]
    return num / den


def slow_population_win_rate(P, f, k, j):
    """Σ over support pairs and label vectors of p_i Q_im p_l Q_lm' s(f_i, f_l), brute force."""
    num = den = 0.0
    V = P.label_vectors
    for i, l in itertools.product(range(P.n), repeat=2):
        for m, mp in itertools.product(range(len(V)), repeat=2):
            if V[m, k] == 1 and V[m, j] == 0 and V[mp, j] == 1 and V[mp, k] == 0:
                wgt = P.mass[i] * P.label_probs[i, m] * P.mass[l] * P.label_probs[l, mp]
                num += wgt * s_(f[i], f[l])
                den += wgt
    return num / den


# ---- effective weights, dictator, threshold ------------------------------------------------------
def test_effective_weights_is_the_bayes_implementation():
    assert effective_weights is bayes.effective_weights


def test_effective_weight_shares_by_hand():
    # pi = (0.5, 0.2): alpha = (1/0.25, 1/0.16) = (4, 6.25); shares 4/10.25, 6.25/10.25
    np.testing.assert_allclose(effective_weight_shares([0.5, 0.2]), [4 / 10.25, 6.25 / 10.25])
    np.testing.assert_allclose(effective_weight_shares([0.5, 0.2], [2.0, 0.0]), [1.0, 0.0])
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(effective_weight_shares([0.5, 0.2], [0.0, 0.0])).all()


@pytest.mark.parametrize(
    "pi, a, expected",
    [
        ([0.5, 0.1], None, 1),  # 4 < 11.1
        ([0.1, 0.5], None, 0),
        ([0.2, 0.8], None, None),  # equal alpha: (1,0) and (0,1) tie
        ([0.5, 0.5], [1.0, 1.0], None),
        ([0.5, 0.5], [1.0, 1.0 + 1e-9], 1),
        ([0.1, 0.15, 0.2], None, None),  # 11.11 < 7.84 + 6.25
        ([0.02, 0.15, 0.2], None, 0),  # 51.02 > 14.09
        ([0.5, 0.5, 0.5], [1.0, 0.0, 0.0], 0),
        ([0.5, 0.5, 0.5], [0.0, 0.0, 0.0], None),
        ([0.5, 0.5, 0.5], [2.0, 1.0, 1.0], None),  # exactly alpha_0 = alpha_1 + alpha_2
    ],
)
def test_dictator_by_hand(pi, a, expected):
    assert dictator(pi, a) == expected


def test_rarest_label_dictates_with_uniform_weights_k2():
    """LA25 §6.1: with a_k = 1 the rarest label dictates (K = 2, distinct priors below ½); the
    dictator is checked on the Bayes scorer's ranking of the four deterministic label vectors."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        pi = rng.uniform(0.01, 0.5, size=2)
        if abs(pi[0] - pi[1]) < 1e-6:
            continue
        rarest = int(np.argmin(pi))
        assert dictator(pi) == rarest
        f = loss_aggregation([[1, 0], [0, 1]], pi)  # (1,0) vs (0,1): the only contested pair
        assert (f[0] > f[1]) == (rarest == 0)


def test_rarest_label_scope_is_skew_not_rarity():
    """Narrower scope: the label with the smallest π(1 − π) (most skewed) dictates, which is the
    rarest only when the priors are on the same side of ½; for K ≥ 3 no label need dictate."""
    assert dictator([0.3, 0.95]) == 1  # label 1 is common, but more skewed than label 0
    assert dictator([0.3, 0.65]) == 0  # 0.21 < 0.2275: label 0 more skewed
    assert dictator([0.1, 0.15, 0.2]) is None  # rarest label 0 does not dictate (K = 3)


def test_dictator_threshold_against_a_prior_scan():
    rng = np.random.default_rng(1)
    grid = np.linspace(0.001, 0.999, 999)
    for _ in range(20):
        K = int(rng.integers(2, 5))
        pi = rng.uniform(0.05, 0.95, size=K)
        a = rng.uniform(0.1, 2.0, size=K)
        k = int(rng.integers(K))
        thr = dictator_threshold(pi, k, a=a)
        for x in grid:
            q = pi.copy()
            q[k] = x
            is_dict = dictator(q, a) == k
            if thr is None:
                assert is_dict
            else:
                lo, hi = thr
                if min(abs(x - lo), abs(x - hi)) > 1e-9:
                    assert is_dict == (x < lo or x > hi), (pi, a, k, x, thr)
        if thr is not None and 0 < thr[0] < 0.5:
            # at a root the two sides are equal
            q = pi.copy()
            q[k] = thr[0]
            al = effective_weights(q, a)
            assert al[k] == pytest.approx(al.sum() - al[k], rel=1e-9)


def test_dictator_threshold_special_cases():
    # pi[k] is not used
    assert dictator_threshold([0.5, 0.1], 1) == dictator_threshold([0.5, 0.9], 1)
    assert dictator_threshold([0.5, 0.3], 1, a=[1.0, 0.0]) == (0.0, 1.0)  # a_k = 0: never
    assert dictator_threshold([0.5, 0.3], 1, a=[0.0, 1.0]) is None  # S = 0: always
    assert dictator_threshold([0.5, 0.3], 1, a=[1.0, 2.0]) is None  # 4 a_k > S: always
    assert dictator_threshold([0.5, 0.3], 1) == (0.5, 0.5)  # double root: all but ½
    with pytest.raises(ValueError, match="'k'"):
        dictator_threshold([0.5, 0.3], 2)


# ---- LA25 Fig. 1 --------------------------------------------------------------------------------
FIG1 = {
    # (a) alpha_1 > alpha_2: (0,0) < (0,1) < (1,0) < (1,1)
    "a": ("loss", {"pi": [0.1, 0.5]}, [[(0, 0)], [(0, 1)], [(1, 0)], [(1, 1)]]),
    # (b) alpha_1 < alpha_2: the middle pair reversed
    "b": ("loss", {"pi": [0.5, 0.1]}, [[(0, 0)], [(1, 0)], [(0, 1)], [(1, 1)]]),
    # (c) sum: (0,0) < (1,0) ~ (0,1) < (1,1)
    "c": ("sum", {}, [[(0, 0)], [(0, 1), (1, 0)], [(1, 1)]]),
    # (d) product: (0,0) ~ (1,0) ~ (0,1) < (1,1)
    "d": ("product", {}, [[(0, 0), (0, 1), (1, 0)], [(1, 1)]]),
}


@pytest.mark.parametrize("panel", sorted(FIG1))
def test_fig1_partial_orders(panel):
    kind, kw, expected = FIG1[panel]
    assert label_vector_order(kind, **kw) == expected


def test_fig1_loss_orders_for_any_unequal_alpha():
    """K = 2: any α_1 ≠ α_2 gives Fig. 1a or 1b (one label dictates); a = (1, 1) with equal
    skews gives the sum order of Fig. 1c."""
    rng = np.random.default_rng(2)
    for _ in range(100):
        pi, a = rng.uniform(0.02, 0.98, 2), rng.uniform(0.1, 3, 2)
        al = effective_weights(pi, a)
        if abs(al[0] - al[1]) < 1e-9 * al.sum():
            continue
        want = FIG1["a" if al[0] > al[1] else "b"][2]
        assert label_vector_order("loss", pi=pi, a=a) == want
    assert label_vector_order("loss", pi=[0.3, 0.7]) == FIG1["c"][2]


def test_label_vector_order_k3_dictator_on_top():
    # label 0 dictates (0.02: alpha 51 > 14.1): every vector with y_0 = 1 above every y_0 = 0
    tiers = label_vector_order("loss", pi=[0.02, 0.15, 0.2])
    flat = [v for t in tiers for v in t]
    assert all(v[0] == 0 for v in flat[:4]) and all(v[0] == 1 for v in flat[4:])
    assert label_vector_order("or", K=3)[0] == [(0, 0, 0)] and len(label_vector_order("or", K=3)) == 2
    weighted = label_vector_order("sum", K=2, w=[2.0, 1.0])
    assert weighted == FIG1["a"][2]
    with pytest.raises(ValueError, match="'kind'"):
        label_vector_order("max")
    with pytest.raises(ValueError, match="'pi'"):
        label_vector_order("loss")


# ---- label aggregation by sum = loss aggregation with a_k = pi_k (1 - pi_k) -----------------------
@pytest.mark.parametrize("K", [2, 3, 4])
def test_label_sum_equals_loss_aggregation_with_variance_weights(K):
    """LA25 §5 / docs/theory.md §5, §7: Σ_k η_k = Σ_k α_k η_k with a_k = π_k(1 − π_k) (α_k = 1): the same
    scorer, hence the same ranking and the same per-label AUCs, on random finite problems."""
    for seed in range(15):
        P = FiniteProblem.random(7, K, seed=seed)
        pi = P.pi
        f_label = label_aggregation(P, aggregate="sum", costs="linear")
        f_loss = loss_aggregation(P.eta, pi, a=pi * (1 - pi))
        np.testing.assert_allclose(f_label, f_loss, rtol=1e-12)
        np.testing.assert_allclose(P.auc(f_label), P.auc(f_loss), rtol=0, atol=1e-14)


# ---- cross-pair win rate, near ties ------------------------------------------------------------
@pytest.mark.parametrize("K", [2, 3])
def test_cross_pair_win_rate_against_loop(K):
    rng = np.random.default_rng(3)
    for trial in range(20):
        n = int(rng.integers(6, 30))
        Y = rng.integers(0, 2, size=(n, K))
        f = rng.integers(0, 4, size=n).astype(float)  # many ties
        w = rng.uniform(0, 2, size=n) if trial % 2 else None
        for k, j in itertools.permutations(range(K), 2):
            has = ((Y[:, k] == 1) & (Y[:, j] == 0)).any() and ((Y[:, j] == 1) & (Y[:, k] == 0)).any()
            if not has:
                continue
            got = cross_pair_win_rate(Y, f, k, j, sample_weight=w)
            assert got == pytest.approx(slow_win_rate(Y, f, k, j, w), abs=1e-12)
            assert got + cross_pair_win_rate(Y, f, j, k, sample_weight=w) == pytest.approx(1.0)


def test_cross_pair_win_rate_ignores_other_labels_and_undefined():
    Y = np.array([[1, 0, 1], [0, 1, 0], [1, 0, 0], [0, 1, 1]])
    f = np.array([3.0, 2.0, 1.0, 0.0])
    # pairs (0,1): 3>2; (0,3): 3>0; (2,1): 1<2; (2,3): 1>0 -> 3/4, whatever label 2 says
    assert cross_pair_win_rate(Y, f, 0, 1) == 0.75
    with pytest.warns(UndefinedMetricWarning, match="undefined"):
        assert np.isnan(cross_pair_win_rate([[1, 0], [1, 1]], [1.0, 2.0], 0, 1))
    with pytest.raises(ValueError, match="different"):
        cross_pair_win_rate(Y, f, 1, 1)
    with pytest.raises(ValueError, match="K >= 2"):
        cross_pair_win_rate([[1], [0]], [1.0, 2.0], 0, 0)
    with pytest.raises(ValueError, match="'Y'"):
        cross_pair_win_rate([[2, 0], [0, 1]], [1.0, 2.0], 0, 1)


def test_near_tie_rate_against_loop():
    rng = np.random.default_rng(4)
    for trial in range(20):
        n = int(rng.integers(8, 40))
        Y = rng.integers(0, 2, size=(n, 3))
        f = np.round(rng.normal(size=n), 1)
        w = rng.uniform(0, 2, size=n) if trial % 2 else None
        for tol in (0.0, 0.1, 0.35, 5.0):
            for k, j in [(0, 1), (2, 0)]:
                if not (((Y[:, k] == 1) & (Y[:, j] == 0)).any()
                        and ((Y[:, j] == 1) & (Y[:, k] == 0)).any()):
                    continue
                got = near_tie_rate(Y, f, k, j, tol=tol, sample_weight=w)
                assert got == pytest.approx(slow_near_tie(Y, f, k, j, tol, w), abs=1e-12)
    with pytest.raises(ValueError, match="'tol'"):
        near_tie_rate([[1, 0], [0, 1]], [1.0, 2.0], 0, 1, tol=-1.0)


@pytest.mark.parametrize("light", [1e-170, 1e-300, 1e-307])
def test_light_cross_sets_next_to_heavy_rows(light):
    """Claim: a win rate or near-tie rate is defined whenever both cross sets have positive
    weight, however light they are next to the rows with both labels or neither (which it
    ignores). Counterexample to 0.6.0, pinned: "k only" and "j only" rows of weight 1e-170 beside
    rows of weight 1 made ``N_kj N_jk`` underflow, and the all-pairs kernel (``report``,
    ``cross_pair_win_rates``, ``near_tie_rates``, the report's K > 10 route) read NaN with an
    "undefined" warning, ``near_tie_rate`` NaN without one. Expected values: the same data with
    the ignored rows dropped and the light weights set to 1 (scale invariance), by the loops."""
    rng = np.random.default_rng(11)
    Y = np.array([[1, 1], [0, 0], [1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1], [0, 1]])
    f = rng.normal(size=len(Y)).round(1)
    f[3] = f[2]  # one exact cross tie
    cross = (Y[:, 0] != Y[:, 1])
    w = np.where(cross, light * rng.uniform(1, 2, len(Y)), 1.0)
    w_kept = w[cross] / light
    W = slow_win_rate(Y[cross], f[cross], 0, 1, w_kept)
    T = slow_near_tie(Y[cross], f[cross], 0, 1, 0.3, w_kept)
    assert 0 < W < 1 and 0 < T < 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "undefined" warning
        assert cross_pair_win_rate(Y, f, 0, 1, sample_weight=w) == pytest.approx(W, rel=1e-12)
        assert near_tie_rate(Y, f, 0, 1, tol=0.3, sample_weight=w) == pytest.approx(T, rel=1e-12)
        Wm = cross_pair_win_rates(Y, f, sample_weight=w)
        Tm = near_tie_rates(Y, f, tol=0.3, sample_weight=w)
        r = report(Y, f, tol=0.3, sample_weight=w)
    for got in (Wm, r.win_rate):
        np.testing.assert_allclose([got[0, 1], got[1, 0]], [W, 1 - W], rtol=1e-12)
    for got in (Tm, r.near_tie):
        np.testing.assert_allclose([got[0, 1], got[1, 0]], [T, T], rtol=1e-12)


# ---- report -------------------------------------------------------------------------------------
def test_report_matches_its_parts_and_detects_a_dictator():
    # deterministic K = 2 sample, scored by the loss-aggregation Bayes scorer of priors (0.1, 0.5)
    rng = np.random.default_rng(5)
    Y = rng.integers(0, 2, size=(200, 2))
    f = loss_aggregation(Y, [0.1, 0.5]) + 1e-3 * rng.normal(size=200)
    r = report(Y, f, tol=0.01, label_names=["rel", "click"])
    np.testing.assert_allclose(r.auc, multilabel_auc(Y, f))
    assert r.win_rate[0, 1] == 1.0 and r.win_rate[1, 0] == 0.0
    assert r.dictatorship_index == 1.0 and r.dominant == (0, 1)
    assert r.near_tie[0, 1] == near_tie_rate(Y, f, 0, 1, tol=0.01) == 0.0
    np.testing.assert_allclose(r.auc_fraction, r.auc / r.auc.max())
    text = str(r)
    assert "rel" in text and "click" in text and "dictatorship index 1.000" in text
    df = r.to_frame()
    assert list(df.index) == ["rel", "click"] and df.loc["rel", "W_>click"] == 1.0
    # even-handed scorer: label aggregation by sum ties (1,0) with (0,1): W = 1/2, index 0
    r2 = report(Y, Y.sum(axis=1), reference_scores=Y)
    assert r2.win_rate[0, 1] == 0.5 and r2.dictatorship_index == 0.0 and r2.dominant is None
    assert r2.near_tie[0, 1] == 1.0  # every cross pair is an exact tie
    np.testing.assert_allclose(r2.reference_auc, [1.0, 1.0])
    np.testing.assert_allclose(r2.lift_fraction, (r2.auc - 0.5) / 0.5)


# ---- population win rate -------------------------------------------------------------------------
@pytest.mark.parametrize("K", [2, 3])
def test_population_win_rate_against_brute_force(K):
    for seed in range(8):
        P = FiniteProblem.random(5, K, seed=seed)
        rng = np.random.default_rng(seed)
        f = rng.integers(0, 3, size=5).astype(float)  # ties, including self-pairs
        for k, j in itertools.permutations(range(K), 2):
            got = population_win_rate(P, f, k, j)
            assert got == pytest.approx(slow_population_win_rate(P, f, k, j), abs=1e-12)
    # a constant scorer ties every pair: exactly 1/2 (self-pairs included)
    assert population_win_rate(P, np.zeros(5), 0, 1) == pytest.approx(0.5, abs=1e-15)


def test_population_win_rate_of_a_dictator_and_undefined():
    # deterministic, full support, alpha_1 > alpha_2: the (1,0) point beats the (0,1) point
    P = FiniteProblem([0.4, 0.3, 0.2, 0.1], np.eye(4))
    f = loss_aggregation(P.eta, P.pi)
    assert dictator(P.pi) == 0
    assert population_win_rate(P, f, 0, 1) == 1.0
    Q = FiniteProblem([0.5, 0.5], [[1, 0, 0, 0], [0, 0, 0, 1]])  # no (1,0) nor (0,1)
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(population_win_rate(Q, [0.0, 1.0], 0, 1))


def test_dictatorship_index_is_the_largest_lopsidedness_over_the_label_pairs(rng):
    """dictatorship_index against a loop over the defined pairs: the index is max |2W − 1| and
    the pair attains it with W ≥ ½; NaN and None when nothing is defined; None when even-handed."""
    for _ in range(20):
        K = int(rng.integers(2, 6))
        up = rng.choice([0.0, 0.25, 0.5, 0.8, 1.0, np.nan], size=(K, K))
        W = np.triu(up, 1) + np.tril(1.0 - up.T, -1)
        np.fill_diagonal(W, np.nan)
        cells = [(k, j) for k in range(K) for j in range(K) if k != j and np.isfinite(W[k, j])]
        index, dominant = dictatorship_index(W)
        if not cells:
            assert np.isnan(index) and dominant is None
            continue
        best = max(abs(2 * W[k, j] - 1) for k, j in cells)
        assert index == best
        if best == 0:
            assert dominant is None
        else:
            k, j = dominant
            assert W[k, j] >= 0.5 and abs(2 * W[k, j] - 1) == best
