"""The AUC of scores held in a torch tensor, computed on the tensor's device (docs/theory.md §2).

:func:`bipartite.metrics.auc` sends a ``y_score`` tensor on an accelerator (CUDA, MPS, ...) here,
so that scores a model produced on the GPU are ranked there, with ``torch.sort``, instead of being
copied to the host; a CPU tensor takes the NumPy kernel (``bipartite/metrics/_kernels.py``),
which is faster on the CPU.

The kernel is the NumPy one's tie-group route on torch: one ``torch.sort`` of the scores; the
tie groups (runs of equal sorted scores: ``-0.0`` and ``0.0`` compare equal, so they tie); per
group, the positive weight ``P_t`` and the negative weight ``N_t``, as differences of one running
sum (float64) at the groups' last rows; then the terms
``P_t (N_below,t + ½ N_t)`` of :func:`bipartite.metrics._sorted_rows.auc_terms` (the formula's one
home), summed and divided by ``ΣP ΣN``.

Accuracy. Without weights every sum is an integer count, exact in float64 below 2**53 rows: the
AUC equals the CPU kernel's bit for bit. With weights a group sum, as a difference of running
sums, carries a rounding error of about 2**-53 of the running total (the CPU kernel sums each
group apart): the two agree to about 1e-12 in the tests. Deterministic: the scan has a fixed
order. Measured against ``torch.segment_reduce`` (a sum per group) on an H200 with 10**8 scores,
the sort included: 22 ms against 258 ms with distinct scores (cub's segmented reduce spends a
block on each one-row group), 16 ms each with 1 000 tied levels; with exponential weights the
group sums of the two differed by at most 1.6e-15 of the total weight.

Weights are scaled by a power of two first, as on the CPU
(:func:`bipartite._utils.validation.pow2_normalise`), which changes no ratio and keeps the
products inside the float64 range.

Imported only when a tensor on an accelerator arrives (``bipartite.metrics`` stays torch-free).
"""

from __future__ import annotations

import torch

from bipartite._utils.tensor_checks import (
    check_binary_where,
    check_finite_where,
    check_nonnegative_where,
)
from bipartite._utils.validation import (
    as_plain_array,
    check_array,
    check_dense_tensor,
    pow2_normalise,
    warn_undefined,
)
from bipartite.metrics._sorted_rows import auc_terms

__all__ = ["tensor_auc", "tie_group_sums"]


def _scores(y_score: torch.Tensor) -> torch.Tensor:
    """``y_score`` as a 1-D real tensor that ``torch.sort`` orders exactly (bool as uint8)."""
    s = y_score.detach()
    if s.is_complex():
        raise TypeError(f"The 'y_score' parameter must be a real tensor, got dtype {s.dtype}.")
    if s.dtype == torch.bool:
        s = s.to(torch.uint8)
    if s.ndim != 1:
        raise ValueError(f"The 'y_score' parameter must be 1-D, got shape {tuple(s.shape)}.")
    if s.numel() == 0:
        raise ValueError("The 'y_score' parameter must not be empty, got shape (0,).")
    if torch.is_floating_point(s):
        check_finite_where(s, torch.ones((), dtype=torch.bool, device=s.device), "y_score")
    return s


def _on_device(x, name: str, n: int, device: torch.device) -> torch.Tensor:
    """A per-row argument (labels or weights) as a 1-D float64 tensor of length n on ``device``:
    a tensor is moved there, anything else goes through the one array conversion first."""
    if check_dense_tensor(x, name):
        t = x.detach()
        if t.is_complex():
            raise TypeError(f"The '{name}' parameter must be real, got dtype {t.dtype}.")
    else:
        t = torch.as_tensor(check_array(as_plain_array(x, name), name, ndim=1, finite=False))
    if t.ndim != 1:
        raise ValueError(f"The '{name}' parameter must be 1-D, got shape {tuple(t.shape)}.")
    if t.shape[0] != n:
        raise ValueError(f"Inconsistent numbers of samples: '{name}' has {t.shape[0]}, "
                         f"'y_score' has {n}.")
    return t.to(device=device, dtype=torch.float64)


def tie_group_sums(scores: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """One ``torch.sort``; per tie group (ascending score order), the sums of each weight row.

    The torch counterpart of :func:`bipartite.metrics._kernels.ranked_sums`, on the scores'
    device.

    Parameters
    ----------
    scores : (n,) real tensor
    weights : (m, n) float64 tensor on the same device

    Returns
    -------
    G : (m, T) float64 tensor, T the number of distinct scores.
    """
    ordered, order = torch.sort(scores)
    last = torch.ones_like(ordered, dtype=torch.bool)  # the last row of each tie group
    torch.ne(ordered[1:], ordered[:-1], out=last[:-1])
    ends = torch.nonzero(last).squeeze(1)
    del ordered, last
    G = []
    for r in weights:  # one 1-D scan per row (a scan along dim 1 of a (m, n) tensor is slow)
        C = torch.cumsum(r[order], 0)[ends]
        G.append(torch.diff(C, prepend=C.new_zeros(1)))
    return torch.stack(G)


def _below(G: torch.Tensor) -> torch.Tensor:
    """Sums over the strictly lower tie groups: the running sum shifted by one (as
    :func:`bipartite.metrics._kernels.below`, not ``cumsum − G``)."""
    out = torch.zeros_like(G)
    torch.cumsum(G[..., :-1], dim=-1, out=out[..., 1:])
    return out


def tensor_auc(y_true, y_score: torch.Tensor, sample_weight=None) -> float:
    """:func:`bipartite.metrics.auc` of a ``y_score`` tensor, on its device.

    ``y_true`` and ``sample_weight`` may be tensors (on any device) or array-likes; they are moved
    to the device of ``y_score``. NaN with an :class:`~bipartite.UndefinedMetricWarning` when
    only one class has positive weight.
    """
    s = _scores(y_score)
    n, dev = s.shape[0], s.device
    y = _on_device(y_true, "y_true", n, dev)
    every = torch.ones((), dtype=torch.bool, device=dev)
    check_finite_where(y, every, "y_true")
    check_binary_where(y, every, "y_true")
    if sample_weight is None:
        w = torch.ones_like(y)
    else:
        w = _on_device(sample_weight, "sample_weight", n, dev)
        check_finite_where(w, every, "sample_weight")
        check_nonnegative_where(w, every, "sample_weight")
        w = pow2_normalise(w)
    G = tie_group_sums(s, torch.stack([y * w, (1.0 - y) * w]))
    P, N = G[0], G[1]
    denom = P.sum() * N.sum()
    if not bool(denom > 0):
        return warn_undefined("AUC is undefined: y_true has only one class (with positive weight).")
    return float(auc_terms(P, N, _below(N)).sum() / denom)
