"""The grouped-AUC engine: per-query AUC, average precision and multipartite AUC from one sort
(docs/theory.md §2, §3, §8), in the manner of rax's ``segments``.

The rows are sorted once by (query, score), ascending (:class:`QuerySegments`). Runs of equal
scores inside a query are the *tie groups*; every statistic is a segment sum over them:

* ``sums(rows)``: the weight of each row vector (positives, negatives, levels, bootstrap
  multiplicities...) in each tie group;
* ``below(G)`` / ``above(G)``: the sums over the strictly lower / higher tie groups of the same
  query (a cumulative sum restarted at every query);
* ``per_query(x)``: tie-group values summed per query;
* ``at_rows(x)``: tie-group values handed back to the rows, in the input order.

From these: ``AUC_q = Σ_t P_t (N_below,t + ½ N_t) / (P_q N_q)`` (ties ½; with fractional masses
a row's pairing with itself is a tie, as docs/theory.md §2 requires), ``AP_q = Σ_t (P_t / P_q) ·
P_≥t / (P_≥t + N_≥t)`` (sklearn's ``average_precision_score``: tied scores form one threshold),
and the multipartite AUC of docs/theory.md §3 per query. Without query ids the whole sample is
one query. The sort is one ``np.sort`` of packed (query, score bucket, row) keys
(:class:`bipartite.metrics._sorted_rows.SortedRows`, which also streams the public gAUC, AP and
nDCG without these tie-group arrays); the per-group formulas are that module's
(``auc_terms``, ``ap_terms``).

Without the scores, the same query vocabulary is :class:`QueryRows`: the rows of each query
(order, starts, sizes, split), the one place that sorts rows by query; a :class:`QuerySegments`
holds its rows' :class:`QueryRows` and adds the score sort.

The module is private to ``bipartite.metrics``; :class:`QueryRows`, :class:`QuerySegments`,
:class:`GroupedStats` and :func:`grouped_stats` are public there.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import check_array, check_option, check_qid, pow2_normalise
from bipartite.metrics._sorted_rows import (
    SortedRows,
    ap_terms,
    auc_terms,
    segment_below,
    tie_placements,
)

__all__ = ["GAUC_WEIGHTINGS", "GroupedStats", "QueryRows", "QuerySegments", "needs_query_scales",
           "query_exponents", "query_major", "query_scaled"]

#: The query weightings of the gAUC (:func:`bipartite.metrics.group_auc`).
GAUC_WEIGHTINGS = ("pairs", "uniform", "impressions")


#: Row weights within this factor (2^400) of the heaviest keep every query's ``P_q N_q`` in
#: float64 after one global power of two (products of two ≥ 2^-800); past it each query's
#: weights are scaled by their own (:func:`query_scaled`).
_GLOBAL_SPREAD = 2.0**-400


def needs_query_scales(low: float, high: float) -> bool:
    """Whether positive row weights from ``low`` to ``high`` need each query's own power of two
    (:func:`query_scaled`): one global scale keeps every query's ``P_q N_q`` in float64 while
    they lie within 2^400 of each other."""
    return bool(low < high * _GLOBAL_SPREAD)


def query_exponents(top: np.ndarray) -> np.ndarray:
    """Each query's power of two ``exp`` (G,) int64 of :func:`query_scaled` from its largest row
    weight ``top`` (G,): ``2^(exp_q − 1) ≤ top_q < 2^exp_q``, 0 for a query of zero weights.
    The maxima may come reduced over pieces of the rows (out of core: per partition, then over
    partitions; the exponent of a maximum is the maximum of the exponents)."""
    top = np.asarray(top, dtype=np.float64)
    return np.where(top > 0, np.frexp(top)[1], 0).astype(np.int64)


def query_scaled(w: np.ndarray, codes: np.ndarray | None, G: int
                 ) -> tuple[np.ndarray, np.ndarray | None]:
    """Row weights scaled so that every query's AUC is computed scale-free: ``(wn, exp)`` with
    ``w = wn · 2^exp[code]``, exact (powers of two). One global power of two
    (:func:`~bipartite._utils.validation.pow2_normalise`, ``exp`` None) while the positive
    weights lie within 2^400 of the heaviest (:func:`needs_query_scales`); past that, each
    query's own (:func:`query_exponents`), so that a query
    of weights 1e-300 beside one of 1e300 keeps its AUC (one global scale would underflow its
    ``P_q N_q`` to 0 and drop it). :class:`GroupedStats` takes ``exp`` to weigh the queries
    back on one scale."""
    w = np.asarray(w, dtype=np.float64)
    pos = w > 0
    if codes is None or not pos.any() or not needs_query_scales(w[pos].min(), w.max()):
        return pow2_normalise(w), None
    top = np.zeros(G)
    np.maximum.at(top, codes, w)
    exp = query_exponents(top)
    return np.ldexp(w, -exp[codes]), exp


def _scaled_log2(x: np.ndarray, exp: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``x · 2^exp`` (x ≥ 0, (G, K); exp (G, K) int) where ``keep``, else 0, brought to one
    power of two per column, the largest kept entry in [½, 1), without forming the values that
    over- or underflow (the entries not kept do not set the scale)."""
    m, e = np.frexp(x)
    on = (x > 0) & keep
    e = np.where(on, e + exp, np.iinfo(np.int32).min)
    top = e.max(axis=0, keepdims=True)
    return np.where(on, np.ldexp(m, np.maximum(e - top, -1100)), 0.0)


