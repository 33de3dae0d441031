"""RLSEP label ranking: rank construction, generator, label-ranking MLP, threshold network."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from bipartite._utils.validation import UndefinedMetricWarning
from bipartite.contrib.label_ranking import (
    LabelRankingMLP,
    ThresholdNetwork,
    importance_to_ranks,
    make_ranked_labels,
)
from bipartite.ranked_metrics import ranked_accuracy


# ---------------------------------------------------------------------------------------------
# ranks from importances (RLSEP §3.1)
# ---------------------------------------------------------------------------------------------
def _slow_ranks(row, atol):
    """RLSEP §3.1 by hand: zeros get 0; then repeatedly give the least important unranked labels
    the next rank, where 'equally important' = within atol of the previous sorted value."""
    ranks = [0] * len(row)
    items = sorted((v, j) for j, v in enumerate(row) if v > 0)
    level, prev = 0, None
    for v, j in items:
        if prev is None or v - prev > atol:
            level += 1
        ranks[j] = level
        prev = v
    return ranks


@pytest.mark.parametrize("atol", [0.0, 0.05, 0.5])
def test_importance_to_ranks_matches_slow_reference(rng, atol):
    imp = rng.choice([0.0, 0.0, 0.1, 0.12, 0.5, 1.0, 1.3, 2.0], size=(50, 6))
    expected = np.array([_slow_ranks(r, atol) for r in imp.tolist()])
    np.testing.assert_array_equal(importance_to_ranks(imp, atol=atol), expected)


@given(st.lists(st.lists(st.integers(0, 20), min_size=5, max_size=5), min_size=1, max_size=6))
def test_ranks_keep_order_only(rows):
    """Claim (atol = 0): r = 0 iff s = 0; r_u > r_v iff s_u > s_v; nonzero ranks are exactly
    1..max (dense); and an increasing transform of the positive importances changes nothing."""
    imp = np.array(rows) / 2.0
    r = importance_to_ranks(imp)
    assert ((r == 0) == (imp == 0)).all()
    for i in range(len(imp)):
        for u in range(5):
            for v in range(5):
                assert (r[i, u] > r[i, v]) == (imp[i, u] > imp[i, v])
        nz = np.unique(r[i][r[i] > 0])
        np.testing.assert_array_equal(nz, np.arange(1, len(nz) + 1))
    np.testing.assert_array_equal(importance_to_ranks(np.where(imp > 0, np.exp(imp), 0.0)), r)


def test_importance_to_ranks_validation():
    with pytest.raises(ValueError, match="'importance' parameter must be non-negative"):
        importance_to_ranks([[1.0, -1.0]])
    with pytest.raises(ValueError, match="'atol' parameter"):
        importance_to_ranks([[1.0, 0.0]], atol=-1)


# ---------------------------------------------------------------------------------------------
# generator
# ---------------------------------------------------------------------------------------------
def test_make_ranked_labels_structure():
    d = make_ranked_labels(400, 8, 12, min_relevant=2, max_relevant=5, seed=3)
    assert d.X.shape == (400, 12) and d.ranks.shape == (400, 8)
    m = (d.ranks > 0).sum(axis=1)
    assert m.min() >= 2 and m.max() <= 5 and len(np.unique(m)) == 4
    rel = d.importance > 0
    assert ((d.importance[rel] >= 1.0) & (d.importance[rel] <= 4.0)).all()
    np.testing.assert_array_equal(d.ranks, importance_to_ranks(d.importance))
    np.testing.assert_array_equal(d.Y, rel.astype(float))
    # seeded: same seed -> same data, other seed -> other data
    again = make_ranked_labels(400, 8, 12, min_relevant=2, max_relevant=5, seed=3)
    np.testing.assert_array_equal(again.X, d.X)
    assert not np.allclose(make_ranked_labels(400, 8, 12, min_relevant=2, max_relevant=5,
                                              seed=4).X, d.X)


def test_features_are_informative_about_presence_and_importance():
    """Least squares from X recovers both the presence and the (centred) importance signals."""
    d = make_ranked_labels(3000, 6, 24, noise=0.1, seed=0)
    X1 = np.c_[d.X, np.ones(len(d.X))]
    for target in (d.Y, d.Y * (d.importance - 2.5)):
        coef, *_ = np.linalg.lstsq(X1, target, rcond=None)
        resid = target - X1 @ coef
        r2 = 1 - resid.var(axis=0) / target.var(axis=0)
        assert (r2 > 0.8).all(), r2


def test_make_ranked_labels_validation():
    with pytest.raises(ValueError, match="'n_samples' parameter"):
        make_ranked_labels(0)
    with pytest.raises(ValueError, match="'min_relevant' and 'max_relevant'"):
        make_ranked_labels(10, 4, min_relevant=3, max_relevant=5)
    with pytest.raises(ValueError, match="'importance_range'"):
        make_ranked_labels(10, 4, min_relevant=1, max_relevant=2, importance_range=(0.0, 1.0))


# ---------------------------------------------------------------------------------------------
# label-ranking MLP
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_data():
    return make_ranked_labels(600, 6, 16, min_relevant=2, max_relevant=4, seed=11)


def _fit(loss, data, seed=0, epochs=25, **kw):
    return LabelRankingMLP(loss=loss, hidden=(32,), epochs=epochs, batch_size=64, lr=3e-3,
                           random_state=seed, device="cpu", **kw).fit(data.X[:400],
                                                                      data.ranks[:400])


@pytest.fixture(scope="module")
def fitted(small_data):
    """CE, LSEP and RLSEP scorers trained once on the first 400 rows (shared by several tests)."""
    return {loss: _fit(loss, small_data) for loss in ("ce", "lsep", "rlsep")}


def test_ce_loss_is_rlsep_eq1():
    """'ce' = RLSEP Eq. 1: -mean_i sum_j p_ij log softmax(f_i)_j with p = 1/|Y_i| on Y_i."""
    s = torch.tensor([[1.0, 0.0, -1.0], [0.5, 0.5, 2.0], [0.0, 0.0, 0.0]], dtype=torch.float64)
    r = torch.tensor([[2.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]], dtype=torch.float64)
    got = float(LabelRankingMLP(loss="ce")._loss_fn(s, r, None))
    sn = s.numpy()
    logsm = sn - np.log(np.exp(sn).sum(axis=1, keepdims=True))
    y = (r.numpy() > 0).astype(float)
    p = y / np.maximum(y.sum(axis=1, keepdims=True), 1)
    assert got == pytest.approx(-(p * logsm).sum() / 3)


def test_bce_loss_matches_formula():
    s = torch.tensor([[1.0, -2.0]], dtype=torch.float64)
    r = torch.tensor([[3.0, 0.0]], dtype=torch.float64)
    got = float(LabelRankingMLP(loss="bce")._loss_fn(s, r, None))
    expected = np.mean([np.log1p(np.exp(-1.0)), np.log1p(np.exp(-2.0))])
    assert got == pytest.approx(expected)


def test_deterministic_given_seed(small_data):
    a = _fit("rlsep", small_data, seed=5, epochs=3).decision_function(small_data.X)
    b = _fit("rlsep", small_data, seed=5, epochs=3).decision_function(small_data.X)
    c = _fit("rlsep", small_data, seed=6, epochs=3).decision_function(small_data.X)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_rlsep_on_binary_ranks_is_lsep(small_data):
    """RLSEP with 0/1 ranks is LSEP: same seed -> the same trained network (also with a random
    pair subset, which uses the same generator stream)."""
    Y = (small_data.ranks[:400] > 0).astype(int)
    for num_pairs in (None, 3):
        kw = dict(hidden=(16,), epochs=3, random_state=1, device="cpu", num_pairs=num_pairs)
        a = LabelRankingMLP(loss="rlsep", **kw).fit(small_data.X[:400], Y)
        b = LabelRankingMLP(loss="lsep", **kw).fit(small_data.X[:400], Y)
        np.testing.assert_allclose(a.decision_function(small_data.X),
                                   b.decision_function(small_data.X), rtol=0, atol=1e-12)


def test_training_decreases_the_loss(small_data):
    for loss in ("ce", "bce", "lsep", "rlsep"):
        m = _fit(loss, small_data, epochs=8)
        assert m.loss_curve_[-1] < 0.8 * m.loss_curve_[0], loss


def test_rlsep_orders_relevant_labels_lsep_does_not(small_data, fitted):
    """The core RLSEP claim in miniature: trained on ranks, RLSEP orders the relevant labels by
    importance; LSEP and CE, trained on the relevant set only, are near chance on those pairs,
    while all three separate relevant from irrelevant labels."""
    te = slice(400, 600)
    R = small_data.ranks[te]
    acc = {}
    for loss in ("ce", "lsep", "rlsep"):
        S = fitted[loss].decision_function(small_data.X[te])
        # relevant-vs-irrelevant pairs: binary ranks
        acc[loss, "bin"] = ranked_accuracy((R > 0).astype(int), S)
        # pairs of two relevant labels: share ordered like the importances
        good = tot = 0
        for r, s in zip(R, S, strict=True):
            idx = np.flatnonzero(r > 0)
            for a in range(len(idx)):
                for b in range(a + 1, len(idx)):
                    u, v = idx[a], idx[b]
                    tot += 1
                    good += (r[u] > r[v]) == (s[u] > s[v])
        acc[loss, "among"] = good / tot
    for loss in ("ce", "lsep", "rlsep"):
        assert acc[loss, "bin"] > 0.9, acc
    assert acc["rlsep", "among"] > 0.65, acc
    assert acc["lsep", "among"] < 0.6 and acc["ce", "among"] < 0.6, acc
    assert acc["rlsep", "among"] > max(acc["lsep", "among"], acc["ce", "among"]) + 0.12, acc


def test_unranked_metrics_tie_within_tolerance(small_data, fitted):
    """Unranked side of the RLSEP claim in miniature: with the threshold network, RLSEP's label
    selection is within 3 points of LSEP's on precision, recall, F1 and accuracy."""
    from bipartite.ranked_metrics import unranked_scores

    out = {}
    for loss in ("lsep", "rlsep"):
        ranker = fitted[loss]
        thr = ThresholdNetwork(ranker, hidden=(16,), epochs=15, lr=3e-3, random_state=0,
                               device="cpu").fit(small_data.X[:400], small_data.Y[:400])
        out[loss] = unranked_scores(small_data.Y[400:], thr.predict(small_data.X[400:]))
    for m in ("precision", "recall", "f1", "accuracy"):
        assert abs(out["rlsep"][m] - out["lsep"][m]) <= 0.03, (m, out)


