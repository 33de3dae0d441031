"""Multipartite AUC with costs (docs/theory.md §3; LA25 Def. 2.3 / Eq. 5): the public
:func:`multipartite_auc` (ordinal labels) and :func:`weighted_multipartite_auc` (per-item level
masses, the population route), the ordinal labels' levels, and their kernels: one sort (coded
or :func:`bipartite.metrics._kernels.sort_order`), then ``AUC_MP = ½ + ½ A / Z`` by the costs'
structure (difference form, uniform, polynomial (``_polynomial.py``), general). Private to
``bipartite.metrics``, which exports the two public functions.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_array,
    check_finite,
    check_nonnegative,
    check_sample_weight,
    pow2_normalise,
    warn_undefined,
)
from bipartite.labels import cost_matrix, cost_potential
from bipartite.metrics._dominance import level_pair_sum
from bipartite.metrics._kernels import (
    BLOCK,
    CELLS,
    MAX_BITS,
    SCAN,
    below,
    check_scores,
    coded_keys,
    finite_exponent_range,
    key_exponent,
    prefix_sums,
    ranked_sums,
    sort_order,
    tie_bounds,
)
from bipartite.metrics._polynomial import exact_bound, level_total, ordered_pairs, polynomial_costs

__all__ = ["cost_structure", "matrix_structure", "multipartite_auc", "multipartite_from_levels",
           "multipartite_from_weights", "weighted_multipartite_auc"]


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
    levels, index, counts = _ordinal_levels(y_true)
    s = check_scores(y_score, len(index), finite=False)  # checked by the kernel
    w = None if sample_weight is None else check_sample_weight(sample_weight, len(index))
    if len(levels) < 2:
        return warn_undefined("multipartite AUC is undefined: y_true has fewer than two levels.")
    val = multipartite_from_levels(s, index, len(levels), w, cost_structure(levels, costs),
                                   counts=counts)
    if np.isnan(val):
        return warn_undefined("multipartite AUC is undefined: no weighted pair has positive cost.")
    return val


def _ordinal_levels(y_true: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sorted distinct levels of ordinal labels (float64), each row's level index, and the
    rows per level (int64).

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
            counts = np.bincount(d, minlength=hi - lo + 1)
            present = np.flatnonzero(counts)
            if lo == 0 and len(present) == hi + 1:  # levels 0..L−1: the labels are the indices
                return present.astype(np.float64), d, counts
            lut = np.zeros(hi - lo + 1, dtype=_index_dtype(len(present)))
            lut[present] = np.arange(len(present))
            return (present + lo).astype(np.float64), lut[d], counts[present]
    y = check_array(y_true, "y_true", ndim=1, exact_integers="shift")  # costs use differences
    levels, counts = np.unique(y, return_counts=True)
    return levels, _level_index(y, levels), counts.astype(np.int64)


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


def weighted_multipartite_auc(y_score: ArrayLike, level_weight: ArrayLike, costs: ArrayLike) -> float:
    """Multipartite AUC from per-item level masses (n, L) and an (L, L) cost matrix ``costs``
    (docs/theory.md §3): the population route of :func:`multipartite_auc`.

    ``AUC_MP = Σ_{i,j} Σ_{a,b} q_ia q_jb C_ab s(f_i, f_j) / Σ_{i,j} Σ_{a,b} q_ia q_jb C_ab`` (ties ½,
    self-pairs included). NaN, without a warning, when the denominator is 0.

    >>> weighted_multipartite_auc([0.0, 1.0], [[1.0, 0.0], [0.0, 1.0]], [[0, 0], [1, 0]])
    1.0
    """
    s = check_scores(y_score)
    q = check_nonnegative(check_array(level_weight, "level_weight", ndim=2), "level_weight")
    C = check_nonnegative(check_array(costs, "costs", ndim=2), "costs")
    if q.shape[0] != len(s) or C.shape != (q.shape[1], q.shape[1]):
        raise ValueError(f"The 'level_weight' parameter must have shape (n, L) with n = "
                         f"{len(s)} (the length of 'y_score') and 'costs' shape (L, L), got "
                         f"{q.shape} and {C.shape}.")
    return multipartite_from_weights(s, q, matrix_structure(C))


# --------------------------------------------------------------------------------------------
# Kernel 3 (ordinal levels, docs/theory.md §3): AUC_MP = ½ + ½ A / Z
# --------------------------------------------------------------------------------------------
# A pair (i, j) and its reverse contribute ω_i ω_j (C_{ℓ_i ℓ_j} s_ij + C_{ℓ_j ℓ_i} s_ji) to the
# numerator and ω_i ω_j (C_{ℓ_i ℓ_j} + C_{ℓ_j ℓ_i}) to Z, and s_ij + s_ji = 1; so, with the
# antisymmetric costs K = C − Cᵀ, AUC_MP = ½ + ½ A / Z, A = Σ_{f_i > f_j} ω_i ω_j K_{ℓ_i ℓ_j}:
# tied pairs count ½ by symmetry and need no tie bookkeeping. The routes by the costs:
#
# * difference form, C_ab = g_a − g_b (linear, gain): with Δg_k = g_k − g_{k−1},
#   A = Σ_k Δg_k D_k and Z = Σ_k Δg_k W_{<k} W_{≥k}, where D_k = Σ_{ℓ_i ≥ k > ℓ_j} ω_i ω_j
#   sign(f_i − f_j) is the Mann–Whitney difference of the binarised label 1[ℓ ≥ k], and
#   D_k = Σ_{a ≥ k} R_a = −Σ_{a < k} R_a with R_a = Σ_{ℓ_i = a} ω_i (W_below(i) − W_above(i)):
#   one pass after the sort (per-level sums of tie-group ranks), exact integers unweighted;
# * uniform and polynomial costs, C_ab = p(v_a − v_b) for a > b (uniform: p = 1): A is a
#   dominance sum (which of two rows is higher in level and in score), one compiled pass: a
#   vector of L running sums up to 128 levels, O(n L), a Fenwick tree of the monomials' running
#   sums beyond, O(n log L); tied pairs count 0 in A (a tie group enters the sums after its rows
#   are queried); exact integers unweighted
#   (_dominance.py, _polynomial.py);
# * any other costs: A from a vector of L running sums, one compiled pass, O(n L)
#   (_dominance.level_pair_sum).



def matrix_structure(C: np.ndarray) -> tuple[str, np.ndarray | None]:
    """How the kernels use the cost matrix C (L, L): ``("uniform", None)`` for equal positive
    costs below the diagonal, ``("difference", Δg)`` when ``C_ab = Σ_{b<k≤a} Δg_k`` (to 8 ulps of
    the largest cost; docs/theory.md §3.4), else ``("general", C)``. Only a strictly lower
    triangular C is uniform or of difference form."""
    L = len(C)
    low = np.tril_indices(L, -1)
    c = C[low]
    if L < 2 or np.any(np.triu(C) != 0):
        return "general", C
    if c[0] > 0 and np.all(c == c[0]):
        return "uniform", None
    dg = np.diagonal(C, -1).copy()
    g = np.concatenate([[0.0], np.cumsum(dg)])
    if np.all(np.abs(g[low[0]] - g[low[1]] - c) <= 8 * np.finfo(float).eps * c.max()):
        return "difference", dg
    return "general", C


def cost_structure(levels: np.ndarray, costs: str | ArrayLike) -> tuple[str, object]:
    """:func:`matrix_structure` of ``cost_matrix(levels, costs)``, without building the matrix
    for the uniform and the difference families (Δg from :func:`bipartite.labels.cost_potential`);
    ``("polynomial", (v, α))`` for ``"squared"`` and for other matrices ``C_ab = p(y_a − y_b)``
    (``_polynomial.polynomial_costs``), with ``v`` the levels less the lowest."""
    if isinstance(costs, str) and costs == "uniform":
        return "uniform", None
    g = cost_potential(levels, costs)
    if g is not None:
        return "difference", np.diff(g)
    v = levels - levels[0]
    if isinstance(costs, str) and np.isfinite(v[-1] ** 2):   # "squared", without its matrix
        return "polynomial", (v, np.array([0.0, 0.0, 1.0]))
    C = cost_matrix(levels, costs)   # checks the matrix (and names an overflow)
    kind, par = matrix_structure(C)
    alpha = polynomial_costs(levels, C) if kind == "general" else None
    return (kind, par) if alpha is None else ("polynomial", (v, alpha))


def _level_sequence(scores: np.ndarray, level: np.ndarray, L: int, w: np.ndarray | None):
    """The levels in ascending score order, the sorted tie keys (equal ``key | mask`` = tied
    scores), the mask, and the (normalised) weights in that order (None unweighted).
    Unweighted, with ⌈log2 L⌉ ≤ MAX_BITS and a score range the keys hold: one coded sort, the
    levels in the low key bits (ascending within each tie group). Otherwise one sort order
    (:func:`sort_order`) and a gather of the levels (within a tie group in row order)."""
    bits = max(1, (L - 1).bit_length())
    if w is None:
        e_range = finite_exponent_range(scores)
        q = key_exponent(e_range, bits) if bits <= MAX_BITS else None
        if q is not None:
            a = coded_keys(scores, level, bits, q)
            lev = np.empty(len(a), dtype=np.uint8)
            for lo in range(0, len(a), BLOCK):
                np.bitwise_and(a[lo : lo + BLOCK], (1 << bits) - 1, out=lev[lo : lo + BLOCK],
                               casting="unsafe")
            return lev, a, (1 << bits) - 1, None
    else:
        check_finite(scores, "y_score")
    order, ks = sort_order(scores)
    lev = level[order]
    if lev.dtype.itemsize > 2 and L <= 1 << 16:   # small level indices: less to read
        lev = lev.astype(np.uint8 if L <= 256 else np.uint16)
    ws = None if w is None else pow2_normalise(w)[order]
    return lev, ks, 0, ws


def _level_rank_sums(lev: np.ndarray, keys: np.ndarray, mask: int, L: int,
                     ws: np.ndarray | None) -> np.ndarray:
    """``R_a = Σ_{ℓ_i = a} ω_i (W_below(i) − W_above(i))`` over the levels (below/above: strictly
    lower/higher scores), block by block; int64 and exact unweighted."""
    n = len(keys)
    cw = None if ws is None else prefix_sums(ws)
    R = np.zeros(L, dtype=np.int64 if ws is None else np.float64)
    for lo in range(0, n, SCAN):
        hi = min(n, lo + SCAN)
        tb = tie_bounds(keys, mask, lo, hi)
        first = np.arange(lo, hi) if tb is None else tb[0]
        end = first + 1 if tb is None else tb[1]
        if ws is None:   # below − above = first − (n − end); float sums exact below 2^53
            R += np.bincount(lev[lo:hi], first + end - n, minlength=L).astype(np.int64)
        else:
            v = cw[first] + cw[end] - cw[-1]
            v *= ws[lo:hi]
            R += np.bincount(lev[lo:hi], v, minlength=L)
    return R


def _difference_ratio(R: np.ndarray, W: np.ndarray, dg: np.ndarray) -> float:
    """``½ + ½ A / Z`` of the difference route from the per-level rank sums R, the level totals W
    and Δg. ``D_k`` is summed from the lighter side of the split (error relative to
    ``W_{<k} W_{≥k}``); unweighted (integer R) it is exact."""
    below_w = np.cumsum(W)[:-1]                  # W_{<k}, k = 1..L−1
    above_w = np.cumsum(W[::-1])[::-1][1:]       # W_{≥k}
    d_hi = np.cumsum(R[::-1])[::-1][1:]          # Σ_{a ≥ k} R_a
    if R.dtype.kind == "f":
        d_hi = np.where(above_w <= below_w, d_hi, -np.cumsum(R)[:-1])
    dg = pow2_normalise(dg)
    Z = math.fsum(dg * below_w.astype(np.float64) * above_w.astype(np.float64))
    if not Z > 0:
        return float("nan")
    A = math.fsum(dg * d_hi.astype(np.float64))
    return 0.5 + 0.5 * min(1.0, max(-1.0, A / Z))


def _half_plus(A, Z) -> float:
    """``½ + ½ A / Z`` (A/Z clipped to [−1, 1], rounding); NaN when Z is not positive. Python
    ints (the exact routes): ``(Z + A) / (2 Z)``, one correctly rounded division."""
    if not Z > 0:
        return float("nan")
    if isinstance(A, int) and isinstance(Z, int):
        return (Z + A) / (2 * Z)
    return 0.5 + 0.5 * min(1.0, max(-1.0, A / Z))


def multipartite_from_levels(scores: np.ndarray, level: np.ndarray, L: int,
                             w: np.ndarray | None, structure: tuple[str, np.ndarray | None], *,
                             counts: np.ndarray | None = None) -> float:
    """AUC_MP (docs/theory.md §3) for one observed level per point (``level`` in [0, L)) and the
    costs' ``structure`` (:func:`cost_structure`): one sort (coded or :func:`sort_order`), then
    O(n) for difference-form costs, O(n log L) for uniform and polynomial costs, O(n L) in
    chunks otherwise. ``counts``: the rows per level where the caller has them (int64; used
    unweighted, else counted)."""
    kind, par = structure
    lev, keys, mask, ws = _level_sequence(scores, level, L, w)
    if ws is not None:
        W = np.bincount(lev, ws, minlength=L)
    else:
        W = np.bincount(lev, minlength=L) if counts is None else counts
    if kind == "difference":
        return _difference_ratio(_level_rank_sums(lev, keys, mask, L, ws), W, par)
    if kind == "general":
        Z = float(W @ par @ W)
        return _half_plus(level_pair_sum(lev, keys, mask, ws, par - par.T), Z)
    # uniform costs: the degree-0 polynomial p = 1 on any values
    v, alpha = par if kind == "polynomial" else (np.arange(float(L)), np.ones(1))
    return _polynomial_ratio(lev, keys, mask, L, ws, W, v, alpha)


def _polynomial_ratio(lev, keys, mask, L, ws, W, v, alpha) -> float:
    """``½ + ½ A / Z`` for polynomial costs (``_polynomial``): A over the pairs of different
    scores (:func:`ordered_pairs`, tied pairs 0), Z over the pairs of different levels; exact
    integers unweighted under ``exact_bound``."""
    if ws is None and np.all(v == np.round(v)) and np.all(alpha == np.round(alpha)) \
            and exact_bound(len(lev), v, alpha):
        v, alpha, W = v.astype(np.int64), [int(a) for a in alpha], W.astype(np.int64)
    else:
        v, alpha = v.astype(np.float64), [float(a) for a in alpha]
    bits = max(1, (L - 1).bit_length())
    return _half_plus(ordered_pairs(lev, keys, mask, ws, v, alpha, bits), level_total(W, v, alpha))


def multipartite_from_weights(scores: np.ndarray, level_w: np.ndarray,
                              structure: tuple[str, np.ndarray | None]) -> float:
    """AUC_MP from per-point level weights (n, L) — the population route (docs/theory.md §3),
    self-pairs included (ties): from the (L, T) level sums per tie group, O(n L) for difference
    and uniform costs, O(n L²) in chunks otherwise."""
    kind, par = structure
    G = ranked_sums(scores, np.ascontiguousarray(pow2_normalise(level_w).T))
    if kind == "difference":
        lo = np.cumsum(G[:-1], axis=0)                # level weight below k, k = 1..L−1
        hi = np.cumsum(G[:0:-1], axis=0)[::-1]        # at or above k
        D = np.einsum("kt,kt->k", hi, below(lo)) - np.einsum("kt,kt->k", lo, below(hi))
        dg = pow2_normalise(par)
        return _half_plus(math.fsum(dg * D), math.fsum(dg * lo.sum(axis=1) * hi.sum(axis=1)))
    T = G.sum(axis=1)
    if kind == "uniform":
        Gb = below(G)
        lo = below(Gb, axis=0)                        # lower levels in lower tie groups
        hi = below(Gb[::-1], axis=0)[::-1]            # higher levels in lower tie groups
        return _half_plus(float(np.sum(G * lo) - np.sum(G * hi)), float(T @ below(T)))
    K, Gb = par - par.T, below(G)
    m = max(1, CELLS // len(K))
    A = sum(float(np.sum(G[:, t:t + m] * (K @ Gb[:, t:t + m]))) for t in range(0, G.shape[1], m))
    return _half_plus(A, float(T @ par @ T))
