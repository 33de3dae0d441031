"""Ranked and unranked multi-label metrics of RLSEP §5.3 (docs/theory.md §11, RLSEP).

Label ranking: every instance ``i`` carries one score per label, ``y_score[i]`` (shape ``[K]``), and
ground-truth label ranks ``ranks[i]`` (non-negative integers, ``0`` = irrelevant, larger = more
important; see :func:`bipartite.contrib.label_ranking.importance_to_ranks`). RLSEP §5.3 defines, quoted:

    "For a ranked ground truth label set R and label ranks r_j, we denote a pair set
    P = {(r_u, r_v) | (u, v) ∈ {1, ..., K}², u < v, r_u ≠ r_v} which consists of each unique label
    pair for an input instance. Then we denote the pairs as positive if the left-hand rank is bigger
    than the right-hand rank, else they are denoted as negative. [...] For the score output
    f(x_i; θ), we construct a similar pair set using scores instead of ranks, and we again denote
    predicted positives and negatives in the same manner."

    "Precision, Recall, F1 and Accuracy scores for ranked, and unranked approaches are calculated
    using the positive, negative, predicted positive and predicted negative conventions described
    above, the scores are calculated for each input instance separately then averaged."

    "0-1 denotes the exact match metric. For both ranked and unranked scenario, it yields the ratio
    of the number of instances that have no false positive or false negative labels to the number of
    all instances."

    "mAP denotes mean average precision metric. For a ground truth ranking label set R_i,
    iteratively the smallest rank in the ground truth set is changed to 0 until there is only one
    nonzero ranked label left, then for each iteration the ranked precision is calculated and
    averaged at the end."

Conventions fixed here (the paper leaves them open):

* The pairs are the ground-truth pairs ``P`` (``u < v`` in label-index order, ``r_u != r_v``);
  a pair is *predicted positive* iff ``y_score[u] > y_score[v]``. **A score tie is predicted
  negative** ("else they are denoted as negative").
* Because positives are defined by the index order ``u < v``, precision, recall and F1 depend on the
  order of the label columns; accuracy and the 0-1 exact match do not when the scores are untied
  (they count correctly ordered pairs). With a score tie they do too: the tie is right on a
  negative pair and wrong on a positive one. This is the paper's definition, kept as is.
* Per instance: precision ``TP/(TP+FP)``, recall ``TP/(TP+FN)``, F1 ``2TP/(2TP+FP+FN)``, accuracy
  ``(TP+TN)/|P|``. An instance where a ratio is 0/0 is *undefined* for that metric: it is left out
  of the average and an :class:`~bipartite.UndefinedMetricWarning` says how many were left out;
  if no instance is defined the metric is NaN (with the warning).
* Exact match (0-1) counts every instance; an instance without false positives and false negatives
  scores 1 (vacuously so when ``P`` is empty).
* Ranked mAP: the sequence of rank vectors starts with ``R`` itself; each step sets the labels that
  hold the smallest nonzero rank to 0, and the sequence stops when a single nonzero label is left
  (when the top rank is shared by several labels, it stops once only that top level is left, since
  stripping it would leave no pair). The ranked precision of each step is averaged over the steps
  where it is defined, then over instances. Instances with no nonzero rank have no mAP (undefined).

Unranked metrics (:func:`unranked_scores`) use the same per-instance reductions with the *labels*
as the items: truth ``Y[i, j]``, prediction ``Y_pred[i, j]`` (from the threshold network,
RLSEP §3.4).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    UndefinedMetricWarning,
    check_array,
    check_binary,
    check_nonnegative,
    first_index,
    show_number,
)

if TYPE_CHECKING:
    import torch

__all__ = [
    "ranked_accuracy",
    "ranked_exact_match",
    "ranked_f1",
    "ranked_map",
    "ranked_precision",
    "ranked_recall",
    "ranked_scores",
    "unranked_scores",
]

_METRICS = ("precision", "recall", "f1", "accuracy", "exact_match")


# --------------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------------
def non_ranks(values: np.ndarray | torch.Tensor) -> np.ndarray | torch.Tensor:
    """Mask of the entries of ``values`` that are not label ranks: negative or fractional (or NaN).

    The one rule of non-negative integers, written once for a NumPy array and a torch tensor
    alike (elementwise ``<``, ``!=`` and ``.round()``): label ranks (RLSEP §5.3, 0 = irrelevant)
    and relevance grades (0, 1, 2, ...) both follow it. :func:`check_rank_values` (for arrays:
    :func:`check_ranks`, :func:`bipartite.data.simulate_clicks`,
    :func:`bipartite.contrib.pairs.partial_order_pairs`) and
    :func:`bipartite.surrogates.rlsep_loss` (for tensors) ask it and raise :func:`ranks_error`;
    each first runs the package's non-negativity check, so that a negative entry gets the one
    "must be non-negative" message.
    """
    return (values < 0) | (values != values.round())


#: What :func:`ranks_error` says an entry must be, by default.
RANKS = "ranks (0 = irrelevant)"


def ranks_error(name: str, value: float, index: int | tuple[int, ...], *,
                word: str = RANKS) -> ValueError:
    """The error for an entry that :func:`non_ranks` flags: its value (:func:`show_number`, so
    that ``2.0000001`` is not printed as ``2``) and its position. ``word`` names what the entries
    are ("grades" for relevance grades).

    >>> print(ranks_error("relevance", 0.5, 3, word="grades"))
    The 'relevance' parameter must hold non-negative integer grades, got 0.5 at index 3.
    """
    return ValueError(f"The '{name}' parameter must hold non-negative integer {word}, got "
                      f"{show_number(value)} at index {index}.")


def check_rank_values(arr: np.ndarray, name: str, *, word: str = RANKS) -> np.ndarray:
    """``arr`` (an array already converted by ``check_array``), refused by name unless every
    entry is a non-negative integer (:func:`non_ranks`): the non-negativity check first, then
    :func:`ranks_error` with ``word``. Returns ``arr`` unchanged.

    >>> check_rank_values(np.array([2.0, 0.0, 1.5]), "relevance", word="grades")
    Traceback (most recent call last):
    ...
    ValueError: The 'relevance' parameter must hold non-negative integer grades, got 1.5 at index 2.
    """
    check_nonnegative(arr, name)
    bad = non_ranks(arr)
    if bad.any():
        at = first_index(bad)
        raise ranks_error(name, arr[at], at, word=word)
    return arr


def check_ranks(ranks: ArrayLike, name: str = "ranks") -> np.ndarray:
    """(n, K) non-negative integer ranks (:func:`check_rank_values`), returned as int64."""
    arr = check_rank_values(check_array(ranks, name, ndim=2), name)
    if arr.size and arr.max() >= 2.0**53:
        # beyond int64 / exact float range: only the order of the ranks matters (0 stays
        # "irrelevant"), so recode them densely instead of overflowing to negative ints
        uniq, inverse = np.unique(arr, return_inverse=True)
        return (inverse.reshape(arr.shape) + int(uniq[0] != 0)).astype(np.int64)
    return arr.astype(np.int64)


def _check_scores(y_score: ArrayLike, shape: tuple[int, int], name: str = "y_score") -> np.ndarray:
    arr = check_array(y_score, name, ndim=2)
    if arr.shape != shape:
        raise ValueError(
            f"The '{name}' parameter must have the shape of the ranks {shape}, got {arr.shape}."
        )
    return arr


# --------------------------------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------------------------------
def _pair_confusion(ranks: np.ndarray, scores: np.ndarray):
    """Per-instance pair confusion counts over P = {u < v, r_u != r_v}.

    Truth positive: ``r_u > r_v``; predicted positive: ``s_u > s_v`` (a tie is negative).
    Returns four int arrays of shape ``(n,)``: tp, fp, fn, tn.
    """
    K = ranks.shape[1]
    upper = np.triu(np.ones((K, K), dtype=bool), k=1)  # u < v
    rdiff = ranks[:, :, None] - ranks[:, None, :]
    in_p = (rdiff != 0) & upper
    truth = rdiff > 0
    pred = scores[:, :, None] > scores[:, None, :]
    tp = np.sum(in_p & truth & pred, axis=(1, 2))
    fp = np.sum(in_p & ~truth & pred, axis=(1, 2))
    fn = np.sum(in_p & truth & ~pred, axis=(1, 2))
    tn = np.sum(in_p & ~truth & ~pred, axis=(1, 2))
    return tp, fp, fn, tn


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num/den per instance, NaN where den == 0 (undefined)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.full(num.shape, np.nan)
    ok = den > 0
    out[ok] = num[ok] / den[ok]
    return out


def _instance_scores(tp, fp, fn, tn) -> dict[str, np.ndarray]:
    """Per-instance precision, recall, F1, accuracy (NaN when 0/0) and exact match (0/1)."""
    return {
        "precision": _ratio(tp, tp + fp),
        "recall": _ratio(tp, tp + fn),
        "f1": _ratio(2 * tp, 2 * tp + fp + fn),
        "accuracy": _ratio(tp + tn, tp + fp + fn + tn),
        "exact_match": ((fp == 0) & (fn == 0)).astype(np.float64),
    }


def _mean_defined(values: np.ndarray, name: str) -> float:
    """Mean over the instances where ``values`` is defined (not NaN); warn about the others."""
    bad = np.isnan(values)
    if bad.all():
        warnings.warn(
            f"{name} is undefined for every instance (0/0); returning NaN.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return float("nan")
    if bad.any():
        warnings.warn(
            f"{name} is undefined (0/0) for {int(bad.sum())} of {bad.size} instances; "
            "they are left out of the average.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    return float(np.mean(values[~bad]))


def _map_per_instance(ranks: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Ranked average precision per instance (NaN when undefined), RLSEP §5.3."""
    n = ranks.shape[0]
    cur = ranks.copy()
    total = np.zeros(n)
    count = np.zeros(n)
    active = (cur > 0).any(axis=1)
    while active.any():
        tp, fp, _, _ = _pair_confusion(cur, scores)
        prec = _ratio(tp, tp + fp)
        use = active & ~np.isnan(prec)
        total[use] += prec[use]
        count[use] += 1
        # strip the smallest nonzero rank level, unless only one level is left
        pos = np.where(cur > 0, cur, np.iinfo(np.int64).max)
        smallest = pos.min(axis=1)
        top = cur.max(axis=1)
        go_on = active & (smallest < top)
        strip = go_on[:, None] & (cur == smallest[:, None])
        cur = np.where(strip, 0, cur)
        active = go_on
    return _ratio(total, count)


