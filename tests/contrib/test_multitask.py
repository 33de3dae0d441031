"""Tests of bipartite.contrib.multitask.MultiTaskMLP (shared-bottom and MMoE; MTRUB §2.3, §3.2).

Reference for MMoE: Ma et al., "Modeling task relationships in multi-task learning with
multi-gate mixture-of-experts", KDD 2018. Expected values: sklearn's roc_auc_score, a hand
recomputation of the MMoE forward pass, and fit-to-fit equality for determinism.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.metrics import roc_auc_score

from bipartite.contrib.multitask import MultiTaskMLP


def _separable(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    Y = np.column_stack([X[:, 0] + X[:, 1] > 0, X[:, 2] - X[:, 0] > 0, X[:, 3] > 0.5]).astype(int)
    return X, Y


@pytest.mark.parametrize("architecture", ["shared_bottom", "mmoe"])
def test_learns_a_separable_problem(architecture):
    X, Y = _separable()
    model = MultiTaskMLP(tasks=3, architecture=architecture, epochs=40, random_state=0,
                         device="cpu").fit(X, Y)
    Xt, Yt = _separable(seed=1)
    P = model.predict_proba(Xt)
    assert P.shape == (600, 3)
    assert np.all((P > 0) & (P < 1))
    for k in range(3):
        assert roc_auc_score(Yt[:, k], P[:, k]) > 0.95
    np.testing.assert_allclose(P, 1 / (1 + np.exp(-model.decision_function(Xt))))
    np.testing.assert_array_equal(model.predict(Xt), (P > 0.5).astype(int))


def test_deterministic_on_cpu_and_leaves_global_rng_alone():
    X, Y = _separable(200)
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    a = MultiTaskMLP(tasks=3, architecture="mmoe", epochs=5, random_state=7, device="cpu")
    pa = a.fit(X, Y).predict_proba(X)
    after = torch.rand(1)
    assert torch.equal(before, after)  # fitting did not consume torch's global generator
    pb = clone(a).fit(X, Y).predict_proba(X)
    np.testing.assert_array_equal(pa, pb)
    pc = MultiTaskMLP(tasks=3, architecture="mmoe", epochs=5, random_state=8,
                      device="cpu").fit(X, Y).predict_proba(X)
    assert not np.array_equal(pa, pc)


def test_mmoe_gates_mix_experts_as_documented():
    """The MMoE output equals tower_k(Σ_e softmax(W_k x)_e expert_e(x)), recomputed by hand."""
    X, Y = _separable(100)
    model = MultiTaskMLP(tasks=3, architecture="mmoe", n_experts=3, epochs=2, random_state=0,
                         device="cpu").fit(X, Y)
    gates = model.gate_weights(X)
    assert gates.shape == (100, 3, 3)
    np.testing.assert_allclose(gates.sum(axis=2), 1.0, rtol=1e-6)
    net = model.model_
    Z = torch.as_tensor((X - model.mean_) / model.scale_, dtype=torch.float32)
    with torch.no_grad():
        experts = [e(Z) for e in net.experts]
        for k in range(3):
            g = torch.softmax(net.gates[k](Z), dim=1)
            mixed = sum(g[:, e:e + 1] * experts[e] for e in range(3))
            logit = net.towers[k](mixed)[:, 0].double().numpy()
            np.testing.assert_allclose(model.decision_function(X)[:, k], logit, rtol=1e-5,
                                       atol=1e-6)
    with pytest.raises(ValueError, match="gate_weights needs architecture='mmoe'"):
        MultiTaskMLP(tasks=3, epochs=1, random_state=0, device="cpu").fit(X, Y).gate_weights(X)


def test_early_stopping_restores_the_best_epoch():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 5))
    Y = rng.integers(0, 2, size=(150, 2))  # pure noise: the held-out loss soon rises
    model = MultiTaskMLP(tasks=2, epochs=300, patience=3, lr=1e-2, random_state=0,
                         device="cpu").fit(X, Y)
    val = model.history_["val_loss"]
    assert model.n_epochs_ < 300
    assert model.n_epochs_ == len(val)
    best = int(np.argmin(val))
    assert len(val) - 1 - best >= 3  # stopped after `patience` epochs without improvement


def test_task_weights_zero_task_is_not_trained():
    """With w_2 = 0 the second tower gets no gradient: its weights stay at their initial values
    (Adam's L2 weight decay would move them: weight_decay=0)."""
    X, Y = _separable(200)
    kw = {"tasks": 3, "epochs": 3, "random_state": 0, "device": "cpu", "weight_decay": 0.0,
          "validation_fraction": 0.0}
    a = MultiTaskMLP(**kw, task_weights=[1.0, 0.0, 1.0]).fit(X, Y)
    b = MultiTaskMLP(**{**kw, "epochs": 1}, task_weights=[1.0, 0.0, 1.0]).fit(X, Y)
    for pa, pb in zip(a.model_.towers[1].parameters(), b.model_.towers[1].parameters(),
                      strict=True):
        assert torch.equal(pa, pb)
    assert not torch.equal(next(a.model_.towers[0].parameters()),
                           next(b.model_.towers[0].parameters()))


@pytest.mark.parametrize(
    "params, match",
    [
        ({"architecture": "ple"}, r"'architecture' parameter must be one of"),
        ({"tasks": 0}, r"'tasks' parameter must be an int > 0, got 0"),
        ({"hidden": (8, 0)}, r"'hidden' parameter"),
        ({"lr": -1.0}, r"'lr' parameter must be a finite number > 0, got -1.0"),
        ({"validation_fraction": 0.7}, r"'validation_fraction' parameter must be in \[0, 0.5\)"),
        ({"task_weights": [1.0, -1.0, 1.0]}, r"'task_weights' parameter must hold 3"),
    ],
)
def test_bad_parameters_raise(params, match):
    X, Y = _separable(50)
    with pytest.raises(ValueError, match=match):
        MultiTaskMLP(**{"tasks": 3, "epochs": 1, **params}).fit(X, Y)


def test_bad_data_raises():
    X, Y = _separable(50)
    with pytest.raises(ValueError, match="must have tasks=2 columns, got 3"):
        MultiTaskMLP(tasks=2, epochs=1).fit(X, Y)
    with pytest.raises(ValueError, match="'Y' parameter must contain only 0 and 1"):
        MultiTaskMLP(tasks=3, epochs=1).fit(X, Y * 2)
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        MultiTaskMLP(tasks=3, epochs=1).fit(X[:10], Y)
    with pytest.raises(RuntimeError, match="not fitted"):
        MultiTaskMLP(tasks=3).predict_proba(X)
    model = MultiTaskMLP(tasks=3, epochs=1, random_state=0, device="cpu").fit(X, Y)
    with pytest.raises(ValueError, match="'X' parameter must have 4 columns, got 3"):
        model.predict_proba(X[:, :3])
