"""The AP family (HAP-VR Eq. 6-12, docs/theory.md §8): one kernel ``_ap_kernel`` that takes the step
function of positive-negative pairs and that of positive-positive pairs (STYLE habit 5). The AP
risk (:func:`ap_risk`), Smooth-AP (:func:`smooth_ap_loss`) and QuadLinear-AP
(:func:`quadlinear_ap_loss`) are :func:`ap_loss` with their steps (:func:`heaviside_ge`,
:func:`sigmoid_step`, :func:`quadlinear`, :func:`heaviside_gt`).
"""

from __future__ import annotations

import torch
from numpy.typing import ArrayLike

from bipartite._utils.tensor_checks import (
    as_elementwise,
    as_scores,
    check_finite_where,
    safe_reduce,
)
from bipartite._utils.validation import check_option, check_positive, warn_undefined
from bipartite.surrogates._inputs import REDUCTIONS, Step, prepare_inputs

__all__ = ["ap_loss", "ap_risk", "heaviside_ge", "heaviside_gt", "sigmoid_step",
           "smooth_ap_loss", "quadlinear", "quadlinear_ap_loss"]


def heaviside_ge(d: torch.Tensor) -> torch.Tensor:
    """``1[d >= 0]``: an item tied with i counts as ranked above i (sklearn's tie rule)."""
    return (d >= 0).to(d.dtype)


def heaviside_gt(d: torch.Tensor) -> torch.Tensor:
    """HAP-VR's Heaviside ``H(d) = 1[d > 0]`` (Section 3.1): ties count as below (a step of
    :func:`ap_loss`)."""
    return (d > 0).to(d.dtype)