def test_estimators_are_sklearn_cloneable(small_data):
    from sklearn.base import clone

    m = LabelRankingMLP(loss="lsep", hidden=(8,), epochs=2, random_state=0, device="cpu")
    assert clone(m).get_params() == m.get_params()
    fitted = m.fit(small_data.X, small_data.ranks)
    thr = ThresholdNetwork(fitted, hidden=(4,), epochs=1)
    assert clone(thr).get_params()["epochs"] == 1


def test_label_ranking_validation(small_data):
    with pytest.raises(ValueError, match="'loss' parameter must be one of"):
        LabelRankingMLP(loss="hinge").fit(small_data.X, small_data.ranks)
    with pytest.raises(ValueError, match="'hidden' parameter"):
        LabelRankingMLP(hidden=(0,)).fit(small_data.X, small_data.ranks)
    with pytest.raises(ValueError, match="'epochs' parameter"):
        LabelRankingMLP(epochs=0).fit(small_data.X, small_data.ranks)
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        LabelRankingMLP(epochs=1).fit(small_data.X[:10], small_data.ranks[:9])
    with pytest.raises(ValueError, match="'ranks' parameter must hold non-negative integer"):
        LabelRankingMLP(epochs=1).fit(small_data.X[:2], [[0.5] * 6, [1] * 6])
    with pytest.raises(RuntimeError, match="not fitted"):
        LabelRankingMLP().decision_function(small_data.X)
    m = LabelRankingMLP(hidden=(4,), epochs=1, device="cpu").fit(small_data.X, small_data.ranks)
    with pytest.raises(ValueError, match="'X' parameter must have 16 columns"):
        m.decision_function(small_data.X[:, :3])