# --------------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------------
def ranked_scores(ranks: ArrayLike, y_score: ArrayLike) -> dict[str, float]:
    """All ranked metrics of RLSEP §5.3 at once: precision, recall, f1, accuracy, exact_match, map.

    Parameters
    ----------
    ranks : array-like of shape (n, K)
        Ground-truth label ranks, non-negative integers (0 = irrelevant, larger = more important).
    y_score : array-like of shape (n, K)
        Predicted label scores (larger = more important). Ties are predicted negative pairs.

    Returns
    -------
    dict with float values in [0, 1] (see the module docstring for the exact definitions and the
    handling of undefined instances). docs/theory.md §11 (RLSEP).

    Examples
    --------
    >>> r = [[2, 1, 0], [1, 2, 0]]
    >>> s = [[0.9, 0.5, 0.1], [0.9, 0.5, 0.1]]
    >>> {k: round(v, 3) for k, v in ranked_scores(r, s).items()}  # doctest: +NORMALIZE_WHITESPACE
    {'precision': 0.833, 'recall': 1.0, 'f1': 0.9, 'accuracy': 0.833,
     'exact_match': 0.5, 'map': 0.792}
    """
    r = check_ranks(ranks)
    s = _check_scores(y_score, r.shape)
    per = _instance_scores(*_pair_confusion(r, s))
    out = {k: (_mean_defined(per[k], f"ranked {k}") if k != "exact_match"
               else float(per[k].mean())) for k in _METRICS}
    out["map"] = _mean_defined(_map_per_instance(r, s), "ranked mAP")
    return out


