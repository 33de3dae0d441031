"""Tests of bipartite.contrib.ap_training (HAP-VR, Liu et al. ACM MM 2024, §3.3.2 and Fig. 4; docs/theory.md §8).

Expected values: hand-derived derivatives of the one-positive/one-negative losses, autograd of the
public losses of bipartite.surrogates (per-pair gradients must sum to the per-item gradients),
numpy recomputation of the vanishing rule, sklearn's average_precision_score per query.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.metrics import average_precision_score, roc_auc_score

from bipartite import surrogates
from bipartite.contrib.ap_training import (
    AP_LOSSES,
    make_retrieval,
    pair_gradients,
    ranking_report,
    train_listwise_mlp,
    vanishing_shares,
)


def _sig(x):
    return 1 / (1 + np.exp(-x))


@pytest.mark.parametrize("d", [-0.07, -0.02, 0.0, 0.03, 0.4])
def test_pair_gradient_of_one_pair_by_hand(d):
    """One positive (score 0) and one negative (score d): L = h(φ(d)), h(x) = x / (1 + x), so
    ∂L/∂d = φ'(d) / (1 + φ(d))²; the pairwise logistic loss is softplus(d), derivative σ(d)."""
    delta, tau = 0.05, 0.01
    s, y = [0.0, d], [1.0, 0.0]
    if d >= 0:
        R, dR = 1 + 2 * d / delta, 2 / delta
    else:
        R, dR = max(0.0, 1 + d / delta) ** 2, 2 * max(0.0, 1 + d / delta) / delta
    G, pairs = pair_gradients(s, y, loss="quadlinear_ap", delta=delta)
    assert pairs.tolist() == [[False, True], [False, False]]
    assert G[0, 1].item() == pytest.approx(dR / (1 + R) ** 2, rel=1e-9)
    g = _sig(d / tau)
    G, _ = pair_gradients(s, y, loss="smooth_ap", tau=tau)
    assert G[0, 1].item() == pytest.approx(g * (1 - g) / tau / (1 + g) ** 2, rel=1e-9, abs=1e-300)
    G, _ = pair_gradients(s, y, loss="pairwise_logistic")
    assert G[0, 1].item() == pytest.approx(_sig(d), rel=1e-9)


@pytest.mark.parametrize("loss", AP_LOSSES)
def test_pair_gradients_sum_to_item_gradients(loss, rng):
    """Σ_i ∂L/∂d_ji = ∂L/∂s_j for every negative j (d_ji = s_j − s_i), with the public loss of
    bipartite.surrogates differentiated by autograd; padded items get no pair."""
    n = 9
    s = torch.tensor(rng.normal(scale=0.1, size=(3, n)), requires_grad=True)
    y = torch.tensor((rng.uniform(size=(3, n)) < 0.35).astype(float))
    y[:, 0], y[:, 1] = 1.0, 0.0
    where = torch.ones(3, n, dtype=torch.bool)
    where[1, 6:] = False
    kw = {"delta": 0.05, "rho": 0.5, "tau": 0.05}
    if loss == "quadlinear_ap":
        value = surrogates.quadlinear_ap_loss(s, y, delta=0.05, rho=0.5, where=where)
    elif loss == "smooth_ap":
        value = surrogates.smooth_ap_loss(s, y, tau=0.05, where=where)
    else:
        value = surrogates.pairwise_loss(s, y, kind="logistic", where=where)
    (grad,) = torch.autograd.grad(value, s)
    G, pairs = pair_gradients(s.detach(), y, loss=loss, where=where, **kw)
    neg = (y < 0.5) & where
    # Σ over positives i of G[..., i, j]. Only negatives are checked: they receive gradient
    # through positive-negative pairs alone (Smooth-AP's positive-positive sigmoids feed positives).
    col = G.sum(dim=-2)
    np.testing.assert_allclose(col[neg].numpy(), grad[neg].numpy(), rtol=1e-9, atol=1e-12)
    assert not bool(pairs[1, :, 6:].any()) and not bool(pairs[1, 6:, :].any())


def test_vanishing_rule_recomputed_by_hand(rng):
    """Surrogate view for Smooth-AP: a mis-ranked pair vanishes iff G'(d)/G'(0) = 4G(1−G) < thr;
    QuadLinear-AP and pairwise logistic never vanish in that view (φ' ≥ φ'(0) for d ≥ 0)."""
    s = rng.normal(scale=0.05, size=40)
    y = (rng.uniform(size=40) < 0.3).astype(float)
    y[0], y[1] = 1, 0
    tau, thr = 0.01, 1e-2
    d = s[None, :] - s[:, None]
    pairs = (y[:, None] == 1) & (y[None, :] == 0)
    mis = pairs & (d > 0)
    g = _sig(d[mis] / tau)
    expected = np.mean(4 * g * (1 - g) < thr)
    out = vanishing_shares(s, y, loss="smooth_ap", tau=tau, threshold=thr)
    assert out["misranked"] == pytest.approx(mis.sum() / pairs.sum())
    assert out["surrogate"] == pytest.approx(expected)
    assert 0 < expected < 1
    for loss in ("quadlinear_ap", "pairwise_logistic"):
        assert vanishing_shares(s, y, loss=loss, threshold=thr)["surrogate"] == 0.0
    # full view, QuadLinear-AP, recomputed by hand: ∂L/∂d_ji = h'(x_i) R'(d) / (|S⁺| (1 + ρ P_i))
    # with x_i = N_i / (1 + ρ P_i); near zero = below thr x its mean over mis-ranked pairs.
    delta, rho = 0.05, 0.5
    R = np.where(d >= 0, 1 + 2 * d / delta, np.clip(1 + d / delta, 0, None) ** 2)
    dR = np.where(d >= 0, 2 / delta, 2 * np.clip(1 + d / delta, 0, None) / delta)
    N = (R * (y[None, :] == 0)).sum(axis=1)
    P = ((d > 0) & (y[None, :] == 1)).sum(axis=1)
    x = N / (1 + rho * P)
    grad = dR / (1 + x[:, None]) ** 2 / (1 + rho * P[:, None]) / (y == 1).sum()
    G, _ = pair_gradients(s, y, loss="quadlinear_ap", delta=delta, rho=rho)
    np.testing.assert_allclose(G.numpy()[pairs], grad[pairs], rtol=1e-9)
    expected = np.mean(grad[mis] < thr * grad[mis].mean())
    out = vanishing_shares(s, y, loss="quadlinear_ap", delta=delta, rho=rho, threshold=thr)
    assert out["full"] == pytest.approx(expected)


