"""Pareto dominance on point sets: filters, near-duplicate merging, hypervolume (docs/theory.md §6).

One dominance test serves every caller: :func:`pareto_filter` (exact, ``tol = 0``) and the
subset DP's tolerant filter (:func:`frontier_rows`, resolution ``tol``).
"""


from __future__ import annotations

from typing import Any

import numpy as np

from bipartite._utils.validation import (
    check_array,
)

__all__ = ["dominates", "frontier_rows", "greedy_unique", "hypervolume", "pareto_filter", "unique_rows"]


# --------------------------------------------------------------------------------------------
# Point-set utilities
# --------------------------------------------------------------------------------------------
def _check_points(points: Any, name: str = "points") -> np.ndarray:
    P = check_array(points, name, ndim=2, allow_empty=True)
    return P


def dominates(a: Any, b: Any, *, maximize: bool = True) -> bool:
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
    if not maximize:
        x, y = -x, -y
    return bool(np.all(x >= y) and np.any(x > y))


def pareto_filter(points: Any, *, maximize: bool = True) -> np.ndarray:
    """Mask of the non-dominated rows of ``points`` (docs/theory.md §6).

    Row ``i`` is kept unless another row dominates it (see :func:`dominates`); exact duplicates
    do not dominate each other, so all copies of a non-dominated point are kept. For two columns
    the filter sorts once (``O(m log m)``); for more columns it visits the rows by decreasing sum
    and compares each block with the rows kept so far (``O(m · (f + b) · K)`` time for f
    non-dominated rows and blocks of b rows).

    Parameters
    ----------
    points : array-like of shape (m, K)

    Returns
    -------
    ndarray of bool, shape (m,)

    >>> pareto_filter([[0.9, 0.1], [0.5, 0.5], [0.4, 0.4], [0.5, 0.5]]).tolist()
    [True, True, False, True]
    """
    P = _check_points(points)
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


def _dominated_by(A: np.ndarray, B: np.ndarray, tol: float = 0.0) -> np.ndarray:
    """Mask over rows b of B: some row a of A has ``a ≥ b − tol`` everywhere and
    ``a > b + tol`` somewhere (dominance at resolution tol; tol = 0: exact dominance).
    Vectorised, O(|A| |B| K)."""
    if len(A) == 0 or len(B) == 0:
        return np.zeros(len(B), dtype=bool)
    ge = np.all(A[None, :, :] >= B[:, None, :] - tol, axis=2)
    gt = np.any(A[None, :, :] > B[:, None, :] + tol, axis=2)
    return np.any(ge & gt, axis=1)


def _pareto_filter_nd(P: np.ndarray, tol: float = 0.0) -> np.ndarray:
    """Non-dominated rows for K ≥ 3 columns at resolution ``tol`` (:func:`_dominated_by`).

    Rows are visited by decreasing sum (ties broken lexicographically, decreasing). Rounding is
    monotone, so an exact dominator never comes after the row it dominates; a dominator at
    resolution tol can have a sum up to ``K·tol`` smaller. Each block is compared with the rows
    kept so far and with every row whose sum is within ``K·tol`` below the block's (its own
    block included): ``O(m · (|frontier| + block) · K)`` instead of ``O(m² K)``. A row dominated
    only by a dropped row is dropped too (that row's own dominator covers it)."""
    m, K = P.shape
    s = P.sum(axis=1)
    order = np.lexsort(tuple(-P[:, k] for k in range(K - 1, -1, -1)) + (-s,))
    Q, ns = P[order], -s[order]
    keep_sorted = np.zeros(m, dtype=bool)
    kept = np.zeros((0, K))
    step = 256
    a = 0
    while a < m:
        b = min(m, a + step)
        h = int(np.searchsorted(ns, ns[b - 1] + K * tol, side="right"))
        B = Q[a:b]
        alive = ~_dominated_by(kept, B, tol) & ~_dominated_by(Q[a:h], B, tol)
        keep_sorted[a:b] = alive
        if alive.any():
            kept = np.concatenate([kept, B[alive]])
            if len(kept) * len(B) * K > 2**24:  # keep memory bounded: smaller blocks
                step = max(16, step // 2)
        a = b
    keep = np.empty(m, dtype=bool)
    keep[order] = keep_sorted
    return keep


def _pareto_filter_2d(P: np.ndarray, tol: float = 0.0) -> np.ndarray:
    """Non-dominated rows of a two-column P at resolution ``tol`` (see :func:`_dominated_by`;
    tol = 0: exact dominance). One sort by (x desc, y desc); x values are grouped by single
    linkage at gap tol (tol = 0: equal x), so rows of an earlier group have x > x_i + tol and
    rows of the same group count as equal in x. A row is dominated iff an earlier group has
    y ≥ its y − tol, or its own group has y > its y + tol."""
    m = len(P)
    order = np.lexsort((-P[:, 1], -P[:, 0]))
    x, y = P[order, 0], P[order, 1]
    new_group = np.empty(m, dtype=bool)
    new_group[0] = True
    new_group[1:] = (x[:-1] - x[1:]) > tol
    gid = np.cumsum(new_group) - 1
    first = np.flatnonzero(new_group)
    group_top = np.maximum.reduceat(y, first)  # largest y of each x-group
    before = np.full(len(first), -np.inf)      # largest y over all earlier groups
    before[1:] = np.maximum.accumulate(group_top)[:-1]
    dominated = (before[gid] >= y - tol) | (group_top[gid] > y + tol)
    mask = np.empty(m, dtype=bool)
    mask[order] = ~dominated
    return mask


def hypervolume(points: Any, reference: Any) -> float:
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


def greedy_unique(V: np.ndarray, order: np.ndarray, tol: float) -> np.ndarray:
    """Walk ``order`` (sorted by the first column of V, either direction) and keep a row unless
    it is within ``tol`` (max-norm) of a kept row. Kept rows are monotone in the first column, so
    only the tail of kept rows whose first coordinate is within ``tol`` needs checking."""
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
    return np.array(kept, dtype=np.int64)


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
    """Indices of the rows of C that no row dominates at resolution ``tol`` (see
    :func:`_dominated_by`), near-duplicates (within tol) merged.

    Floating sums of the same real number along different paths differ by ~1e-16; a strict
    filter would keep ``(0, 1, 0.76)`` beside ``(0, 1 − 1e-16, 0.77)``."""
    m, K = C.shape
    if m <= 1:
        return np.arange(m)
    mask = _pareto_filter_2d(C, tol) if K == 2 else _pareto_filter_nd(C, tol)
    keep = np.flatnonzero(mask)
    return keep[_merge_close(C[keep], tol)]