def _single(ranks: ArrayLike, y_score: ArrayLike, key: str) -> float:
    r = check_ranks(ranks)
    s = _check_scores(y_score, r.shape)
    if key == "map":
        return _mean_defined(_map_per_instance(r, s), "ranked mAP")
    per = _instance_scores(*_pair_confusion(r, s))
    if key == "exact_match":
        return float(per[key].mean())
    return _mean_defined(per[key], f"ranked {key}")


def ranked_precision(ranks: ArrayLike, y_score: ArrayLike) -> float:
    """Pairwise ranked precision ``TP/(TP+FP)`` over label pairs, averaged over instances.

    Pairs ``u < v`` with ``r_u != r_v``; positive iff ``r_u > r_v``, predicted positive iff
    ``y_score[u] > y_score[v]`` (RLSEP §5.3; docs/theory.md §11). Shapes ``(n, K)``.

    >>> ranked_precision([[1, 2, 0]], [[0.9, 0.5, 0.1]])  # pairs (0,1) FP, (0,2) TP, (1,2) TP
    0.6666666666666666
    """
    return _single(ranks, y_score, "precision")


def ranked_recall(ranks: ArrayLike, y_score: ArrayLike) -> float:
    """Pairwise ranked recall ``TP/(TP+FN)`` over label pairs, averaged over instances.

    Same pairs and conventions as :func:`ranked_precision` (RLSEP §5.3; docs/theory.md §11).

    >>> round(ranked_recall([[2, 1, 0]], [[0.2, 0.5, 0.1]]), 3)
    0.667
    """
    return _single(ranks, y_score, "recall")


