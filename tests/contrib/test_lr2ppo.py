"""LR2PPO: partial-order pairs, stage-1 regressor, reward model, PPO with the partial-order ratio."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from bipartite.contrib.lr2ppo import (
    LR2PPO,
    PairRewardModel,
    RelevanceRegressor,
    finetune_on_pairs,
    partial_order_pairs,
    partial_order_policy_loss,
    within_group_pairs,
)
from bipartite.metrics import ndcg_at_k


# ---------------------------------------------------------------------------------------------
# pairs
# ---------------------------------------------------------------------------------------------
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=25))
def test_pairs_match_brute_force(items):
    """Claim: within_group_pairs = all i < j in one group; partial_order_pairs = all (i, j) in one
    group with rel_i > rel_j (preferred first), nothing else."""
    groups = [g for g, _ in items]
    rel = [r for _, r in items]
    n = len(items)
    expected = [[i, j] for i, j in itertools.combinations(range(n), 2) if groups[i] == groups[j]]
    assert within_group_pairs(groups).tolist() == expected
    po = {tuple(p) for p in partial_order_pairs(rel, groups).tolist()}
    brute = {(i, j) for i, j in itertools.permutations(range(n), 2)
             if groups[i] == groups[j] and rel[i] > rel[j]}
    assert po == brute
    assert len(partial_order_pairs(rel, groups)) == len(brute)


def test_pairs_validation():
    with pytest.raises(ValueError, match="'relevance' parameter must be non-negative"):
        partial_order_pairs([1, -1], [0, 0])
    with pytest.raises(ValueError, match="Inconsistent numbers of samples: 'relevance' has 2, 'qid'"):
        partial_order_pairs([1, 0], [0, 0, 0])


# ---------------------------------------------------------------------------------------------
# the policy loss (Eq. 7-9)
# ---------------------------------------------------------------------------------------------
def _policy_loss_ref(p1, p2, adv, m, delta):
    """Eq. 7-9 written out with Python floats."""
    total = 0.0
    for a, b, A in zip(p1, p2, adv, strict=True):
        h = max(0.0, m - (a - b)) if A >= delta else max(0.0, m - (b - a))
        r_prime = -h
        total += -r_prime * abs(A)
    return total / len(p1)


@given(st.lists(st.tuples(st.floats(-3, 3), st.floats(-3, 3), st.floats(-2, 2)), min_size=1,
                max_size=12),
       st.floats(0.1, 2.0), st.sampled_from([-0.1, 0.0, 0.3]))
def test_policy_loss_matches_reference(rows, m, delta):
    """Claim: partial_order_policy_loss equals Eq. 7-9 computed by hand."""
    p1, p2, adv = (list(t) for t in zip(*rows, strict=True))
    got = partial_order_policy_loss(torch.tensor(p1, dtype=torch.float64),
                                    torch.tensor(p2, dtype=torch.float64),
                                    torch.tensor(adv, dtype=torch.float64), margin=m, delta=delta)
    assert float(got) == pytest.approx(_policy_loss_ref(p1, p2, adv, m, delta), abs=1e-12)


def test_policy_loss_gradient_direction():
    """Advantage >= delta pushes p1 up and p2 down (reinforce the action); below delta the
    opposite (reverse it); the advantage is a constant (no gradient)."""
    for A, sign in ((1.0, 1.0), (-0.05, 1.0), (-1.0, -1.0)):
        p1 = torch.tensor([0.2], dtype=torch.float64, requires_grad=True)
        p2 = torch.tensor([0.0], dtype=torch.float64, requires_grad=True)
        adv = torch.tensor([A], dtype=torch.float64, requires_grad=True)
        partial_order_policy_loss(p1, p2, adv, margin=1.0, delta=-0.1).backward()
        assert float(-p1.grad) * sign > 0 and float(p2.grad) * sign > 0
        assert adv.grad is None or float(adv.grad) == 0.0


# ---------------------------------------------------------------------------------------------
# models on a synthetic ranking task with a "wrong" source model
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def task():
    rng = np.random.default_rng(0)
    n, q = 600, 60
    X = rng.normal(size=(n, 4))
    util = X[:, 0] + 0.5 * X[:, 1]
    rel = np.digitize(util, [0.3, 1.2]).astype(float)          # grades 0/1/2
    groups = np.arange(n) % q
    test = groups >= 45
    return X, rel, groups, test


def _ndcg(rel, s, g):
    return ndcg_at_k(rel, s, k=5, qid=g)


def test_relevance_regressor_smoothl1_and_determinism(task):
    X, rel, g, test = task
    kw = dict(hidden=(16,), epochs=10, lr=1e-2, random_state=0, device="cpu")
    a = RelevanceRegressor(**kw).fit(X, rel)
    b = RelevanceRegressor(**kw).fit(X, rel)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert a.loss_curve_[-1] < a.loss_curve_[0]
    assert _ndcg(rel[test], a.decision_function(X[test]), g[test]) > 0.8
    # torch's smooth_l1_loss with beta is the paper's Eq. 3
    p, y, beta = torch.tensor([0.0, 0.1, 2.0]), torch.tensor([0.2, 0.5, 0.0]), 0.3
    eq3 = [0.5 * (0.2) ** 2 / beta, 0.4 - 0.5 * beta, 2.0 - 0.5 * beta]
    got = torch.nn.functional.smooth_l1_loss(p, y, beta=beta, reduction="none")
    np.testing.assert_allclose(got.numpy(), eq3, rtol=1e-6)


def test_reward_model_learns_pairs_and_accuracy_counts_ties(task):
    X, rel, g, test = task
    pairs = partial_order_pairs(rel[~test], g[~test])
    rm = PairRewardModel(hidden=(16,), epochs=8, lr=3e-3, random_state=0,
                         device="cpu").fit(X[~test], pairs)
    held = partial_order_pairs(rel[test], g[test])
    assert rm.accuracy(X[test], held) > 0.85
    # a constant reward model ties every pair: accuracy exactly 1/2
    with torch.no_grad():
        for prm in rm.net_.parameters():
            prm.zero_()
    assert rm.accuracy(X[test], held) == 0.5


def test_stage3_recovers_from_a_wrong_base_model(task):
    """Stage 1 on a misleading source (relevance from the wrong feature), reward model from a
    few correct target pairs: PPO with the partial-order ratio raises target NDCG."""
    X, rel, g, test = task
    wrong = np.digitize(X[:, 1] - X[:, 0], [0.3, 1.2]).astype(float)
    base = RelevanceRegressor(hidden=(16,), epochs=5, lr=3e-3, random_state=0,
                              device="cpu").fit(X[~test], wrong[~test])
    rng = np.random.default_rng(1)
    pairs = partial_order_pairs(rel[~test], g[~test])
    few = pairs[rng.random(len(pairs)) < 0.2]
    rm = PairRewardModel(hidden=(16,), epochs=10, lr=3e-3, random_state=0,
                         device="cpu").fit(X[~test], few)
    ppo = LR2PPO(base, rm, n_iters=40, n_trajs=96, random_state=0, device="cpu")
    ppo.fit(X[~test], g[~test])
    s1 = _ndcg(rel[test], base.decision_function(X[test]), g[test])
    s3 = _ndcg(rel[test], ppo.decision_function(X[test]), g[test])
    assert s3 > s1 + 0.1, (s1, s3)
    # the stage-1 model is not modified; history has one entry per iteration
    assert _ndcg(rel[test], base.decision_function(X[test]), g[test]) == s1
    assert len(ppo.history_) == 40 and ppo.history_[-1]["kl"] > 0
    # the direct fine-tuning control also uses the pairs
    tuned = finetune_on_pairs(base, X[~test], few, epochs=5, lr=3e-3, random_state=0)
    assert _ndcg(rel[test], tuned.decision_function(X[test]), g[test]) > s1


def test_lr2ppo_deterministic_and_variants(task):
    X, rel, g, test = task
    base = RelevanceRegressor(hidden=(8,), epochs=2, random_state=0, device="cpu").fit(X, rel)
    rm = PairRewardModel(hidden=(8,), epochs=2, random_state=0,
                         device="cpu").fit(X, partial_order_pairs(rel, g))
    kw = dict(n_iters=3, n_trajs=48, random_state=3, device="cpu")
    a = LR2PPO(base, rm, **kw).fit(X, g)
    b = LR2PPO(base, rm, **kw).fit(X, g)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert a.history_ == b.history_
    for extra in ({"ratio": "original"}, {"kl_placement": "loss"}, {"sample_actions": False}):
        m = LR2PPO(base, rm, **kw, **extra).fit(X, g)
        assert np.isfinite(m.decision_function(X)).all()
    seen = []
    LR2PPO(base, rm, **kw).fit(X, g, callback=lambda it, model: seen.append(it) or {"x": it})
    assert seen == [1, 2, 3]


def test_lr2ppo_validation(task):
    X, rel, g, _ = task
    base = RelevanceRegressor(hidden=(4,), epochs=1, random_state=0, device="cpu").fit(X, rel)
    rm = PairRewardModel(hidden=(4,), epochs=1, random_state=0,
                         device="cpu").fit(X, partial_order_pairs(rel, g))
    with pytest.raises(ValueError, match="'actor' parameter must be a fitted"):
        LR2PPO(RelevanceRegressor(), rm).fit(X, g)
    with pytest.raises(ValueError, match="'ratio' parameter must be one of"):
        LR2PPO(base, rm, ratio="clipped").fit(X, g)
    with pytest.raises(ValueError, match="'n_iters' parameter"):
        LR2PPO(base, rm, n_iters=0).fit(X, g)
    with pytest.raises(ValueError, match="'pairs' parameter must hold row indices"):
        PairRewardModel(epochs=1).fit(X, [[0, len(X)]])
    with pytest.raises(RuntimeError, match="not fitted"):
        RelevanceRegressor().decision_function(X)
    with pytest.raises(ValueError, match="'X' parameter must have 4 columns"):
        base.decision_function(X[:, :2])
