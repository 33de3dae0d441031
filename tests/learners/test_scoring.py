"""Tests of bipartite.learners.scoring and of query ids in scikit-learn model selection
(metadata routing; docs/theory.md §2, §10).

The data are Simpson's-paradox queries (as in test_learners.test_groups_confine_pairs_to_queries):
within every query relevance increases with x, but pooled over queries it decreases, so a ranker
that never sees the query ids ranks held-out queries no better than chance (test gAUC < 0.6,
measured 0.33-0.52) and one that does ranks them well (> 0.75, measured 0.81-0.93; monotone trees
in x, so that the learnt order carries over to unseen query offsets). That is what makes a dropped
qid visible.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_val_score, cross_validate

from bipartite.learners import MLPRanker, XGBRanker, make_ranking_scorer, ranking_scorers
from bipartite.learners.scoring import SCORER_KINDS
from bipartite.metrics import diff_auc, group_auc, min_auc, multilabel_auc

FAST_XGB = dict(n_estimators=20, max_depth=2, learning_rate=0.3, monotone_constraints="(1,0)",
                random_state=0, n_jobs=1)


@pytest.fixture(scope="module")
def simpson():
    rng = np.random.default_rng(4)
    G, m = 60, 10
    q = np.repeat(np.arange(G), m)
    offset = 3 * rng.normal(size=G)
    x = offset[q] + rng.normal(size=G * m)
    y, y2 = np.zeros(G * m), np.zeros(G * m)
    for g in range(G):
        idx = np.flatnonzero(q == g)
        top = idx[np.argsort(-x[idx])]
        y[top[: 1 if offset[g] > 0 else 9]] = 1  # few relevant rows where x is high: Simpson
        y2[top[:3]] = 1  # a second label: the top 3 of every query
    X = np.column_stack([x, rng.normal(size=G * m)])
    return X, np.column_stack([y, y2]), q


def _manual_cv(est, X, Y, q, cv):
    out = []
    for tr, te in cv.split(X, Y, q):
        fitted = sklearn.clone(est).fit(X[tr], Y[tr], qid=q[tr])
        out.append(fitted.score(X[te], Y[te], qid=q[te]))
    return np.array(out)


@pytest.mark.parametrize("est", [XGBRanker(**FAST_XGB),
                                 MLPRanker(hidden=(8,), epochs=8, batch_size=100, lr=0.02,
                                           n_jobs=1, random_state=0)],
                         ids=["XGBRanker", "MLPRanker"])
def test_routing_delivers_qid_to_fit_and_score(simpson, est):
    """With metadata routing, cross_val_score(..., params={"groups": q, "qid": q}) with
    set_fit_request(qid=True) / set_score_request(qid=True) equals the manual loop that fits and
    scores every fold with its query ids: the ranker receives qid in fit and in score."""
    X, Y, q = simpson
    cv = GroupKFold(n_splits=3)
    with sklearn.config_context(enable_metadata_routing=True):
        routed = sklearn.clone(est).set_fit_request(qid=True).set_score_request(qid=True)
        got = cross_val_score(routed, X, Y, cv=cv, params={"groups": q, "qid": q})
    np.testing.assert_allclose(got, _manual_cv(est, X, Y, q, cv), rtol=1e-10)


def test_without_routing_qid_is_lost_and_routing_recovers_it(simpson):
    """The silent failure this API guards against, measured: groups=q to cross_val_score reaches
    GroupKFold only, so the fitted rankers never see the queries (held-out gAUC < 0.6); routed,
    the same models rank within queries (> 0.75); GridSearchCV's refit gets qid."""
    X, Y, q = simpson
    gauc = make_ranking_scorer("gauc", label=0, request_qid=False)
    cv = GroupKFold(n_splits=3)
    # not routed: the score cannot even be computed per query, and the fits are pooled
    with pytest.raises(ValueError, match="gAUC scorer got no query ids"):
        gauc(XGBRanker(**FAST_XGB).fit(X, Y), X, Y)
    pooled = [group_auc(Y[te, 0], XGBRanker(**FAST_XGB).fit(X[tr], Y[tr]).decision_function(
        X[te]), q[te]) for tr, te in cv.split(X, Y, q)]
    assert max(pooled) < 0.6
    with sklearn.config_context(enable_metadata_routing=True):
        est = XGBRanker(**FAST_XGB).set_fit_request(qid=True).set_score_request(qid=True)
        routed = cross_val_score(est, X, Y, cv=cv, scoring=make_ranking_scorer("gauc", label=0),
                                 params={"groups": q, "qid": q})
        assert routed.min() > 0.75
        search = GridSearchCV(est, {"max_depth": [1, 2]}, cv=cv,
                              scoring=make_ranking_scorer("gauc", label=0))
        search.fit(X, Y, groups=q, qid=q)
    assert search.best_estimator_.n_queries_ == len(np.unique(q))
    assert search.best_score_ > 0.75


def test_unrequested_qid_is_an_error_not_a_silent_drop(simpson):
    """Request defaults: qid is not requested (None); passing it unrequested raises scikit-learn's
    UnsetMetadataPassedError naming qid — for the ranker and for a scorer that takes qid."""
    from sklearn.exceptions import UnsetMetadataPassedError

    X, Y, q = simpson
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(UnsetMetadataPassedError, match=r"\[qid\] are passed"):
            cross_val_score(XGBRanker(**FAST_XGB), X, Y, cv=GroupKFold(3),
                            params={"groups": q, "qid": q})
        est = XGBRanker(**FAST_XGB).set_fit_request(qid=True).set_score_request(qid=True)
        scorer = make_ranking_scorer("min_auc", request_qid=False)
        with pytest.raises(UnsetMetadataPassedError, match=r"\[qid\] are passed"):
            cross_val_score(est, X, Y, cv=GroupKFold(3), scoring=scorer,
                            params={"groups": q, "qid": q})
        # the deprecated alias 'groups' is not routable: it goes to the splitter only
        assert "groups" not in est.get_metadata_routing().fit.requests
        assert est.get_metadata_routing().fit.requests["qid"] is True