def ranked_f1(ranks: ArrayLike, y_score: ArrayLike) -> float:
    """Pairwise ranked F1 ``2TP/(2TP+FP+FN)`` per instance, averaged (RLSEP §5.3; docs/theory.md §11).

    >>> round(ranked_f1([[2, 1, 0]], [[0.2, 0.5, 0.1]]), 3)
    0.8
    """
    return _single(ranks, y_score, "f1")


def ranked_accuracy(ranks: ArrayLike, y_score: ArrayLike) -> float:
    """Fraction of correctly ordered label pairs ``(TP+TN)/|P|`` per instance, averaged.

    Invariant to permuting the label columns when scores are untied (RLSEP §5.3; docs/theory.md §11).

    >>> round(ranked_accuracy([[2, 1, 0]], [[0.2, 0.5, 0.1]]), 3)
    0.667
    """
    return _single(ranks, y_score, "accuracy")


def ranked_exact_match(ranks: ArrayLike, y_score: ArrayLike) -> float:
    """Ranked 0-1: fraction of instances whose pairs are all ordered correctly (RLSEP §5.3).

    Every instance counts (an instance with no pair counts as a match). docs/theory.md §11.

    >>> ranked_exact_match([[2, 1, 0], [1, 2, 0]], [[0.9, 0.5, 0.1], [0.9, 0.5, 0.1]])
    0.5
    """
    return _single(ranks, y_score, "exact_match")


def ranked_map(ranks: ArrayLike, y_score: ArrayLike) -> float:
    """Ranked mAP of RLSEP §5.3: ranked precision averaged over the rank-stripping sequence.

    See the module docstring for the sequence (start at ``R``, zero the smallest nonzero rank until
    a single nonzero label is left). docs/theory.md §11.

    >>> round(ranked_map([[1, 2, 0]], [[0.9, 0.5, 0.1]]), 3)  # (2/3 + 1/2) / 2
    0.583
    """
    return _single(ranks, y_score, "map")


def unranked_scores(y_true: ArrayLike, y_pred: ArrayLike) -> dict[str, float]:
    """Unranked multi-label metrics of RLSEP §5.3, per instance then averaged.

    Items are the K labels: precision ``TP/(TP+FP)``, recall ``TP/(TP+FN)``, F1
    ``2TP/(2TP+FP+FN)``, accuracy ``(TP+TN)/K`` and exact match (0-1) for each instance, where
    ``TP = #{j: y_true=1, y_pred=1}`` etc. 0/0 instances are left out with a warning (see the module
    docstring). docs/theory.md §11 (RLSEP).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n, K) with entries in {0, 1}

    >>> {k: round(v, 3) for k, v in unranked_scores([[1, 0, 1]], [[1, 1, 0]]).items()}
    {'precision': 0.5, 'recall': 0.5, 'f1': 0.5, 'accuracy': 0.333, 'exact_match': 0.0}
    """
    t = check_binary(y_true, "y_true", ndim=2).astype(bool)
    p = check_binary(y_pred, "y_pred", ndim=2).astype(bool)
    if p.shape != t.shape:
        raise ValueError(
            f"The 'y_pred' parameter must have the shape of y_true {t.shape}, got {p.shape}."
        )
    tp = np.sum(t & p, axis=1)
    fp = np.sum(~t & p, axis=1)
    fn = np.sum(t & ~p, axis=1)
    tn = np.sum(~t & ~p, axis=1)
    per = _instance_scores(tp, fp, fn, tn)
    return {k: (_mean_defined(per[k], f"unranked {k}") if k != "exact_match"
                else float(per[k].mean())) for k in _METRICS}
