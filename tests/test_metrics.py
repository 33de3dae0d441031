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
    assert ndcg_at_k(rel, s, k=k, groups=g) == pytest.approx(want, abs=1e-12)
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


def test_diff_and_min_auc_nan_with_warning():
    from bipartite import UndefinedMetricWarning
    from bipartite.metrics import diff_auc, min_auc

    for fn in (diff_auc, min_auc):
        with pytest.warns(UndefinedMetricWarning):
            assert np.isnan(fn([0.7, np.nan]))
