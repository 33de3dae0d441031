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

The families live in private rooms that this module only re-exports: ``_inputs`` (the input step),
``_pairwise`` (the pairwise and margin losses), ``_pair_weights`` (the two aggregations' pair
weights), ``_lsep`` and ``_ap``; the pair-loss table is ``bipartite._pair_losses``.

Reductions go through one safe reducer: a mean over nothing is 0 (rax ``safe_reduce``), a real NaN
still shows. The losses work on any device: they follow the device of ``scores``.
"""

from __future__ import annotations

from bipartite._pair_losses import PAIR_LOSSES, PairLoss, PairWeightRows, get_pair_loss
from bipartite.surrogates._ap import (
    ap_loss,
    ap_risk,
    heaviside_ge,
    heaviside_gt,
    quadlinear,
    quadlinear_ap_loss,
    sigmoid_step,
    smooth_ap_loss,
)
from bipartite.surrogates._inputs import prepare_inputs
from bipartite.surrogates._lsep import lsep_loss, rlsep_loss
from bipartite.surrogates._pair_weights import (
    label_aggregation_pair_weights,
    loss_aggregation_pair_weights,
)
from bipartite.surrogates._pair_weights import label_pair_normalisers as label_pair_normalisers
from bipartite.surrogates._pairwise import (
    PAIRWISE_KINDS,
    make_pair_loss,
    margin_ranking_loss,
    pairwise_loss,
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

for _obj in (ap_loss, ap_risk, heaviside_ge, heaviside_gt, quadlinear, quadlinear_ap_loss,
             sigmoid_step, smooth_ap_loss, prepare_inputs, lsep_loss, rlsep_loss,
             label_aggregation_pair_weights, loss_aggregation_pair_weights, make_pair_loss,
             margin_ranking_loss, pairwise_loss, label_pair_normalisers):
    _obj.__module__ = __name__  # documented, pickled and registered under bipartite.surrogates
del _obj
