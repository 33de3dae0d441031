"""The learners and the surrogate losses on CUDA, and the same code paths on the CPU through the
``device`` argument.

Every test takes a ``device`` from the fixture below: ``"cpu"`` and ``torch.device("cpu")`` always
run (they go through the device-argument paths a GPU run uses: tensors created on ``device``, the
CPU generator that drives a CUDA loss, the network kept on the CPU between fits), and ``"cuda"``
is marked ``gpu`` and skipped, with the reason, when ``torch.cuda.is_available()`` is False
(``pytest -m gpu`` selects the CUDA runs on a GPU machine). Results on the device are compared
with the float64 CPU values of the same functions.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bipartite import surrogates as S
from bipartite.learners import MLPRanker

NO_CUDA = "CUDA is not available here (torch.cuda.is_available() is False)"


@pytest.fixture(params=[
    "cpu",
    pytest.param(torch.device("cpu"), id="torch.device-cpu"),
    pytest.param("cuda", marks=[pytest.mark.gpu,
                                pytest.mark.skipif(not torch.cuda.is_available(), reason=NO_CUDA)]),
])
def device(request):
    return request.param


def on(device) -> str:
    """The device type of a device argument ("cpu" or "cuda")."""
    return torch.device(device).type


def rel_tol(device) -> dict:
    """CPU runs must agree bit for bit with the CPU reference; CUDA kernels sum in another order."""
    return dict(rtol=0, atol=0) if on(device) == "cpu" else dict(rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# Surrogate losses: value and gradient on the device equal the CPU float64 ones
# ---------------------------------------------------------------------------------------------
def _value_and_grad(fn, scores: np.ndarray, device):
    s = torch.tensor(scores, dtype=torch.float64, device=device, requires_grad=True)
    out = fn(s)
    assert out.device.type == on(device)
    out.sum().backward()
    assert s.grad.device.type == on(device)
    return out.detach().cpu().numpy(), s.grad.cpu().numpy()


def _losses(y, r, w_pairs, where):
    """name -> loss of scores, labels and options built on the scores' device."""
    def dev(t, s):
        return t.to(s.device)

    return {
        **{f"pairwise_{k}": (lambda s, k=k: S.pairwise_loss(s, dev(y, s), kind=k,
                                                             where=dev(where, s)))
           for k in S.PAIRWISE_KINDS},
        "pairwise_loss_aggregation": lambda s: S.pairwise_loss(
            s, None, pair_weights=dev(w_pairs, s), where=dev(where, s), reduction="sum"),
        "lsep": lambda s: S.lsep_loss(s, dev(y, s), where=dev(where, s)),
        "rlsep": lambda s: S.rlsep_loss(s, dev(r, s), where=dev(where, s), reduction="none"),
        # a CPU generator drives the pair subset of a loss on any device
        "lsep_sampled": lambda s: S.lsep_loss(s, dev(y, s), num_pairs=3, generator=5),
        "smooth_ap": lambda s: S.smooth_ap_loss(s, dev(y, s), where=dev(where, s)),
        "quadlinear_ap": lambda s: S.quadlinear_ap_loss(s, dev(y, s), where=dev(where, s)),
        "margin_ranking": lambda s: S.margin_ranking_loss(s[..., 2], s[..., 3], margin=4.0),
    }


LOSS_NAMES = [*(f"pairwise_{k}" for k in S.PAIRWISE_KINDS), "pairwise_loss_aggregation", "lsep",
              "rlsep", "lsep_sampled", "smooth_ap", "quadlinear_ap", "margin_ranking"]


@pytest.mark.parametrize("name", LOSS_NAMES)
def test_surrogate_losses_on_device_equal_cpu_float64(name, device):
    rng = np.random.default_rng(11)
    scores = rng.normal(scale=3.0, size=(3, 6))
    scores[0, :2] = [45.0, -45.0]  # large differences: the exact log-sigmoid / log1p forms
    y = torch.tensor(rng.integers(0, 2, size=(3, 6)), dtype=torch.float64)
    y[:, 0], y[:, 1] = 1.0, 0.0  # every list has a positive and a negative
    r = torch.tensor(rng.integers(0, 4, size=(3, 6)), dtype=torch.float64)
    where = torch.ones(3, 6, dtype=torch.bool)
    where[2, 4:] = False
    Yk = torch.tensor(rng.integers(0, 2, size=(3, 6, 2)), dtype=torch.float64)
    w_pairs = S.loss_aggregation_pair_weights(Yk, where=where)
    fn = _losses(y, r, w_pairs, where)[name]
    v_cpu, g_cpu = _value_and_grad(fn, scores, "cpu")
    v, g = _value_and_grad(fn, scores, device)
    assert np.all(np.isfinite(v)) and np.all(np.isfinite(g))
    np.testing.assert_allclose(v, v_cpu, **rel_tol(device))
    np.testing.assert_allclose(g, g_cpu, **rel_tol(device))
    assert np.any(g != 0)


