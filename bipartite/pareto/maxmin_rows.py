"""The rows of a restricted weak-order MILP (docs/theory.md §13.1): the completeness and
transitivity rows with fixed binaries substituted, built without an n³ table.

:class:`~bipartite.pareto.milp.WeakOrderMILP` with ``fixed`` (the certified restriction of
:func:`~bipartite.pareto.max_min_point`) builds its rows here. Internal: inputs are the
caller's, already validated.
"""

from __future__ import annotations

import numpy as np


def restrict_rows(comp_cols: np.ndarray, trans_cols: np.ndarray, fixed: np.ndarray
                   ) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """The completeness rows ``z_a + z_b ≥ 1`` and transitivity rows ``z_a + z_b − z_c ≤ 1`` with
    the fixed binaries substituted (see :class:`WeakOrderMILP`'s ``fixed``). Rows that hold for
    every value of their free binaries are dropped; a row with one free binary that it forces
    fixes that binary, and the rows are reduced again until nothing changes. Returns the kept
    rows in solver numbering (index, value, length, lower, upper) and the extended fixings."""
    fixed = fixed.copy()
    cols = np.concatenate([np.c_[comp_cols, np.full(len(comp_cols), -1)], trans_cols])
    vals = np.concatenate([np.tile(COMP_VALS, (len(comp_cols), 1)),
                           np.tile(TRANS_VALS, (len(trans_cols), 1))])
    lo = np.concatenate([np.ones(len(comp_cols)), np.full(len(trans_cols), -np.inf)])
    up = np.concatenate([np.full(len(comp_cols), np.inf), np.ones(len(trans_cols))])
    while True:
        is_free, lo_r, up_r, hi, low = row_ranges(cols, vals, lo, up, fixed)
        if np.any((hi < lo_r - 1e-9) | (low > up_r + 1e-9)):
            raise ValueError("The 'fixed' parameter admits no weak order (a completeness or "
                             "transitivity row cannot hold).")
        live = (low < lo_r - 1e-9) | (hi > up_r + 1e-9)  # some free assignment violates it
        single = live & (is_free.sum(axis=1) == 1)
        if not np.any(single):
            break
        r = np.flatnonzero(single)
        k = np.argmax(is_free[r], axis=1)
        col, v = cols[r, k], vals[r, k]
        # v·z within [lo_r, up_r]: the value of z in {0, 1} that fits (the other one does not)
        ok1 = (v >= lo_r[r] - 1e-9) & (v <= up_r[r] + 1e-9)
        fixed[col] = np.where(ok1, 1.0, 0.0)
    keep = np.flatnonzero(live)
    c, f = cols[keep], is_free[keep]
    index = np.cumsum(np.isnan(fixed)) - 1                 # pair number -> solver column
    lengths = f.sum(axis=1)
    return ((index[c[f]], vals[keep][f], lengths, lo_r[keep], up_r[keep]), fixed)


#: Row coefficients of a completeness row (two binaries, a third slot unused) and of a
#: transitivity row ``z_ij + z_jk − z_ik``.
COMP_VALS = np.array([1.0, 1.0, 0.0])
TRANS_VALS = np.array([1.0, 1.0, -1.0])
#: Candidate triples per chunk of :func:`free_triples` (bounds its temporary arrays).
TRIPLE_CHUNK = 1 << 21


def row_ranges(cols: np.ndarray, vals: np.ndarray, lo: np.ndarray | float,
                up: np.ndarray | float, fixed: np.ndarray) -> tuple[np.ndarray, ...]:
    """Rows ``lo ≤ Σ_t vals[:, t] z[cols[:, t]] ≤ up`` (``cols`` −1: no binary) under the
    fixings: which slots are free, the bounds shifted by the fixed part, and the range
    ``[low, hi]`` of the free part over binary values."""
    fx = np.where(cols >= 0, fixed[np.maximum(cols, 0)], 0.0)
    is_free = np.isnan(fx)
    shift = np.where(is_free, 0.0, vals * fx).sum(axis=1)
    fv = np.where(is_free, vals, 0.0)
    return (is_free, lo - shift, up - shift, np.maximum(fv, 0.0).sum(axis=1),
            np.minimum(fv, 0.0).sum(axis=1))