# ---------------------------------------------------------------------------------------------
# threshold network (RLSEP §3.4)
# ---------------------------------------------------------------------------------------------
def test_threshold_network(small_data, fitted):
    ranker = fitted["lsep"]
    thr = ThresholdNetwork(ranker, hidden=(16,), epochs=20, lr=3e-3, random_state=0,
                           device="cpu").fit(small_data.X[:400], small_data.Y[:400])
    X = small_data.X[400:]
    pred = thr.predict(X)
    np.testing.assert_array_equal(
        pred, (ranker.decision_function(X) > thr.thresholds(X)).astype(float))
    assert thr.loss_curve_[-1] < thr.loss_curve_[0]
    # label selection works on held-out data, and beats one global threshold fitted on train
    acc = (pred == small_data.Y[400:]).mean()
    assert acc > 0.9
    f_tr = ranker.decision_function(small_data.X[:400])
    cands = np.unique(f_tr)
    best = max(cands[::7], key=lambda t: ((f_tr > t) == small_data.Y[:400]).mean())
    acc_global = ((ranker.decision_function(X) > best) == small_data.Y[400:]).mean()
    assert acc >= acc_global - 0.02, (acc, acc_global)


def test_threshold_network_validation(small_data):
    with pytest.raises(ValueError, match="'ranker' parameter must be a fitted"):
        ThresholdNetwork(LabelRankingMLP()).fit(small_data.X, small_data.Y)
    ranker = LabelRankingMLP(hidden=(4,), epochs=1, device="cpu").fit(small_data.X,
                                                                      small_data.ranks)
    with pytest.raises(ValueError, match="'Y' parameter must contain only 0 and 1"):
        ThresholdNetwork(ranker, epochs=1).fit(small_data.X, small_data.ranks)
    with pytest.raises(RuntimeError, match="not fitted"):
        ThresholdNetwork(ranker).predict(small_data.X)


def test_ranked_metrics_warn_not_fail_on_untrained_ties():
    """A constant scorer ties every pair: precision is undefined (warning + NaN), not an error."""
    from bipartite.ranked_metrics import ranked_precision

    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)
        with pytest.raises(UndefinedMetricWarning):
            ranked_precision([[2, 1, 0]], [[0.0, 0.0, 0.0]])
