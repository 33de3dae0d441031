"""Pareto dominance on point sets: filters, near-duplicate merging, hypervolume (docs/theory.md §6).

One dominance rule serves every caller. Row j **dominates** row i *at resolution tol* when
``x_j ≥ x_i − tol`` in every column and ``x_j > x_i + tol`` in one (tol = 0: exact dominance).
:func:`pareto_filter` applies it exactly, the subset DP's filter (:func:`frontier_rows`) at the
DP's resolution. The filters are output-sensitive:

* K = 2: one sort by the first column and a running maximum of the second, O(m log m).
* K = 3: one lexicographic sort and a sweep that keeps the staircase (2-D maxima) of the other two
  columns finds the exact maxima and, for every other row, a maximum above it; only rows within
  tol of their maximum need the resolution-tol test, which asks, for each column k, whether the
  orthant ``{x_k > x_ik + tol, x_l ≥ x_il − tol}`` holds a maximum (same sweep, by column k).
  O(m log m + m·b) with sweep blocks of b = 128 rows (512 from 2^17 rows); the DP's filter
  (:func:`frontier_rows`) runs the orthant test only on rows with another row within tol below
  them in some column (:func:`_near_dominated`).
* K > 3: the same orthant queries, answered by divide and conquer over the sweep order
  (one dimension less at each level, down to the staircase sweep).
"""


from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    as_plain_array,
    check_array,
)

__all__ = ["MarginIndex", "dominated_with_margin", "dominates", "frontier_rows", "greedy_unique", "hypervolume",
           "pareto_filter", "unique_rows"]


# --------------------------------------------------------------------------------------------
# Point-set utilities
# --------------------------------------------------------------------------------------------
def _check_points(points: ArrayLike, name: str = "points", *, order_only: bool = False
                  ) -> np.ndarray:
    """A 2-D point set; ``order_only`` (dominance: each column used only through its order)
    ranks integers beyond 2**53 exactly instead of rounding them into ties."""
    return check_array(points, name, ndim=2, allow_empty=True,
                       exact_integers="order" if order_only else None)


def dominates(a: ArrayLike, b: ArrayLike, *, maximize: bool = True) -> bool:
    """Whether ``a`` Pareto-dominates ``b``: ``a ≥ b`` in every coordinate and ``>`` in one
    (``≤``/``<`` with ``maximize=False``) (docs/theory.md §6).

    >>> dominates([0.8, 0.7], [0.8, 0.6]), dominates([0.8, 0.7], [0.8, 0.7])
    (True, False)
    """
    x = check_array(a, "a", ndim=1)
    y = check_array(b, "b", ndim=1)
    if x.shape != y.shape:
        raise ValueError(f"The 'a' and 'b' parameters must have the same shape, got {x.shape} "
                         f"and {y.shape}.")
    if max(np.abs(x).max(initial=0), np.abs(y).max(initial=0)) > 2.0**53:
        # integers beyond 2**53 may have rounded into ties: compare their exact ranks
        raw = np.array([np.asarray(as_plain_array(a, "a")), np.asarray(as_plain_array(b, "b"))],
                       dtype=object)
        x, y = _check_points(raw, "a", order_only=True)
    if not maximize:
        x, y = -x, -y
    return bool(np.all(x >= y) and np.any(x > y))


def pareto_filter(points: ArrayLike, *, maximize: bool = True) -> np.ndarray:
    """Mask of the non-dominated rows of ``points`` (docs/theory.md §6).

    Row ``i`` is kept unless another row dominates it (see :func:`dominates`); exact duplicates
    do not dominate each other, so all copies of a non-dominated point are kept. One sort and a
    sweep: O(m log m) for two columns, O(m log m + 128 m) for three, divide and conquer above.

    Parameters
    ----------
    points : array-like of shape (m, K)

    Returns
    -------
    ndarray of bool, shape (m,)

    >>> pareto_filter([[0.9, 0.1], [0.5, 0.5], [0.4, 0.4], [0.5, 0.5]]).tolist()
    [True, True, False, True]
    """
    P = _check_points(points, order_only=True)
    if not maximize:
        P = -P
    m, K = P.shape
    if m == 0:
        return np.zeros(0, dtype=bool)
    if K == 1:
        return P[:, 0] == P[:, 0].max()
    if K == 2:
        return _pareto_filter_2d(P)
    return _pareto_filter_nd(P)