def test_quadlinear_whole_loss_gradient_can_vanish():
    """R⁻' never vanishes on a mis-ranked pair, but ∂L/∂d_ji = h'(x_i) R⁻'(d)/(…) does when
    positive i sits below many far-away negatives (h saturates): next to a nearly tied pair in
    another query, its pairs get less than 1 % of the mean mis-ranked pair gradient."""
    # query 0: one positive just below one negative; query 1: a positive below 30 far negatives
    s = np.zeros((2, 31))
    y = np.zeros((2, 31))
    s[0, :2], y[0, 0] = [0.0, 0.01], 1.0
    where = np.zeros((2, 31), dtype=bool)
    where[0, :2] = True
    where[1] = True
    s[1] = np.r_[-1.0, np.linspace(0.0, 0.9, 30)]
    y[1, 0] = 1.0
    out = vanishing_shares(torch.tensor(s), torch.tensor(y), where=torch.tensor(where),
                           loss="quadlinear_ap", delta=0.05, rho=1.0)
    assert out["misranked"] == 1.0 and out["n_pairs"] == 31
    assert out["surrogate"] == 0.0
    assert out["full"] == pytest.approx(30 / 31)  # all pairs of query 1 vanish, not query 0's


def test_ranking_report_matches_sklearn_per_query(rng):
    q = np.repeat([0, 1, 2, 3], [5, 6, 4, 5])
    y = (rng.uniform(size=20) < 0.4).astype(int)
    y[q == 3] = 0  # a query without positives: no AP, left out of the mean
    y[q == 0] = [1, 0, 0, 1, 0]
    s = rng.normal(size=20)
    rep = ranking_report(y, s, q)
    aps = [average_precision_score(y[q == g], s[q == g]) for g in range(4) if y[q == g].any()]
    assert rep["map"] == pytest.approx(np.mean(aps))
    assert rep["auc"] == pytest.approx(roc_auc_score(y, s))


def test_training_learns_and_is_deterministic():
    tr = make_retrieval(60, seed=0)
    te = make_retrieval(40, seed=1)
    rng = np.random.default_rng(0)
    base = ranking_report(te.y, rng.normal(size=len(te.y)), te.qid)["map"]
    kw = {"epochs": 6, "random_state": 3, "device": "cpu", "eval_set": (te.X, te.y, te.qid)}
    a = train_listwise_mlp(tr.X, tr.y, tr.qid, loss="quadlinear_ap", track_every=2, **kw)
    b = train_listwise_mlp(tr.X, tr.y, tr.qid, loss="quadlinear_ap", track_every=2, **kw)
    np.testing.assert_array_equal(a.decision_function(te.X), b.decision_function(te.X))
    rep = ranking_report(te.y, a.decision_function(te.X), te.qid)
    assert rep["map"] > base + 0.2
    assert np.all(np.abs(a.decision_function(te.X)) < 1)  # tanh scores
    h = a.history_
    assert len(h["loss"]) == len(h["vanish_full"]) == h["step"][-1]
    assert np.isnan(h["misranked"][0]) and np.isfinite(h["misranked"][1])
    assert [e["epoch"] for e in a.epoch_history_] == list(range(1, 7))


def test_make_retrieval_positive_counts():
    data = make_retrieval(30, items_range=(10, 25), positive_rate=0.15, seed=4)
    for g in np.unique(data.qid):
        m = data.qid == g
        assert data.y[m].sum() == int(np.ceil(0.15 * m.sum()))
        assert 10 <= m.sum() <= 25


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"loss": "lambdarank"}, r"'loss' parameter must be one of"),
        ({"delta": 0.0}, r"'delta' parameter must be a finite number > 0"),
        ({"score_transform": "sigmoid"}, r"'score_transform' parameter"),
        ({"epochs": 0}, r"'epochs' parameter must be an int > 0, got 0"),
    ],
)
def test_train_rejects_bad_options(kwargs, match):
    data = make_retrieval(5, seed=0)
    with pytest.raises(ValueError, match=match):
        train_listwise_mlp(data.X, data.y, data.qid, **kwargs)


def test_train_needs_a_rankable_query():
    X = np.zeros((4, 5))
    with pytest.raises(ValueError, match="No query has both a positive and a negative"):
        train_listwise_mlp(X, [1, 1, 0, 0], [0, 0, 1, 1])


def test_ranking_report_without_qid_is_named():
    """A regression of 0.4 (issue 35): qid=None was an AttributeError."""
    with pytest.raises(TypeError, match="ranking_report missing the required argument 'qid'"):
        ranking_report([1, 0, 0, 1], [0.9, 0.2, 0.5, 0.1], qid=None)