def _ap_kernel(
    scores: torch.Tensor,
    labels: torch.Tensor,
    valid: torch.Tensor,
    *,
    neg_step: Step,
    pos_step: Step,
    rho: float = 1.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-query AP risk with pluggable steps (HAP-VR Eq. 8 / 11).

    For each valid positive i, with ``d_ji = s_j - s_i``:
    ``N_i = Σ_{j neg} neg_step(d_ji)``, ``P_i = Σ_{j pos, j != i} pos_step(d_ji)`` and
    ``risk_i = h(N_i / (1 + ρ P_i)) = N_i / (1 + ρ P_i + N_i)``, ``h(x) = x / (1 + x)``.
    Returns (mean of risk_i over the positives of each query [...], has-a-positive mask [...]).
    """
    d = scores[..., None, :] - scores[..., :, None]  # d[..., i, j] = s_j - s_i
    pos = ((labels > 0.5) & valid).to(scores.dtype)
    neg = ((labels < 0.5) & valid).to(scores.dtype)
    # Row sums over the n x n step matrices as batched mat-vecs with the 0/1 class vectors: no
    # masked copy of an n x n matrix, and the backward is a mat-vec too. The steps are finite
    # everywhere (padded scores were zeroed by prepare_inputs), so excluded j carry exact zeros in
    # value and gradient.
    S = pos_step(d)
    if neg_step is pos_step:   # one step matrix and one mat-mat product (AP risk, Smooth-AP)
        NP = S @ torch.stack([neg, pos], dim=-1)
        N, P = NP[..., 0], NP[..., 1]
    else:
        N, P = (neg_step(d) @ neg[..., None]).squeeze(-1), (S @ pos[..., None]).squeeze(-1)
    # The self pair (d_ii = s_i − s_i = 0 exactly: no gradient) is the "1 +" of the rank, not a P
    # term: subtract it, detached (its backward would be an n x n zero matrix). All terms are
    # >= 0 and the sum contains S_ii, so the rounded difference is still >= 0.
    P = P - torch.diagonal(S, dim1=-2, dim2=-1).detach() * pos
    # N, P >= 0 and rho >= 0, so the denominator is >= 1: no division hazard, and the written
    # form N / (1 + ρP + N) equals h(N / (1 + ρP)) without a nested division.
    risk = N / (1 + rho * P + N)
    n_pos = pos.sum(-1)
    per_query = (risk * pos).sum(-1) / n_pos.clamp(min=1)
    return per_query, n_pos > 0


def ap_loss(scores: torch.Tensor | ArrayLike, labels: torch.Tensor | ArrayLike, *, neg_step: Step, pos_step: Step, rho: float = 1.0,
            where: torch.Tensor | ArrayLike | None = None, reduction: str = "mean") -> torch.Tensor:
    """The generic AP core (HAP-VR Eq. 8 / 11, docs/theory.md §8) with pluggable step functions.

    Per query, for each valid positive i with ``d_ji = s_j - s_i``:
    ``N_i = Σ_{j neg} neg_step(d_ji)``, ``P_i = Σ_{j pos, j≠i} pos_step(d_ji)`` and
    ``risk_i = h(N_i / (1 + ρ P_i))``, ``h(x) = x / (1 + x)``; the query's value is the mean of
    ``risk_i`` over its positives. The AP risk (:func:`ap_risk`: both steps
    :func:`heaviside_ge`), Smooth-AP (:func:`smooth_ap_loss`: both :func:`sigmoid_step`) and
    QuadLinear-AP (:func:`quadlinear_ap_loss`: :func:`quadlinear` and :func:`heaviside_gt`) are
    this core with their steps; pass your own steps for a new member of the family.

    ``reduction``: ``"mean"`` over the queries with at least one positive (0 if none, with zero
    gradients), ``"sum"``, or ``"none"`` (one value per query; 0 for a query without positives).

    >>> import torch
    >>> s, y = torch.tensor([0.9, 0.8, 0.7, 0.6]), torch.tensor([1.0, 0.0, 1.0, 0.0])
    >>> round(ap_loss(s, y, neg_step=heaviside_ge, pos_step=heaviside_ge).item(), 4)  # 1 - AP
    0.1667
    """
    check_option(reduction, "reduction", REDUCTIONS)
    if not callable(neg_step) or not callable(pos_step):
        raise TypeError("The 'neg_step' and 'pos_step' parameters must be callables of a tensor, "
                        f"got {neg_step!r} and {pos_step!r}.")
    rho = check_positive(rho, "rho", allow_zero=True)
    s, y, valid = prepare_inputs(scores, labels, where, binary=True)
    per_query, has_pos = _ap_kernel(s, y, valid, neg_step=neg_step, pos_step=pos_step, rho=rho)
    return safe_reduce(per_query, has_pos.to(s.dtype), reduction)


def ap_risk(scores: torch.Tensor | ArrayLike, labels: torch.Tensor | ArrayLike, *, where: torch.Tensor | ArrayLike | None = None, reduction: str = "none"
            ) -> torch.Tensor:
    """AP risk ``1 - AP`` of each query (HAP-VR Eq. 6/8, docs/theory.md §8).

    ``AP↓ = 1/|S⁺| Σ_{i ∈ S⁺} h(Σ_{j ∈ S⁻} H(d_ji) / (1 + Σ_{j ∈ S⁺, j ≠ i} H(d_ji)))`` with
    ``h(x) = x / (1 + x)``, ``d_ji = s_j - s_i``.

    **Ties.** Here ``H(d) = 1[d >= 0]``: an item tied with positive i counts as ranked above it.
    That is exactly sklearn's ``average_precision_score``, which treats tied scores as one threshold
    (each positive of a tie group gets the precision at the bottom of the group). HAP-VR writes
    ``H(d) = 1[d > 0]``, which counts ties as below (an optimistic AP); the two agree on tie-free
    scores only.

    Parameters
    ----------
    scores, labels : tensor [..., n_items]; labels binary
    where : bool tensor [..., n_items], optional
    reduction : {"none", "mean", "sum"}
        Default ``"none"``: one value per query, shape [...]. A query without positives has no AP:
        its value is NaN with an :class:`~bipartite.UndefinedMetricWarning` (sklearn returns AP 0
        there). ``"mean"``/``"sum"`` run over the queries with at least one positive (NaN with a
        warning when there is none). A query without negatives has risk 0 (AP = 1).

    This is a metric, not a loss: it is piecewise constant in the scores, and the result carries
    no autograd graph (``requires_grad`` is False).

    >>> import torch
    >>> s = torch.tensor([0.9, 0.8, 0.7, 0.6])
    >>> y = torch.tensor([1.0, 0.0, 1.0, 0.0])
    >>> round(ap_risk(s, y).item(), 4)  # AP = (1 + 2/3) / 2
    0.1667
    """
    check_option(reduction, "reduction", ("none", "mean", "sum"))
    s, y, valid = prepare_inputs(scores, labels, where, binary=True)
    per_query, has_pos = _ap_kernel(s, y, valid, neg_step=heaviside_ge, pos_step=heaviside_ge)
    if not bool(has_pos.all()):
        warn_undefined("ap_risk: a query has no positive item; its AP is undefined (NaN).")
        if reduction != "none" and not bool(has_pos.any()):
            return torch.full((), torch.nan, dtype=s.dtype, device=s.device)
    if reduction == "none":
        return torch.where(has_pos, per_query, torch.full_like(per_query, torch.nan))
    return safe_reduce(torch.where(has_pos, per_query, torch.zeros_like(per_query)),
                        has_pos.to(s.dtype), reduction)


def sigmoid_step(x: torch.Tensor | ArrayLike, tau: float = 0.01, *,
                 check_input: bool = True) -> torch.Tensor:
    """Smooth-AP's step surrogate ``G(x; τ) = 1 / (1 + e^{−x/τ})`` (HAP-VR Eq. 7, docs/theory.md §8).

    Elementwise on a tensor (or array-like) ``x`` of any shape, 0-d included: as a step of
    :func:`ap_loss` it is applied to ``[..., n, n]`` matrices of score differences. ``x`` must be
    non-empty and finite (NaN or ±inf is refused by name). ``check_input=False`` skips the
    checks of ``x`` (a tensor, as in scikit-learn's ``check_input``) for a trainer's hot loop whose
    differences are finite by construction; ``tau`` is always checked.

    >>> import torch
    >>> round(float(sigmoid_step(torch.tensor(0.0))), 2)
    0.5
    """
    tau = check_positive(tau, "tau")
    return _sigmoid_step(as_elementwise(x, "x") if check_input else x, tau)


def _sigmoid_step(x: torch.Tensor, tau: float) -> torch.Tensor:
    """Kernel of :func:`sigmoid_step` (inputs validated): the step of the AP losses' hot loop."""
    # torch.sigmoid is stable for large |x / tau| (no exp overflow, saturates to 0 / 1).
    return torch.sigmoid(x / tau)


def smooth_ap_loss(scores: torch.Tensor | ArrayLike, labels: torch.Tensor | ArrayLike, *, tau: float = 0.01, where: torch.Tensor | ArrayLike | None = None,
                   reduction: str = "mean") -> torch.Tensor:
    """Smooth-AP (Brown et al. 2020; HAP-VR Eq. 7, docs/theory.md §8): AP risk with a sigmoid step.

    The AP kernel of :func:`ap_risk` with ``H`` replaced by ``G(x; τ) = 1 / (1 + e^{-x/τ})`` for
    both the positive-negative and the positive-positive pairs (so a tie counts ½).

    ``reduction="mean"`` averages over the queries with at least one positive; a query without
    positives contributes 0 to ``"sum"``/``"none"`` and is left out of the mean (0 if no query has
    a positive), with zero, finite gradients. A query without negatives has loss 0.

    >>> import torch
    >>> s = torch.tensor([0.9, 0.8, 0.7, 0.6])
    >>> y = torch.tensor([1.0, 0.0, 1.0, 0.0])
    >>> round(smooth_ap_loss(s, y, tau=0.01).item(), 4)
    0.1667
    """
    tau = check_positive(tau, "tau")

    def step(d: torch.Tensor) -> torch.Tensor:
        return _sigmoid_step(d, tau)  # d is finite: the scores were checked by prepare_inputs

    return ap_loss(scores, labels, neg_step=step, pos_step=step, where=where, reduction=reduction)


def quadlinear(x: torch.Tensor | ArrayLike, delta: float = 0.1, *,
               check_input: bool = True) -> torch.Tensor:
    """QuadLinear step surrogate ``R⁻(x; δ)`` of HAP-VR Eq. 10 (docs/theory.md §8).

    ``R⁻(x; δ) = 0`` for ``x < -δ``, ``(1 + x/δ)²`` for ``-δ <= x < 0`` and ``1 + 2x/δ`` for
    ``x >= 0``. It is C¹ (derivative 0 at -δ, 2/δ at 0) but not C², convex, non-decreasing and
    ``>= 1[x >= 0]``.

    Elementwise on ``x`` of any shape (as a step of :func:`ap_loss` it sees ``[..., n, n]``
    matrices of score differences); ``x`` must be non-empty and finite. ``check_input=False``
    skips the checks of ``x`` (a tensor), as in :func:`sigmoid_step`.

    >>> import torch
    >>> quadlinear(torch.tensor([-0.2, -0.05, 0.0, 0.1]), delta=0.1)
    tensor([0.0000, 0.2500, 1.0000, 3.0000])
    """
    delta = check_positive(delta, "delta")
    if not check_input:
        return _quadlinear(x, delta)
    x = as_scores(x, "x", min_ndim=0)
    if x.numel() == 0:
        raise ValueError(f"The 'x' parameter must not be empty, got shape {tuple(x.shape)}.")
    check_finite_where(x, torch.ones((), dtype=torch.bool, device=x.device), "x")
    return _quadlinear(x, delta)


def _quadlinear(x: torch.Tensor, delta: float) -> torch.Tensor:
    """Kernel of :func:`quadlinear` (inputs validated): the step of the AP losses' hot loop."""
    # With z = max(0, 1 + x/δ): the quadratic piece is z² and the linear one 1 + 2x/δ = 2z - 1.
    # Both branches are finite everywhere, so torch.where passes clean gradients.
    z = torch.clamp(1 + x / delta, min=0)
    return torch.where(x >= 0, 2 * z - 1, z * z)


def quadlinear_ap_loss(scores: torch.Tensor | ArrayLike, labels: torch.Tensor | ArrayLike, *, delta: float = 0.1, rho: float = 1.0,
                       where: torch.Tensor | ArrayLike | None = None, reduction: str = "mean") -> torch.Tensor:
    """QuadLinear-AP loss (HAP-VR Eq. 11-12, docs/theory.md §8).

    Per query: ``1/|S⁺| Σ_{i ∈ S⁺} h(Σ_{j ∈ S⁻} R⁻(d_ji; δ) / (1 + ρ Σ_{j ∈ S⁺, j≠i} H(d_ji)))``,
    the AP kernel of :func:`ap_risk` with :func:`quadlinear` on positive-negative pairs and HAP-VR's
    Heaviside ``H(d) = 1[d > 0]`` on positive-positive pairs; the final loss is the mean over
    queries (Eq. 12). For ``ρ <= 1`` it upper-bounds :func:`ap_risk`; for ``ρ > 1`` it need not.

    ``reduction`` and queries without positives/negatives as in :func:`smooth_ap_loss`.

    >>> import torch
    >>> s = torch.tensor([0.9, 0.8, 0.7, 0.6])
    >>> y = torch.tensor([1.0, 0.0, 1.0, 0.0])
    >>> round(quadlinear_ap_loss(s, y, delta=0.1, rho=1.0).item(), 4)  # (0 + h(3/2)) / 2
    0.3
    """
    delta = check_positive(delta, "delta")
    return ap_loss(scores, labels, neg_step=lambda d: _quadlinear(d, delta), pos_step=heaviside_gt,
                   rho=rho, where=where, reduction=reduction)
