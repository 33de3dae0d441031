"""Partial AUC: the area under the ROC curve up to a false positive rate, McClish-standardised
(docs/theory.md §2.7).

The ROC curve is walked from the top score, one point per tie group (a tie group is one
threshold, so its segment is the diagonal between its two corners: ties count ½, as in every AUC
of the package). With ``P_t``, ``N_t`` the positive and negative weight of tie group t and
``P_above``, ``N_above`` those of the groups scored above it, the area that group t adds under
the curve is the trapezoid ``N_t (P_above + ½ P_t) / (P N)``: the terms of
:func:`bipartite.metrics._sorted_rows.auc_terms` (the formula's one home), which summed over all
groups give the AUC. Up to a false positive rate ``m`` only the negatives inside the window count:
``N_in,t = clip(m N − N_above,t, 0, N_t)``, and the group's positive weight is taken in the same
proportion, ``P_in,t = P_t N_in,t / N_t`` (the ROC segment is straight, so this is the linear
interpolation of the curve at ``m``). The area is ``A_m = Σ_t N_in,t (P_above,t + ½ P_in,t) / (P N)``
and McClish's standardisation (McClish, Medical Decision Making 1989) maps it onto [½, 1] for
curves above the diagonal:

``pAUC_m = ½ (1 + (A_m − m²/2) / (m − m²/2))``,

which is scikit-learn's ``roc_auc_score(max_fpr=m)`` and pROC's
``auc(partial.auc=c(1, 1 − m), partial.auc.focus="specificity", partial.auc.correct=TRUE)``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_array,
    check_consistent_length,
    check_max_fpr,
    check_sample_weight,
    pow2_normalise,
    warn_undefined,
)
from bipartite.metrics._kernels import below, binary_labels, ranked_sums
from bipartite.metrics._sorted_rows import auc_terms

__all__ = ["partial_auc", "standardised_partial_auc"]


def standardised_partial_auc(P: np.ndarray, N: np.ndarray, max_fpr: float) -> float:
    """McClish-standardised partial AUC up to ``max_fpr`` (module docstring) from the positive
    and negative weights ``P``, ``N`` (T,) of the tie groups in **descending** score order; NaN
    when a class has no weight. ``max_fpr = 1`` gives the AUC (the ROC area itself)."""
    tot_p, tot_n = float(P.sum()), float(N.sum())
    if not (tot_p > 0 and tot_n > 0):
        return float("nan")
    if max_fpr == 1.0:
        return float(auc_terms(N, P, below(P)).sum() / (tot_p * tot_n))
    n_in = np.clip(max_fpr * tot_n - below(N), 0.0, N)
    share = np.divide(n_in, N, out=np.zeros_like(N), where=N > 0)
    area = float(auc_terms(n_in, share * P, below(P)).sum() / (tot_p * tot_n))
    lo = 0.5 * max_fpr * max_fpr  # the chance diagonal's area up to max_fpr
    return 0.5 * (1.0 + (area - lo) / (max_fpr - lo))


def partial_auc(y_true: ArrayLike, y_score: ArrayLike, *, max_fpr: float,
                sample_weight: ArrayLike = None) -> float:
    """Partial area under the ROC curve up to the false positive rate ``max_fpr``, standardised
    by McClish's formula (docs/theory.md §2.7; ``bipartite/metrics/_partial.py``).

    ``pAUC = ½ (1 + (A − m²/2) / (m − m²/2))`` with ``A`` the area under the ROC curve between
    false positive rates 0 and ``m = max_fpr``, the curve linearly interpolated at ``m``. Ties
    count ½: a tie group is one threshold, joined to the previous one by a straight segment.
    0.5 is a random ranking's value, 1 a perfect one's; a ranking worse than random at the top
    gives less than 0.5. Equal to scikit-learn's ``roc_auc_score(y_true, y_score,
    max_fpr=m, sample_weight=w)`` and, unweighted, to pROC's ``auc(roc,
    partial.auc=c(1, 1 - m), partial.auc.focus="specificity", partial.auc.correct=TRUE)``
    (tests/test_proc_reference.py), except where the area is below the diagonal's: pROC returns
    NA there, this function (as scikit-learn) McClish's value below 0.5. O(n log n) from one sort.

    Parameters
    ----------
    y_true : array-like of shape (n,) with values in {0, 1}
    y_score : array-like of shape (n,), finite
    max_fpr : float in (0, 1]
        The largest false positive rate of the window; 1 gives :func:`~bipartite.metrics.auc`.
    sample_weight : array-like of shape (n,), optional, non-negative

    Returns
    -------
    float — NaN, with an :class:`~bipartite.UndefinedMetricWarning`, when only one class has
    positive weight.

    Raises
    ------
    ValueError
        ``max_fpr`` outside (0, 1], labels not in {0, 1}, scores not finite, lengths that differ.

    >>> partial_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], max_fpr=0.5)
    0.6666666666666666
    >>> partial_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], max_fpr=1.0)  # the AUC
    0.75
    """
    m = check_max_fpr(max_fpr)
    y = binary_labels(y_true, "y_true")
    # ranked by order only: integers past 2**53 stay distinct (as every metric of the package)
    s = check_array(y_score, "y_score", ndim=1, exact_integers="order")
    check_consistent_length(y_true=y, y_score=s)
    w = pow2_normalise(check_sample_weight(sample_weight, len(y)))  # exact: no under/overflow
    pos = y != 0
    G = ranked_sums(s, np.stack([np.where(pos, w, 0.0), np.where(pos, 0.0, w)]))[:, ::-1]
    val = standardised_partial_auc(G[0], G[1], m)
    if np.isnan(val):
        return warn_undefined("Partial AUC is undefined: y_true has only one class (with positive "
                              "weight).")
    return val