# --------------------------------------------------------------------------------------------
# Orthant queries: "is some point ≥ this corner?", by sweeps
# --------------------------------------------------------------------------------------------
#: Rows per block of the staircase sweep (queries within a block are compared pairwise) ...
_SWEEP_BLOCK = 128
#: ... and for sweeps of at least _SWEEP_LARGE rows, where rebuilding the staircase after every
#: block costs more than the pairwise part (a K = 3 DP state of 1.5 million candidates: 2.3 s
#: with blocks of 128 rows, 1.1-1.3 s with 512 or 1024, 1.8 s with 2048).
_SWEEP_BLOCK_LARGE = 512
_SWEEP_LARGE = 1 << 17
#: Segments of at most this many events are solved pairwise by the divide and conquer.
_LEAF = 64


def _sweep_2d(U: np.ndarray, V: np.ndarray, is_pt: np.ndarray,
              is_q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A sequence of events, each a point, a query or both: for every query, whether an earlier
    point has ``U ≥ U_q`` and ``V ≥ V_q``, and the index of one such point (−1 if none).

    Blocks of events are answered against the staircase (the 2-D maxima, U ascending and V
    descending) of all earlier points, by binary search, and pairwise inside the block; then the
    block's points that the staircase does not cover join it."""
    n = len(U)
    cov, wit = np.zeros(n, dtype=bool), np.full(n, -1, dtype=np.int64)
    su, sv, si = np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int64)
    step = _SWEEP_BLOCK_LARGE if n >= _SWEEP_LARGE else _SWEEP_BLOCK
    for a in range(0, n, step):
        b = min(n, a + step)
        q = a + np.flatnonzero(is_q[a:b])
        p = a + np.flatnonzero(is_pt[a:b])
        if len(su):
            if len(q):  # the largest V among staircase points with U ≥ U_q is the first of them
                k = np.minimum(np.searchsorted(su, U[q]), len(su) - 1)
                hit = (su[k] >= U[q]) & (sv[k] >= V[q])
                cov[q[hit]], wit[q[hit]] = True, si[k[hit]]
            if len(p):
                k = np.minimum(np.searchsorted(su, U[p]), len(su) - 1)
                p = p[(su[k] < U[p]) | (sv[k] < V[p])]  # covered points cannot change the staircase
        rest = q[~cov[q]]
        if len(rest) and len(p):
            M = (U[p] >= U[rest][:, None]) & (V[p] >= V[rest][:, None]) & (p < rest[:, None])
            h = M.any(axis=1)
            cov[rest[h]], wit[rest[h]] = True, p[M[h].argmax(axis=1)]
        if len(p):
            U2, V2 = np.concatenate([su, U[p]]), np.concatenate([sv, V[p]])
            o = np.lexsort((-V2, -U2))  # U descending: a point survives if V beats all before it
            v = V2[o]
            up = np.empty(len(o), dtype=bool)
            up[0] = True
            np.greater(v[1:], np.maximum.accumulate(v)[:-1], out=up[1:])
            o = o[up][::-1]
            su, sv, si = U2[o], V2[o], np.concatenate([si, p])[o]
    return cov, wit


