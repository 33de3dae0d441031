"""Exact ranking metrics for one or several binary labels (docs/theory.md §2, §3).

Every AUC in the package — empirical, weighted, multi-label, multipartite, per-group, and the exact
population AUC of :class:`bipartite.population.FiniteProblem` — is the tie-group formula of
docs/theory.md §2.2, computed by one of two private kernels that share it (``bipartite/metrics/_kernels.py``):

* **Coded sort** (unweighted: :func:`auc`, :func:`multilabel_auc` with few labels,
  :func:`multipartite_auc` with up to 64 levels). The scores become int64 keys that order like
  them (the bit pattern of a double, scaled by a power of two so that low bits are free), the
  labels ride in those low bits (up to ``_MAX_BITS`` binary labels, or ⌈log2 L⌉ bits of an
  ordinal level), and one ``np.sort`` of the keys — far faster than ``np.argsort`` — replaces
  the argsort and every gather. Counts are exact integers: the sum of the positives' positions
  gives the pairs counted won, and the tie groups that mix codes correct their pairs to ½
  (``_coded_binary_aucs``); tie-heavy keys are summed by runs of equal keys
  (``_run_position_sums``). Used whenever the non-zero scores span few enough binades (for one
  label nearly always; otherwise the sort-order kernel). Integer and boolean labels are
  validated by one bitwise OR and used as codes without a float copy (``_binary_labels``,
  ``_ordinal_levels``); the NaN/inf check of the scores rides in the exponent pass.
* **Sort order** (sample weights, population masses, many labels or levels, and the fallback):
  an ascending order from one ``np.sort`` of int64 keys that carry the row index in their low
  bits, with the rare runs that the index bits hide re-sorted (``sort_order``, exact, about 2×
  faster than ``np.argsort``). Then, for K labels, the rank route: midranks once and one pass
  over the labels (``_rank_aucs``, linear in K); for one weighted label and for population
  masses, per-tie-group sums of the weights (``ranked_sums``, ``_weighted_label_sums``).
* **Ordinal levels** (:func:`multipartite_auc`, :func:`weighted_multipartite_auc`):
  ``AUC_MP = ½ + ½ A / Z`` with ``A`` the cost-weighted pairs ranked with their levels minus
  those ranked against them. Costs of difference form (linear, gain) reduce to per-level sums
  of the tie-group ranks, O(n) after the sort whatever L is; uniform costs to an inversion
  count of the levels in score order, O(n log L); any other matrix to running per-level sums,
  O(n L) in chunks.

**Per query** (``bipartite/metrics/_ranking.py``): one ``np.sort`` of packed uint64 keys
(query code, a monotone bucket of the score, a carried label or grade, the row index) orders the
rows by (query, score); distinct scores that share a bucket are re-sorted exactly. The sorted keys
are then walked in blocks with the open tie group and each query's running sums carried across
blocks, so :func:`group_auc`, :func:`average_precision`, :func:`ndcg_at_k` and
:func:`grouped_stats` need no array of the input's size besides the keys. With few distinct
scores, the first three take no sort at all: exact ranks of the scores from small hash tables,
then one ``np.bincount`` of (query, score level, label or grade) cells (the table route). The
grouped-AUC engine :class:`QuerySegments` (``_grouped.py``: placements, bootstrap replicates,
per-query multipartite AUC; the diagnostics and the learners use it) takes its order from the
same sort and the per-group formulas from the same module.

Weights are scaled by a power of two first (exact): sums and products of weights cannot under- or
overflow, so every metric is invariant to rescaling the weights. **Ties count ½** everywhere: a
pair with equal scores contributes half a win. With fractional (population) weights a point's
pairing with itself is a tie, so self-pairs are included, as docs/theory.md §2 requires.

Undefined values (a label with only one class, an ordinal label with one level) return NaN with an
:class:`~bipartite.UndefinedMetricWarning`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_array,
    check_binary,
    check_consistent_length,
    check_dense_tensor,
    check_nonnegative,
    check_option,
    check_qid,
    check_sample_weight,
    require_qid,
    resolve_qid,
    warn_undefined,
)
from bipartite.metrics._grouped import (
    GAUC_WEIGHTINGS,
    GroupedStats,
    QueryRows,
    QuerySegments,
    query_scaled,
)
from bipartite.metrics._kernels import (
    auc_from_labels,
    auc_from_weights,
    binary_labels,
    cost_structure,
    matrix_structure,
    multipartite_from_levels,
    multipartite_from_weights,
    pow2_normalise,
)
from bipartite.metrics._partial import partial_auc
from bipartite.metrics._ranking import (
    SortedRows,
    ranking_stats,
)
from bipartite.metrics._ranking import (  # shared with the report (diagnostics)
    auc_terms as auc_terms,
)
from bipartite.metrics._ranking import (
    segment_below as segment_below,
)
from bipartite.metrics._ranking import (
    tie_placements as tie_placements,
)
from bipartite.metrics._tables import label_stats, ndcg_parts, sorted_label_stats
from bipartite.ranked_metrics import (
    ranked_accuracy,
    ranked_exact_match,
    ranked_f1,
    ranked_map,
    ranked_precision,
    ranked_recall,
    ranked_scores,
    unranked_scores,
)

__all__ = [
    # ranked (label-ranking) metrics of RLSEP §5.3, implemented in bipartite.ranked_metrics
    "ranked_scores",
    "ranked_precision",
    "ranked_recall",
    "ranked_f1",
    "ranked_accuracy",
    "ranked_exact_match",
    "ranked_map",
    "unranked_scores",
    "auc",
    "multilabel_auc",
    "multipartite_auc",
    "partial_auc",
    "group_auc",
    "grouped_stats",
    "GroupedStats",
    "QueryRows",
    "QuerySegments",
    "average_precision",
    "ndcg_at_k",
    "diff_auc",
    "min_auc",
    "weighted_auc",
    "weighted_multipartite_auc",
]




# --------------------------------------------------------------------------------------------
# Weighted kernels (the population route: bipartite.population, bipartite.dictatorship)
# --------------------------------------------------------------------------------------------
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
    s = _check_scores(y_score)
    pos = check_nonnegative(check_array(pos_weight, "pos_weight", ndim=2), "pos_weight")
    neg = check_nonnegative(check_array(neg_weight, "neg_weight", ndim=2), "neg_weight")
    if pos.shape != neg.shape or pos.shape[0] != len(s):
        raise ValueError(f"The 'pos_weight' and 'neg_weight' parameters must both have shape "
                         f"(n, K) with n = len(y_score) = {len(s)}, got {pos.shape} and "
                         f"{neg.shape}.")
    return auc_from_weights(s, pos, neg)


def weighted_multipartite_auc(y_score: ArrayLike, level_weight: ArrayLike, costs: ArrayLike) -> float:
    """Multipartite AUC from per-item level masses (n, L) and an (L, L) cost matrix ``costs``
    (docs/theory.md §3): the population route of :func:`multipartite_auc`.

    ``AUC_MP = Σ_{i,j} Σ_{a,b} q_ia q_jb C_ab s(f_i, f_j) / Σ_{i,j} Σ_{a,b} q_ia q_jb C_ab`` (ties ½,
    self-pairs included). NaN, without a warning, when the denominator is 0.

    >>> weighted_multipartite_auc([0.0, 1.0], [[1.0, 0.0], [0.0, 1.0]], [[0, 0], [1, 0]])
    1.0
    """
    s = _check_scores(y_score)
    q = check_nonnegative(check_array(level_weight, "level_weight", ndim=2), "level_weight")
    C = check_nonnegative(check_array(costs, "costs", ndim=2), "costs")
    if q.shape[0] != len(s) or C.shape != (q.shape[1], q.shape[1]):
        raise ValueError(f"The 'level_weight' parameter must have shape (n, L) with n = "
                         f"{len(s)} (the length of 'y_score') and 'costs' shape (L, L), got "
                         f"{q.shape} and {C.shape}.")
    return multipartite_from_weights(s, q, matrix_structure(C))


# --------------------------------------------------------------------------------------------
# Public metrics
# --------------------------------------------------------------------------------------------
def _check_scores(y_score: ArrayLike, n: int | None = None, *, finite: bool = True,
                  labels: str = "y_true") -> np.ndarray:
    """``y_score`` as a 1-D float64 array of length n, the number of rows of the argument named
    ``labels``. ``finite=False`` leaves the NaN/inf check to the kernel
    (``finite_exponent_range`` or ``check_finite``: the same error). Every metric here uses the
    scores only through their order: integers beyond 2**53 are ranked exactly
    (``check_array(exact_integers="order")``), not rounded into ties."""
    s = check_array(y_score, "y_score", ndim=1, finite=finite, exact_integers="order")
    if n is not None:
        check_consistent_length(**{labels: np.empty(n)}, y_score=s)
    return s


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
    ``torch.sort`` (``bipartite/metrics/_torch.py``); the other arguments are moved to its device.
    Any other input, a CPU tensor included, takes the NumPy kernel.
    """
    if check_dense_tensor(y_score, "y_score") and y_score.device.type != "cpu":
        from bipartite.metrics._torch import tensor_auc

        return tensor_auc(y_true, y_score, sample_weight)
    y = binary_labels(y_true, "y_true")
    s = _check_scores(y_score, len(y), finite=False)  # checked by the kernel
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
    s = _check_scores(y_score, Yb.shape[0], finite=False, labels="Y")  # checked by the kernel
    w = None if sample_weight is None else check_sample_weight(sample_weight, Yb.shape[0])
    out = auc_from_labels(s, Yb, w)
    bad = np.flatnonzero(np.isnan(out))
    if bad.size:
        warn_undefined(f"AUC is undefined for label(s) {bad.tolist()}: only one class.")
    return out


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


