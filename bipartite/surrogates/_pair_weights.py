"""Pair weights of the two aggregations (docs/theory.md §3, §4): the ``w_ij`` that turn
:func:`~bipartite.surrogates.pairwise_loss` into a surrogate of ``Σ_k a_k (1 − AUC_k)`` (loss
aggregation, :func:`loss_aggregation_pair_weights`) or of ``1 − AUC_MP`` (label aggregation with
multipartite costs, :func:`label_aggregation_pair_weights`), dense or unmaterialised
(:class:`~bipartite.surrogates.PairWeightRows`).
"""

from __future__ import annotations

import numpy as np
import torch
from numpy.typing import ArrayLike

from bipartite._pair_losses import PairWeightRows
from bipartite._utils.tensor_checks import (
    as_float_array,
    as_scores,
    as_where,
    check_binary_where,
    check_finite_where,
    show_first_bad,
)
from bipartite._utils.validation import check_array, check_dense_tensor, check_nonnegative

__all__ = ["label_pair_normalisers", "loss_aggregation_pair_weights",
           "label_aggregation_pair_weights"]


def label_pair_normalisers(Y: torch.Tensor, valid: torch.Tensor
                           ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Class indicators and AUC normalisers of binary labels (docs/theory.md §4): the one home of
    ``1 / (n⁺_k n⁻_k)``, for :func:`loss_aggregation_pair_weights` and the max-min learners'
    per-label losses (:func:`bipartite.learners.maxmin.per_label_pair_losses`).

    ``Y`` [..., n, K] floating, 0/1 on the valid rows (checked by the caller); ``valid`` [..., n]
    bool. Returns ``pos``, ``neg`` [..., n, K] (1 for a valid positive / negative of label k, 0
    elsewhere) and ``coef`` [..., K] = ``1 / (n⁺_k n⁻_k)`` over the valid rows of each list, 0
    where label k has one class there (its AUC is undefined: no pair).

    >>> import torch
    >>> pos, neg, coef = label_pair_normalisers(torch.tensor([[1.0], [0.0], [0.0]]),
    ...                                         torch.tensor([True, True, False]))
    >>> coef.tolist(), neg[:, 0].tolist()
    ([1.0], [0.0, 1.0, 0.0])
    """
    dtype = Y.dtype
    vf = valid.to(dtype)[..., None]
    # zero the padded rows first: garbage there (NaN, -1) must not leak through NaN * 0
    Yf = torch.where(valid[..., None], Y, torch.zeros((), dtype=dtype, device=Y.device))
    pos = Yf * vf
    neg = (1 - Yf) * vf
    pairs = pos.sum(-2) * neg.sum(-2)  # [..., K]: n⁺_k n⁻_k
    coef = 1.0 / torch.where(pairs > 0, pairs, torch.ones_like(pairs))
    return pos, neg, torch.where(pairs > 0, coef, torch.zeros_like(coef))


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

    >>> import torch
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
            a_np = check_array(a, "a", allow_empty=True)  # finite; check_nonnegative: a_k >= 0
            if a_np.shape != (K,):
                raise ValueError(f"The 'a' parameter must have shape ({K},), got shape "
                                 f"{a_np.shape}.")
            a_t = torch.as_tensor(check_nonnegative(a_np, "a")).to(dtype=dtype, device=Y.device)
    else:
        dtype, Yf, K = Y.dtype, Y, Y.shape[-1]
        valid = torch.ones(Y.shape[:-1], dtype=torch.bool, device=Y.device) if where is None \
            else where
        a_t = torch.ones(K, dtype=dtype, device=Y.device) if a is None else a.to(dtype)
    pos, neg, coef = label_pair_normalisers(Yf, valid)
    coef = a_t * coef
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

    >>> import torch
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
            raise ValueError(f"The 'ybar' parameter holds {show_first_bad(unknown, y64)[0]}, which "
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
