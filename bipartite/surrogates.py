"""Surrogate ranking losses in PyTorch (docs/theory.md §8, §11).

Every loss takes scores of shape ``[..., n_items]`` (any leading batch dimensions: queries,
instances), labels of the same shape, keyword-only options and a boolean mask ``where`` of the same
shape for ragged lists (``False`` = padding: the item takes part in no pair and gets zero
gradient, whatever its score or label).

Families share one private kernel each (STYLE habit 5):

* pairwise losses — :func:`pairwise_loss` (logistic, exponential, hinge, squared hinge), weighted
  by :func:`loss_aggregation_pair_weights` (docs/theory.md §4) or :func:`label_aggregation_pair_weights`
  (docs/theory.md §3); kernel ``_pairwise_kernel``. The pair losses φ live once, in the table
  :data:`PAIR_LOSSES` (one :class:`PairLoss` per kind: its torch, NumPy and cvxpy forms, ``None``
  where a form does not exist); :data:`PAIRWISE_KINDS` is its keys. **Adding a surrogate** is one
  entry there plus its line in the agreement test (docs/theory.md §8.1);
* log-sum-exp pairwise losses — :func:`lsep_loss` (RLSEP Eq. 3), :func:`rlsep_loss` (RLSEP Eq. 6);
  kernel ``_lse_pairs_kernel``;
* AP losses — :func:`ap_risk` (HAP-VR Eq. 6/8), :func:`smooth_ap_loss` (sigmoid step),
  :func:`quadlinear_ap_loss` (HAP-VR Eq. 10-11); kernel ``_ap_kernel`` takes the step function of
  positive-negative pairs and that of positive-positive pairs as arguments;
* :func:`margin_ranking_loss` (LR2PPO Eq. 4).

Reductions go through one safe reducer: a mean over nothing is 0 (rax ``safe_reduce``), a real NaN
still shows. The losses work on any device: they follow the device of ``scores``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from numpy.typing import ArrayLike

from bipartite._pair_losses import (
    PAIR_LOSSES,
    PairLoss,
    PairWeightRows,
    get_pair_loss,
    label_pair_sum,
    pair_loss_sum,
)
from bipartite._utils.tensor_checks import (
    as_elementwise,
    as_float_array,
    as_like,
    as_scores,
    as_where,
    check_binary_where,
    check_finite_where,
    check_generator,
    check_pair_weights,
    first_bad,
    safe_reduce,
)
from bipartite._utils.validation import (
    check_dense_tensor,
    check_option,
    check_positive,
    warn_undefined,
)

__all__ = [
    "PAIR_LOSSES",
    "PAIRWISE_KINDS",
    "PairLoss",
    "PairWeightRows",
    "get_pair_loss",
    "ap_loss",
    "heaviside_ge",
    "heaviside_gt",
    "make_pair_loss",
    "prepare_inputs",
    "pairwise_loss",
    "loss_aggregation_pair_weights",
    "label_aggregation_pair_weights",
    "lsep_loss",
    "rlsep_loss",
    "margin_ranking_loss",
    "ap_risk",
    "sigmoid_step",
    "smooth_ap_loss",
    "quadlinear",
    "quadlinear_ap_loss",
]

#: The pair-loss kinds: the keys of :data:`PAIR_LOSSES` (docs/theory.md §8.1).
PAIRWISE_KINDS = tuple(PAIR_LOSSES)
_REDUCTIONS = ("mean", "sum", "none")

Step = Callable[[torch.Tensor], torch.Tensor]


# ----------------------------------------------------------------------------------------------
# Input step (the checks live in bipartite._utils.tensor_checks)
# ----------------------------------------------------------------------------------------------


def prepare_inputs(scores: torch.Tensor | ArrayLike, labels: torch.Tensor | ArrayLike, where: torch.Tensor | ArrayLike, *, labels_name: str = "labels",
             binary: bool = False) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Validate ``scores``/``labels``/``where`` ([..., n_items] each); zero out padded entries.

    The input step of every loss here, public so that a trainer built on :func:`ap_loss` or
    :func:`pairwise_loss` validates the same way. Returns ``(scores, labels, where)`` tensors.

    Padded scores are replaced by 0 (with zero gradient) so that a NaN or inf used as padding can
    never reach a kernel: ``0 * nan`` in a backward pass would poison every gradient.
    """
    s = as_scores(scores)
    y = as_like(labels, labels_name, s)
    valid = as_where(where, s)
    check_finite_where(s, valid, "scores")
    check_finite_where(y, valid, labels_name)
    if binary:
        check_binary_where(y, valid, labels_name)
    zero = torch.zeros((), dtype=s.dtype, device=s.device)
    return torch.where(valid, s, zero), torch.where(valid, y, zero), valid


