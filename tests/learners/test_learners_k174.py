"""The learners at large K (issue 25, item 4): K = 174 synthetic labels with CAL500-like priors
(fast), enron (K = 53) and CAL500 (K = 174) when the data folder is present.

Checked: every route fits and scores at K = 174; the plug-in combination is the closed form over
the marginals, recomputed here from the fitted heads; the rule for a label with a single class in
the training rows (left out of loss aggregation and max-min with a warning naming it, before any
training; an error when nothing is left; label aggregation keeps it); the max-min plug-in search
for K > MAX_GRID_LABELS against a reference implementation of the documented ascent; the
2**K-output heads refuse past their limit before building anything.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

from bipartite.learners import MLPRanker, XGBRanker
from bipartite.learners import maxmin as MM
from bipartite.learners.base import label_codes
from bipartite.metrics import multilabel_auc
from bipartite.objectives import Objective

K = 174
LIN = dict(hidden=(), epochs=3, batch_size=128, lr=0.02, n_jobs=1, device="cpu",
           random_state=0)
XGB = dict(n_estimators=2, max_depth=2, n_jobs=1, random_state=0)


@pytest.fixture(scope="module")
def k174():
    """300 rows, 6 features, K = 174 labels with priors log-uniform in [0.01, 0.5] driven by the
    features; labels 5 and 17 have no positive and label 40 no negative in these rows."""
    rng = np.random.default_rng(174)
    n, d = 300, 6
    X = rng.normal(size=(n, d))
    pi = np.exp(rng.uniform(np.log(0.01), np.log(0.5), size=K))
    logit = X @ rng.normal(size=(d, K)) + np.log(pi / (1 - pi))
    Y = (rng.uniform(size=(n, K)) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    Y[:, 0] = (X[:, 0] > 0)  # one label with both classes for sure
    Y[:, [5, 17]] = 0
    Y[:, 40] = 1
    return X, Y


def _fit(est, X, Y):
    with pytest.warns(UserWarning, match=r"3 label\(s\) of 'Y' have a single class.*5 \(prior 0\)"
                                         r", 17 \(prior 0\), 40 \(prior 1\)"):
        return est.fit(X, Y)


def _plugin_reference(eta, prior, keep, a=None):
    """Σ_k a_k η̂_k / (π̂_k (1 − π̂_k)) over the kept labels, by a loop."""
    a = np.ones(len(prior)) if a is None else a
    s = np.zeros(len(eta))
    for k in np.flatnonzero(keep):
        s += a[k] * eta[:, k] / (prior[k] * (1 - prior[k]))
    return s


def test_mlp_plugin_k174_is_the_closed_form_over_the_kept_labels(k174):
    X, Y = k174
    est = _fit(MLPRanker(method="plugin", **LIN), X, Y)
    keep = np.ones(K, bool)
    keep[[5, 17, 40]] = False
    np.testing.assert_array_equal(est.trained_labels_, keep)
    with torch.no_grad():
        raw = est.net_(torch.as_tensor(est._standardise(X))).double().numpy()
    ref = _plugin_reference(1 / (1 + np.exp(-raw)), est.prior_, keep)
    np.testing.assert_allclose(est.decision_function(X), ref, rtol=1e-10)
    assert 0.0 <= est.score(X, Y) <= 1.0


def test_mlp_max_min_plugin_k174(k174):
    """The route that crashed on enron (NaN 'y_score' from π̂ = 0): a_ on the simplex, 0 on the
    labels left out, chosen by the ascent; the scores are the closed form with a_."""
    X, Y = k174
    est = _fit(MLPRanker(objective="max_min", method="plugin", validation_fraction=0.3, **LIN),
               X, Y)
    assert est.a_search_.method == "ascent"
    assert est.a_.shape == (K,) and est.a_.sum() == pytest.approx(1.0)
    assert np.all(est.a_[[5, 17, 40]] == 0) and np.isnan(est.val_auc_[[5, 17, 40]]).all()
    assert est.val_min_auc_ == pytest.approx(np.nanmin(est.val_auc_))
    with torch.no_grad():
        raw = est.net_(torch.as_tensor(est._standardise(X))).double().numpy()
    ref = _plugin_reference(1 / (1 + np.exp(-raw)), est.prior_, est.trained_labels_, est.a_)
    np.testing.assert_allclose(est.decision_function(X), ref, rtol=1e-10)


@pytest.mark.parametrize("objective", ["loss_aggregation", "max_min", "label_aggregation"])
def test_mlp_pairwise_k174(k174, objective):
    X, Y = k174
    est = MLPRanker(objective=objective, method="pairwise", **LIN)
    if objective == "label_aggregation":
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)  # label aggregation keeps every label
            est.fit(X, Y)
        assert est.trained_labels_.all()
    else:
        _fit(est, X, Y)
    s = est.decision_function(X)
    assert s.shape == (300,) and np.isfinite(s).all()
    if objective == "max_min":
        assert est.dro_weights_.shape == (K,) and est.dro_weights_.sum() == pytest.approx(1.0)


def test_xgb_plugin_k174_checks_before_training_and_combines(k174, monkeypatch):
    X, Y = k174
    est = _fit(XGBRanker(method="plugin", **XGB), X, Y)
    import xgboost as xgb

    d = xgb.DMatrix(X, nthread=1)
    eta = np.column_stack([b.predict(d).astype(np.float64) for b in est.boosters_])
    np.testing.assert_allclose(est.decision_function(X),
                               _plugin_reference(eta, est.prior_, est.trained_labels_), rtol=1e-10)
    # nothing left to optimise: refused before a single booster is trained
    trained = []
    monkeypatch.setattr(XGBRanker, "_train", lambda self, *a, **k: trained.append(1))
    a = np.zeros(K)
    a[[5, 17]] = 1.0
    with pytest.raises(ValueError, match="no label with a_k > 0 with both classes"):
        XGBRanker(method="plugin", a=a, **XGB).fit(X, Y)
    with pytest.raises(ValueError, match="no label with both classes"):
        XGBRanker(method="plugin", **XGB).fit(X, np.zeros_like(Y))
    with pytest.raises(ValueError, match="'w' parameter must have shape"):
        XGBRanker(objective="label_aggregation", method="plugin", w=[1.0, 2.0], **XGB).fit(X, Y)
    assert not trained


@pytest.mark.parametrize("objective", ["loss_aggregation", "max_min"])
def test_xgb_pairwise_k174(k174, objective):
    X, Y = k174
    est = _fit(XGBRanker(objective=objective, method="pairwise", dro_every=1, **XGB), X, Y)
    s = est.decision_function(X)
    assert np.isfinite(s).all() and np.unique(s).size > 1


def test_joint_heads_refuse_k174_before_building(k174):
    """Product/or label aggregation's plug-in head has 2**K outputs: refused by name and limit
    before the network or a booster exists; label codes stop at K = 62 (int64)."""
    X, Y = k174
    for est in (MLPRanker(objective="label_aggregation", aggregate="or", method="plugin", **LIN),
                XGBRanker(objective="label_aggregation", aggregate="product", method="plugin",
                          **XGB)):
        with pytest.raises(ValueError, match=r"2\*\*174 .*max_joint_labels = 12"):
            est.fit(X, Y)
        assert not hasattr(est, "net_") and not hasattr(est, "boosters_")
    with pytest.raises(ValueError, match="K=63 labels"):
        label_codes(np.zeros((2, 63)))
    assert label_codes(np.ones((1, 62))).item() == 2**62 - 1


def test_objective_k174_marginals_only():
    """Loss aggregation and sum aggregation combine the (n, 174) marginals (by a loop here);
    product aggregation refuses the marginals alone past MAX_LABELS, naming 'eta'."""
    rng = np.random.default_rng(1)
    eta = rng.uniform(size=(20, K))
    pi = rng.uniform(0.01, 0.5, size=K)
    a = rng.uniform(size=K)
    ref = sum(a[k] * eta[:, k] / (pi[k] * (1 - pi[k])) for k in range(K))
    np.testing.assert_allclose(Objective(a=a).plugin_scores(eta, pi), ref, rtol=1e-12)
    np.testing.assert_allclose(Objective("label_aggregation").plugin_scores(eta, pi),
                               eta.sum(axis=1), rtol=1e-12)
    with pytest.raises(ValueError, match=r"'eta' has K = 174 columns.*MAX_LABELS = 20"):
        Objective("label_aggregation", aggregate="product").plugin_scores(eta, pi)
    Y = (rng.uniform(size=(20, K)) < 0.5).astype(int)
    Y[:2, :], Y[2:4, :] = 1, 0
    s = rng.normal(size=20)
    per = multilabel_auc(Y, s)
    assert Objective().criterion(Y, s) == pytest.approx(per.mean(), abs=1e-12)
    assert Objective("max_min").criterion(Y, s) == pytest.approx(per.min(), abs=1e-12)


# ---- the max-min plug-in search at large K ------------------------------------------------------
def _ascent_reference(eta, pi, Y):
    """The documented ascent, written out with multilabel_auc: starts 1/K and π(1 − π)
    (normalised), the better start first; log a_k -= (2/√(t+1)) (AUC_k − mean AUC); best
    (min, mean) iterate."""
    E = eta / (pi * (1 - pi))

    def key(a):
        v = multilabel_auc(Y, E @ a)
        return (np.nanmin(v), np.nanmean(v)), v

    starts = [np.full(len(pi), 1 / len(pi)), pi * (1 - pi) / np.sum(pi * (1 - pi))]
    best_key, best_a, best_v = None, None, None
    for a in starts:
        k, v = key(a)
        if best_key is None or k > best_key:
            best_key, best_a, best_v = k, a, v
    log_a, v = np.log(best_a), best_v
    for t in range(MM.ASCENT_STEPS):
        ok = np.isfinite(v)
        log_a[ok] -= MM.ASCENT_STEP / math.sqrt(t + 1) * (v[ok] - v[ok].mean())
        log_a -= log_a.max()
        a = np.exp(log_a) / np.exp(log_a).sum()
        k, v = key(a)
        if k > best_key:
            best_key, best_a = k, a
    return best_a, best_key


@pytest.mark.parametrize("K_", [6, 40])
def test_max_min_ascent_against_reference(K_):
    rng = np.random.default_rng(K_)
    n = 150
    pi = np.exp(rng.uniform(np.log(0.05), np.log(0.5), size=K_))
    eta = np.clip(pi + 0.3 * rng.normal(size=(n, K_)), 0.01, 0.99)
    Y = (rng.uniform(size=(n, K_)) < eta).astype(float)
    Y[0], Y[1] = 1.0, 0.0
    ch = MM.max_min_weights(eta, pi, Y, 1.0 - Y)
    a_ref, (v_ref, _) = _ascent_reference(eta, pi, Y)
    assert ch.method == "ascent" and ch.n_candidates == 2 + MM.ASCENT_STEPS
    np.testing.assert_allclose(ch.a, a_ref, rtol=1e-9, atol=1e-15)
    assert ch.value == pytest.approx(v_ref, abs=1e-12)
    E = eta / (pi * (1 - pi))
    np.testing.assert_allclose(ch.aucs, multilabel_auc(Y, E @ ch.a), atol=1e-12)
    for start in (np.ones(K_), pi * (1 - pi)):  # at least as good as both starting points
        assert ch.value >= multilabel_auc(Y, E @ start).min() - 1e-12
    assert MM.max_min_weights(eta[:, :3], pi[:3], Y[:, :3], 1 - Y[:, :3]).method == "grid"


def test_max_min_weights_keep():
    rng = np.random.default_rng(3)
    eta = rng.uniform(size=(60, 8))
    Y = (rng.uniform(size=(60, 8)) < eta).astype(float)
    pi = np.full(8, 0.4)
    keep = np.array([True] * 6 + [False] * 2)
    ch = MM.max_min_weights(eta, pi, Y, 1 - Y, keep=keep)
    sub = MM.max_min_weights(eta[:, :6], pi[:6], Y[:, :6], 1 - Y[:, :6])
    np.testing.assert_array_equal(ch.a[:6], sub.a)
    assert np.all(ch.a[6:] == 0) and np.isnan(ch.aucs[6:]).all() and ch.value == sub.value


# ---- real data ---------------------------------------------------------------------------------
def test_enron_max_min_plugin_and_pairwise(shared_data):
    """enron's standard split (K = 53): label D.D18 (index 45) has no positive in the training
    rows; the max-min plug-in (which crashed) and group DRO fit and rank the test rows."""
    from bipartite.data import load_mulan

    tr = load_mulan("enron", split="train", data_home=shared_data)
    te = load_mulan("enron", split="test", data_home=shared_data)
    X, Y = np.asarray(tr.X, dtype=np.float64), np.asarray(tr.Y)
    assert Y.shape[1] == 53 and tr.label_names[45] == "D.D18" and Y[:, 45].sum() == 0
    for kw in (dict(objective="max_min", method="plugin"),
               dict(objective="max_min", method="pairwise")):
        with pytest.warns(UserWarning, match=r"1 label\(s\).*labels 45 \(prior 0\)"):
            est = MLPRanker(**kw, **LIN).fit(X, Y)
        s = est.decision_function(np.asarray(te.X, dtype=np.float64))
        assert np.isfinite(s).all()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # test labels with one class: NaN AUC
            assert np.nanmean(multilabel_auc(np.asarray(te.Y), s)) > 0.52  # macro-AUC


def test_cal500_plugin_learners(shared_data):
    """CAL500 (K = 174, 502 rows): the XGB plug-in (174 heads) and the linear plug-in fit and
    rank. One scorer cannot serve CAL500's tag pairs (``Emotion-Angry`` and
    ``NOT-Emotion-Angry``: AUC_k + AUC_not-k ≈ 1), so its macro-AUC is ≈ ½ (measured 0.47-0.51);
    the learning shows in the heads: their own test AUCs (η̂_k for label k, scikit-learn) average
    above ½ (0.53: about 3 standard errors of a mean of ~150 chance AUCs on 152 rows)."""
    from sklearn.metrics import roc_auc_score

    from bipartite.data import load_mulan

    d = load_mulan("cal500", data_home=shared_data)
    X, Y = np.asarray(d.X, dtype=np.float64), np.asarray(d.Y)
    assert Y.shape[1] == 174
    idx = np.random.default_rng(0).permutation(len(Y))
    tr, te = idx[:350], idx[350:]
    both = (Y[te].min(axis=0) == 0) & (Y[te].max(axis=0) == 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # labels without positives in 350 rows
        xgb_est = XGBRanker(method="plugin", **{**XGB, "n_estimators": 5}).fit(X[tr], Y[tr])
        lin = MLPRanker(method="plugin", **{**LIN, "epochs": 10}).fit(X[tr], Y[tr])
    import xgboost as xgb

    dte = xgb.DMatrix(X[te], nthread=1)
    heads = {"xgb": np.column_stack([b.predict(dte) for b in xgb_est.boosters_])}
    with torch.no_grad():
        raw = lin.net_(torch.as_tensor(lin._standardise(X[te]))).double().numpy()
    heads["linear"] = 1 / (1 + np.exp(-raw))
    for name, eta in heads.items():
        own = [roc_auc_score(Y[te, k], eta[:, k]) for k in np.flatnonzero(both)]
        assert np.mean(own) > 0.53, (name, np.mean(own))  # measured 0.546 (xgb)
    for est in (xgb_est, lin):
        assert np.isfinite(est.decision_function(X[te])).all()