#: AUCs computed as ratios of floating-point sums may leave [0, 1] by a few ulps (1.0000000000000002
#: from a population AUC); :func:`diff_auc` and :func:`min_auc` accept and clip that much.
_AUC_SLACK = 1e-12


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


def multipartite_auc(
    y_true: ArrayLike, y_score: ArrayLike, *, costs: str | ArrayLike = "linear", sample_weight: ArrayLike = None
) -> float:
    """Multipartite AUC with costs (LA25 Def. 2.3 / Eq. 5; docs/theory.md §3).

    ``AUC_MP = Σ_{y>y'} c(y,y') [#{f(x)>f(x')} + ½ #{ties}] / Σ_{y>y'} c(y,y') n_y n_{y'}`` over
    pairs with ``Ȳ = y``, ``Ȳ' = y'``. A perfect ranking scores 1 and a constant scorer ½.
    One sort, then O(n) for the linear and gain costs (and any matrix ``g_a − g_b``) whatever
    the number of levels L, O(n log L) for uniform costs and for polynomial costs
    ``p(y − y')`` (squared, and any matrix of that form: O(n log L) per monomial), O(n L) for
    other costs (in chunks); O(n) memory.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Ordinal labels (any real values; the L distinct values are the levels, sorted).
        Integer labels beyond 2**53 are shifted by their minimum exactly (every cost family
        depends on the levels only through their order and differences, up to a factor that
        cancels); refused by name if they span 2**53 or more.
    y_score : array-like of shape (n,)
    costs : {"uniform", "linear", "squared", "gain"} or array-like (L, L)
        See :func:`bipartite.labels.cost_matrix`; a matrix is indexed by the sorted levels.
    sample_weight : array-like of shape (n,), optional

    Returns
    -------
    float — NaN (with a warning) if fewer than two levels are present.

    >>> multipartite_auc([0, 1, 2], [0.0, 2.0, 1.0], costs="linear")
    0.75
    >>> multipartite_auc([0, 1, 2], [0.0, 2.0, 1.0], costs="uniform")
    0.6666666666666666
    """
    levels, index = _ordinal_levels(y_true)
    s = _check_scores(y_score, len(index), finite=False)  # checked by the kernel
    w = None if sample_weight is None else check_sample_weight(sample_weight, len(index))
    if len(levels) < 2:
        return warn_undefined("multipartite AUC is undefined: y_true has fewer than two levels.")
    val = multipartite_from_levels(s, index, len(levels), w, cost_structure(levels, costs))
    if np.isnan(val):
        return warn_undefined("multipartite AUC is undefined: no weighted pair has positive cost.")
    return val