def _rows(x: ArrayLike) -> np.ndarray:
    """A weight vector (n,) or weight rows (m, n) as a 2-D float64 array."""
    a = np.asarray(x, dtype=np.float64)
    return a[None, :] if a.ndim == 1 else a


def query_major(order: np.ndarray, codes: np.ndarray, G: int) -> np.ndarray:
    """(n,) the rows of ``order`` grouped by query, stably: each query's rows keep their order in
    ``order`` (``order[argsort(codes[order], stable)]``) — the one home of sorting rows by query.
    :attr:`QueryRows.order` is it for the input order; the report's one walk
    (:mod:`bipartite.diagnostics._scan`) for the global (score, row) order, which gives the
    (query, score) order of :class:`QuerySegments`. ``codes`` (n,) non-negative ints below
    ``G``. A radix sort on 16-bit digits (one pass up to 2¹⁶ queries, two up to 2³²), O(n)
    instead of a comparison sort; the codes are gathered in their narrowest type (fewer bytes
    to fetch at random), by ``take`` (faster than fancy indexing on 1-D arrays)."""
    if G <= 1 << 16:
        c = np.take(codes.astype(np.uint16), order)
        return np.take(order, np.argsort(c, kind="stable"))
    if G <= 1 << 32:
        c = np.take(codes.astype(np.uint32), order)
        perm = np.argsort((c & 0xFFFF).astype(np.uint16), kind="stable")
        return np.take(order, np.take(perm, np.argsort((np.take(c, perm) >> 16).astype(
            np.uint16), kind="stable")))
    return np.take(order, np.argsort(np.take(codes, order), kind="stable"))


