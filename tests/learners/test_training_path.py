"""The fast paths of MLPRanker's pairwise training step against their slow references.

* ``MLPRanker._standardise`` (row blocks through one reused float64 buffer) against the one-line
  ``((X - mean_) / scale_).astype(float32)``, bit for bit;
* the non-pair mask of the fused pair sum (:class:`bipartite._pair_losses._PairSum`): on the CPU
  with finite differences a product with the weights' 0/1 pattern, otherwise a boolean mask. The
  product is checked against the dense masked sum (``pair_loss_fn``, which runs
  ``_pairwise_kernel``), and the guard against scores whose differences overflow (the product
  would turn ``inf · 0`` into NaN on a non-pair).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bipartite.learners import MLPRanker
from bipartite.surrogates import make_pair_loss, pairwise_loss


def test_standardise_equals_the_one_line_reference():
    """Claim: the blocked standardisation equals the full float64 expression cast to float32,
    bit for bit, across several 4096-row blocks and a ragged tail, for float32 and float64 X."""
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        X = (rng.normal(size=(4096 * 2 + 37, 5)) * [1.0, 1e3, 1e-3, 7.0, 1.0]).astype(dtype)
        est = MLPRanker()
        est.mean_ = X.mean(axis=0, dtype=np.float64)
        est.scale_ = X.std(axis=0, dtype=np.float64)
        want = ((X - est.mean_) / est.scale_).astype(np.float32)
        got = est._standardise(X)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(est._standardise(X[:3]), want[:3])  # one short block


@pytest.mark.parametrize("kind", ["logistic", "exponential", "hinge", "squared_hinge"])
def test_product_mask_equals_the_dense_masked_sum(kind):
    """Claim: with pair weights on the CPU (the product mask), the fused pairwise loss equals the
    dense path (a custom φ: ``w * φ(where(w != 0, d, 0))``) in value and gradient, on ragged
    float32 lists with zero-weight pairs whose reversed differences are large."""
    rng = np.random.default_rng(1)
    s_np = (rng.normal(size=(4, 30)) * 20).astype(np.float32)
    W = torch.as_tensor(rng.random((4, 30, 30)) * (rng.random((4, 30, 30)) < 0.3),
                        dtype=torch.float32)
    where = torch.as_tensor(rng.random((4, 30)) < 0.9)
    phi = make_pair_loss(kind)
    grads, values = [], []
    for fn in (None, phi):
        s = torch.tensor(s_np, requires_grad=True)
        loss = pairwise_loss(s, None, kind=kind, pair_weights=W, where=where, reduction="sum",
                             pair_loss_fn=fn)
        loss.backward()
        values.append(loss.detach())
        grads.append(s.grad)
    assert torch.isfinite(values[0]) and torch.isfinite(grads[0]).all()
    torch.testing.assert_close(values[0], values[1], rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(grads[0], grads[1], rtol=1e-5, atol=1e-6)


def test_overflowing_differences_take_the_boolean_mask():
    """Claim: scores whose difference overflows float32 on a non-pair (3e38 − (−3e38) = inf)
    keep a finite loss and gradient: the guard sends them to the boolean mask (a product would
    give inf · 0 = NaN there). Pairs (0, 2) and (1, 2) only: φ(3e38) + φ(−3e38) = 0 + 3e38."""
    s = torch.tensor([3e38, -3e38, 0.0], requires_grad=True)
    W = torch.tensor([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    loss = pairwise_loss(s, None, kind="logistic", pair_weights=W, reduction="sum")
    loss.backward()
    assert loss.item() == pytest.approx(3e38, rel=1e-6)
    torch.testing.assert_close(s.grad, torch.tensor([0.0, -1.0, 1.0]))