@pytest.fixture(scope="module")
def fitted(simpson):
    X, Y, q = simpson
    est = XGBRanker(**FAST_XGB).fit(X, Y, qid=q)
    return est, X, Y, q, est.decision_function(X)


def test_scorers_match_the_metrics(fitted):
    """Every kind equals the direct computation with bipartite.metrics / ranking_criterion, with
    and without query ids; diff_auc is negated (greater is better); a label by column name."""
    import pandas as pd

    from bipartite.learners import ranking_criterion

    est, X, Y, q, s = fitted
    aucs = multilabel_auc(Y, s)
    gaucs = np.array([group_auc(Y[:, k], s, q) for k in range(2)])
    assert make_ranking_scorer("auc", label=1)(est, X, Y) == pytest.approx(aucs[1])
    assert make_ranking_scorer("auc")(est, X, Y) == pytest.approx(aucs.mean())
    assert make_ranking_scorer("min_auc")(est, X, Y) == pytest.approx(min_auc(aucs))
    assert make_ranking_scorer("diff_auc")(est, X, Y) == pytest.approx(-diff_auc(aucs))
    uniform = group_auc(Y[:, 0], s, q, weighting="uniform")
    # scikit-learn passes metadata to a scorer only with routing enabled
    with sklearn.config_context(enable_metadata_routing=True):
        assert make_ranking_scorer("gauc", label=0)(est, X, Y, qid=q) == pytest.approx(gaucs[0])
        assert make_ranking_scorer("gauc", label=0, weighting="uniform")(est, X, Y, qid=q) == \
            pytest.approx(uniform)
        assert make_ranking_scorer("min_auc")(est, X, Y, qid=q) == pytest.approx(min_auc(gaucs))
        for kind in ("loss_aggregation", "label_aggregation"):
            sc = make_ranking_scorer(kind)
            assert sc(est, X, Y) == pytest.approx(ranking_criterion(Y, s, objective=kind))
            assert sc(est, X, Y, qid=q) == pytest.approx(
                ranking_criterion(Y, s, objective=kind, qid=q))
    assert make_ranking_scorer("loss_aggregation", a=[1.0, 3.0])(est, X, Y) == pytest.approx(
        ranking_criterion(Y, s, a=[1.0, 3.0]))
    Ydf = pd.DataFrame(Y, columns=["relevant", "noise"])
    assert make_ranking_scorer("auc", label="noise")(est, X, Ydf) == pytest.approx(aucs[1])
    with pytest.raises(ValueError, match="'label' parameter must be a column index"):
        make_ranking_scorer("auc", label="click")(est, X, Ydf)


def test_roc_auc_on_multilabel_Y_is_nan_use_the_auc_scorer(simpson):
    """Documented: scoring="roc_auc" with a multi-label Y fails in every fold (NaN); the "auc"
    scorer of one label equals roc_auc on that label's column."""
    X, Y, q = simpson
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bad = cross_val_score(XGBRanker(**FAST_XGB), X, Y, cv=3, scoring="roc_auc")
    assert np.isnan(bad).all()
    good = cross_val_score(XGBRanker(**FAST_XGB), X, Y[:, 0], cv=3,
                           scoring=make_ranking_scorer("auc", label=0))
    want = cross_val_score(XGBRanker(**FAST_XGB), X, Y[:, 0], cv=3, scoring="roc_auc")
    np.testing.assert_allclose(good, want)
    assert roc_auc_score(Y[:, 0], X[:, 0]) == pytest.approx(
        make_ranking_scorer("auc", label=0)._score_func(Y, X[:, 0], label=0))


def test_ranking_scorers_multimetric_with_routing(simpson):
    X, Y, q = simpson
    with sklearn.config_context(enable_metadata_routing=True):
        est = XGBRanker(**FAST_XGB).set_fit_request(qid=True).set_score_request(qid=True)
        scoring = ranking_scorers(["relevant", "noise"], qid=True)
        res = cross_validate(est, X, Y, cv=GroupKFold(3), scoring=scoring,
                             params={"groups": q, "qid": q})
    keys = {k[len("test_"):] for k in res if k.startswith("test_")}
    assert keys == {"auc_relevant", "auc_noise", "gauc_relevant", "gauc_noise", "min_auc",
                    "diff_auc", "loss_aggregation", "label_aggregation"}
    assert res["test_gauc_relevant"].min() > 0.75
    assert np.all(res["test_diff_auc"] <= 0)


def test_scorer_errors_and_pickling():
    with pytest.raises(ValueError, match="'kind' parameter must be one of"):
        make_ranking_scorer("ndcg")
    with pytest.raises(ValueError, match="'label' parameter is only used"):
        make_ranking_scorer("min_auc", label=0)
    with pytest.raises(ValueError, match="'request_qid' parameter is True but kind='auc'"):
        make_ranking_scorer("auc", request_qid=True)
    with pytest.raises(ValueError, match="'labels' parameter must hold distinct names"):
        ranking_scorers(["a", "a"])
    for kind in SCORER_KINDS:  # joblib workers receive pickled scorers
        pickle.loads(pickle.dumps(make_ranking_scorer(kind)))
    # made while routing is enabled, the qid-using scorers request qid by themselves
    with sklearn.config_context(enable_metadata_routing=True):
        req = make_ranking_scorer("gauc").get_metadata_routing().score.requests
        assert req["qid"] is True
        assert "qid" not in make_ranking_scorer("auc").get_metadata_routing().score.requests