# ----------------------------------------------------------------------------------------------
# Pairwise losses (docs/theory.md §8, weights from §3 and §4)
# ----------------------------------------------------------------------------------------------


def make_pair_loss(kind: str, margin: float = 1.0) -> Callable[[torch.Tensor], torch.Tensor]:
    """The pair loss ``φ(x)`` of a score difference ``x = f_i - f_j`` (i should rank above j), for
    ``kind`` in :data:`PAIRWISE_KINDS` (docs/theory.md §8); ``margin`` is the hinge margin, a
    finite number ``> 0`` (checked for every kind, though only the hinges use it).

    The torch form of the table entry :data:`PAIR_LOSSES` ``[kind]``, bound to ``margin``: the
    building block of :func:`pairwise_loss` (rax's ``pair_loss_fn``). Pass it, or any callable of
    the same form, as ``pairwise_loss(..., pair_loss_fn=...)``.

    >>> round(float(make_pair_loss("logistic")(torch.tensor(0.0))), 4)  # log 2
    0.6931
    """
    phi = get_pair_loss(kind).form("torch")
    margin = check_positive(margin, "margin")
    return lambda x: phi(x, margin)


def _pairwise_kernel(
    scores: torch.Tensor,
    weights: torch.Tensor,
    phi: Callable[[torch.Tensor], torch.Tensor],
    reduction: str,
) -> torch.Tensor:
    """Σ_{(i,j)} w_ij φ(f_i - f_j), reduced, on the dense [..., n, n] ``weights`` (0 = no pair):
    the path of a custom φ and of ``reduction="none"`` (the others run the fused
    :func:`~bipartite._pair_losses.pair_loss_sum`)."""
    diff = scores[..., :, None] - scores[..., None, :]  # diff[..., i, j] = f_i - f_j
    # Pairs of weight 0 see x = 0 (finite phi) so exp(-x) cannot overflow to inf there and turn
    # 0 * inf into NaN in the forward or backward pass.
    losses = weights * phi(torch.where(weights != 0, diff, 0.0))
    return safe_reduce(losses, weights, reduction)


