"""The ordinal and multi-label kernels of ``bipartite.metrics`` against slow references
(docs/theory.md §2.3, §2.4, §3.2).

``multipartite_auc`` takes three routes by the costs (difference form, uniform, any other matrix)
and two by the sort (levels in the coded keys, or a sort order and a gather); ``multilabel_auc``
past one coded sort takes the rank route (one sort order, one pass over the labels). Each is
checked against an O(n²) pair count (a double loop on small inputs, the same count vectorised on
inputs with up to 1024 levels), against scikit-learn for binary labels, and its internal pieces
(inversion count, tie bounds, midranks, cost structure) against brute force.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import rankdata
from sklearn.metrics import roc_auc_score

from bipartite.labels import cost_matrix
from bipartite.metrics import _kernels as K
from bipartite.metrics import _multipartite as M
from bipartite.metrics import multilabel_auc, multipartite_auc, weighted_multipartite_auc
from bipartite.metrics._dominance import dominance_sums


# ---- slow references --------------------------------------------------------------------------
def loop_multipartite(y, s, C, w=None):
    """Definition of docs/theory.md §3.2 as a double loop: pairs with ȳ_i > ȳ_j weigh
    C[ȳ_i, ȳ_j] ω_i ω_j, ties count ½. ``y`` holds level indices."""
    w = np.ones(len(y)) if w is None else w
    num = den = 0.0
    for i in range(len(y)):
        for j in range(len(y)):
            if y[i] > y[j]:
                c = C[y[i], y[j]] * w[i] * w[j]
                num += c * (1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0)
                den += c
    return num / den


def quad_multipartite(y, s, C, w=None):
    """The same pair count, vectorised (all n² pairs at once)."""
    w = np.ones(len(y)) if w is None else w
    cost = np.tril(C, -1)[y[:, None], y[None, :]] * w[:, None] * w[None, :]
    win = (s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])
    return float((cost * win).sum() / cost.sum())


def exact_multipartite(y, s, C):
    """The unweighted pair count in exact rational arithmetic (integer costs)."""
    cost = np.tril(C, -1).astype(np.int64)[y[:, None], y[None, :]]
    win2 = 2 * (s[:, None] > s[None, :]) + (s[:, None] == s[None, :])
    return Fraction(int((cost * win2).sum()), 2 * int(cost.sum()))


def levels_and_scores(rng, n, L, kind):
    y = rng.integers(0, L, n)
    y[: min(L, n)] = np.arange(min(L, n))
    if kind == "ties":
        s = rng.integers(-4, 5, n).astype(float)
    elif kind == "wide":  # more binades than the coded keys hold: the sort-order route
        s = rng.choice([-1e300, -1.0, -1e-300, 0.0, 1e-300, 2.0, 1e300], n)
    else:
        s = rng.normal(size=n)
    return y, s


COSTS = ["linear", "gain", "uniform", "squared"]


# ---- multipartite: every route against the pair count ----------------------------------------
@pytest.mark.parametrize("kind", ["continuous", "ties", "wide"])
@pytest.mark.parametrize("L", [2, 3, 9, 64, 65, 300])
def test_multipartite_routes_match_double_loop(kind, L):
    rng = np.random.default_rng(L)
    n = 120
    y, s = levels_and_scores(rng, n, L, kind)
    w = rng.random(n) * rng.integers(0, 2, n)   # some zero weights
    w[: min(L, n)] = 1.0
    levels = np.arange(L) * 0.25 - 3.0          # real levels: differences matter
    for c in ("linear", "uniform", "squared"):
        C = cost_matrix(levels, c)
        got = multipartite_auc(levels[y], s, costs=c)
        assert got == pytest.approx(loop_multipartite(y, s, C), abs=1e-12), c
        got = multipartite_auc(levels[y], s, costs=c, sample_weight=w)
        assert got == pytest.approx(loop_multipartite(y, s, C, w), abs=1e-12), c
    lv = np.linspace(-2.0, 5.0, L)
    C = cost_matrix(lv, "gain")
    assert multipartite_auc(lv[y], s, costs="gain") == pytest.approx(
        loop_multipartite(y, s, C), abs=1e-12)


@pytest.mark.parametrize("L", [4, 64, 256, 1024])
@pytest.mark.parametrize("kind", ["continuous", "ties", "wide"])
def test_multipartite_many_levels_match_pair_count(L, kind):
    """Up to 1024 levels, each present, ties and weights: the vectorised O(n²) count."""
    rng = np.random.default_rng(L + len(kind))
    n = 1500 if L < 1024 else 2200
    y, s = levels_and_scores(rng, n, L, kind)
    w = rng.random(n)
    for c in ("linear", "uniform", "squared"):
        C = cost_matrix(np.arange(L, dtype=float), c)
        assert multipartite_auc(y, s, costs=c) == pytest.approx(
            quad_multipartite(y, s, C), abs=1e-12), c
        assert multipartite_auc(y, s, costs=c, sample_weight=w) == pytest.approx(
            quad_multipartite(y, s, C, w), abs=1e-12), c


@pytest.mark.parametrize("costs", ["linear", "uniform"])
@pytest.mark.parametrize("kind", ["continuous", "ties", "wide"])
def test_multipartite_unweighted_is_exact(costs, kind):
    """Unweighted, integer levels: the counts are exact integers, so the value is the exact
    rational rounded (to an ulp or two: ½ + ½ A/Z)."""
    rng = np.random.default_rng(7)
    y, s = levels_and_scores(rng, 2500, 300, kind)
    want = exact_multipartite(y, s, cost_matrix(np.arange(300.0), costs))
    assert abs(multipartite_auc(y, s, costs=costs) - float(want)) <= 4e-16


def test_multipartite_user_matrices_take_the_right_route():
    """A user matrix of difference form, a constant one, and a general one give the pair count;
    the structure is recognised (to rounding) only where it holds."""
    rng = np.random.default_rng(3)
    L, n = 7, 200
    y, s = levels_and_scores(rng, n, L, "ties")
    g = np.cumsum(rng.random(L))
    diff = np.tril(g[:, None] - g[None, :], -1)
    const = np.tril(np.full((L, L), 2.5), -1)
    general = np.tril(rng.random((L, L)), -1)
    assert M.matrix_structure(diff)[0] == "difference"
    assert M.matrix_structure(const)[0] == "uniform"
    assert M.matrix_structure(general)[0] == "general"
    assert M.matrix_structure(general + np.triu(np.ones((L, L)), 1))[0] == "general"
    bent = diff.copy()
    bent[5, 1] *= 1 + 1e-9
    assert M.matrix_structure(bent)[0] == "general"
    for C in (diff, const, general, bent):
        assert multipartite_auc(y, s, costs=C) == pytest.approx(
            loop_multipartite(y, s, C), abs=1e-12)
    # the string families take the routes they are
    assert M.cost_structure(np.arange(4.0), "linear")[0] == "difference"
    assert M.cost_structure(np.arange(4.0), "gain")[0] == "difference"
    assert M.cost_structure(np.arange(4.0), "uniform")[0] == "uniform"
    assert M.cost_structure(np.arange(4.0), "squared")[0] == "polynomial"


@pytest.mark.parametrize("L", [5, 40, 300])
@pytest.mark.parametrize("kind", ["continuous", "ties", "wide"])
def test_multipartite_tiny_level_mass_keeps_precision(L, kind):
    """One level of weight ~1 beside levels of weight ~1e-100 or ~1e-8, each cost route and the
    population route: nothing is computed as a difference in which the heavy level's terms
    (up to 1e100 times the result's scale) cancel — D_k from the lighter side of each split,
    inversions from per-group running sums, tied pairs counted won and lost rather than
    subtracted, running sums shifted rather than ``cumsum − x``. The reference sums
    non-negative pair weights only."""
    rng = np.random.default_rng(L)
    n = 400
    y, s = levels_and_scores(rng, n, L, kind)
    for heavy in (0, L // 2, L - 1):
        for tiny in (1e-100, 1e-8):
            w = np.where(y == heavy, 1.0, tiny) * (0.5 + rng.random(n))
            q = np.zeros((n, L))
            q[np.arange(n), y] = w        # one-hot masses: the same pairs (C_aa = 0)
            for c in ("uniform", "linear", "squared", "gain"):
                C = cost_matrix(np.arange(float(L)) / 100, c)
                want = quad_multipartite(y, s, C, w)
                assert multipartite_auc(np.arange(float(L))[y] / 100, s, costs=c,
                                        sample_weight=w) == pytest.approx(want, abs=1e-13)
                assert weighted_multipartite_auc(s, q, C) == pytest.approx(want, abs=1e-13)


def test_multipartite_constant_and_perfect_scorers():
    rng = np.random.default_rng(9)
    for L in (3, 64, 1000):
        y = rng.integers(0, L, 5000)
        for c in ("linear", "uniform", "squared", "gain"):
            if c == "gain" and L == 1000:
                continue
            assert multipartite_auc(y, np.zeros(5000), costs=c) == 0.5
            assert multipartite_auc(y, y * 2.0 + 1, costs=c) == 1.0
            assert multipartite_auc(y, -y * 2.0, costs=c) == 0.0


def test_multipartite_across_block_boundaries():
    """Tie groups straddling the blocks of the streaming passes (n > 3 blocks, few scores)."""
    rng = np.random.default_rng(11)
    n = 3 * K.BLOCK + 17
    y = rng.integers(0, 70, n)
    s = rng.integers(0, 6, n) * 0.5
    # AUC_MP with linear costs is the Δg-weighted mean of the binarised AUCs (docs/theory.md §3)
    num = den = 0.0
    for k in range(1, 70):
        pairs = (y >= k).sum() * (y < k).sum()
        num += pairs * roc_auc_score(y >= k, s)
        den += pairs
    assert multipartite_auc(y, s) == pytest.approx(num / den, abs=1e-12)
    assert multipartite_auc(y, s, sample_weight=np.ones(n)) == pytest.approx(num / den, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("costs", COSTS)
def test_weighted_multipartite_population_route(seed, costs):
    """Level masses per point (self-pairs tie): against the O(n²) population sum."""
    rng = np.random.default_rng(seed)
    n, L = 60, 6
    s = rng.integers(0, 8, n).astype(float)
    q = rng.random((n, L)) * (rng.random((n, L)) < 0.6)
    C = cost_matrix(np.linspace(0.0, 3.0, L), costs)
    S = (s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])
    pair = np.einsum("ia,ab,jb->ij", q, C, q)
    assert weighted_multipartite_auc(s, q, C) == pytest.approx(
        float((pair * S).sum() / pair.sum()), abs=1e-12)


# ---- internal pieces against brute force ------------------------------------------------------
@given(st.lists(st.integers(0, 37), min_size=1, max_size=60), st.booleans())
def test_inversion_count_is_the_pair_count(seq, weighted):
    """Claim: the Fenwick pass of a unit cost counts the inversions Σ_{p<q, ℓ_p > ℓ_q} ω_p ω_q
    (``minus``) and the pairs in level order (``plus``), all scores distinct."""
    lev = np.array(seq, dtype=np.uint8)
    w = np.arange(1.0, len(seq) + 1) if weighted else None
    ww = np.ones(len(seq)) if w is None else w
    want = sum(ww[p] * ww[q] for p in range(len(seq)) for q in range(p + 1, len(seq))
               if seq[p] > seq[q])
    up = sum(ww[p] * ww[q] for p in range(len(seq)) for q in range(p + 1, len(seq))
             if seq[p] < seq[q])
    keys = np.arange(len(seq))
    plus, minus = dominance_sums(lev, keys, 0, w, np.zeros(1, dtype=np.int64), {(0, 0): 1}, 6)
    assert minus == want and plus == up


@given(st.lists(st.integers(0, 5), min_size=1, max_size=80), st.integers(1, 40))
def test_tie_bounds_are_the_tie_groups(vals, block):
    """Claim: for any block of sorted keys, the first position and the end of each one's tie
    group (None exactly when no key of the block ties a neighbour)."""
    keys = np.sort(np.array(vals, dtype=np.int64))
    n = len(keys)
    for lo in range(0, n, block):
        hi = min(n, lo + block)
        tb = K.tie_bounds(keys, 0, lo, hi)
        first = np.searchsorted(keys, keys[lo:hi], "left")
        end = np.searchsorted(keys, keys[lo:hi], "right")
        if tb is None:
            assert np.array_equal(end - first, np.ones(hi - lo))
        else:
            assert np.array_equal(tb[0], first) and np.array_equal(tb[1], end)


def test_row_ranks_are_midranks():
    rng = np.random.default_rng(2)
    s = rng.integers(0, 30, 5000).astype(float)
    assert np.array_equal(K._row_ranks(s, None), 2 * rankdata(s))
    w = rng.random(5000)
    wn = K.pow2_normalise(w)
    want = np.array([wn[s < v].sum() + 0.5 * wn[s == v].sum() for v in s])
    np.testing.assert_allclose(K._row_ranks(s, wn), want, rtol=1e-13)


# ---- multilabel: the rank route ---------------------------------------------------------------
@pytest.mark.parametrize("K_", [7, 20, 53, 174])
@pytest.mark.parametrize("kind", ["continuous", "ties", "wide"])
def test_multilabel_rank_route_matches_sklearn(K_, kind):
    rng = np.random.default_rng(K_)
    n = 400
    Y = (rng.random((n, K_)) < rng.random(K_)).astype(np.int8)
    Y[:2] = [[0] * K_, [1] * K_]
    _, s = levels_and_scores(rng, n, 2, kind)
    want = [roc_auc_score(Y[:, k], s) for k in range(K_)]
    np.testing.assert_allclose(multilabel_auc(Y, s), want, atol=1e-12)
    w = rng.random(n) * rng.integers(0, 2, n)
    w[:2] = 1.0
    np.testing.assert_allclose(multilabel_auc(Y, s, sample_weight=w),
                               [roc_auc_score(Y[:, k], s, sample_weight=w) for k in range(K_)],
                               atol=1e-12)
    Yb = Y.astype(bool)   # labels of another dtype, and Y is not written to
    np.testing.assert_allclose(multilabel_auc(Yb, s, sample_weight=w),
                               multilabel_auc(Y, s, sample_weight=w), atol=1e-15)
    Yf = Y.astype(float)
    multilabel_auc(Yf, s, sample_weight=w)
    assert np.array_equal(Yf, Y)


def test_multilabel_rank_route_rare_classes_keep_precision():
    """One negative among 20 000 weighted positives (and the reverse): each label is summed from
    its lighter class, so the heavy class's terms do not cancel."""
    rng = np.random.default_rng(4)
    n = 20000
    s = rng.normal(size=n)
    Y = np.zeros((n, 8), dtype=np.int8)
    Y[:, :4] = 1
    Y[rng.choice(n, 4, replace=False), np.arange(4)] = 0
    Y[rng.choice(n, 4, replace=False), 4 + np.arange(4)] = 1
    w = rng.random(n) + 0.5
    want = [roc_auc_score(Y[:, k], s, sample_weight=w) for k in range(8)]
    np.testing.assert_allclose(multilabel_auc(Y, s, sample_weight=w), want, atol=1e-12)
    np.testing.assert_allclose(multilabel_auc(Y, s), [roc_auc_score(Y[:, k], s)
                                                      for k in range(8)], atol=1e-12)


@given(st.data())
def test_multilabel_property_equals_per_label_pair_count(data):
    """Claim: for any 0/1 labels (K up to 174), tie-heavy scores and integer weights, each entry
    is the weighted pair count of its label (NaN for a label with one class)."""
    n = data.draw(st.integers(2, 25))
    K_ = data.draw(st.sampled_from([1, 7, 40, 174]))
    Y = np.array(data.draw(st.lists(st.lists(st.integers(0, 1), min_size=K_, max_size=K_),
                                    min_size=n, max_size=n)), dtype=np.int8)
    s = np.array(data.draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n)), dtype=float)
    w = np.array(data.draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)), dtype=float)
    S = (s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])
    pos = Y.T * w
    neg = (1 - Y).T * w
    num = np.einsum("ki,ij,kj->k", pos, S, neg)
    den = pos.sum(1) * neg.sum(1)
    want = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # labels with one class: NaN and a warning
        got = multilabel_auc(Y, s, sample_weight=w)
    np.testing.assert_allclose(got, want, atol=1e-12)


