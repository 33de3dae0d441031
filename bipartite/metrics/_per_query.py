"""Ranking metrics per query (docs/theory.md §2, §8): the group AUC (:func:`group_auc`),
:func:`grouped_stats` (per-query AUC and AP of K labels), :func:`average_precision` and
:func:`ndcg_at_k`, each validated here and computed from the table of few distinct scores
(``_cell_counts.py``) or one sort by (query, score) walked in blocks (``_sorted_rows.py``).
Without query ids the whole sample is one query. Private to ``bipartite.metrics``, which
exports the public functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_array,
    check_label_matrix,
    check_nonnegative,
    check_option,
    check_qid,
    check_sample_weight,
    pow2_normalise,
    require_qid,
    resolve_qid,
    warn_undefined,
)
from bipartite.metrics._cell_counts import label_stats, ndcg_parts, sorted_label_stats
from bipartite.metrics._grouped import GAUC_WEIGHTINGS, GroupedStats, query_scaled
from bipartite.metrics._kernels import binary_labels, check_scores
from bipartite.metrics._sorted_rows import SortedRows, ranking_stats

__all__ = ["average_precision", "group_auc", "grouped_stats", "label_values", "ndcg_at_k"]


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
        Yb = check_label_matrix(Y)
        s = check_scores(y_score, len(Yb), labels="Y")
        codes, ids = check_qid(qid, len(Yb), "qid", ref="Y", return_ids=True)
        w = None if sample_weight is None else check_sample_weight(sample_weight, len(Yb))
    else:
        Yb, s, codes, ids, w = Y, y_score, qid, None, sample_weight
    n, K = Yb.shape
    if n == 0:
        raise ValueError("The 'y_score' parameter must not be empty, got shape (0,).")
    G = int(codes.max()) + 1
    rows = SortedRows(s, codes, G, descending=True)
    e, wn, exp = 0, None, None
    if w is not None:  # AUC_q scale-free (query_scaled), as group_auc; exact powers of two
        wn, exp = query_scaled(w, codes, G)
        if exp is None:  # one scale: pos, neg and weight come back as given
            e = int(np.frexp(np.max(w))[1])
            wn = np.ldexp(np.asarray(w, dtype=np.float64), -e)

    def values(a: int, b: int) -> np.ndarray:
        i = rows.index(a, b)
        if wn is None:  # integer counts: exact, and cumulated fast
            y = np.asarray(Yb[i]).astype(np.int64).T  # (K, b − a)
            return np.concatenate([y, 1 - y])
        y = np.asarray(Yb[i], dtype=np.float64).T
        pos = y * wn[i]
        return np.concatenate([pos, wn[i] - pos])

    return _grouped_result(ranking_stats(rows, values, K, ap=ap), codes, G,
                           w if exp is None else wn, ids, e, exp=exp)


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
    counted without a sort (``bipartite/metrics/_cell_counts.py``); otherwise one sort of packed
    (query, score, label) keys serves all queries, streamed in blocks
    (``bipartite/metrics/_sorted_rows.py``). ``groups`` is a deprecated alias of ``qid``
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
    s = check_scores(y_score, len(y))
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
            st = ranking_stats(rows, label_values(rows, w), auc=auc, ap=ap)
    return st


def label_values(rows: SortedRows, w: np.ndarray | None):
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
    (``bipartite/metrics/_sorted_rows.py``), checked against scikit-learn in the tests.

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
    s = check_scores(y_score, len(y))
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
    s = check_scores(y_score, len(rel), labels="relevance")
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