def pairwise_loss(
    scores: torch.Tensor | ArrayLike,
    labels: torch.Tensor | ArrayLike | None,
    *,
    kind: str = "logistic",
    pair_weights: torch.Tensor | ArrayLike | None = None,
    where: torch.Tensor | ArrayLike | None = None,
    reduction: str = "mean",
    margin: float = 1.0,
    pair_loss_fn: Callable[[torch.Tensor], torch.Tensor] | None = None,
    check_input: bool = True,
) -> torch.Tensor:
    """Pairwise ranking loss ``Σ_{(i,j)} w_ij φ(f_i - f_j)`` over ordered pairs (docs/theory.md §8).

    Pairs are the (i, j) with ``labels_i > labels_j`` (graded labels allowed) and both items valid
    in ``where``. The pair losses φ are

    * ``"logistic"``: ``log(1 + exp(-(f_i - f_j)))`` (computed as a softplus),
    * ``"exponential"``: ``exp(-(f_i - f_j))``,
    * ``"hinge"``: ``max(0, margin - (f_i - f_j))``,
    * ``"squared_hinge"``: ``max(0, margin - (f_i - f_j))²``.

    A pair of tied scores is not a win: it costs φ(0) like any other pair.

    Parameters
    ----------
    scores : tensor [..., n_items]
    labels : tensor [..., n_items] or None
        Graded relevance, non-negative (0 = irrelevant; binary labels are the grades 0 and 1,
        larger grades are allowed and only their order matters; a negative label is refused).
        ``None`` is allowed when ``pair_weights`` is given: then the pairs are those with
        ``pair_weights > 0`` (needed for loss aggregation, where an item can be above another for
        one label and below it for another).
    kind : {"logistic", "exponential", "hinge", "squared_hinge"}
    pair_weights : tensor [..., n_items, n_items], optional
        Non-negative weight ``w_ij`` of the pair "i above j", e.g. from
        :func:`loss_aggregation_pair_weights` or :func:`label_aggregation_pair_weights`.
        Default 1 per valid pair.
    where : bool tensor [..., n_items], optional
        Validity mask for ragged lists.
    reduction : {"mean", "sum", "none"}
        ``"sum"``: ``Σ w_ij φ_ij`` over the whole batch; ``"mean"``: ``Σ w_ij φ_ij / Σ w_ij`` (the
        weighted mean over valid pairs, pooled over the batch; 0 when there is no valid pair);
        ``"none"``: the [..., n, n] matrix ``w_ij φ_ij`` (0 off the valid pairs).
    margin : float
        Margin of the hinge losses, a finite number ``> 0`` (checked always, used by the hinges
        only).
    pair_loss_fn : callable, optional
        A custom pair loss ``φ(x)`` (elementwise on a tensor of differences ``x = f_i - f_j``);
        it replaces ``kind`` and ``margin``. The generic core of every pairwise loss: the built-in
        kinds are ``make_pair_loss(kind, margin)``.
    check_input : bool
        ``False`` skips the checks of ``scores``, ``labels``, ``where``, ``pair_weights`` (then
        tensors of the right shapes; finite; >= 0), as scikit-learn's ``check_input``, for a
        trainer that validated once per fit; the options are always checked.

    A built-in ``kind`` with "mean"/"sum" runs a fused, chunked kernel (no n × n temporary,
    first-order backward): with labels alone :func:`bipartite._pair_losses.label_pair_sum`,
    which sorts each list by grade and visits only the pairs (n₊ n₋ with binary labels), else
    :func:`bipartite._pair_losses.pair_loss_sum`; a custom ``pair_loss_fn`` and
    ``reduction="none"`` run the dense path.

    With loss-aggregation weights and ``reduction="sum"`` the loss is the surrogate of
    ``Σ_k a_k (1 - AUC_k)`` (docs/theory.md §4); with label-aggregation weights, of ``1 - AUC_MP`` (§3).

    >>> s = torch.tensor([2.0, 0.0, 1.0])
    >>> y = torch.tensor([1.0, 0.0, 0.0])
    >>> round(pairwise_loss(s, y).item(), 4)  # mean of softplus(-2) and softplus(-1)
    0.2201
    >>> round(pairwise_loss(s, y, kind="hinge", reduction="sum").item(), 4)
    0.0
    """
    check_option(kind, "kind", PAIRWISE_KINDS)
    check_option(reduction, "reduction", _REDUCTIONS)
    margin = check_positive(margin, "margin")
    if pair_loss_fn is not None and not callable(pair_loss_fn):
        raise TypeError(f"The 'pair_loss_fn' parameter must be callable, got {pair_loss_fn!r}.")
    if labels is None and pair_weights is None:
        raise ValueError("The 'labels' parameter may be None only when 'pair_weights' is given.")
    if check_input:
        s = as_scores(scores)
        valid = as_where(where, s)
        check_finite_where(s, valid, "scores")
    else:
        s = scores
        valid = torch.ones(s.shape, dtype=torch.bool, device=s.device) if where is None else where
    s = torch.where(valid, s, torch.zeros((), dtype=s.dtype, device=s.device))
    n = s.shape[-1]
    w = pair_weights
    if isinstance(w, PairWeightRows):
        if check_input and tuple(w.shape) != (*s.shape, n):
            raise ValueError(f"The 'pair_weights' parameter must have shape {(*s.shape, n)} "
                             f"([..., n_items, n_items]), got shape {tuple(w.shape)}.")
    elif w is not None:
        w = check_pair_weights(w, s, valid) if check_input else w
    if labels is not None:
        y = _check_grades(labels, s, valid) if check_input else labels
        # hi_i > lo_j iff both are valid and y_i > y_j: one comparison per pair
        hi, lo = torch.where(valid, y, -torch.inf), torch.where(valid, y, torch.inf)
    phi = pair_loss_fn if pair_loss_fn is not None else make_pair_loss(kind, margin)

    def rows(r0: int, r1: int) -> torch.Tensor:
        """W[..., r0:r1, :] restricted to the valid pairs (0 elsewhere)."""
        if labels is not None:
            mask = hi[..., r0:r1, None] > lo[..., None, :]
            if w is None:
                return mask.to(s.dtype)
        elif not isinstance(w, PairWeightRows):
            mask = valid[..., r0:r1, None] & valid[..., None, :]
        if isinstance(w, PairWeightRows):
            block = w.rows(r0, r1).to(s.dtype)
            return block if labels is None else torch.where(mask, block, 0.0)
        block = w[..., r0:r1, :].to(s.dtype)
        return torch.where(mask & (block > 0), block, 0.0)

    if pair_loss_fn is not None or reduction == "none" or getattr(w, "requires_grad", False):
        # dense: a custom φ may close over tensors needing gradients; "none" returns n x n anyway
        return _pairwise_kernel(s, rows(0, n), phi, reduction)
    if labels is not None and w is None:  # visit the pairs only (sorted by grade)
        total, weight = label_pair_sum(s, hi, lo, phi)
    else:
        total, weight = pair_loss_sum(s, rows, phi)
    if reduction == "sum":
        return total
    return total / torch.where(weight > 0, weight, torch.ones_like(weight))


