"""The AUC of a score tensor on its device (``bipartite/metrics/_tensor_auc.py``).

The torch kernel runs on the CPU here (``tensor_auc`` called directly) and on CUDA through the
public :func:`bipartite.metrics.auc` where a GPU is present (marked ``gpu``). The references: the
NumPy kernel of :func:`bipartite.metrics.auc` and :func:`sklearn.metrics.roc_auc_score`.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

import bipartite.metrics._tensor_auc as T
from bipartite import UndefinedMetricWarning
from bipartite._utils.validation import pow2_normalise
from bipartite.metrics import auc

NO_CUDA = "CUDA is not available here (torch.cuda.is_available() is False)"
DTYPES = [torch.float64, torch.float32, torch.float16, torch.int64]


@st.composite
def problems(draw):
    n = draw(st.integers(2, 60))
    seed = draw(st.integers(0, 2**32 - 1))
    levels = draw(st.sampled_from([2, 5, None]))  # heavy ties, some ties, continuous
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[0], y[1] = 0, 1
    s = rng.normal(size=n) if levels is None else rng.integers(0, levels, n).astype(float)
    w = rng.exponential(size=n) * (rng.random(n) < 0.8)
    return y, s, w


@settings(max_examples=60, deadline=None)
@given(problems(), st.sampled_from(DTYPES))
def test_claim_tensor_auc_equals_the_numpy_kernel_and_sklearn(problem, dtype):
    """Claim: for any binary labels with both classes, any scores (ties included) and any
    non-negative weights, the torch kernel gives the NumPy kernel's AUC — exactly without weights
    (integer counts), to 1e-12 with them — and sklearn's ``roc_auc_score``."""
    y, s, w = problem
    s_t = torch.tensor(s).to(dtype)
    s_np = s_t.to(torch.float64).numpy()  # the values the tensor holds (float16 rounds)
    got = T.tensor_auc(y, s_t)
    assert got == auc(y, s_np)
    assert got == pytest.approx(roc_auc_score(y, s_np), abs=1e-12)
    if w[y == 1].sum() > 0 and w[y == 0].sum() > 0:
        got_w = T.tensor_auc(torch.tensor(y), s_t, torch.tensor(w))
        assert got_w == pytest.approx(auc(y, s_np, sample_weight=w), abs=1e-12)
        assert got_w == pytest.approx(roc_auc_score(y, s_np, sample_weight=w), abs=1e-12)


def test_ties_count_half_and_the_two_zeros_tie():
    assert T.tensor_auc([0, 1], torch.tensor([1.0, 1.0])) == 0.5
    assert T.tensor_auc([0, 1, 1], torch.tensor([-0.0, 0.0, 0.0])) == 0.5
    assert T.tensor_auc([0, 1, 0], torch.tensor([True, False, True])) == auc([0, 1, 0], [1, 0, 1])


def test_tie_group_sums_against_a_loop():
    s = torch.tensor([3.0, 1.0, 3.0, 2.0, 1.0, 3.0])
    W = torch.tensor([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [0.5, 0.0, 1.0, 0.0, 1.0, 0.0]],
                     dtype=torch.float64)
    expected = [[sum(W[r, i].item() for i in range(6) if s[i] == v) for v in (1.0, 2.0, 3.0)]
                for r in range(2)]
    assert T.tie_group_sums(s, W).tolist() == expected


def test_one_class_is_nan_with_a_warning():
    with pytest.warns(UndefinedMetricWarning, match="only one class"):
        assert np.isnan(T.tensor_auc([1, 1], torch.tensor([1.0, 2.0])))
    with pytest.warns(UndefinedMetricWarning, match="only one class"):
        assert np.isnan(T.tensor_auc([0, 1], torch.tensor([1.0, 2.0]), [1.0, 0.0]))


@pytest.mark.parametrize("args, match", [
    (([0, 2], torch.tensor([1.0, 2.0])), r"'y_true' .* only 0 and 1, got 2 at index 1"),
    (([0, 1], torch.tensor([1.0, float("nan")])), r"'y_score' .* finite, got nan at index 1"),
    (([0, 1], torch.tensor([1.0, float("inf")])), r"'y_score' .* finite, got inf at index 1"),
    (([0, 1, 1], torch.tensor([1.0, 2.0])), r"'y_true' has 3, 'y_score' has 2"),
    (([0, 1], torch.tensor([[1.0, 2.0]])), r"'y_score' .* 1-D, got shape \(1, 2\)"),
    (([], torch.tensor([])), r"'y_score' .* not be empty"),
    (([0, 1], torch.tensor([1.0, 2.0]), [1.0, -1.0]),
     r"'sample_weight' .* non-negative, got -1 at index 1"),
    (([0, 1], torch.tensor([1.0, 2.0]), [1.0]), r"'sample_weight' has 1, 'y_score' has 2"),
    (([0, 1], torch.tensor([1.0, 2.0]), [1.0, float("nan")]), r"'sample_weight' .* finite"),
])
def test_bad_input_is_named(args, match):
    with pytest.raises(ValueError, match=match):
        T.tensor_auc(*args)


def test_complex_scores_are_refused():
    with pytest.raises(TypeError, match="'y_score' .* real"):
        T.tensor_auc([0, 1], torch.tensor([1.0 + 0j, 2.0]))


def test_pow2_normalise_of_a_tensor_equals_the_array_one():
    rng = np.random.default_rng(3)
    for scale in (1e-300, 1e-5, 1.0, 3e7, 1e300):
        x = rng.random(50) * scale
        assert torch.equal(pow2_normalise(torch.tensor(x)), torch.tensor(pow2_normalise(x)))
    with pytest.raises(ValueError, match="axis=0"):
        pow2_normalise(torch.ones(3), 0)


def test_a_cpu_tensor_takes_the_numpy_kernel(monkeypatch):
    def refuse(*args):
        raise AssertionError("the torch kernel ran for a CPU tensor")

    monkeypatch.setattr(T, "tensor_auc", refuse)
    assert auc(torch.tensor([0, 1, 1]), torch.tensor([0.1, 0.7, 0.3])) == 1.0


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason=NO_CUDA)
@pytest.mark.parametrize("dtype", DTYPES)
def test_auc_of_a_cuda_tensor_runs_there_and_equals_the_cpu_kernel(dtype, monkeypatch):
    rng = np.random.default_rng(7)
    n = 100_003
    s = torch.tensor(rng.integers(0, 1000, n).astype(float)).to(dtype)
    y, w = rng.integers(0, 2, n), rng.exponential(size=n)
    calls = []
    real = T.tensor_auc
    monkeypatch.setattr(T, "tensor_auc", lambda *a: calls.append(a[1].device) or real(*a))
    s_np = s.to(torch.float64).numpy()
    assert auc(torch.tensor(y).cuda(), s.cuda()) == auc(y, s_np)
    assert auc(y, s.cuda(), sample_weight=w) == pytest.approx(auc(y, s_np, sample_weight=w),
                                                              abs=1e-12)
    assert [d.type for d in calls] == ["cuda", "cuda"]
