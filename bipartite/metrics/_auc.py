"""The AUC of one scorer against binary labels (docs/theory.md §2): :func:`auc`,
:func:`multilabel_auc` (K labels, one sort), :func:`weighted_auc` (per-item positive and
negative masses: the population route of :class:`bipartite.population.FiniteProblem` and
:mod:`bipartite.dictatorship`), and the summaries of a vector of per-label AUCs
(:func:`diff_auc`, :func:`min_auc`). Each validates its input and calls one kernel of
``_kernels.py``. Private to ``bipartite.metrics``, which exports the public functions.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_array,
    check_dense_tensor,
    check_nonnegative,
    check_sample_weight,
    warn_undefined,
)
from bipartite.metrics._kernels import (
    auc_from_labels,
    auc_from_weights,
    binary_labels,
    check_scores,
)

__all__ = ["auc", "diff_auc", "min_auc", "multilabel_auc", "weighted_auc"]


def auc(y_true: ArrayLike, y_score: ArrayLike, *, sample_weight: ArrayLike = None) -> float:
    """Area under the ROC curve: the Mann–Whitney statistic with ties counted ½ (docs/theory.md §2).

    ``AUC = Σ_{i pos, j neg} w_i w_j s(f_i, f_j) / (Σ_pos w · Σ_neg w)`` with
    ``s(a, b) = 1[a > b] + ½ 1[a = b]``. Equal to :func:`sklearn.metrics.roc_auc_score`,
    computed in O(n log n) from one sort.

    Parameters
    ----------
    y_true : array-like of shape (n,) with values in {0, 1}
    y_score : array-like of shape (n,)
    sample_weight : array-like of shape (n,), optional, non-negative

    Returns
    -------
    float — NaN, with an :class:`~bipartite.UndefinedMetricWarning`, when only one class has
    positive weight.

    >>> auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> auc([0, 1], [1.0, 1.0])  # a tie counts one half
    0.5

    A ``y_score`` tensor on an accelerator (``torch.device("cuda")``, ...) is ranked there, with
    ``torch.sort`` (``bipartite/metrics/_tensor_auc.py``); the other arguments are moved to its device.
    Any other input, a CPU tensor included, takes the NumPy kernel.
    """
    if check_dense_tensor(y_score, "y_score") and y_score.device.type != "cpu":
        from bipartite.metrics._tensor_auc import tensor_auc

        return tensor_auc(y_true, y_score, sample_weight)
    y = binary_labels(y_true, "y_true")
    s = check_scores(y_score, len(y), finite=False)  # checked by the kernel
    w = None if sample_weight is None else check_sample_weight(sample_weight, len(y))
    val = auc_from_labels(s, y[:, None], w)[0]
    if np.isnan(val):
        return warn_undefined("AUC is undefined: y_true has only one class (with positive weight).")
    return float(val)


def multilabel_auc(Y: ArrayLike, y_score: ArrayLike, *, sample_weight: ArrayLike = None) -> np.ndarray:
    """The AUC of one scorer against each of K labels, sharing one sort (docs/theory.md §2).

    Parameters
    ----------
    Y : array-like of shape (n, K) with values in {0, 1}
    y_score : array-like of shape (n,)
    sample_weight : array-like of shape (n,), optional

    Returns
    -------
    ndarray of shape (K,) — NaN (with a warning) for labels with one class.

    >>> multilabel_auc([[0, 1], [1, 0], [1, 1]], [0.1, 0.5, 0.9]).tolist()
    [1.0, 0.5]
    """
    Yb = binary_labels(Y, "Y", ndim=2)
    s = check_scores(y_score, Yb.shape[0], finite=False, labels="Y")  # checked by the kernel
    w = None if sample_weight is None else check_sample_weight(sample_weight, Yb.shape[0])
    out = auc_from_labels(s, Yb, w)
    bad = np.flatnonzero(np.isnan(out))
    if bad.size:
        warn_undefined(f"AUC is undefined for label(s) {bad.tolist()}: only one class.")
    return out


def weighted_auc(y_score: ArrayLike, pos_weight: ArrayLike, neg_weight: ArrayLike) -> np.ndarray:
    """AUC of one scorer against K labels from per-item positive and negative masses
    (docs/theory.md §2).

    ``AUC_k = Σ_{i,j} pos_ik neg_jk s(f_i, f_j) / (Σ_i pos_ik Σ_j neg_jk)`` with ``s = 1`` for
    ``f_i > f_j``, ``½`` for a tie and 0 otherwise. With 0/1 sample weights this is the
    Mann–Whitney statistic (:func:`auc`); with ``pos = p η`` and ``neg = p (1 − η)`` it is the exact
    population AUC of a finite-support problem, self-pairs counted as ties, so a constant scorer
    scores exactly ½ (:meth:`bipartite.population.FiniteProblem.auc`).

    Parameters
    ----------
    y_score : array-like of shape (n,)
    pos_weight, neg_weight : array-like of shape (n, K), non-negative

    Returns
    -------
    ndarray of shape (K,): NaN, without a warning, where a label has no positive or no negative
    mass (callers decide how to report it).

    >>> weighted_auc([0.1, 0.9], [[0.0], [1.0]], [[1.0], [0.0]]).tolist()
    [1.0]
    """
    s = check_scores(y_score)
    pos = check_nonnegative(check_array(pos_weight, "pos_weight", ndim=2), "pos_weight")
    neg = check_nonnegative(check_array(neg_weight, "neg_weight", ndim=2), "neg_weight")
    if pos.shape != neg.shape or pos.shape[0] != len(s):
        raise ValueError(f"The 'pos_weight' and 'neg_weight' parameters must both have shape "
                         f"(n, K) with n = len(y_score) = {len(s)}, got {pos.shape} and "
                         f"{neg.shape}.")
    return auc_from_weights(s, pos, neg)


#: AUCs computed as ratios of floating-point sums may leave [0, 1] by a few ulps (1.0000000000000002
#: from a population AUC); :func:`diff_auc` and :func:`min_auc` accept and clip that much.
_AUC_SLACK = 1e-12


def _check_auc_vector(aucs: ArrayLike) -> np.ndarray:
    v = check_array(aucs, "aucs", ndim=1, finite=False)
    if np.isinf(v).any():
        raise ValueError(f"The 'aucs' parameter must not contain inf, got {v.tolist()}.")
    bad = np.flatnonzero(~np.isnan(v) & ((v < -_AUC_SLACK) | (v > 1 + _AUC_SLACK)))
    if bad.size:
        raise ValueError(f"The 'aucs' parameter must hold AUCs in [0, 1], got {float(v[bad[0]])!r} at "
                         f"index {int(bad[0])}.")
    if len(v) < 2:
        raise ValueError(f"The 'aucs' parameter must hold at least 2 per-label AUCs, got {len(v)}.")
    return np.clip(v, 0.0, 1.0)  # NaN stays NaN; rounding excess (a ratio of float sums) is removed


def diff_auc(aucs: ArrayLike) -> float:
    """Diff AUC of a vector of per-label AUCs: ``max_k AUC_k − min_k AUC_k`` (docs/theory.md §2).

    For K = 2 this is LA25 §7's ``|AUC_1 − AUC_2|``; lower is more balanced. NaN, with an
    :class:`~bipartite.UndefinedMetricWarning`, when an AUC is NaN (a label with one class).

    >>> diff_auc([0.616, 0.562])
    0.054
    >>> round(diff_auc([0.9, 0.7, 0.8]), 10)
    0.2
    """
    v = _check_auc_vector(aucs)
    if np.isnan(v).any():
        return warn_undefined("diff_auc is undefined: an AUC is NaN (a label with one class).")
    return float(round(v.max() - v.min(), 15))


def min_auc(aucs: ArrayLike) -> float:
    """Min AUC of a vector of per-label AUCs: ``min_k AUC_k``, the worst-served label
    (docs/theory.md §2; LA25 §7: higher is more balanced). NaN, with a warning, when an AUC is NaN.

    >>> min_auc([0.616, 0.562])
    0.562
    """
    v = _check_auc_vector(aucs)
    if np.isnan(v).any():
        return warn_undefined("min_auc is undefined: an AUC is NaN (a label with one class).")
    return float(v.min())