def test_lsep_sampling_with_a_cpu_generator_is_the_same_subset_on_any_device(device):
    """The pair subset is drawn on the generator's device and moved: a CPU generator with one seed
    picks the same pairs for a loss on the CPU and on the device."""
    s = torch.arange(8.0, dtype=torch.float64).reshape(1, 8)
    y = torch.tensor([[1, 0, 1, 0, 1, 0, 1, 0]], dtype=torch.float64)
    want = S.lsep_loss(s, y, num_pairs=4, generator=torch.Generator().manual_seed(3))
    got = S.lsep_loss(s.to(device), y.to(device), num_pairs=4,
                      generator=torch.Generator().manual_seed(3))
    assert got.device.type == on(device)
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), **rel_tol(device))
    full = S.lsep_loss(s, y)
    assert float(want) < float(full)  # a strict subset of the 16 pairs


# ---------------------------------------------------------------------------------------------
# Learners: fit and predict with the device argument
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(160, 4))
    Y = (X[:, :2] + 0.5 * rng.normal(size=(160, 2)) > 0).astype(int)
    return X, Y


# enough training (lr 0.01, 30 epochs, no early stop) that every objective learns: score > 0.6
FAST = dict(hidden=(8,), epochs=30, batch_size=32, lr=0.01, n_iter_no_change=30, random_state=0)


@pytest.mark.parametrize("objective, method", [("loss_aggregation", "pairwise"),
                                               ("loss_aggregation", "plugin"),
                                               ("label_aggregation", "pairwise"),
                                               ("label_aggregation", "pointwise")])
def test_mlp_ranker_fits_and_predicts_on_device(objective, method, device, data):
    X, Y = data
    est = MLPRanker(objective=objective, method=method, device=device, **FAST).fit(X, Y)
    assert torch.device(est.device_).type == on(device)
    assert next(est.net_.parameters()).device.type == "cpu"  # kept on the CPU between fits
    s = est.decision_function(X)
    assert s.shape == (len(X),) and np.all(np.isfinite(s))
    # prediction in batches on the fitted device gives the same scores
    np.testing.assert_allclose(est.set_params(predict_batch_size=17).decision_function(X), s,
                               rtol=1e-6, atol=1e-7)
    ref = MLPRanker(objective=objective, method=method, device="cpu", **FAST).fit(X, Y)
    ref = ref.decision_function(X)
    if on(device) == "cpu":  # str and torch.device arguments: the same computation
        np.testing.assert_array_equal(s, ref)
    else:  # float32 training on another device: close, not equal
        np.testing.assert_allclose(s, ref, rtol=1e-3, atol=1e-3)
    assert est.score(X, Y) > 0.6


def test_mlp_ranker_max_min_on_device(device, data):
    X, Y = data
    est = MLPRanker(objective="max_min", method="pairwise", device=device, **FAST).fit(X, Y)
    assert torch.device(est.device_).type == on(device)
    assert np.all(np.isfinite(est.decision_function(X)))


@pytest.mark.parametrize("loss", ["bce", "lsep", "rlsep"])
def test_label_ranking_mlp_on_device(loss, device):
    from bipartite.contrib.label_ranking import LabelRankingMLP, make_ranked_labels

    d = make_ranked_labels(120, seed=0)
    kw = dict(loss=loss, hidden=(8,), epochs=3, batch_size=32, random_state=0)
    est = LabelRankingMLP(device=device, **kw).fit(d.X, d.ranks)
    out = est.decision_function(d.X)
    assert out.shape == d.ranks.shape and np.all(np.isfinite(out))
    ref = LabelRankingMLP(device="cpu", **kw).fit(d.X, d.ranks).decision_function(d.X)
    np.testing.assert_allclose(out, ref, **(dict(rtol=0, atol=0) if on(device) == "cpu"
                                            else dict(rtol=1e-6, atol=1e-8)))


def test_listwise_ap_training_on_device(device):
    from bipartite.contrib.ap_training import make_retrieval, train_listwise_mlp

    tr = make_retrieval(30, seed=0)
    kw = dict(loss="pairwise_logistic", epochs=2, hidden=(8,), random_state=1)
    est = train_listwise_mlp(tr.X, tr.y, tr.qid, device=device, **kw)
    s = est.decision_function(tr.X)
    assert np.all(np.isfinite(s)) and np.all(np.abs(s) < 1)
    ref = train_listwise_mlp(tr.X, tr.y, tr.qid, device="cpu", **kw).decision_function(tr.X)
    if on(device) == "cpu":
        np.testing.assert_array_equal(s, ref)
    else:
        np.testing.assert_allclose(s, ref, rtol=1e-3, atol=1e-4)