def _check_grades(labels, s: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """Relevance grades of the shape of ``s``: finite and non-negative where valid."""
    y = as_like(labels, "labels", s)
    check_finite_where(y, valid, "labels")
    bad = (y < 0) & valid
    if bool(bad.any()):
        value, idx = first_bad(bad, y)
        raise ValueError(f"The 'labels' parameter must hold non-negative relevance grades "
                         f"(0 = irrelevant), got {value:g} at index {idx}.")
    return y


def loss_aggregation_pair_weights(Y: torch.Tensor | ArrayLike, *, a: ArrayLike | None = None,
                                  where: torch.Tensor | ArrayLike | None = None,
                                  dense: bool = True, check_input: bool = True
                                  ) -> torch.Tensor | PairWeightRows:
    """Pair weights of loss aggregation (docs/theory.md §4): Σ_k a_k AUC_k as a pairwise sum.

    ``W[..., i, j] = Σ_k a_k 1[y_ik = 1, y_jk = 0] / (n⁺_k n⁻_k)`` where ``n⁺_k``/``n⁻_k`` count the
    valid positives/negatives of label k in the same list (each leading index is its own batch).
    Then ``Σ_ij W_ij 1[f_i > f_j] = Σ_k a_k AUC_k`` (ties counted 0), so each label is normalised
    like its AUC. A label with one class in a list contributes no pair (its AUC is undefined).

    Parameters
    ----------
    Y : tensor [..., n_items, K]
        Binary labels.
    a : array-like (K,), optional
        Non-negative mixing weights ``a_k`` (default 1).
    where : bool tensor [..., n_items], optional
        Validity mask of the items.

    dense : bool
        ``False`` returns the weights unmaterialised (:class:`PairWeightRows`: rows of
        ``(a_k 1[y_ik = 1] / (n⁺_k n⁻_k)) @ 1[y_jk = 0]ᵀ`` on demand) for :func:`pairwise_loss`.
    check_input : bool
        ``False`` skips the checks of ``Y`` (a floating tensor, binary on the valid rows), ``a``
        and ``where`` (a boolean tensor or None), for a trainer that validated once per fit.

    Returns
    -------
    tensor [..., n_items, n_items] of the dtype of ``Y`` (default dtype if ``Y`` is not floating),
    or :class:`PairWeightRows` of that shape.

    >>> Y = torch.tensor([[1, 0], [0, 1], [0, 0]])
    >>> loss_aggregation_pair_weights(Y, a=[1.0, 2.0])
    tensor([[0.0000, 0.5000, 0.5000],
            [1.0000, 0.0000, 1.0000],
            [0.0000, 0.0000, 0.0000]])
    """
    if check_input:
        if not check_dense_tensor(Y, "Y"):  # sparse and meta tensors refused by name
            Y = torch.as_tensor(as_float_array(Y, "Y"))
        if Y.ndim < 2 or Y.numel() == 0:
            raise ValueError(
                f"The 'Y' parameter must be a non-empty array of shape [..., n_items, K] with "
                f"n_items, K >= 1, got shape {tuple(Y.shape)}."
            )
        dtype = Y.dtype if torch.is_floating_point(Y) else torch.get_default_dtype()
        Yf = Y.to(dtype)
        K = Y.shape[-1]
        if where is None:
            valid = torch.ones(Y.shape[:-1], dtype=torch.bool, device=Y.device)
        else:
            valid = as_where(where, Yf[..., 0])
        check_binary_where(Yf, valid[..., None].expand(Yf.shape), "Y")
        if a is None:
            a_t = torch.ones(K, dtype=dtype, device=Y.device)
        else:
            a_t = torch.as_tensor(as_float_array(a, "a")).to(dtype=dtype, device=Y.device)
            if tuple(a_t.shape) != (K,):
                raise ValueError(f"The 'a' parameter must have shape ({K},), got shape "
                                 f"{tuple(a_t.shape)}.")
            check_finite_where(a_t, torch.ones_like(a_t, dtype=torch.bool), "a")
            bad = a_t < 0
            if bool(bad.any()):
                value, idx = first_bad(bad, a_t)
                raise ValueError(
                    f"The 'a' parameter must be non-negative, got {value:g} at index {idx}."
                )
    else:
        dtype, Yf, K = Y.dtype, Y, Y.shape[-1]
        valid = torch.ones(Y.shape[:-1], dtype=torch.bool, device=Y.device) if where is None \
            else where
        a_t = torch.ones(K, dtype=dtype, device=Y.device) if a is None else a.to(dtype)
    vf = valid.to(dtype)[..., None]
    # zero the padded rows first: garbage there (NaN, -1) must not leak through NaN * 0
    Yf = torch.where(valid[..., None], Yf, torch.zeros((), dtype=dtype, device=Yf.device))
    pos = Yf * vf
    neg = (1 - Yf) * vf
    pairs = pos.sum(-2) * neg.sum(-2)  # [..., K]: n⁺_k n⁻_k
    coef = a_t / torch.where(pairs > 0, pairs, torch.ones_like(pairs))
    coef = torch.where(pairs > 0, coef, torch.zeros_like(coef))
    P, Nt = pos * coef[..., None, :], neg.transpose(-1, -2)  # W = P Nᵀ, one block of rows at a time
    weights = PairWeightRows((*Y.shape[:-1], Y.shape[-2]), lambda r0, r1: P[..., r0:r1, :] @ Nt)
    return weights.dense() if dense else weights


def label_aggregation_pair_weights(ybar: torch.Tensor | ArrayLike, *, costs: str | ArrayLike = "linear",
                                   where: torch.Tensor | ArrayLike | None = None,
                                   levels: ArrayLike | None = None, dense: bool = True,
                                   check_input: bool = True) -> torch.Tensor | PairWeightRows:
    """Pair weights of label aggregation with multipartite costs (docs/theory.md §3, LA25 Eq. 5).

    ``W[..., i, j] = c(ȳ_i, ȳ_j) / Σ_{i',j': ȳ_i' > ȳ_j'} c(ȳ_i', ȳ_j')`` for ``ȳ_i > ȳ_j`` and 0
    otherwise, normalised per list (leading index) like the empirical ``AUC_MP``: then
    ``Σ_ij W_ij 1[f_i > f_j]`` is ``AUC_MP`` with ties counted 0. The cost matrix comes from
    :func:`bipartite.labels.cost_matrix` over the sorted distinct levels of the valid ``ȳ`` of the
    whole batch; a list with a single level gets all-zero weights.

    Parameters
    ----------
    ybar : tensor [..., n_items]
        Aggregated ordinal labels (any finite reals: a weighted sum of labels is fractional, a
        callable aggregate may be negative; only their order and the cost family matter), with
        any number of leading batch dimensions (a single list is 1-D).
    costs : {"uniform", "linear", "squared", "gain"} or (L, L) array over the sorted levels
    where : bool tensor [..., n_items], optional
    levels : array-like (L,), optional
        Sorted levels over which ``costs`` is given (a training set's, of which a batch holds
        a subset: absent levels change nothing); each valid ``ȳ`` must be one. Default: the
        distinct valid ``ȳ``.
    dense : bool
        ``False`` returns the weights unmaterialised (:class:`PairWeightRows`: rows gathered on
        demand from the per-list normalised cost matrices) for :func:`pairwise_loss`.
    check_input : bool
        ``False`` skips the checks of ``ybar`` (a floating tensor, finite where valid), ``where``
        (bool tensor or None) and of a cost matrix (then ``cost_matrix(levels, costs)``'s own).

    Returns
    -------
    tensor [..., n_items, n_items] of the dtype of ``ybar`` (the default dtype if not floating),
    or :class:`PairWeightRows` of that shape.

    >>> label_aggregation_pair_weights(torch.tensor([0.0, 2.0, 1.0]))
    tensor([[0.0000, 0.0000, 0.0000],
            [0.5000, 0.0000, 0.2500],
            [0.2500, 0.0000, 0.0000]])
    """
    from bipartite.labels import cost_matrix

    if check_input:
        if not isinstance(ybar, torch.Tensor):
            ybar = torch.as_tensor(as_float_array(ybar, "ybar"))
        if not torch.is_floating_point(ybar):
            ybar = ybar.to(torch.get_default_dtype())
        ybar = as_scores(ybar, "ybar")
        if ybar.numel() == 0:
            raise ValueError(
                f"The 'ybar' parameter must not be empty, got shape {tuple(ybar.shape)}.")
        valid = as_where(where, ybar)
        check_finite_where(ybar, valid, "ybar")
    else:
        valid = torch.ones(ybar.shape, dtype=torch.bool, device=ybar.device) if where is None \
            else where
    dev, n, y64 = ybar.device, ybar.shape[-1], ybar.detach().to(torch.float64)
    if levels is None:
        levels = torch.unique(y64[valid]).cpu().numpy()
    else:
        levels = as_float_array(levels, "levels") if check_input else np.asarray(levels)
        unknown = check_input and ~torch.isin(y64, torch.as_tensor(levels, device=dev)) & valid
        if check_input and bool(unknown.any()):
            raise ValueError(f"The 'ybar' parameter holds {first_bad(unknown, y64)[0]:g}, which "
                             "is not one of the given 'levels'.")
    L = levels.size
    # per list g, the (L+1) x (L+1) costs over its items' levels divided by its total
    # Σ_{i,j valid} c(ȳ_i, ȳ_j) = cᵀ C c (c: level counts); level L (invalid items) costs 0
    C = np.asarray(costs, dtype=np.float64) if not (check_input or isinstance(costs, str)) \
        else cost_matrix(levels, costs) if L else np.zeros((0, 0))
    C = torch.nn.functional.pad(torch.as_tensor(C, dtype=torch.float64, device=dev), (0, 1, 0, 1))
    lv = torch.searchsorted(torch.as_tensor(levels, device=dev), y64).clamp(max=max(L - 1, 0))
    lv = torch.where(valid, lv, L).reshape(-1, n)
    counts = torch.zeros((lv.shape[0], L + 1), dtype=torch.float64, device=dev).scatter_add_(
        1, lv, torch.ones(lv.shape, dtype=torch.float64, device=dev))
    total = ((counts @ C) * counts).sum(-1)
    Cn = (C / torch.where(total > 0, total, torch.inf)[:, None, None]).to(ybar.dtype)

    def rows(r0: int, r1: int) -> torch.Tensor:  # two gathers through expanded (free) indices
        Crow = Cn.gather(1, lv[:, r0:r1, None].expand(-1, -1, L + 1))  # [G, r, L + 1]
        block = Crow.gather(2, lv[:, None, :].expand(-1, r1 - r0, -1))
        return block.reshape(*ybar.shape[:-1], r1 - r0, n)

    weights = PairWeightRows((*ybar.shape, n), rows)
    return weights.dense() if dense else weights


# ----------------------------------------------------------------------------------------------
# LSEP / RLSEP (RLSEP Eq. 3 and Eq. 6)
# ----------------------------------------------------------------------------------------------


def _sample_pairs(pair_mask: torch.Tensor, t: int, generator: torch.Generator | None
                  ) -> torch.Tensor:
    """Uniform random subset of min(t, #pairs) valid pairs per list, without replacement."""
    shape = pair_mask.shape
    flat = pair_mask.reshape(*shape[:-2], -1)
    # draw on the generator's device (a CPU generator may drive a CUDA loss), then move
    device = generator.device if generator is not None else pair_mask.device
    keys = torch.rand(flat.shape, generator=generator, device=device).to(pair_mask.device)
    keys = torch.where(flat, keys, torch.full_like(keys, -1.0))  # invalid pairs sort last
    k = min(t, flat.shape[-1])
    top = torch.topk(keys, k, dim=-1).indices
    chosen = torch.zeros_like(flat).scatter(-1, top, True) & flat
    return chosen.reshape(shape)


def _lse_pairs_kernel(scores: torch.Tensor, pair_mask: torch.Tensor) -> torch.Tensor:
    """``log(1 + Σ_{(u,v) in pairs} exp(f_v - f_u))`` per list (``pair_mask[..., u, v]``: u > v)."""
    z = scores[..., None, :] - scores[..., :, None]  # z[..., u, v] = f_v - f_u
    # log(1 + Σ e^z) = m + log1p(Σ_{t ≠ t_a} e^{t − m}) over t ∈ {0, z...} with m = t_a their
    # maximum: never exponentiates a large positive z, and, unlike logsumexp (log of 1 + tiny),
    # keeps full relative precision when every pair is well ranked (log(1 + e^{−40}) ≈ 4e-18, not 0).
    # Excluded pairs enter as -inf (weight exactly 0 in value and gradient).
    z = torch.where(pair_mask, z, torch.full_like(z, -torch.inf)).flatten(-2)
    zero = torch.zeros((*z.shape[:-1], 1), dtype=z.dtype, device=z.device)
    t = torch.cat([zero, z], dim=-1)
    m, a = t.max(dim=-1, keepdim=True)
    rest = torch.exp(t - m).scatter(-1, a, 0.0).sum(-1, keepdim=True)
    return (m + torch.log1p(rest)).squeeze(-1)


def _lsep_dispatch(s: torch.Tensor, y: torch.Tensor, valid: torch.Tensor, num_pairs: int,
                   generator: int | torch.Generator, reduction: str) -> torch.Tensor:
    pair_mask = valid[..., :, None] & valid[..., None, :] & (y[..., :, None] > y[..., None, :])
    if num_pairs is not None:
        if isinstance(num_pairs, bool) or not isinstance(num_pairs, (int, np.integer)) \
                or num_pairs < 1:
            raise ValueError(f"The 'num_pairs' parameter must be a positive int or None, "
                             f"got {num_pairs!r}.")
        pair_mask = _sample_pairs(pair_mask, int(num_pairs),
                                  check_generator(generator))
    per_list = _lse_pairs_kernel(s, pair_mask)
    return safe_reduce(per_list, valid.any(-1).to(s.dtype), reduction)


def lsep_loss(scores: torch.Tensor | ArrayLike, labels: torch.Tensor | ArrayLike, *, num_pairs: int | None = None, generator: int | torch.Generator | None = None,
              where: torch.Tensor | ArrayLike | None = None, reduction: str = "mean") -> torch.Tensor:
    """LSEP loss (Li et al. 2017; RLSEP Eq. 3, docs/theory.md §8).

    Per list (last dimension = the labels of one instance):
    ``log(1 + Σ_{u positive, v negative} exp(f_v - f_u))``, computed as a log-sum-exp. A list
    without a positive-negative pair has loss 0 (and zero gradient).

    Parameters
    ----------
    scores : tensor [..., n_labels]
    labels : tensor [..., n_labels], binary
    num_pairs : int, optional
        Use a uniformly random subset of ``t = num_pairs`` positive-negative pairs per list, drawn
        without replacement (all pairs when fewer). The subset is not rescaled.
    generator : torch.Generator or int, optional
        Randomness of the pair subset: an int seeds a fresh CPU generator (the same subset on
        every device); a ``torch.Generator`` draws on its own device; None uses torch's global
        generator (seed it with ``torch.manual_seed``).
    where : bool tensor [..., n_labels], optional
    reduction : {"mean", "sum", "none"}
        ``"mean"``: over the lists that have at least one valid entry.

    >>> s = torch.tensor([[1.0, 0.0, -1.0]])
    >>> y = torch.tensor([[1.0, 0.0, 0.0]])
    >>> round(lsep_loss(s, y).item(), 4)  # log(1 + e^-1 + e^-2)
    0.4076
    """
    check_option(reduction, "reduction", _REDUCTIONS)
    s, y, valid = prepare_inputs(scores, labels, where, binary=True)
    return _lsep_dispatch(s, y, valid, num_pairs, generator, reduction)


def rlsep_loss(scores: torch.Tensor | ArrayLike, ranks: torch.Tensor | ArrayLike, *, num_pairs: int | None = None, generator: int | torch.Generator | None = None,
               where: torch.Tensor | ArrayLike | None = None, reduction: str = "mean") -> torch.Tensor:
    """RLSEP loss (RLSEP Eq. 6, docs/theory.md §8): LSEP over all pairs ordered by label ranks.

    Per list: ``log(1 + Σ_{(u,v): r_u > r_v} exp(f_v - f_u))``. Only the order of the ranks
    matters (any strictly increasing map of ``ranks`` to non-negative integers gives the same loss; negative or fractional ranks are refused); equal ranks form
    no pair. With ranks in {0, 1} it is :func:`lsep_loss`. Options as in :func:`lsep_loss`.

    >>> s = torch.tensor([2.0, 1.0, 0.0])
    >>> r = torch.tensor([2.0, 1.0, 0.0])
    >>> round(rlsep_loss(s, r).item(), 4)  # log(1 + 2 e^-1 + e^-2)
    0.6265
    """
    check_option(reduction, "reduction", _REDUCTIONS)
    s, r, valid = prepare_inputs(scores, ranks, where, labels_name="ranks")
    bad = ((r < 0) | (r != torch.round(r))) & valid
    if bool(bad.any()):
        value, idx = first_bad(bad, r)
        raise ValueError(f"The 'ranks' parameter must hold non-negative integer ranks "
                         f"(0 = irrelevant), got {value:g} at index {idx}.")
    return _lsep_dispatch(s, r, valid, num_pairs, generator, reduction)


# ----------------------------------------------------------------------------------------------
# Margin ranking (LR2PPO Eq. 4)
# ----------------------------------------------------------------------------------------------


def margin_ranking_loss(scores_a: torch.Tensor | ArrayLike, scores_b: torch.Tensor | ArrayLike, *, margin: float = 1.0,
                        reduction: str = "mean") -> torch.Tensor:
    """Margin ranking loss ``max(0, m - (a - b))`` for pairs where ``a`` should beat ``b``.

    The reward-model loss of LR2PPO (Eq. 4, docs/theory.md §8, §11) on partial-order pairs: element-wise
    over the (broadcast) shapes of ``scores_a`` and ``scores_b``; ``"mean"``/``"sum"`` over all
    pairs, ``"none"`` keeps the shape. A mean over zero pairs is 0. The two must have the same
    number of dimensions (``a[:, None]`` against ``b[None, :]`` scores all pairs on purpose) or
    one must be a scalar: shapes ``(n, 1)`` and ``(n,)`` are refused, not broadcast to ``(n, n)``.
    ``margin`` is a finite number ``> 0``.

    >>> a = torch.tensor([2.0, 0.5])
    >>> b = torch.tensor([0.0, 0.0])
    >>> margin_ranking_loss(a, b, margin=1.0, reduction="none")
    tensor([0.0000, 0.5000])
    """
    check_option(reduction, "reduction", _REDUCTIONS)
    m = check_positive(margin, "margin")
    a = as_scores(scores_a, "scores_a", min_ndim=0)
    b = as_scores(scores_b, "scores_b", min_ndim=0)
    if a.ndim != b.ndim and a.ndim > 0 and b.ndim > 0:
        raise ValueError(
            f"The 'scores_a' and 'scores_b' parameters must have the same number of dimensions "
            f"(or one must be a scalar), got shapes {tuple(a.shape)} and {tuple(b.shape)}: an "
            f"implicit leading dimension would silently score every pair of the two."
        )
    try:
        a, b = torch.broadcast_tensors(a, b.to(dtype=a.dtype, device=a.device))
    except RuntimeError:
        raise ValueError(
            f"The 'scores_a' and 'scores_b' parameters must have broadcastable shapes, got "
            f"{tuple(a.shape)} and {tuple(b.shape)}."
        ) from None
    everywhere = torch.ones(a.shape, dtype=torch.bool, device=a.device)
    check_finite_where(a, everywhere, "scores_a")
    check_finite_where(b, everywhere, "scores_b")
    losses = torch.relu(m - (a - b))
    return safe_reduce(losses, torch.ones_like(losses), reduction)


# ----------------------------------------------------------------------------------------------
# AP family (HAP-VR Eq. 6-11)
# ----------------------------------------------------------------------------------------------


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

    >>> s, y = torch.tensor([0.9, 0.8, 0.7, 0.6]), torch.tensor([1.0, 0.0, 1.0, 0.0])
    >>> round(ap_loss(s, y, neg_step=heaviside_ge, pos_step=heaviside_ge).item(), 4)  # 1 - AP
    0.1667
    """
    check_option(reduction, "reduction", _REDUCTIONS)
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

    >>> s = torch.tensor([0.9, 0.8, 0.7, 0.6])
    >>> y = torch.tensor([1.0, 0.0, 1.0, 0.0])
    >>> round(quadlinear_ap_loss(s, y, delta=0.1, rho=1.0).item(), 4)  # (0 + h(3/2)) / 2
    0.3
    """
    delta = check_positive(delta, "delta")
    return ap_loss(scores, labels, neg_step=lambda d: _quadlinear(d, delta), pos_step=heaviside_gt,
                   rho=rho, where=where, reduction=reduction)