class QueryRows:
    """The rows of each query, without scores: the one stable sort of rows by query id.

    Parameters
    ----------
    qid : array-like of shape (n,), optional
        Query ids (any hashable values); None: one query holding every row.
    n : int, optional
        The number of rows; required without ``qid``, checked against it otherwise.
    check_input : bool, default True
        False skips the validation: ``qid`` is then None or non-negative int codes
        (:func:`bipartite._utils.validation.check_qid`'s, or a subset of them: a code with no
        row is a query with no rows, which ``query``, ``starts``, ``sizes`` and :meth:`split`
        leave out).

    Attributes
    ----------
    n, n_queries : int — rows, and codes ``0..G-1``
    codes : ndarray (n,) int64 — the query code of each row
    query_ids : ndarray (G,) of the sorted distinct ids (None without ``qid`` or unchecked)
    order : ndarray (n,) — the rows sorted by query, stably (a query's rows in input order)
    query : ndarray (Q,) — the code of each query holding a row, ascending
    starts, sizes : ndarray (Q,) — where each of those queries starts in ``order``, its rows

    >>> rows = QueryRows(["b", "a", "b", "c"])
    >>> [r.tolist() for r in rows.split()], rows.sizes.tolist()
    ([[1], [0, 2], [3]], [1, 2, 1])
    """

    def __init__(self, qid: ArrayLike | None = None, n: int | None = None, *,
                 check_input: bool = True):
        ids = None
        if qid is None and n is None:
            raise ValueError("QueryRows needs 'qid' or the number of rows 'n'.")
        if check_input:
            codes, ids = check_qid(qid, np.size(qid) if n is None else n, "qid", ref="n",
                                   return_ids=True)
        else:
            codes = None if qid is None else np.asarray(qid)
        self.n = len(codes) if codes is not None else int(n)
        self.query_ids = ids
        self.codes = np.zeros(self.n, dtype=np.int64) if codes is None else codes
        counts = np.array([self.n]) if codes is None else np.bincount(codes, minlength=1)
        self.n_queries = len(counts)
        self.query = np.flatnonzero(counts)
        self.sizes = counts[self.query]
        self.starts = np.cumsum(self.sizes) - self.sizes

    @cached_property
    def order(self) -> np.ndarray:
        """(n,) the rows sorted by query, stably (computed at first use)."""
        if self.n_queries == 1:
            return np.arange(self.n)
        return query_major(np.arange(self.n), self.codes, self.n_queries)

    def split(self, values: ArrayLike | None = None) -> list[np.ndarray]:
        """The rows of each query (``query`` order; a query's rows ascending), or with
        ``values`` (n, ...) their values."""
        x = self.order if values is None else np.asarray(values)[self.order]
        return np.split(x, self.starts[1:])

    def reduce(self, ufunc: np.ufunc, values: ArrayLike) -> np.ndarray:
        """``ufunc`` reduced over the rows of each query: (Q, ...) from ``values`` (n, ...),
        e.g. ``reduce(np.add, Y)`` the positives of each label per query."""
        return ufunc.reduceat(np.asarray(values)[self.order], self.starts, axis=0)


