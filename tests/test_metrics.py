"""Metrics against scikit-learn and against slow, obviously-correct references (docs/theory.md §2, §3)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, ndcg_score, roc_auc_score

from bipartite import UndefinedMetricWarning
from bipartite.labels import cost_matrix
from bipartite.metrics import (
    auc,
    average_precision,
    group_auc,
    multilabel_auc,
    multipartite_auc,
    ndcg_at_k,
)


# ---- slow references ----------------------------------------------------------------------------
def slow_auc(y, s, w=None):
    w = np.ones(len(y)) if w is None else w
    num = den = 0.0
    for i in range(len(y)):
        for j in range(len(y)):
            if y[i] == 1 and y[j] == 0:
                pair = w[i] * w[j]
                num += pair * (1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0)
                den += pair
    return num / den


def slow_multipartite(y, s, costs, w=None):
    w = np.ones(len(y)) if w is None else w
    levels = np.unique(y)
    C = cost_matrix(levels, costs)
    li = {v: a for a, v in enumerate(levels)}
    num = den = 0.0
    for i in range(len(y)):
        for j in range(len(y)):
            if y[i] > y[j]:
                c = C[li[y[i]], li[y[j]]] * w[i] * w[j]
                num += c * (1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0)
                den += c
    return num / den


def slow_group_auc(y, s, g, weighting="pairs"):
    vals, wts = [], []
    for grp in np.unique(g):
        m = g == grp
        if len(np.unique(y[m])) < 2:
            continue
        vals.append(slow_auc(y[m], s[m]))
        npos, nneg = y[m].sum(), (1 - y[m]).sum()
        wts.append({"pairs": npos * nneg, "uniform": 1.0, "impressions": m.sum()}[weighting])
    return float(np.average(vals, weights=wts))


def tied_scores(rng, n, levels=7):
    """Scores with many ties (a handful of distinct values)."""
    return rng.integers(0, levels, size=n).astype(float)


# ---- auc / multilabel_auc ---------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(12))
def test_auc_equals_sklearn_with_ties_and_weights(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = tied_scores(rng, n) if seed % 2 else rng.normal(size=n)
    w = rng.random(n) * rng.integers(0, 2, n) + 1e-3 * (seed % 3 == 0)
    w[:2] = 1.0
    assert auc(y, s) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert auc(y, s, sample_weight=w) == pytest.approx(
        roc_auc_score(y, s, sample_weight=w), abs=1e-12
    )


def test_auc_matches_slow_reference_small():
    rng = np.random.default_rng(1)
    for _ in range(20):
        n = int(rng.integers(2, 30))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        s, w = tied_scores(rng, n, 4), rng.random(n)
        assert auc(y, s, sample_weight=w) == pytest.approx(slow_auc(y, s, w), abs=1e-12)


def test_auc_single_class_is_nan_with_warning():
    with pytest.warns(UndefinedMetricWarning, match="one class"):
        assert np.isnan(auc([1, 1, 1], [0.1, 0.2, 0.3]))
    # a class present only with zero weight is absent
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(auc([0, 1, 1], [0.1, 0.2, 0.3], sample_weight=[0, 1, 1]))


def test_multilabel_auc_equals_per_label_sklearn():
    rng = np.random.default_rng(3)
    Y = rng.integers(0, 2, (500, 5))
    s = tied_scores(rng, 500, 20)
    w = rng.random(500)
    got = multilabel_auc(Y, s, sample_weight=w)
    want = [roc_auc_score(Y[:, k], s, sample_weight=w) for k in range(5)]
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_multilabel_auc_nan_only_for_single_class_label():
    Y = np.array([[0, 1], [1, 1], [0, 1]])
    with pytest.warns(UndefinedMetricWarning, match=r"\[1\]"):
        out = multilabel_auc(Y, [0.1, 0.9, 0.5])
    assert out[0] == 1.0 and np.isnan(out[1])


# ---- multipartite_auc -------------------------------------------------------------------------
@pytest.mark.parametrize("costs", ["uniform", "linear", "squared", "gain", "matrix"])
@pytest.mark.parametrize("seed", range(4))
def test_multipartite_auc_matches_quadratic_reference(costs, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 60))
    levels = np.array([0.0, 1.0, 2.5, 4.0])[: int(rng.integers(2, 5))]
    y = rng.choice(levels, n)
    y[: len(levels)] = levels
    s = tied_scores(rng, n, 5)
    w = rng.random(n)
    c = costs
    if costs == "matrix":
        L = len(levels)
        c = np.tril(rng.random((L, L)), -1) + np.triu(rng.random((L, L)))  # upper part ignored
    got = multipartite_auc(y, s, costs=c, sample_weight=w)
    assert got == pytest.approx(slow_multipartite(y, s, c, w), abs=1e-12)


def test_multipartite_auc_two_levels_is_auc_and_constant_is_half():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 100)
    s = rng.normal(size=100)
    for c in ["uniform", "linear", "squared", "gain"]:
        assert multipartite_auc(y, s, costs=c) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    y3 = rng.integers(0, 3, 100)
    assert multipartite_auc(y3, np.zeros(100)) == 0.5
    assert multipartite_auc(y3, y3 + 0.0) == 1.0


def test_multipartite_auc_undefined_for_one_level():
    with pytest.warns(UndefinedMetricWarning, match="fewer than two levels"):
        assert np.isnan(multipartite_auc([2, 2, 2], [0.1, 0.2, 0.3]))


# ---- group_auc ----------------------------------------------------------------------------------
@pytest.mark.parametrize("weighting", ["pairs", "uniform", "impressions"])
@pytest.mark.parametrize("seed", range(4))
def test_group_auc_matches_reference(weighting, seed):
    rng = np.random.default_rng(seed)
    n = 300
    g = rng.integers(0, 25, n) * 7 + 3  # non-contiguous group ids
    y = rng.integers(0, 2, n)
    s = tied_scores(rng, n, 6)
    got = group_auc(y, s, g, weighting=weighting)
    assert got == pytest.approx(slow_group_auc(y, s, g, weighting), abs=1e-12)


def test_group_auc_pairs_equals_pooled_auc_of_within_group_pairs():
    # with "pairs" weighting gAUC is the AUC over within-group pairs: shifting a group's scores
    # by a constant changes nothing.
    rng = np.random.default_rng(5)
    g = rng.integers(0, 10, 200)
    y = rng.integers(0, 2, 200)
    s = rng.normal(size=200)
    a = group_auc(y, s, g)
    b = group_auc(y, s + 100.0 * g, g)
    assert a == pytest.approx(b, abs=1e-12)


def test_group_auc_no_informative_group_warns():
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(group_auc([0, 0, 1, 1], [1, 2, 3, 4], [0, 0, 1, 1]))


# ---- average precision / ndcg -------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
def test_average_precision_equals_sklearn(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 200)
    s = tied_scores(rng, 200, 9)
    w = rng.random(200)
    assert average_precision(y, s, sample_weight=w) == pytest.approx(
        average_precision_score(y, s, sample_weight=w), abs=1e-12
    )


def test_average_precision_without_positives_is_nan():
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(average_precision([0, 0], [0.1, 0.2]))


@pytest.mark.parametrize("k", [1, 3, 5, None])
@pytest.mark.parametrize("seed", range(4))
def test_ndcg_equals_sklearn_per_group(k, seed):
    rng = np.random.default_rng(seed)
    n = 120
    g = rng.integers(0, 8, n)
    rel = rng.integers(0, 4, n).astype(float)
    s = tied_scores(rng, n, 5)
    per = []
    for grp in np.unique(g):
        m = g == grp
        if rel[m].max() == 0 or m.sum() < 2:
            continue
        gains = np.exp2(rel[m]) - 1
        per.append(ndcg_score(gains[None], s[m][None], k=k))
    # singleton groups with a relevant item have nDCG 1 in both conventions
    single = [grp for grp in np.unique(g) if (g == grp).sum() == 1 and rel[g == grp].max() > 0]
    want = np.mean(per + [1.0] * len(single))
    assert ndcg_at_k(rel, s, k=k, qid=g) == pytest.approx(want, abs=1e-12)
    lin = ndcg_score(rel[None], s[None], k=k)
    assert ndcg_at_k(rel, s, k=k, gain="linear") == pytest.approx(lin, abs=1e-12)


# ------------------------------------------------------------------------------------------------
# Diff AUC and Min AUC (LA25 §7 balance measures)
# ------------------------------------------------------------------------------------------------
def test_diff_and_min_auc_against_sklearn_aucs():
    from sklearn.metrics import roc_auc_score

    from bipartite.metrics import diff_auc, min_auc, multilabel_auc

    rng = np.random.default_rng(3)
    Y = rng.integers(0, 2, (500, 3))
    s = Y @ [1.0, 0.3, -0.2] + rng.normal(size=500)
    ref = [roc_auc_score(Y[:, k], s) for k in range(3)]
    aucs = multilabel_auc(Y, s)
    assert diff_auc(aucs) == pytest.approx(max(ref) - min(ref), abs=1e-12)
    assert min_auc(aucs) == pytest.approx(min(ref), abs=1e-15)
    assert diff_auc([0.637, 0.523]) == pytest.approx(0.114)  # LA25 §7 Banking row: |a − b|


@pytest.mark.parametrize("bad, match", [
    ([0.5], "at least 2"), ([0.5, 1.5], r"in \[0, 1\]"), ([[0.5, 0.6]], "dimension"),
    ([0.5, np.inf], "inf"),
])
def test_diff_and_min_auc_refuse_bad_input(bad, match):
    from bipartite.metrics import diff_auc, min_auc

    for fn in (diff_auc, min_auc):
        with pytest.raises(ValueError, match=match):
            fn(bad)


def test_diff_and_min_auc_accept_rounding_past_one():
    """A population AUC can come out as 1 + 1 ulp (a ratio of float sums); that much is clipped,
    anything past the documented 1e-12 slack is refused."""
    from bipartite.metrics import diff_auc, min_auc

    assert min_auc([1.0000000000000002, 1.0]) == 1.0
    assert diff_auc([1.0000000000000002, 0.25]) == 0.75
    assert diff_auc([-1e-16, 0.5]) == 0.5
    for fn in (diff_auc, min_auc):
        with pytest.raises(ValueError, match="1.000001"):
            fn([1.000001, 0.5])


def test_diff_and_min_auc_nan_with_warning():
    from bipartite import UndefinedMetricWarning
    from bipartite.metrics import diff_auc, min_auc

    for fn in (diff_auc, min_auc):
        with pytest.warns(UndefinedMetricWarning):
            assert np.isnan(fn([0.7, np.nan]))


# ------------------------------------------------------------------------------------------------
# The kernels near the sort limit: every route (coded sorts, argsort, population) against the
# O(n²) pair counts on tie-heavy inputs, including score ranges the coded keys cannot hold, and
# scale invariance of the weights (docs/theory.md §2, §3)
# ------------------------------------------------------------------------------------------------
def slow_weighted_auc(s, pos, neg):
    """O(n²) population AUC: every ordered pair (i, j), i = j included, ties ½."""
    S = (s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])
    return np.array([pos[:, k] @ S @ neg[:, k] / (pos[:, k].sum() * neg[:, k].sum())
                     for k in range(pos.shape[1])])


def slow_weighted_multipartite(s, q, C):
    S = (s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])
    pair = np.einsum("ia,ab,jb->ij", q, C, q)
    return float((pair * S).sum() / pair.sum())


def scores_of_kind(rng, n, kind):
    """Tie-heavy scores of several kinds, including ranges the coded sort keys cannot hold."""
    if kind == "ties":
        return rng.integers(-3, 4, n).astype(float)
    if kind == "continuous":
        return rng.normal(size=n)
    if kind == "signed zeros":  # -0.0 and 0.0 tie
        return rng.choice([-0.0, 0.0, -1.0, 1.0, 2.5], n)
    if kind == "subnormal":
        return rng.integers(-3, 4, n) * 5e-324
    if kind == "huge":
        return rng.choice([-1.7e308, -1e300, 0.0, 3.0, 1e300, 1.7e308], n)
    # "wide": non-zero magnitudes from 1e-300 to 1e300: more binades than one key bit allows
    return rng.choice([-1e300, -1.0, -1e-300, 0.0, 1e-300, 2.0, 1e300], n)


SCORE_KINDS = ["ties", "continuous", "signed zeros", "subnormal", "huge", "wide"]


@pytest.mark.parametrize("kind", SCORE_KINDS)
def test_auc_every_route_matches_pair_counts(kind):
    rng = np.random.default_rng(SCORE_KINDS.index(kind))
    for _ in range(6):
        n = int(rng.integers(2, 120))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        s = scores_of_kind(rng, n, kind)
        w = rng.random(n) * rng.integers(0, 2, n)
        w[:2] = 1.0
        assert auc(y, s) == pytest.approx(slow_auc(y, s), abs=1e-12)
        if kind != "huge":  # sklearn's finiteness check overflows (a warning) on ±1.7e308
            assert auc(y, s) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
        assert auc(y, s, sample_weight=w) == pytest.approx(slow_auc(y, s, w), abs=1e-12)


@pytest.mark.parametrize("route", ["auto", "coded", "rank"])
@pytest.mark.parametrize("kind", SCORE_KINDS)
@pytest.mark.parametrize("K", [1, 3, 8, 13, 40])
def test_multilabel_auc_every_route_matches_pair_counts(kind, K, route, monkeypatch):
    """Up to 6 labels ride in the low bits of the sort keys (one sort) when the score range
    allows and the rule ``_MAX_CODED_LABELS`` (forced here both ways) takes them; otherwise the
    rank route (one sort order, one pass over the labels)."""
    from bipartite.metrics import _kernels

    if route != "auto":
        monkeypatch.setattr(_kernels, "_MAX_CODED_LABELS", ((None, 6 if route == "coded" else 0),))
    rng = np.random.default_rng(K)
    n = 90
    Y = rng.integers(0, 2, (n, K))
    Y[:2] = [[0] * K, [1] * K]
    s = scores_of_kind(rng, n, kind)
    w = rng.random(n)
    want = [slow_auc(Y[:, k], s) for k in range(K)]
    np.testing.assert_allclose(multilabel_auc(Y, s), want, atol=1e-12)
    if kind != "huge":
        np.testing.assert_allclose(multilabel_auc(Y, s), [roc_auc_score(Y[:, k], s)
                                                          for k in range(K)], atol=1e-12)
    np.testing.assert_allclose(multilabel_auc(Y, s, sample_weight=w),
                               [slow_auc(Y[:, k], s, w) for k in range(K)], atol=1e-12)


@pytest.mark.parametrize("kind", SCORE_KINDS)
@pytest.mark.parametrize("L", [2, 3, 5, 70])
def test_multipartite_auc_every_route_matches_pair_counts(kind, L):
    """Levels in the low key bits (L ≤ 64), or one sort order and a gather of the levels
    (L = 70, weights, or a score range the keys cannot hold); every cost route."""
    rng = np.random.default_rng(L)
    n = 150 if L < 70 else 220
    levels = np.sort(rng.choice(np.arange(-50.0, 150.0, 0.5), L, replace=False))
    y = rng.choice(levels, n)
    y[:L] = levels
    s = scores_of_kind(rng, n, kind)
    w = rng.random(n)
    for c in ["uniform", "linear", "squared"]:
        assert multipartite_auc(y, s, costs=c) == pytest.approx(
            slow_multipartite(y, s, c), abs=1e-12)
        assert multipartite_auc(y, s, costs=c, sample_weight=w) == pytest.approx(
            slow_multipartite(y, s, c, w), abs=1e-12)


def test_kernels_across_block_boundaries():
    """n > 3 × the streaming block, few distinct scores: tie groups straddle the blocks."""
    from bipartite.metrics._kernels import BLOCK as _BLOCK

    rng = np.random.default_rng(11)
    n = 3 * _BLOCK + 7
    s = rng.integers(0, 5, n) * 0.25
    Y = rng.integers(0, 2, (n, 3))
    np.testing.assert_allclose(multilabel_auc(Y, s), [roc_auc_score(Y[:, k], s)
                                                      for k in range(3)], atol=1e-12)
    assert auc(Y[:, 0], s) == pytest.approx(roc_auc_score(Y[:, 0], s), abs=1e-12)
    # multipartite as a cost-weighted sum of the AUCs of each pair of levels
    y = rng.integers(0, 4, n)
    C = cost_matrix(np.arange(4.0), "squared")
    num = den = 0.0
    for a in range(4):
        for b in range(a):
            m = (y == a) | (y == b)
            pairs = C[a, b] * (y == a).sum() * (y == b).sum()
            num += pairs * roc_auc_score(y[m] == a, s[m])
            den += pairs
    assert multipartite_auc(y, s, costs="squared") == pytest.approx(num / den, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_weighted_auc_population_route_matches_pair_counts(seed):
    """The population AUC (self-pairs are ties) and its multipartite form, against O(n²)."""
    from bipartite.metrics import weighted_auc, weighted_multipartite_auc

    rng = np.random.default_rng(seed)
    n, K = 40, 3
    s = rng.integers(0, 6, n).astype(float)
    p = rng.random(n) / n
    eta = rng.random((n, K)) * rng.integers(0, 2, (n, K))
    pos, neg = p[:, None] * eta, p[:, None] * (1 - eta)
    np.testing.assert_allclose(weighted_auc(s, pos, neg), slow_weighted_auc(s, pos, neg),
                               atol=1e-12)
    q = p[:, None] * rng.dirichlet(np.ones(4), n)
    C = cost_matrix(np.arange(4.0), "linear")
    assert weighted_multipartite_auc(s, q, C) == pytest.approx(
        slow_weighted_multipartite(s, q, C), abs=1e-12)
    # a constant scorer scores exactly ½, at any scale of the masses
    for scale in (1.0, 1e-170, 1e170):
        assert weighted_auc(np.zeros(n), scale * pos, scale * neg).tolist() == [0.5] * K
        assert weighted_multipartite_auc(np.zeros(n), scale * q, C) == 0.5


@pytest.mark.parametrize("scale", [1e-170, 1e170, 2.0**-1000, 2.0**1000, 1e-300])
def test_rescaled_weights_change_nothing(scale):
    """Regression: weights of 1e-170 made ΣP·ΣN underflow to 0 (NaN, with a false "only one
    class" warning; 1e170 overflowed). Every metric is a ratio of bilinear forms in the weights:
    it is normalised first (by a power of two: exact)."""
    import warnings

    from bipartite.metrics import weighted_auc

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert auc([0, 1, 0, 1], [.1, .9, .2, .8], sample_weight=[scale] * 4) == 1.0
        rng = np.random.default_rng(0)
        n = 200
        y = rng.integers(0, 2, n)
        Y = rng.integers(0, 2, (n, 3))
        yl = rng.integers(0, 4, n)
        s = tied_scores(rng, n)
        g = rng.integers(0, 7, n)
        w = rng.random(n) + 0.01
        assert auc(y, s, sample_weight=scale * w) == pytest.approx(
            auc(y, s, sample_weight=w), abs=1e-12)
        assert auc(y, s, sample_weight=scale * w) == pytest.approx(
            roc_auc_score(y, s, sample_weight=w), abs=1e-12)
        np.testing.assert_allclose(multilabel_auc(Y, s, sample_weight=scale * w),
                                   multilabel_auc(Y, s, sample_weight=w), atol=1e-12)
        assert multipartite_auc(yl, s, sample_weight=scale * w) == pytest.approx(
            multipartite_auc(yl, s, sample_weight=w), abs=1e-12)
        assert multipartite_auc(yl, s, costs=scale * cost_matrix(np.arange(4.0), "linear")) == \
            pytest.approx(multipartite_auc(yl, s), abs=1e-12)
        for weighting in ("pairs", "uniform", "impressions"):
            assert group_auc(y, s, g, sample_weight=scale * w, weighting=weighting) == \
                pytest.approx(group_auc(y, s, g, sample_weight=w, weighting=weighting), abs=1e-12)
        pos, neg = w[:, None] * Y, w[:, None] * (1 - Y)
        np.testing.assert_allclose(weighted_auc(s, scale * pos, scale * neg),
                                   weighted_auc(s, pos, neg), atol=1e-12)


def test_power_of_two_rescaling_is_exact():
    rng = np.random.default_rng(5)
    y, s, w = rng.integers(0, 2, 300), tied_scores(rng, 300), rng.random(300)
    for e in (-1000, -7, 9, 1000):
        assert auc(y, s, sample_weight=np.ldexp(w, e)) == auc(y, s, sample_weight=w)


def test_coded_keys_order_like_the_scores():
    """The int64 keys of the coded sort: same order and same ties as the floats (−0.0 = 0.0,
    subnormals, the largest doubles), with the code bits below."""
    from bipartite.metrics._kernels import _exponent_range
    from bipartite.metrics._kernels import coded_keys as _coded_keys
    from bipartite.metrics._kernels import key_exponent as _key_exponent

    sets = [  # (scores, code bits): subnormals need |s| < 2 (no down-scaling), which one bit allows
        (np.array([0.0, -0.0, 5e-324, -5e-324, 1e-310, 1.0, -1.0, 1.5, -1.5, 1e-300, 1e-300, 0.25]),
         1),
        (np.array([0.0, -0.0, 1.0, -1.0, 2.0, -3.5, 7.0, 7.0, -7.0, 1e300, -1e300, 0.5]), 1),
        (np.array([0.0, -0.0, 1.0, -1.0, 2.0, -3.5, 7.0, 7.0, -7.0, 1e100, -1e-50, 0.5]), 2),
    ]
    for s, bits in sets:
        codes = np.arange(len(s), dtype=np.uint8) % (1 << bits)
        q = _key_exponent(_exponent_range(s), bits)
        assert q is not None
        a = _coded_keys(s, codes, bits, q)
        order = np.lexsort((codes, s))
        np.testing.assert_array_equal(a & ((1 << bits) - 1), codes[order])
        np.testing.assert_array_equal(np.sign(np.diff(a >> bits)), np.sign(np.diff(s[order])))
    assert _key_exponent(_exponent_range(np.array([1e-300, 1e300])), 1) is None
    assert _key_exponent(_exponent_range(np.array([5e-324, 7.0])), 1) is None
    assert _key_exponent(_exponent_range(np.array([1e300, 1e-5])), 2) is None


def _exponent_range_reference(s):
    """The NumPy reference of ``_kernels._exponent_range`` (its former implementation): the
    exponent fields of min non-zero and max ``|s|`` from the bit patterns, Python ints."""
    a = np.abs(s).view(np.int64).astype(object)
    nonzero = [int(x) for x in a if x != 0]
    lo = min(nonzero) >> 52 if nonzero else 2047
    return min(lo, 2047), (int(max(a)) >> 52) if len(a) else 0


def _coded_keys_reference(s, codes, bits, q):
    """The NumPy reference of ``_kernels.coded_keys``: ``s + 0.0`` scaled by ``2^q`` (two exact
    steps below 2^−1022), its bit pattern with the magnitude bits of negatives flipped, shifted
    and or-ed with the codes, sorted."""
    t = s + 0.0
    for c in ([] if q == 0 else [2.0**q] if q >= -1022 else [2.0**-1022, 2.0 ** (q + 1022)]):
        t = t * c
    k = t.view(np.int64)
    flipped = ((k >> 63) & np.int64(0x7FFF_FFFF_FFFF_FFFF)) ^ k
    return np.sort((flipped << bits) | codes.astype(np.int64))


@pytest.mark.parametrize("case", ["specials", "zeros", "empty", "normal", "tiny", "huge", "ties",
                                  "long"])
def test_compiled_key_passes_equal_the_reference(case):
    """Claim: the compiled exponent bounds and key pass of the coded sort give exactly the NumPy
    reference's values on every kind of double (±0, subnormals, 1e−300 and 1e300, q below
    −1022, ties, several blocks), for every code width and code dtype."""
    from bipartite.metrics._kernels import _exponent_range, coded_keys, key_exponent

    rng = np.random.default_rng(11)
    s = {"specials": np.array([0.0, -0.0, 5e-324, -5e-324, 1e-310, 1.0, -1.0, 1e-300, -1.5]),
         "zeros": np.array([0.0, -0.0, 0.0]), "empty": np.array([]),
         "normal": rng.normal(size=3000), "tiny": rng.normal(size=500) * 1e-200,
         "huge": rng.uniform(1e299, 1e300, 500) * np.sign(rng.normal(size=500)),
         "ties": np.round(rng.normal(size=2000), 1), "long": rng.normal(size=40_000)}[case]
    e_range = _exponent_range(s)
    assert e_range == _exponent_range_reference(s)
    seen = 0
    for bits in (1, 3, 6):
        q = key_exponent(e_range, bits)
        if q is None:
            continue
        for dtype in (np.uint8, np.int64):
            codes = rng.integers(0, 1 << bits, len(s)).astype(dtype)
            np.testing.assert_array_equal(coded_keys(s, codes, bits, q),
                                          _coded_keys_reference(s, codes, bits, q))
            seen += 1
    assert seen >= 2


# ---------------------------------------------------------------------------------------------
# Labels of any dtype: integer and boolean 0/1 labels skip the float64 copy (one bitwise-OR pass
# validates them), with results equal to the float labels' and the same errors
# ---------------------------------------------------------------------------------------------
LABEL_DTYPES = [np.int64, np.int32, np.int8, np.uint8, np.uint64, bool, np.float64, np.float32]


@pytest.mark.parametrize("dtype", LABEL_DTYPES)
@pytest.mark.parametrize("kind", ["ties", "continuous", "wide"])
def test_auc_and_multilabel_auc_any_label_dtype(dtype, kind):
    rng = np.random.default_rng(LABEL_DTYPES.index(dtype))
    n, K = 97, 7
    Y = rng.integers(0, 2, (n, K))
    Y[:2] = [[0] * K, [1] * K]
    s = scores_of_kind(rng, n, kind)
    w = rng.random(n)
    want = np.array([slow_auc(Y[:, k], s) for k in range(K)])
    wantw = np.array([slow_auc(Y[:, k], s, w) for k in range(K)])
    Yd = Y.astype(dtype)
    np.testing.assert_allclose(multilabel_auc(Yd, s), want, atol=1e-12)
    np.testing.assert_allclose(multilabel_auc(Yd[:, :3], s), want[:3], atol=1e-12)
    np.testing.assert_allclose(multilabel_auc(Yd, s, sample_weight=w), wantw, atol=1e-12)
    for k in (0, K - 1):
        assert auc(Yd[:, k], s) == pytest.approx(want[k], abs=1e-12)
        assert auc(Yd[:, k], s, sample_weight=w) == pytest.approx(wantw[k], abs=1e-12)
        # a strided column view (not contiguous) and a list give the same
        assert auc(Yd[:, k], s) == auc(Y[:, k].astype(float), s)
    assert auc(Y[:, 0].tolist(), s.tolist()) == pytest.approx(want[0], abs=1e-12)


@pytest.mark.parametrize("bad, shown, at", [
    (np.array([0, 1, 2, 1], dtype=np.int64), "got 2", 2),
    (np.array([0, 1, -1, 1], dtype=np.int64), "got -1", 2),
    (np.array([0, 1, 1, 3], dtype=np.uint8), "got 3", 3),
    (np.array([0, 1, 0.5, 1]), "got 0.5", 2),
    (np.array([1, 0, -2**62, 0], dtype=np.int64), "got -4.6", 2),
])
def test_non_binary_labels_refused_by_name_any_dtype(bad, shown, at):
    s = np.arange(4.0)
    with pytest.raises(ValueError,
                       match=f"'y_true' parameter must contain only 0 and 1, {shown}.* at index {at}"):
        auc(bad, s)
    with pytest.raises(ValueError,
                       match=rf"'Y' parameter must contain only 0 and 1, {shown}.* at index \({at}, 1\)"):
        multilabel_auc(np.stack([np.array([0, 1, 0, 1]), bad], 1), s)


def test_integer_labels_large_n_coded_route_equals_float_labels():
    """Past a kernel block (2^15) with int8, bool and int64 labels: the same integers as float
    labels, on the coded route (no weights) and the argsort route (weights)."""
    rng = np.random.default_rng(5)
    n = 3 * 2**15 + 17
    s = np.round(rng.normal(size=n), 2)
    Y = rng.integers(0, 2, (n, 5))
    ref = np.array([roc_auc_score(Y[:, k], s) for k in range(5)])
    for d in (np.int8, bool, np.int64):
        np.testing.assert_allclose(multilabel_auc(Y.astype(d), s), ref, atol=1e-12)
        assert auc(Y[:, 2].astype(d), s) == pytest.approx(ref[2], abs=1e-12)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("weighted", [False, True])
def test_non_finite_scores_refused_by_name_on_every_route(bad, weighted):
    """The kernels check finiteness themselves (the coded route in its exponent pass): NaN and
    ±inf are refused naming 'y_score' and the position, weighted or not, for every metric,
    including score ranges too wide for the coded keys."""
    for s in (np.array([0.5, 1.0, bad, 2.0]), np.array([1e-300, 1e300, bad, 2.0])):
        w = np.ones(4) if weighted else None
        y = np.array([0, 1, 0, 1])
        with pytest.raises(ValueError, match=r"'y_score' parameter.* index 2"):
            auc(y, s, sample_weight=w)
        with pytest.raises(ValueError, match=r"'y_score' parameter.* index 2"):
            multilabel_auc(np.stack([y, 1 - y, y, y, y, y, y], 1), s, sample_weight=w)
        with pytest.raises(ValueError, match=r"'y_score' parameter.* index 2"):
            multipartite_auc(np.array([0, 1, 2, 1]), s, sample_weight=w)
        with pytest.raises(ValueError, match=r"'y_score' parameter.* index 2"):
            multipartite_auc(np.arange(4) * 0.5, s, sample_weight=w)


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint8, np.uint16, np.float64])
def test_multipartite_auc_integer_levels_equal_float_levels(dtype):
    """Integer labels take a bincount route to their levels: the same AUC as the float labels,
    levels with gaps and offsets included, weighted or not."""
    rng = np.random.default_rng(9)
    n = 500
    s = np.round(rng.normal(size=n), 1)
    w = rng.random(n)
    for lv in ([0, 1, 2, 3], [3, 7, 8, 20], [0, 255], [100, 101, 140, 200, 210]):
        yd = rng.choice(np.array(lv), n).astype(dtype)  # int8 wraps 140, 200, 255: negatives
        yf = yd.astype(float)
        for c in ("uniform", "linear", "squared"):
            got = multipartite_auc(yd, s, costs=c)
            assert got == pytest.approx(slow_multipartite(yf, s, c), abs=1e-12)
            assert got == multipartite_auc(yf, s, costs=c)
            assert multipartite_auc(yd, s, costs=c, sample_weight=w) == \
                pytest.approx(slow_multipartite(yf, s, c, w), abs=1e-12)


@pytest.mark.parametrize("kind", ["continuous", "rounded", "low bits", "extremes", "ulps"])
def test_sort_order_is_an_exact_ascending_order(kind):
    """The weighted route's order (one sort of int64 keys with the row index in their low bits,
    then the runs those bits hide re-sorted) is a permutation that sorts the scores exactly, with
    equal keys exactly for equal scores — also when scores differ only in their last bits."""
    from bipartite.metrics._kernels import sort_order as _sort_order

    rng = np.random.default_rng(["continuous", "rounded", "low bits", "extremes",
                                 "ulps"].index(kind))
    for trial in range(12):
        n = int(rng.integers(1, 3000 if trial % 3 == 0 else 300))
        if kind == "continuous":
            s = rng.normal(size=n)
        elif kind == "rounded":
            s = np.round(rng.normal(size=n), 2)
        elif kind == "low bits":  # distinct doubles within a few ulps: hidden by the index bits
            s = 1.0 + rng.integers(0, 50, n) * 2.0**-52
        elif kind == "extremes":
            s = rng.choice([-0.0, 0.0, -5e-324, 5e-324, -1e-300, 1e-300, -1.7e308, 1.7e308], n)
        else:
            s = np.nextafter(rng.choice([-1.0, 0.0, 1.0], n), rng.choice([-2.0, 2.0], n))
        order, keys = _sort_order(s)
        np.testing.assert_array_equal(np.sort(order), np.arange(n))
        np.testing.assert_array_equal(s[order], np.sort(s))
        np.testing.assert_array_equal(keys[1:] == keys[:-1], s[order][1:] == s[order][:-1])
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1] if n > 1 else y[:2]
        if 0 < y.sum() < n and n <= 300:
            w = rng.random(n)
            assert auc(y, s, sample_weight=w) == pytest.approx(slow_auc(y, s, w), abs=1e-12)


@pytest.mark.parametrize("dtype", [">u8", ">i4", ">i8", "<u8", "u8", "?"])
def test_labels_of_any_byte_order_and_integer_type(dtype):
    """Non-native byte order (big-endian uint64 used to crash the bitwise-OR fast path) and every
    integer type give the float-label answer."""
    y = np.array([0, 1, 1, 0, 1, 0])
    s = np.array([0.1, 0.2, 0.3, 0.4, 0.35, 0.05])
    want = roc_auc_score(y, s)
    assert auc(y.astype(dtype), s) == pytest.approx(want, abs=1e-15)
    Y = np.c_[y, 1 - y].astype(dtype)
    np.testing.assert_allclose(multilabel_auc(Y, s), [want, 1 - want], atol=1e-15)


# ---- issue 22: integers beyond 2**53 are ranked as integers; AP weights normalised ---------------
def _huge_integer_forms(r):
    """Integer scores that order like the small non-negative ints ``r`` but lie past 2**53, where
    float64 rounds neighbours into ties."""
    return {"int64": np.int64(2**62) + r, "negative_int64": r - np.int64(2**62),
            "uint64": np.uint64(2**63) + r.astype(np.uint64),
            "python_int": [2**80 + int(v) for v in r]}


def test_huge_integer_scores_are_ranked_exactly():
    """The issue's reproducer and every AUC-type metric against scikit-learn (and the slow
    reference) on the exact ranks; a float64 conversion would tie neighbouring integers."""
    from bipartite.diagnostics import delong_auc_variance

    assert auc([0, 1], np.array([2**62, 2**62 + 1])) == 1.0
    assert auc([0, 1], [2**62, 2**62 + 1]) == 1.0
    assert average_precision([0, 1], np.array([2**62 + 1, 2**62])) == 0.5
    rng = np.random.default_rng(22)
    for _ in range(5):
        n = 40
        r = rng.integers(0, 12, size=n)  # many ties among the ranks too
        y = rng.integers(0, 2, size=n)
        Y = rng.integers(0, 2, size=(n, 3))
        w = rng.uniform(0.1, 2.0, size=n)
        for form, s in _huge_integer_forms(r).items():
            assert auc(y, s) == pytest.approx(roc_auc_score(y, r), abs=1e-15), form
            assert auc(y, s, sample_weight=w) == pytest.approx(slow_auc(y, r, w), abs=1e-14), form
            assert average_precision(y, s, sample_weight=w) == pytest.approx(
                average_precision_score(y, r, sample_weight=w), abs=1e-15), form
            np.testing.assert_allclose(multilabel_auc(Y, s),
                                       [roc_auc_score(Y[:, k], r) for k in range(3)], atol=1e-15)
            assert delong_auc_variance(y, s)[0] == pytest.approx(roc_auc_score(y, r), abs=1e-15)
            assert group_auc(y, s, qid=np.arange(n) % 3) == pytest.approx(
                group_auc(y, r.astype(float), qid=np.arange(n) % 3), abs=1e-15)


@pytest.mark.parametrize("costs", ["uniform", "linear", "squared", "gain"])
def test_huge_integer_ordinal_levels_are_shifted_exactly(costs):
    """``2**62 + levels`` gave NaN with a false 'fewer than two levels' warning. Every cost family
    depends on the levels through their order and differences only (gain up to a factor)."""
    import warnings

    rng = np.random.default_rng(5)
    levels = rng.integers(0, 4, size=30)
    s = rng.normal(size=30)
    want = multipartite_auc(levels, s, costs=costs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no UndefinedMetricWarning
        assert multipartite_auc(2**62 + levels, s, costs=costs) == pytest.approx(want, rel=1e-14)
        assert multipartite_auc(np.uint64(2**63) + levels.astype(np.uint64), s,
                                costs=costs) == pytest.approx(want, rel=1e-14)
        assert multipartite_auc([2**70 + int(v) for v in levels], s,
                                costs=costs) == pytest.approx(want, rel=1e-14)
    with pytest.raises(ValueError, match="'y_true'.*span less than 2\\*\\*53"):
        multipartite_auc(np.r_[0, 2**62, 2**62 + 1], [0.1, 0.2, 0.3])


@pytest.mark.parametrize("scale", [1.7e308, 1e-300, 5e-324 * 2**40])
def test_average_precision_is_invariant_to_scaling_the_weights(scale):
    """sample_weight = np.full(n, 1.7e308) gave 0.0 (the weight sums overflowed)."""
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, size=8)
    y[:2] = (0, 1)
    s = rng.normal(size=8)
    w = rng.uniform(0.5, 1.0, size=8)
    want = average_precision_score(y, s, sample_weight=w)
    assert average_precision(y, s, sample_weight=w * scale) == pytest.approx(want, rel=1e-12)
    assert average_precision(y, s, sample_weight=np.full(8, scale)) == pytest.approx(
        average_precision_score(y, s), rel=1e-12)


def test_the_face_reexports_every_public_name_and_defines_none():
    """``bipartite.metrics`` is a table of contents (issue 36): its ``__init__.py`` defines no
    function or class; every name of ``__all__`` (and the five names the diagnostics import)
    imports from it without a warning, is documented as ``bipartite.metrics.X`` (the ranked
    metrics as ``bipartite.ranked_metrics.X``), and, for the functions, runs code of another
    file."""
    import ast
    import subprocess
    import sys
    from pathlib import Path

    import bipartite.metrics as face

    init = Path(face.__file__)
    tree = ast.parse(init.read_text(encoding="utf-8"))
    assert not [n.name for n in ast.walk(tree)
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    names = [*face.__all__, "segment_below", "tie_placements", "auc_terms", "query_scaled",
             "GAUC_WEIGHTINGS"]
    code = f"from bipartite.metrics import {', '.join(names)}"
    run = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True,
                         text=True, cwd=init.parents[2])
    assert run.returncode == 0, run.stderr
    for name in face.__all__:
        obj = getattr(face, name)
        assert obj.__module__ in ("bipartite.metrics", "bipartite.ranked_metrics"), name
        if hasattr(obj, "__code__"):
            assert Path(obj.__code__.co_filename) != init, name
