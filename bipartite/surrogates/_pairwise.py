"""Pairwise surrogate losses (docs/theory.md §8): :func:`pairwise_loss` over the pairs of graded
labels or of given pair weights, its pair losses φ (:func:`make_pair_loss`, the torch forms of the
table :data:`~bipartite.surrogates.PAIR_LOSSES`), and :func:`margin_ranking_loss` over explicit
pairs (LR2PPO Eq. 4).

One dense kernel (``_pairwise_kernel``) serves a custom φ and ``reduction="none"``; the built-in
kinds run the fused kernels of :mod:`bipartite._pair_losses`.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from numpy.typing import ArrayLike

from bipartite._pair_losses import (
    PAIR_LOSSES,
    PairWeightRows,
    get_pair_loss,
    label_pair_sum,
    pair_loss_sum,
)
from bipartite._utils.tensor_checks import (
    as_like,
    as_scores,
    as_where,
    check_finite_where,
    check_nonnegative_where,
    check_pair_weights,
    safe_reduce,
)
from bipartite._utils.validation import check_option, check_positive
from bipartite.surrogates._inputs import REDUCTIONS

__all__ = ["PAIRWISE_KINDS", "make_pair_loss", "pairwise_loss", "margin_ranking_loss"]

#: The pair-loss kinds: the keys of :data:`PAIR_LOSSES` (docs/theory.md §8.1).
PAIRWISE_KINDS = tuple(PAIR_LOSSES)


def make_pair_loss(kind: str, margin: float = 1.0) -> Callable[[torch.Tensor], torch.Tensor]:
    """The pair loss ``φ(x)`` of a score difference ``x = f_i - f_j`` (i should rank above j), for
    ``kind`` in :data:`PAIRWISE_KINDS` (docs/theory.md §8); ``margin`` is the hinge margin, a
    finite number ``> 0`` (checked for every kind, though only the hinges use it).

    The torch form of the table entry :data:`PAIR_LOSSES` ``[kind]``, bound to ``margin``: the
    building block of :func:`pairwise_loss` (rax's ``pair_loss_fn``). Pass it, or any callable of
    the same form, as ``pairwise_loss(..., pair_loss_fn=...)``.

    >>> import torch
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

    >>> import torch
    >>> s = torch.tensor([2.0, 0.0, 1.0])
    >>> y = torch.tensor([1.0, 0.0, 0.0])
    >>> round(pairwise_loss(s, y).item(), 4)  # mean of softplus(-2) and softplus(-1)
    0.2201
    >>> round(pairwise_loss(s, y, kind="hinge", reduction="sum").item(), 4)
    0.0
    """
    check_option(kind, "kind", PAIRWISE_KINDS)
    check_option(reduction, "reduction", REDUCTIONS)
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
    check_nonnegative_where(y, valid, "labels")
    return y


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

    >>> import torch
    >>> a = torch.tensor([2.0, 0.5])
    >>> b = torch.tensor([0.0, 0.0])
    >>> margin_ranking_loss(a, b, margin=1.0, reduction="none")
    tensor([0.0000, 0.5000])
    """
    check_option(reduction, "reduction", REDUCTIONS)
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