class QuerySegments:
    """Rows sorted once by (query, score), ascending, and the tie groups of that order.

    Parameters
    ----------
    y_score : array-like of shape (n,), finite
    qid : array-like of shape (n,), optional
        Query ids (any hashable values); None: one query holding every row.
    check_input : bool, default True
        False skips the validation, for callers that validated at their public entry: then
        ``y_score`` must be a finite 1-D float array and ``qid`` None or non-negative int codes
        (:func:`bipartite._utils.validation.check_qid`, or a subset of its codes: a code with
        no row is a query with no rows, whose statistics are 0 or NaN).

    Attributes
    ----------
    n, n_queries : int
    query_ids : ndarray (G,) of the sorted distinct query ids (``None`` without ``qid``, or
        when the codes were passed unchecked)
    queries : :class:`QueryRows` — the same rows without the scores
    order : ndarray (n,) — rows in (query, score) order
    starts : ndarray (T,) — start of each tie group in that order
    tie_query : ndarray (T,) — query code of each tie group (non-decreasing)

    >>> seg = QuerySegments([0.2, 0.1, 0.3, 0.9], qid=[0, 0, 1, 1])
    >>> auc, P, N = seg.auc([0, 1, 0, 1], [1, 0, 1, 0])
    >>> auc.tolist()
    [[0.0, 1.0]]
    """

    def __init__(self, y_score: ArrayLike, qid: ArrayLike | None = None, *, check_input: bool = True):
        ids = None
        if check_input:
            s = check_array(y_score, "y_score", ndim=1)
            codes, ids = check_qid(qid, len(s), "qid", ref="y_score", return_ids=True)
            if codes is not None and not codes.flags.writeable:
                codes = codes.copy()  # a view of the caller's ids (check_qid): kept, so owned
        else:
            s, codes = np.asarray(y_score, dtype=np.float64), qid  # float32 scores: one cast
        n = len(s)
        self.n, self.query_ids = n, ids
        self.codes = np.zeros(n, dtype=np.int64) if codes is None else codes
        if n == 0:
            raise ValueError("The 'y_score' parameter must not be empty, got shape (0,).")
        self.n_queries = G = 1 if codes is None else int(codes.max()) + 1
        # one sort of packed (query, score bucket, row) keys: the order of
        # np.lexsort((row, s, codes)) (bipartite/metrics/_sorted_rows.py)
        rows = SortedRows(s, codes, G)
        self.order = rows.order()
        self.starts = rows.tie_starts()
        self.tie_query = rows.query(self.starts)
        del rows
        qnew = np.empty(len(self.starts), dtype=bool)
        qnew[0] = True
        np.not_equal(self.tie_query[1:], self.tie_query[:-1], out=qnew[1:])
        self._query_first = np.flatnonzero(qnew)  # first tie group of each non-empty query
        # every code 0..G-1 present: per-query sums are reduceat segments, else a bincount
        self._dense = len(self._query_first) == self.n_queries

    @cached_property
    def queries(self) -> QueryRows:
        """The same rows without the scores (:class:`QueryRows`), built at first use."""
        return QueryRows(self.codes, check_input=False)

    # -- segment sums -----------------------------------------------------------------------
    def sums(self, rows: ArrayLike, *, presorted: bool = False) -> np.ndarray:
        """(m, T) sums of each weight row ``rows`` (m, n) or (n,) over each tie group (float64:
        exact for integer counts below 2**53); ``presorted``: the rows are already in the
        segment order ``rows[:, order]`` (a gather saved)."""
        r = _rows(rows)
        return np.add.reduceat(r if presorted else r[:, self.order], self.starts, axis=1)

    def below(self, G: np.ndarray) -> np.ndarray:
        """Sums of ``G`` (m, T) over the strictly lower tie groups of the same query
        (:func:`segment_below`)."""
        return segment_below(G, self._query_first)

    def per_query(self, x: np.ndarray) -> np.ndarray:
        """(m, G) sums of tie-group values ``x`` (m, T) per query."""
        if self._dense:
            return np.add.reduceat(x, self._query_first, axis=1)
        m, G = x.shape[0], self.n_queries
        idx = (np.arange(m)[:, None] * G + self.tie_query[None, :]).ravel()
        return np.bincount(idx, x.ravel(), minlength=m * G).reshape(m, G)

    def above(self, G: np.ndarray) -> np.ndarray:
        """Sums of ``G`` (m, T) over the strictly higher tie groups of the same query."""
        total = self.per_query(G)[:, self.tie_query]
        return total - self.below(G) - G

    def at_rows(self, x: np.ndarray) -> np.ndarray:
        """Tie-group values ``x`` (m, T) handed to every row of the group, in input row order
        (m, n)."""
        out = np.empty((x.shape[0], self.n))
        out[:, self.order] = np.repeat(x, np.diff(np.r_[self.starts, self.n]), axis=1)
        return out

    def rows_per_query(self) -> list[np.ndarray]:
        """The rows of each non-empty query, in ascending row index (:meth:`QueryRows.split`)."""
        return self.queries.split()

    # -- statistics -------------------------------------------------------------------------
    def auc(self, pos: ArrayLike, neg: ArrayLike, *, presorted: bool = False
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per-query AUC of positive and negative masses ``pos``, ``neg`` (m, n) or (n,):
        ``(AUC (m, G), P (m, G), N (m, G))``, AUC NaN where a query has no positive or no
        negative mass. Each row is scaled by a power of two first (exact: no under- or overflow
        in ``P N``); P and N are returned unscaled. ``presorted`` as in :meth:`sums` (many
        reweightings of one sample, e.g. bootstrap replicates, share the gather)."""
        Pr, Nr = _rows(pos), _rows(neg)
        ep = np.frexp(Pr.max(axis=1, keepdims=True))[1]
        en = np.frexp(Nr.max(axis=1, keepdims=True))[1]
        Gp = self.sums(np.ldexp(Pr, -ep), presorted=presorted)
        Gn = self.sums(np.ldexp(Nr, -en), presorted=presorted)
        num = self.per_query(auc_terms(Gp, Gn, self.below(Gn)))
        P, N = self.per_query(Gp), self.per_query(Gn)
        ok = (P > 0) & (N > 0)
        auc = np.divide(num, P * N, out=np.full(num.shape, np.nan), where=ok)
        return auc, np.ldexp(P, ep), np.ldexp(N, en)

    def placements(self, pos: ArrayLike, neg: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """DeLong's placements, per row (input order) within its query: the negative mass
        scored strictly below the row plus ½ the tied (``below``), and the positive mass
        strictly above plus ½ the tied (``above``), each (m, n). Then ``AUC_q = Σ_{i∈q} pos_i
        below_i / (P_q N_q)`` (docs/theory.md §2.3)."""
        below, above = tie_placements(self.sums(pos), self.sums(neg), self._query_first)
        return self.at_rows(below), self.at_rows(above)

    def average_precision(self, pos: ArrayLike, neg: ArrayLike) -> np.ndarray:
        """Per-query average precision (m, G) of masses ``pos``, ``neg``, as
        :func:`sklearn.metrics.average_precision_score` (a tie group is one threshold); NaN
        where a query has no positive mass."""
        Pr, Nr = _rows(pos), _rows(neg)
        e = np.frexp(np.maximum(Pr.max(axis=1, keepdims=True), Nr.max(axis=1, keepdims=True)))[1]
        Gp, Gn = self.sums(np.ldexp(Pr, -e)), self.sums(np.ldexp(Nr, -e))  # one scale: exact
        Ap, An = self.above(Gp), self.above(Gn)  # weight scored above each group
        num, P = self.per_query(ap_terms(Gp, Gp + Gn, Ap, Ap + An)), self.per_query(Gp)
        return np.divide(num, P, out=np.full(num.shape, np.nan), where=P > 0)

    def multipartite(self, level: np.ndarray, L: int, C: np.ndarray,
                     w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Per-query multipartite AUC (docs/theory.md §3) of one ordinal level per row
        (``level`` in [0, L)) with the (L, L) cost matrix ``C`` and optional row weights:
        ``(AUC_MP (G,), number of levels present (G,))``; NaN where no pair of the query has
        positive cost (fewer than two levels, or zero costs)."""
        tid = np.repeat(np.arange(len(self.starts)), np.diff(np.r_[self.starts, self.n]))
        wo = None if w is None else pow2_normalise(w)[self.order]
        hist = np.bincount(tid * L + level[self.order], weights=wo, minlength=len(self.starts) * L)
        G = np.ascontiguousarray(hist.reshape(-1, L).T, dtype=np.float64)  # (L, T)
        Cn = pow2_normalise(np.asarray(C, dtype=np.float64))
        num = self.per_query(np.sum(G * (Cn @ (self.below(G) + 0.5 * G)), axis=0)[None])[0]
        T = self.per_query(G)  # (L, G): level totals per query
        den = np.einsum("aq,aq->q", T, Cn @ T)
        auc = np.divide(num, den, out=np.full(len(num), np.nan), where=den > 0)
        return auc, np.count_nonzero(T > 0, axis=0)

    def stats(self, pos: ArrayLike, neg: ArrayLike, *, weight: ArrayLike | None = None,
              ap: bool = False) -> GroupedStats:
        """:class:`GroupedStats` of masses ``pos``, ``neg`` (K, n) (AP too with ``ap``);
        ``weight`` (n,): the row weights of the "impressions" weighting (default pos + neg of
        the first row)."""
        Pr, Nr = _rows(pos), _rows(neg)
        auc, P, N = self.auc(Pr, Nr)
        W = Pr[0] + Nr[0] if weight is None else np.asarray(weight, dtype=np.float64)
        return GroupedStats(
            query_ids=self.query_ids, n=np.bincount(self.codes, minlength=self.n_queries),
            weight=np.bincount(self.codes, W, minlength=self.n_queries), pos=P.T, neg=N.T,
            auc=auc.T, ap=self.average_precision(Pr, Nr).T if ap else None)


@dataclass(frozen=True)
class GroupedStats:
    """Per-query statistics of one scorer against K binary labels (:func:`grouped_stats`).

    Attributes
    ----------
    query_ids : ndarray (G,) — the sorted distinct query ids (None when codes came unchecked)
    n : ndarray (G,) — rows per query
    weight : ndarray (G,) — total row weight per query
    pos, neg : ndarray (G, K) — positive and negative weight per query and label
    auc : ndarray (G, K) — per-query AUC, NaN where the query lacks a class
    ap : ndarray (G, K) or None — per-query average precision, NaN where no positive
    exp : ndarray (G,) of int or None — when set, ``pos``, ``neg`` and ``weight`` are each
        query's masses times ``2^−exp_q`` (exact; :func:`query_scaled`: weights spanning more
        than 2^400), and the gAUC weights are formed on one scale from them
    """

    query_ids: np.ndarray | None
    n: np.ndarray
    weight: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    auc: np.ndarray
    ap: np.ndarray | None = None
    exp: np.ndarray | None = None

    @property
    def defined(self) -> np.ndarray:
        """(G, K): whether the query has both classes of the label (its AUC is defined)."""
        return (self.pos > 0) & (self.neg > 0)

    def query_weights(self, weighting: str = "pairs") -> np.ndarray:
        """(G, K) gAUC weights λ_q of :func:`bipartite.metrics.group_auc`, 0 where the query's
        AUC is undefined: ``"pairs"`` P_q N_q, ``"uniform"`` 1, ``"impressions"`` the query's
        row weight — each label's column scaled by a power of two (exact, and the gAUC is a
        ratio: weights of 1e-170 do not underflow to 0 in P N)."""
        check_option(weighting, "weighting", GAUC_WEIGHTINGS)
        if weighting == "uniform":
            lam = np.ones_like(self.pos)
        elif self.exp is not None:  # per-query scales: each λ_q as mantissa and exponent
            ex = np.broadcast_to(self.exp[:, None], self.pos.shape)
            lam = (_scaled_log2(self.pos * self.neg, 2 * ex, self.defined)
                   if weighting == "pairs" else
                   _scaled_log2(np.broadcast_to(self.weight[:, None], self.pos.shape), ex,
                                self.defined))
        elif weighting == "pairs":
            lam = pow2_normalise(self.pos, 0) * pow2_normalise(self.neg, 0)
        else:
            lam = np.broadcast_to(pow2_normalise(self.weight)[:, None], self.pos.shape)
        return np.where(self.defined, lam, 0.0)

    def gauc(self, weighting: str = "pairs") -> np.ndarray:
        """(K,) gAUC: ``Σ_q λ_q AUC_q / Σ_q λ_q`` over the queries where the label's AUC is
        defined; NaN (no warning here) where none is."""
        lam = self.query_weights(weighting)
        den = lam.sum(axis=0)
        num = np.sum(lam * np.where(self.defined, self.auc, 0.0), axis=0)
        return np.divide(num, den, out=np.full(len(den), np.nan), where=den > 0)

    def mean_ap(self) -> np.ndarray:
        """(K,) mean over the queries with a positive of the per-query AP (MAP); NaN where no
        query has a positive."""
        if self.ap is None:
            raise ValueError("The per-query AP was not computed: pass ap=True.")
        ok = self.pos > 0
        cnt = ok.sum(axis=0)
        return np.divide(np.sum(np.where(ok, self.ap, 0.0), axis=0), cnt,
                         out=np.full(len(cnt), np.nan), where=cnt > 0)