def _prefix_covered(is_pt: np.ndarray, is_q: np.ndarray, X: np.ndarray) -> np.ndarray:
    """For every query of a sequence of events: does an earlier point have ``X ≥ X_q`` in every
    column? (Running maximum for one column, the staircase sweep for two, divide and conquer on
    the sequence above: the second half's queries against the first half's points.)"""
    n, d = X.shape
    if d == 1:
        top = np.maximum.accumulate(np.where(is_pt, X[:, 0], -np.inf))
        return np.r_[False, top[:-1] >= X[1:, 0]]
    if d == 2:
        return _sweep_2d(X[:, 0], X[:, 1], is_pt, is_q)[0]
    out = np.zeros(n, dtype=bool)
    if n <= _LEAF:
        p, q = np.flatnonzero(is_pt), np.flatnonzero(is_q)
        if len(p) and len(q):
            ge = np.all(X[p] >= X[q][:, None, :], axis=2) & (p < q[:, None])
            out[q] = ge.any(axis=1)
        return out
    mid = n // 2
    out[:mid] = _prefix_covered(is_pt[:mid], is_q[:mid], X[:mid])
    out[mid:] = _prefix_covered(is_pt[mid:], is_q[mid:], X[mid:])
    q = mid + np.flatnonzero(is_q[mid:] & ~out[mid:])
    if len(q):
        out[q] = _covered(X[:mid][is_pt[:mid]], X[q])
    return out


def _covered(P: np.ndarray, Q: np.ndarray, strict: bool = False) -> np.ndarray:
    """For every row q of Q: is some row p of P ``≥ q`` in every column (``>`` in the first when
    ``strict``)? Sweeps the first column downwards; on a tie a point comes before the queries,
    after them when strict."""
    if len(P) == 0 or len(Q) == 0:
        return np.zeros(len(Q), dtype=bool)
    if P.shape[1] == 1:
        top = P[:, 0].max()
        return top > Q[:, 0] if strict else top >= Q[:, 0]
    if P.shape[1] == 2:  # the points with a larger first column are a prefix: no query sort
        o = np.argsort(-P[:, 0], kind="stable")
        top = np.maximum.accumulate(P[o, 1])
        cnt = np.searchsorted(-P[o, 0], -Q[:, 0], side="left" if strict else "right")
        return (cnt > 0) & (top[np.maximum(cnt, 1) - 1] >= Q[:, 1])
    is_q = np.r_[np.zeros(len(P), dtype=bool), np.ones(len(Q), dtype=bool)]
    o = np.lexsort((~is_q if strict else is_q, -np.r_[P[:, 0], Q[:, 0]]))
    isq = is_q[o]
    res = _prefix_covered(~isq, isq, np.concatenate([P[:, 1:], Q[:, 1:]])[o])
    out = np.empty(len(Q), dtype=bool)
    out[o[isq] - len(P)] = res[isq]
    return out


def _pareto_filter_nd(P: np.ndarray, tol: float = 0.0) -> np.ndarray:
    """Non-dominated rows for K ≥ 3 columns at resolution ``tol`` (module docstring): row i is
    dropped iff some row j has ``x_j ≥ x_i − tol`` everywhere and ``x_j > x_i + tol`` somewhere.

    1. Lexicographically descending order: no row weakly dominates an earlier one unless equal,
       so the exact maxima M are the rows that no earlier row covers in the other columns
       (staircase sweep for K = 3, with a covering row as witness; divide and conquer above).
    2. A row whose witness beats it by more than tol in some column is dominated.
    3. For the rest R (M and rows within tol of their witness): i is dominated iff for some k
       the orthant ``{x_k > x_ik + tol, x_l ≥ x_il − tol}`` holds a row, and then it holds a row
       of M (a row above one in the orthant is in it too). For K = 3 the exact duplicates are
       set aside first (a copy shares its first copy's fate), so a row i of M is weakly
       dominated by no other row, and a row j in its orthant has ``x_jl < x_il`` in some column
       l, within tol: only the rows of M within tol below i in some column are tested, pairwise
       (:func:`_near_dominated`); with too many such pairs, or for the rows of R outside M, the
       K orthant queries of R against M decide.
    """
    m, K = P.shape
    o = np.lexsort(P.T[::-1])[::-1]
    Q = P[o]
    every = np.ones(m, dtype=bool)
    if K == 3:
        # exact duplicates are adjacent in lexicographic order: filter the first copies only
        first = np.r_[True, np.any(Q[1:] != Q[:-1], axis=1)]
        rep = np.cumsum(first) - 1
        keep_u = _filter_3d_unique(Q[first], tol)
        keep = np.zeros(m, dtype=bool)
        keep[o] = keep_u[rep]
        return keep
    cov, sure = _prefix_covered(every, every, Q[:, 1:]), np.zeros(m, dtype=bool)
    M, R = Q[~cov], np.flatnonzero(~sure)
    keep = np.zeros(m, dtype=bool)
    keep[o[R[~_orthant_dominated(M, Q[R], tol)]]] = True
    return keep