def violable(cols: np.ndarray, vals: np.ndarray, lo: float, up: float,
              fixed: np.ndarray) -> np.ndarray:
    """Mask of the rows (see :func:`row_ranges`) that some value of their free binaries
    violates under ``fixed`` (rows that no value can satisfy included). Any other row holds for
    every completion, now and after any further fixing, so :func:`restrict_rows` drops it: leaving
    it out beforehand changes nothing (tested) and keeps the restricted model's construction
    from ever holding the candidate rows that the fixings already satisfy."""
    _, lo_r, up_r, hi, low = row_ranges(cols, vals, lo, up, fixed)
    return (low < lo_r - 1e-9) | (hi > up_r + 1e-9)


def free_triples(idx: np.ndarray, free: np.ndarray, fixed: np.ndarray | None = None
                  ) -> np.ndarray:
    """The ordered triples (i, j, k) of distinct points with at least one free binary among
    (i, j), (j, k), (i, k), in the lexicographic order of :func:`~bipartite.pareto.milp._ordered_triples` (``idx``: the
    (n, n) pair numbering, ``free``: per ordered pair). These are the only transitivity rows of a
    restricted model that :func:`restrict_rows` can keep or use: a row with no free binary is
    dropped there (after :func:`check_fixed_transitive` has checked that it holds), and fixing
    more binaries never frees one. ``3 |free| (n − 2)`` candidates instead of ``n³``, generated in
    chunks of the free pairs; with ``fixed`` given, only the triples whose row is
    :func:`violable` are kept (the others :func:`restrict_rows` would drop), so the memory is
    that of the kept rows and one chunk (docs/theory.md §13.1)."""
    n = len(idx)
    I, J = np.nonzero(~np.eye(n, dtype=bool))
    f = np.flatnonzero(free[idx[I, J]])
    k = np.arange(n)
    step = max(1, TRIPLE_CHUNK // max(3 * n, 1))
    codes = []
    for c0 in range(0, len(f), step):
        a, b = I[f[c0:c0 + step]], J[f[c0:c0 + step]]
        A = np.repeat(a, n)
        B = np.repeat(b, n)
        C = np.tile(k, len(a))
        ok = (C != A) & (C != B)
        A, B, C = A[ok], B[ok], C[ok]
        # the free pair as (i, j), as (j, k), as (i, k)
        i, j, kk = (np.concatenate(t) for t in zip((A, B, C), (C, A, B), (A, C, B), strict=True))
        if fixed is not None:
            cols = np.stack([idx[i, j], idx[j, kk], idx[i, kk]], axis=1)
            keep = violable(cols, TRANS_VALS, -np.inf, 1.0, fixed)
            i, j, kk = i[keep], j[keep], kk[keep]
        codes.append(np.unique((i * n + j) * n + kk))
    code = np.unique(np.concatenate(codes)) if codes else np.zeros(0, dtype=np.int64)
    return np.stack([code // (n * n), (code // n) % n, code % n], axis=1).astype(np.int64)


def check_fixed_transitive(idx: np.ndarray, fixed: np.ndarray) -> None:
    """``ValueError`` when the fixed binaries alone violate a transitivity row: ``z_ij = 1``,
    ``z_jk = 1`` and ``z_ik = 0`` all fixed (the rows that :func:`free_triples` leaves out),
    by one boolean matrix product instead of n³ rows.

    Only the restricted model needs it, and only because it builds its rows from
    :func:`free_triples`: every other row is checked by :func:`restrict_rows`. ``fixed`` is a
    highspy-only parameter (the cvxpy backend refuses it before this check), so for the other
    backends the question does not arise: their model is always the full one, every triple's
    row included, and a second check there would be redundant."""
    n = len(idx)
    I, J = np.nonzero(~np.eye(n, dtype=bool))
    f = fixed[idx[I, J]]
    one = np.zeros((n, n), dtype=np.float32)
    zero = np.zeros((n, n), dtype=bool)
    one[I, J] = f == 1.0
    zero[I, J] = f == 0.0
    # (one @ one)[i, k] > 0: some j with z_ij = z_jk = 1 fixed (i = k excluded by zero's diagonal)
    if np.any((one @ one > 0.5) & zero):
        raise ValueError("The 'fixed' parameter admits no weak order (a completeness or "
                         "transitivity row cannot hold).")