def _ordinal_levels(y_true: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct levels of ordinal labels (float64) and each row's level index.

    Integer arrays spanning fewer than max(256, 2n) and at most 2^16 values skip the float copy
    and the sort of ``np.unique``: a bincount of ``y − min`` marks the levels present and a lookup
    table maps each row to its index (the same levels and indices as the float route, which
    handles the rest)."""
    if (type(y_true) is np.ndarray and y_true.ndim == 1 and y_true.size
            and y_true.dtype.kind in "iu"):  # not np.integer: timedelta64 is one
        lo, hi = int(y_true.min()), int(y_true.max())
        if hi - lo < min(max(256, 2 * y_true.size), 1 << 16) and -(2**53) < lo and hi < 2**53:
            d = y_true.astype(np.intp, copy=False)
            if lo != 0:
                d = d - lo  # after the cast: no wrap-around in narrow types
            present = np.flatnonzero(np.bincount(d, minlength=hi - lo + 1))
            if lo == 0 and len(present) == hi + 1:  # levels 0..L−1: the labels are the indices
                return present.astype(np.float64), d
            lut = np.zeros(hi - lo + 1, dtype=_index_dtype(len(present)))
            lut[present] = np.arange(len(present))
            return (present + lo).astype(np.float64), lut[d]
    y = check_array(y_true, "y_true", ndim=1, exact_integers="shift")  # costs use differences
    levels = np.unique(y)
    return levels, _level_index(y, levels)


def _index_dtype(L: int) -> type:
    """The smallest unsigned type that holds the level indices 0..L−1 (up to intp)."""
    return np.uint8 if L <= 256 else np.uint16 if L <= 1 << 16 else np.intp


def _level_index(y: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Index of each value of y in the sorted distinct ``levels`` (:func:`_index_dtype`):
    a cast for levels 0..L−1, comparisons for few levels, a binary search otherwise (faster than
    ``np.unique(return_inverse=True)``, which sorts with an argsort)."""
    L = len(levels)
    dtype = _index_dtype(L)
    if np.array_equal(levels, np.arange(L)):
        return y.astype(dtype)
    if L <= 16:
        idx = np.zeros(len(y), dtype=dtype)
        for v in levels[1:]:
            idx += y >= v
        return idx
    return np.searchsorted(levels, y).astype(dtype)


def grouped_stats(
    Y: ArrayLike,
    y_score: ArrayLike,
    qid: ArrayLike,
    *,
    sample_weight: ArrayLike = None,
    ap: bool = True,
    check_input: bool = True,
) -> GroupedStats:
    """Per-query AUC and average precision of one scorer against K binary labels, from one sort
    by (query, score) and one streamed pass over the sorted rows (docs/theory.md §2, §8).

    Parameters
    ----------
    Y : array-like of shape (n,) or (n, K) with values in {0, 1}
    y_score : array-like of shape (n,)
    qid : array-like of shape (n,) — query ids (any hashable values, finite if numeric)
    sample_weight : array-like of shape (n,), optional, non-negative
    ap : bool — also the per-query average precision (as sklearn's, ties one threshold)
    check_input : bool — False skips the validation (internal calls that validated at their
        public entry): then ``Y`` is a 2-D 0/1 array, ``y_score`` finite float64 and ``qid``
        int codes ``0..G-1`` with every code present.

    Returns
    -------
    GroupedStats — ``auc`` (G, K) and ``ap`` (G, K) (NaN where a query lacks a class / has no
    positive, quietly: the caller decides), ``pos``, ``neg``, ``n``, ``weight``,
    ``.gauc(weighting)`` (the gAUC of :func:`group_auc`), ``.mean_ap()``.

    >>> st = grouped_stats([0, 1, 0, 1], [0.2, 0.1, 0.3, 0.9], qid=["a", "a", "b", "b"])
    >>> st.auc[:, 0].tolist(), st.query_ids.tolist(), st.gauc().tolist()
    ([0.0, 1.0], ['a', 'b'], [0.5])
    """
    if check_input:
        Yb = check_binary(Y, "Y", ndim=(1, 2))
        Yb = Yb[:, None] if Yb.ndim == 1 else Yb
        s = _check_scores(y_score, len(Yb), labels="Y")
        codes, ids = check_qid(qid, len(Yb), "qid", ref="Y", return_ids=True)
        w = None if sample_weight is None else check_sample_weight(sample_weight, len(Yb))
    else:
        Yb, s, codes, ids, w = Y, y_score, qid, None, sample_weight
    n, K = Yb.shape
    if n == 0:
        raise ValueError("The 'y_score' parameter must not be empty, got shape (0,).")
    G = int(codes.max()) + 1
    rows = SortedRows(s, codes, G, descending=True)
    e = 0 if w is None else int(np.frexp(np.max(w))[1])
    wn = None if w is None else np.ldexp(np.asarray(w, dtype=np.float64), -e)  # exact

    def values(a: int, b: int) -> np.ndarray:
        i = rows.index(a, b)
        if wn is None:  # integer counts: exact, and cumulated fast
            y = np.asarray(Yb[i]).astype(np.int64).T  # (K, b − a)
            return np.concatenate([y, 1 - y])
        y = np.asarray(Yb[i], dtype=np.float64).T
        pos = y * wn[i]
        return np.concatenate([pos, wn[i] - pos])

    return _grouped_result(ranking_stats(rows, values, K, ap=ap), codes, G, w, ids, e)


def _grouped_result(st: dict, codes: np.ndarray, G: int, w: np.ndarray | None,
                    ids: np.ndarray | None, e: int = 0, exp: np.ndarray | None = None
                    ) -> GroupedStats:
    """:class:`GroupedStats` from the per-query sums of :func:`ranking_stats` (K, G) of weights
    scaled by ``2^−e`` (or, with ``exp``, each query's by ``2^−exp_q``: :func:`query_scaled`,
    kept scaled in the result)."""
    P, N = st["P"], st["N"]
    auc_q = np.divide(st["U"], P * N, out=np.full(P.shape, np.nan), where=P * N > 0)
    lost = (P > 0) & (N > 0) & ~(P * N > 0)
    if lost.any():  # both classes present, but P_q N_q (and the pair sum) underflow in float64
        warn_undefined(
            f"the AUC of {int(lost.sum())} (label, query) cell(s) is undefined in float64: the "
            "query has both classes, but its positive × negative weight P_q N_q underflows "
            "below 2^-1074 (its weights are that light next to the heaviest row's); those AUCs, "
            "and every gAUC that includes them, are NaN. Rescale the light queries' weights.")
    ap_q = None
    if "A" in st:
        ap_q = np.divide(st["A"], P, out=np.full(P.shape, np.nan), where=P > 0).T
    P, N = np.ldexp(P, e), np.ldexp(N, e)  # the weights as given
    if w is None:  # unweighted: the rows of each query are its counts P + N (of any label)
        counts = (P[0] + N[0]).astype(np.int64)
    else:
        counts = np.bincount(codes, minlength=G)
    weight = counts.astype(np.float64) if w is None else np.bincount(codes, w, minlength=G)
    return GroupedStats(query_ids=ids, n=counts, weight=weight, pos=P.T, neg=N.T, auc=auc_q.T,
                        ap=ap_q, exp=exp)


def group_auc(
    y_true: ArrayLike,
    y_score: ArrayLike,
    qid: ArrayLike = None,
    *,
    sample_weight: ArrayLike = None,
    weighting: str = "pairs",
    groups: ArrayLike = None,
) -> float:
    """Group AUC (gAUC, MTRUB §3.1.2; docs/theory.md §2): per-query AUC, averaged over queries.

    Only queries containing both classes enter the average. Each query is weighted by
    ``weighting``: ``"pairs"`` (default) — its number of positive–negative pairs (weighted:
    ``Σ_pos w · Σ_neg w``), which makes gAUC the AUC over within-query pairs; ``"uniform"`` — 1
    per query; ``"impressions"`` — its total sample weight (number of rows when unweighted).
    Few distinct scores (a (query, score, label) table of at most one cell per row) are
    counted without a sort (``bipartite/metrics/_tables.py``); otherwise one sort of packed
    (query, score, label) keys serves all queries, streamed in blocks
    (``bipartite/metrics/_ranking.py``). ``groups`` is a deprecated alias of ``qid``
    (FutureWarning).

    Returns NaN (with a warning) if no query has both classes, or if a query's ``P_q N_q``
    underflows in float64 (its weights below about 1e-162 of the heaviest row's).

    >>> group_auc([0, 1, 0, 1], [0.2, 0.1, 0.3, 0.9], qid=[0, 0, 1, 1])
    0.5
    """
    qid, qname = require_qid(qid, groups, "group_auc")
    y, s, codes, G, w = _group_auc_input(y_true, y_score, qid, qname, weighting, sample_weight)
    if len(y) == 0:
        return warn_undefined("group AUC is undefined: no group has both classes.")
    wn, exp = (None, None) if w is None else query_scaled(w, codes, G)  # AUC_q scale-free
    gs = _grouped_result(_binary_stats(s, y, codes, G, wn), codes, G, wn, None, exp=exp)
    val = gs.gauc(weighting)[0]
    if np.isnan(val):
        if gs.defined.any():  # an AUC lost to underflow (warned above), not a missing class
            return float("nan")
        return warn_undefined("group AUC is undefined: no group has both classes.")
    return float(val)


def _group_auc_input(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike, qname: str,
                     weighting: str, sample_weight: ArrayLike
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, np.ndarray | None]:
    """The input validation of :func:`group_auc` (labels, scores, query codes below G, G,
    weights), alone (benchmarks/bench_ranking_metrics.py times it)."""
    y = binary_labels(y_true, "y_true")
    s = _check_scores(y_score, len(y))
    codes, G = check_qid(qid, len(y), qname, ref="y_true", dense=False,  # empty queries: no
                         return_count=True)                              # weight
    check_option(weighting, "weighting", GAUC_WEIGHTINGS)
    w = None if sample_weight is None else check_sample_weight(sample_weight, len(y))
    return y, s, codes, G, w


def _binary_stats(s: np.ndarray, y: np.ndarray, codes: np.ndarray | None, G: int,
                  w: np.ndarray | None, *, auc: bool = True, ap: bool = False) -> dict:
    """Per-query sums of :func:`ranking_stats` (K = 1) of a binary label, by the one dispatch of
    group_auc and average_precision: few distinct scores by the table (no sort); else one sort
    of packed (query, score) keys with the label as the low bit, walked by rows without weights
    or through the weighted block scan."""
    st = label_stats(s, y, codes, G, None if w is None else pow2_normalise(w), auc=auc, ap=ap)
    if st is None:
        rows = SortedRows(s, codes, G, low=y, low_bits=1, descending=True)  # label rides along
        st = sorted_label_stats(rows, auc=auc, ap=ap) if w is None else None
        if st is None:
            st = ranking_stats(rows, _label_values(rows, w), auc=auc, ap=ap)
    return st


def _label_values(rows: SortedRows, w: np.ndarray | None):
    """Per-row positive and negative weight (2, b − a) of the sorted positions a..b−1, the
    binary label read from the keys' carried bit, the weights (scaled by a power of two: exact)
    gathered a block at a time."""
    wn = None if w is None else pow2_normalise(w)

    def values(a: int, b: int) -> np.ndarray:
        if wn is None:  # integer counts: exact, and cumulated fast
            v = np.empty((2, b - a), dtype=np.int64)
            np.copyto(v[0], rows.low(a, b), casting="unsafe")
            np.subtract(1, v[0], out=v[1])
            return v
        v = np.empty((2, b - a))
        v[1] = wn[rows.index(a, b)]
        v[0] = rows.low(a, b)
        v[0] *= v[1]
        v[1] -= v[0]
        return v

    return values


def average_precision(y_true: ArrayLike, y_score: ArrayLike, *, sample_weight: ArrayLike = None) -> float:
    """Average precision, as :func:`sklearn.metrics.average_precision_score` (docs/theory.md §8).

    ``AP = Σ_t (R_t − R_{t−1}) P_t`` over distinct score thresholds (tied scores form one
    threshold). Returns NaN (with a warning) when there is no positive label — sklearn would
    return 0 there. The weights are scaled by a power of two first (exact), as for the AUCs: AP is
    invariant to rescaling them, however large or small. Computed by the package's own kernel:
    one sort of packed (score, label, row) keys and one streamed pass from the top score
    (``bipartite/metrics/_ranking.py``), checked against scikit-learn in the tests.

    >>> round(average_precision([0, 1, 1, 0], [0.1, 0.9, 0.4, 0.5]), 4)
    0.8333
    """
    y, s, w = _ap_input(y_true, y_score, sample_weight)
    if not (np.any(y) if w is None else np.any(w[y != 0] > 0)):
        return warn_undefined("average precision is undefined: no positive label.")
    st = _binary_stats(s, y, None, 1, w, auc=False, ap=True)
    return float(st["A"][0, 0] / st["P"][0, 0])


def _ap_input(y_true: ArrayLike, y_score: ArrayLike, sample_weight: ArrayLike
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The input validation of :func:`average_precision`, alone (as :func:`_group_auc_input`)."""
    y = binary_labels(y_true, "y_true")
    s = _check_scores(y_score, len(y))
    w = None if sample_weight is None else check_sample_weight(sample_weight, len(y))
    return y, s, w


def ndcg_at_k(
    relevance: ArrayLike,
    y_score: ArrayLike,
    *,
    k: int | None = 10,
    qid: ArrayLike = None,
    gain: str = "exponential",
    groups: ArrayLike = None,
) -> float:
    """Normalised DCG at cut-off k, averaged over groups (queries).

    ``DCG@k = Σ_{r<k} gain(rel_(r)) / log2(r + 2)`` over the list sorted by decreasing score, with
    ``gain = 2^rel − 1`` (``"exponential"``, the LETOR/MSLR convention) or ``rel`` (``"linear"``,
    sklearn's ``ndcg_score``). **Ties** are averaged as in sklearn (``ignore_ties=False``): tied
    items share the mean gain of their tie group over the positions they occupy. Groups whose
    ideal DCG is 0 (no relevant item) are undefined and excluded from the mean; NaN with a warning
    if every group is. ``qid``: the query ids (None: one list); ``groups`` is a deprecated alias
    (FutureWarning).

    >>> # DCG@3 = 3 + 0/log2(3) + 1/2 = 3.5;  IDCG@3 = 3 + 2/log2(3) + 1/2
    >>> round(ndcg_at_k([3, 2, 0, 1], [0.9, 0.1, 0.5, 0.4], k=3, gain="linear"), 4)
    0.735
    """
    rel, s, g, G, top = _ndcg_input(relevance, y_score, k, qid, groups, gain)
    n = len(rel)
    if n == 0:
        return warn_undefined("nDCG is undefined: no group has a relevant item.")
    dcg, idcg = ndcg_parts(rel, s, g, G, n if k is None else int(k), gain == "exponential",
                           top=top)
    ok = idcg > 0
    if not ok.any():
        return warn_undefined("nDCG is undefined: no group has a relevant item.")
    return float(np.mean(dcg[ok] / idcg[ok]))


def _ndcg_input(relevance: ArrayLike, y_score: ArrayLike, k: int | None, qid: ArrayLike,
                groups: ArrayLike, gain: str
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int, Any]:
    """The input validation of :func:`ndcg_at_k`, alone (as :func:`_group_auc_input`): the
    relevance (integer grades as they are: no float64 copy), scores, query codes below G, G,
    and the largest relevance (None when empty; exact: a bound, e.g. the grades' bitwise OR,
    would inflate the tables sized by the grades)."""
    rel = check_array(relevance, "relevance", ndim=1, keep_integers=True)
    check_nonnegative(rel, "relevance")
    s = _check_scores(y_score, len(rel), labels="relevance")
    check_option(gain, "gain", ("exponential", "linear"))
    if k is not None and (not isinstance(k, (int, np.integer)) or k < 1):
        raise ValueError(f"The 'k' parameter must be a positive integer or None, got {k!r}.")
    qid, qname = resolve_qid(qid, groups, "ndcg_at_k", stacklevel=4)
    g, G = check_qid(qid, len(rel), qname, ref="relevance", dense=False,  # an empty query:
                     return_count=True)                                 # IDCG 0
    top = rel.max() if rel.size else None
    if gain == "linear" and rel.dtype.kind == "f" and top is not None and top > 0 and (
            top > 2.0**400 or rel[rel > 0].min() < 2.0**-400):
        # each query's nDCG is a ratio, scale-free in linear gains: a power of two per query
        # (exact) keeps 5e-324 from underflowing in rel / log2(r + 2) and 1e308s from
        # overflowing in their sum
        rel = query_scaled(rel, g, G)[0]
        top = rel.max()
    if gain == "exponential" and top is not None and top >= 1024:
        raise ValueError(f"The 'relevance' parameter must be < 1024 with gain='exponential' "
                         f"(2**y overflows float64), got {top:g}; use gain='linear'.")
    return rel, s, g, G, top


for _obj in (GroupedStats, QueryRows, QuerySegments, partial_auc):
    _obj.__module__ = __name__  # public here; defined in the private _grouped, _partial modules
del _obj