def _orthant_dominated(M: np.ndarray, X: np.ndarray, tol: float) -> np.ndarray:
    """For every row x of X: does some row of M lie in an orthant ``{x_k > x_k + tol,
    x_l ≥ x_l − tol}``? K orthant queries (:func:`_covered`)."""
    K = X.shape[1]
    dominated = np.zeros(len(X), dtype=bool)
    for k in range(K):
        cols = [k] + [c for c in range(K) if c != k]
        corner = X[:, cols] - tol
        corner[:, 0] = X[:, k] + tol
        dominated[~dominated] = _covered(M[:, cols], corner[~dominated], strict=True)
    return dominated


#: Most candidate pairs that :func:`_near_dominated` tests pairwise (else orthant queries).
_NEAR_PAIRS = 1 << 22


def _filter_3d_unique(Q: np.ndarray, tol: float) -> np.ndarray:
    """Keep-mask of :func:`_pareto_filter_nd` for K = 3 on distinct rows Q sorted
    lexicographically descending (steps 1-3 there)."""
    m = len(Q)
    every = np.ones(m, dtype=bool)
    cov, wit = _sweep_2d(Q[:, 1], Q[:, 2], every, every)
    sure = np.zeros(m, dtype=bool)
    sure[cov] = np.any(Q[wit[cov]] > Q[cov] + tol, axis=1)
    inner = np.flatnonzero(~cov)                  # M: weakly dominated by no other row
    outer = np.flatnonzero(cov & ~sure)           # within tol of a row that covers it
    M = Q[inner]
    dominated = np.zeros(m, dtype=bool)
    if tol > 0 and len(M) > 1:
        near = _near_dominated(M, tol)
        if near is None:
            near = _orthant_dominated(M, M, tol)
        dominated[inner] = near
    if len(outer):
        dominated[outer] = _orthant_dominated(M, Q[outer], tol)
    return ~sure & ~dominated


def _near_dominated(M: np.ndarray, tol: float) -> np.ndarray | None:
    """For rows M that no other row of M weakly dominates: is row i dominated at resolution tol
    by a row of M? A dominating row j is not ≥ i everywhere, so it has ``x_il − tol ≤ x_jl <
    x_il`` in some column l: the pairs (i, j) found that way, column by column, are tested
    directly. ``None`` when there are more than :data:`_NEAR_PAIRS` pairs."""
    m, K = M.shape
    dominated = np.zeros(m, dtype=bool)
    pairs_i, pairs_j = [], []
    total = 0
    for col in range(K):
        o = np.argsort(M[:, col], kind="stable")
        s = M[o, col]
        lo = np.searchsorted(s, M[:, col] - tol, side="left")
        hi = np.searchsorted(s, M[:, col], side="left")
        cnt = hi - lo
        total += int(cnt.sum())
        if total > _NEAR_PAIRS:
            return None
        if total == 0:
            continue
        rows = np.flatnonzero(cnt)
        pairs_i.append(np.repeat(rows, cnt[rows]))
        pairs_j.append(o[concat_ranges(lo[rows], cnt[rows])])
    if total == 0:
        return dominated
    i, j = np.concatenate(pairs_i), np.concatenate(pairs_j)
    hit = np.all(M[j] >= M[i] - tol, axis=1) & np.any(M[j] > M[i] + tol, axis=1)
    dominated[i[hit]] = True
    return dominated