@given(st.data())
def test_multipartite_property_equals_pair_count(data):
    """Claim: for any levels (up to 300 of them), tie-heavy scores, integer weights and any of
    the cost families, multipartite_auc is the weighted pair count of docs/theory.md §3.2."""
    L = data.draw(st.sampled_from([2, 3, 5, 70, 300]))
    n = data.draw(st.integers(2, 30))
    y = np.array(data.draw(st.lists(st.integers(0, L - 1), min_size=n, max_size=n)))
    y[:2] = [0, L - 1]
    s = np.array(data.draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=float)
    w = np.array(data.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), dtype=float)
    c = data.draw(st.sampled_from(["linear", "uniform", "squared"]))
    C = cost_matrix(np.arange(float(L)), c)
    assert multipartite_auc(y, s, costs=c, sample_weight=w) == pytest.approx(
        quad_multipartite(y, s, C, w), abs=1e-12)
    assert multipartite_auc(y, s, costs=c) == pytest.approx(quad_multipartite(y, s, C), abs=1e-12)


@given(st.data())
def test_weighted_multipartite_property_equals_population_sum(data):
    """Claim: for any non-negative level masses (n, L) on tie-heavy scores and any cost family
    or random lower-triangular matrix, weighted_multipartite_auc is the population pair sum of
    docs/theory.md §3.2 with self-pairs as ties (NaN exactly when the denominator is 0)."""
    n = data.draw(st.integers(1, 12))
    L = data.draw(st.integers(2, 6))
    q = np.array(data.draw(st.lists(st.lists(st.integers(0, 3), min_size=L, max_size=L),
                                    min_size=n, max_size=n)), dtype=float)
    s = np.array(data.draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n)), dtype=float)
    c = data.draw(st.sampled_from(COSTS + ["matrix"]))
    if c == "matrix":
        C = np.tril(np.array(data.draw(st.lists(st.integers(0, 3), min_size=L * L,
                                                max_size=L * L)), dtype=float).reshape(L, L), -1)
    else:
        C = cost_matrix(np.arange(float(L)), c)
    S = (s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])
    pair = np.einsum("ia,ab,jb->ij", q, C, q)
    got = weighted_multipartite_auc(s, q, C)
    if pair.sum() == 0:
        assert np.isnan(got)
    else:
        assert got == pytest.approx(float((pair * S).sum() / pair.sum()), abs=1e-12)


def test_cost_potential_is_the_cost_matrix_generator():
    """labels.cost_potential: g with cost_matrix = g_a − g_b below the diagonal for the
    difference families, None for the others and for matrices, the overflow error for gain."""
    from bipartite.labels import cost_potential

    lv = np.array([-1.5, 0.0, 2.0, 7.25])
    for c in ("linear", "gain"):
        g = cost_potential(lv, c)
        np.testing.assert_array_equal(np.tril(g[:, None] - g[None, :], -1), cost_matrix(lv, c))
    assert cost_potential(lv, "uniform") is None and cost_potential(lv, "squared") is None
    assert cost_potential(lv, np.eye(4)) is None
    with pytest.raises(ValueError, match="'gain' costs overflow"):
        cost_potential([0.0, 1024.0], "gain")