def concat_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(s, s + l)`` over the segments, without a Python loop (also the
    subset DP's gather of stored rows)."""
    total = int(lengths.sum())
    return np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(total)


def dominated_with_margin(E: np.ndarray, X: np.ndarray, tol: float) -> np.ndarray:
    """Mask over the rows x of X: some row e of E has ``e ≥ x`` everywhere and ``e > x + tol``
    somewhere. Such an x, and every point below it, is dominated at resolution tol by e, and is
    not needed to dominate anything else (e dominates whatever it dominates). K orthant queries
    (:class:`MarginIndex` of E, built here for one use)."""
    return MarginIndex(E)(X, tol)


class MarginIndex:
    """:func:`dominated_with_margin` against fixed rows E, their sorted tables built once (the
    subset DP asks the same known vectors about every state): for K = 2 the rows sorted by the
    first column (descending) with the running maximum of the second; for K = 3 (up to
    :data:`_TABLE_MAX_ROWS` rows) one table per column (:meth:`_table_3d`); else the rows, for
    K orthant queries (:func:`_covered`)."""

    def __init__(self, E: np.ndarray):
        if E.ndim != 2:
            raise ValueError(f"MarginIndex: the rows E must be a 2-D array, got shape {E.shape}.")
        self.E = E
        self.K = E.shape[1]
        self.tables = None
        if len(E) and self.K == 2:  # one sort: e_x > x + tol and e_x ≥ x both select a prefix
            o = np.argsort(-E[:, 0], kind="stable")
            self.tables = (-E[o, 0], np.maximum.accumulate(E[o, 1]))
        elif len(E) and self.K == 3 and len(E) <= _TABLE_MAX_ROWS:
            self.tables = [self._table_3d(E, k) for k in range(3)]

    @staticmethod
    def _table_3d(E: np.ndarray, k: int) -> tuple:
        """For column k, the rows with ``e_k > x_k + tol`` are a prefix t of E sorted by column k
        (descending), and a table holds, for every prefix t and rank r of the second column, the
        largest third column among the prefix's rows whose second column has rank ≥ r. Every
        query is then two binary searches and one look-up (no sort of X)."""
        a, b = [c for c in range(3) if c != k]
        o = np.argsort(-E[:, k], kind="stable")
        ua = np.unique(E[:, a])
        ra = np.searchsorted(ua, E[o, a])
        table = np.where(np.arange(len(ua) + 1) <= ra[:, None], E[o, b][:, None], -np.inf)
        table = np.maximum.accumulate(np.vstack([np.full(len(ua) + 1, -np.inf), table]), axis=0)
        return k, a, b, -E[o, k], ua, table

    def __call__(self, X: np.ndarray, tol: float) -> np.ndarray:
        E = self.E
        if X.ndim != 2 or X.shape[1] != self.K:
            raise ValueError(f"MarginIndex: the queries X must have {self.K} columns (as E), "
                             f"got shape {X.shape}.")
        if len(E) == 0:
            return np.zeros(len(X), dtype=bool)
        if X.shape[1] == 2:
            ex, top = self.tables
            a = np.searchsorted(ex, -(X[:, 0] + tol), side="left")
            b = np.searchsorted(ex, -X[:, 0], side="right")
            return (((a > 0) & (top[np.maximum(a, 1) - 1] >= X[:, 1]))
                    | ((b > 0) & (top[np.maximum(b, 1) - 1] > X[:, 1] + tol)))
        if X.shape[1] == 3 and self.tables is not None:
            out = np.zeros(len(X), dtype=bool)
            for k, a, b, ek, ua, table in self.tables:
                t = np.searchsorted(ek, -(X[:, k] + tol), side="left")
                r = np.searchsorted(ua, X[:, a], side="left")
                out |= table[t, r] >= X[:, b]
            return out
        out = np.zeros(len(X), dtype=bool)
        for k in range(X.shape[1]):
            cols = [k] + [c for c in range(X.shape[1]) if c != k]
            corner = X[~out][:, cols]
            corner[:, 0] += tol
            out[~out] = _covered(E[:, cols], corner, strict=True)
        return out


#: :func:`dominated_with_margin` (K = 3) answers from tables of (rows + 1)² entries up to here.
_TABLE_MAX_ROWS = 512


def _pareto_filter_2d(P: np.ndarray, tol: float = 0.0) -> np.ndarray:
    """Non-dominated rows of a two-column P at resolution ``tol`` (tol = 0: exact dominance).
    One sort by x descending: the rows with ``x_j > x_i + tol`` and the rows with
    ``x_j ≥ x_i − tol`` are both prefixes, so a running maximum of y decides the two ways to
    dominate row i (larger x by more than tol, or larger y by more than tol)."""
    order = np.argsort(-P[:, 0], kind="stable")  # stable: merges presorted runs (the DP's)
    x, y = P[order, 0], P[order, 1]
    top = np.maximum.accumulate(y)
    a = np.searchsorted(-x, -(x + tol), side="left")   # rows with x_j > x_i + tol
    b = np.searchsorted(-x, -(x - tol), side="right")  # rows with x_j ≥ x_i − tol (b ≥ 1)
    dominated = (top[b - 1] > y + tol) | ((a > 0) & (top[np.maximum(a, 1) - 1] >= y - tol))
    mask = np.empty(len(P), dtype=bool)
    mask[order] = ~dominated
    return mask


def hypervolume(points: ArrayLike, reference: ArrayLike) -> float:
    """Area dominated by a 2-D point set and bounded below by ``reference`` (maximisation).

    ``HV = area( ∪_p [r_1, p_1] × [r_2, p_2] )``; points not above the reference in both
    coordinates add nothing. Computed by one sort of the non-dominated points.

    >>> hypervolume([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], [0.0, 0.0])
    0.25
    """
    P = _check_points(points)
    r = check_array(reference, "reference", ndim=1)
    if P.shape[1:] != (2,) or r.shape != (2,):
        raise ValueError(f"hypervolume is two-dimensional: 'points' must have shape (m, 2) and "
                         f"'reference' shape (2,), got {P.shape} and {r.shape}.")
    P = P[np.all(P > r, axis=1)]
    if len(P) == 0:
        return 0.0
    P = np.unique(P[pareto_filter(P)], axis=0)
    P = P[np.argsort(-P[:, 0])]  # x descending, hence y ascending on the frontier
    x_next = np.append(P[1:, 0], r[0])
    return float(np.sum((P[:, 0] - x_next) * (P[:, 1] - r[1])))


# --------------------------------------------------------------------------------------------
# Near-duplicates
# --------------------------------------------------------------------------------------------
def _walk(V: np.ndarray, order: np.ndarray, tol: float) -> list[int]:
    """The greedy walk itself (see :func:`greedy_unique`), for orders not monotone in column 0."""
    kept: list[int] = []
    for i in order:
        dup = False
        for j in reversed(kept):
            if abs(V[j, 0] - V[i, 0]) > tol:
                break
            if np.max(np.abs(V[i] - V[j])) <= tol:
                dup = True
                break
        if not dup:
            kept.append(int(i))
    return kept


def _walk_run(C: np.ndarray, tol: float) -> np.ndarray:
    """Keep-mask of the greedy walk over the rows of C (in order): pairwise closeness at once,
    then the walk over the rows that have a close earlier row."""
    c = len(C)
    close = np.zeros((c, c), dtype=bool)
    for a in range(0, c, 512):  # bounded memory: 512 rows against the earlier ones at a time
        b = min(c, a + 512)
        close[a:b, :b] = np.all(np.abs(C[a:b, None, :] - C[None, :b, :]) <= tol, axis=2)
    close &= np.tri(c, k=-1, dtype=bool)
    keep = np.ones(c, dtype=bool)
    for i in np.flatnonzero(close.any(axis=1)):
        keep[i] = not np.any(close[i] & keep)
    return keep


def greedy_unique(V: np.ndarray, order: np.ndarray, tol: float) -> np.ndarray:
    """Walk ``order`` (sorted by the first column of V, either direction) and keep a row unless
    it is within ``tol`` (max-norm) of a kept row.

    Kept rows are monotone in the first column, so only rows of the same run of first
    coordinates linked by gaps ≤ tol can be close. Inside a run the walk is short-cut where its
    result is clear: a run whose rows are pairwise more than tol apart in the second column
    keeps them all, a run whose rows are all within tol of its first row keeps only that, and
    the walk runs on the other runs only."""
    order = np.asarray(order, dtype=np.int64)
    if len(order) <= 1:
        return order.copy()
    X = V[order]
    dx = np.diff(X[:, 0])
    if not (np.all(dx >= 0) or np.all(dx <= 0)):
        return np.array(_walk(V, order, tol), dtype=np.int64)
    start = np.flatnonzero(np.concatenate([[True], np.abs(dx) > tol]))
    size = np.diff(np.append(start, len(order)))
    keep = np.ones(len(order), dtype=bool)
    multi = size > 1
    if not multi.any():
        return order
    rid = np.repeat(np.arange(len(start)), size)
    rows = np.flatnonzero(multi[rid])
    if X.shape[1] > 1:  # runs with no two rows within tol in the second column keep all
        o = rows[np.lexsort((X[rows, 1], rid[rows]))]
        link = (rid[o[1:]] == rid[o[:-1]]) & (np.abs(X[o[1:], 1] - X[o[:-1], 1]) <= tol)
        multi[:] = False
        multi[rid[o[1:][link]]] = True
        rows = np.flatnonzero(multi[rid])
    near = np.all(np.abs(X[rows] - X[start[rid[rows]]]) <= tol, axis=1)  # close to the first
    tight = np.ones(len(start), dtype=bool)
    np.logical_and.at(tight, rid[rows], near)
    done = rows[tight[rid[rows]]]
    keep[done] = done == start[rid[done]]
    for s, c in zip(start[multi & ~tight], size[multi & ~tight], strict=True):
        keep[s:s + c] = _walk_run(X[s:s + c], tol)
    return order[keep]


def unique_rows(P: np.ndarray, tol: float) -> np.ndarray:
    """Indices of a lexicographically sorted (first column first) subset of the rows of P in
    which no two rows are within ``tol`` of each other (max-norm; the first of a group is kept)."""
    if len(P) == 0:
        return np.zeros(0, dtype=np.int64)
    # sort on values rounded to 12 decimals so that float noise (~1e-16) cannot reorder rows
    return greedy_unique(P, np.lexsort(np.round(P, 12).T[::-1]), tol)


def _merge_close(V: np.ndarray, tol: float) -> np.ndarray:
    """Indices of a subset of the rows of the antichain ``V`` with no two rows within ``tol``
    (max-norm), every dropped row within ``tol`` of a kept one; lexicographic order."""
    if V.shape[1] == 2:
        # antichain sorted by x descending has y ascending: near-duplicates are neighbours, so a
        # row is dropped when it is within tol of the last kept row.
        order = np.lexsort((V[:, 1], -V[:, 0]))
        return greedy_unique(V, order, tol)
    return greedy_unique(V, np.lexsort(V.T[::-1]), tol)


def frontier_rows(C: np.ndarray, tol: float) -> np.ndarray:
    """Indices of the rows of C that no row dominates at resolution ``tol`` (module docstring),
    near-duplicates (within tol) merged.

    Floating sums of the same real number along different paths differ by ~1e-16; a strict
    filter would keep ``(0, 1, 0.76)`` beside ``(0, 1 − 1e-16, 0.77)``."""
    m, K = C.shape
    if m <= 1:
        return np.arange(m)
    mask = _pareto_filter_2d(C, tol) if K == 2 else _pareto_filter_nd(C, tol)
    keep = np.flatnonzero(mask)
    return keep[_merge_close(C[keep], tol)]
