"""Multipartite AUC with polynomial costs (docs/theory.md §3.2): the costs
``c(y, y') = p(y − y')`` of a polynomial ``p(d) = Σ_m α_m d^m`` (``"squared"``: ``d²``; a user
matrix that is one, to rounding). Private to ``bipartite.metrics``; the routing is
``_multipartite.cost_structure`` and the ratio ``_multipartite.multipartite_from_levels``.

``A = Σ_{f_i > f_j} ω_i ω_j K_{ℓ_i ℓ_j}`` (``K = C − Cᵀ``) counts each pair of different levels
``+c`` when the higher level scores higher and ``−c`` otherwise: a dominance count (which of the
two is higher in level and in score), as the uniform route's inversions, but weighted by
``p(v_hi − v_lo)``. Expanded in monomials ``v_lo^r v_hi^s``, it is a dominance sum of the
level sequence (:func:`ordered_pairs`, ``_dominance.dominance_sums``): one compiled pass with
a Fenwick tree over the levels, O(n log L) for a fixed degree after the one sort, where the
general route is O(n L).

No route of prefix sums after the sort does better than O(n L): such a route computes
``Σ_{f_i > f_j} Σ_r U_r(ℓ_i) W_r(ℓ_j)``, which equals A on every input only if ``U Wᵀ = K``, so it
needs rank K terms, and ``K_ab = sign(v_a − v_b) (v_a − v_b)²`` (``"squared"``) has rank
L − (L mod 2), the most an antisymmetric matrix has (levels 0..L−1, checked for L ≤ 69, 256, 1024;
the linear costs' K has rank 2, and their route is O(n)): an O(n L) route. The sign makes A a
dominance sum (level and score order), as the uniform route's inversion count, and a tree of
running sums over the levels answers each row's prefix in O(log L).
"""

from __future__ import annotations

from math import comb

import numpy as np

from bipartite.metrics._dominance import dominance_sums, level_pair_sum

__all__ = ["VECTOR_MAX_LEVELS", "exact_bound", "level_total", "ordered_pairs", "polynomial_costs"]

#: :func:`ordered_pairs` takes the O(n L) vector pass up to this many levels and the
#: O(n log L) Fenwick pass beyond (the crossover measured by ``benchmarks/bench_metrics.py
#: --part dominance``).
VECTOR_MAX_LEVELS = 128
#: Highest degree the matrix detection tries (the kernel's passes grow with it).
_MAX_DEGREE = 4


def polynomial_costs(levels: np.ndarray, C: np.ndarray) -> np.ndarray | None:
    """The coefficients ``α`` (ascending degree, at most :data:`_MAX_DEGREE`) of a polynomial ``p``
    with ``C_ab = p(y_a − y_b)`` below the diagonal (to 8 ulps of the largest cost, as
    ``_multipartite.matrix_structure`` recognises difference form), or None. Fitted to the first
    column, then checked on every entry; integer coefficients where rounding them reproduces C
    exactly (the exact-integer kernel needs them)."""
    L = len(levels)
    if L < 3:
        return None
    low = np.tril_indices(L, -1)
    d, c = levels[low[0]] - levels[low[1]], C[low]
    tol = 8 * np.finfo(float).eps * max(float(c.max()), 0.0)
    for deg in range(min(_MAX_DEGREE, L - 2) + 1):
        V = np.vander(levels[1:] - levels[0], deg + 1, increasing=True)
        alpha = np.linalg.lstsq(V, C[1:, 0], rcond=None)[0]
        for a in (np.round(alpha), alpha):
            if np.all(np.abs(np.polynomial.polynomial.polyval(d, a) - c) <= tol):
                return a
    return None


def exact_bound(n: int, v: np.ndarray, alpha: np.ndarray) -> bool:
    """Whether integer values ``v ≥ 0`` and coefficients ``α`` keep every sum of the unweighted
    kernel below 2^62 (each is at most ``n² Σ_m |α_m| 2^m max(v)^m``): then int64 is exact."""
    V = max(int(v.max()), 1)
    return n * n * sum(abs(int(a)) * (2 * V) ** m for m, a in enumerate(alpha)) < 1 << 62


def _monomials(alpha) -> dict:
    """``p(y − x) = Σ_m α_m (y − x)^m`` as ``{(r, s): β}``, the coefficient of ``x^r y^s``
    (x the lower level's value, y the higher one's)."""
    out: dict = {}
    for m, a in enumerate(alpha):
        if a:
            for r in range(m + 1):
                out[r, m - r] = out.get((r, m - r), 0) + a * comb(m, r) * (-1) ** r
    return {k: b for k, b in out.items() if b}


def _powers(v: np.ndarray, P: int) -> list:
    """``[1, v, v², ..., v^P]`` by products (integer ``**`` is several times slower)."""
    out = [np.ones_like(v)]
    for _ in range(P):
        out.append(out[-1] * v if len(out) > 1 else v)
    return out


def level_total(W: np.ndarray, v: np.ndarray, alpha: np.ndarray):
    """``Z = Σ_{a > b} W_a W_b p(v_a − v_b)`` over the levels, from running sums over the lower
    levels (every product pairs two different levels: no heavy level's square to cancel);
    a Python int for int64 inputs."""
    vp = _powers(v, len(alpha) - 1)
    Z = 0
    for j in range(len(alpha)):
        below = np.zeros_like(W * vp[j])
        np.cumsum((W * vp[j])[:-1], out=below[1:])   # Σ_{b < a} W_b v_b^j
        for m in range(j, len(alpha)):
            if alpha[m]:
                coef = alpha[m] * comb(m, j) * (-1) ** j
                t = np.dot(W * vp[m - j], below)
                Z += coef * (int(t) if t.dtype.kind == "i" else float(t))
    return Z


def ordered_pairs(seq: np.ndarray, keys: np.ndarray, mask: int, w: np.ndarray | None,
                  v: np.ndarray, alpha, bits: int):
    """``A = Σ_{f_p < f_q} ω_p ω_q K_{ℓ_q ℓ_p}`` over the level sequence ``seq`` (level indices
    below ``2**bits`` in ascending score order; ``keys | mask`` equal = tied scores, which count
    0): each pair of different levels counts ``+c`` when the lower level scores lower, ``−c``
    otherwise, with ``c = p(v_hi − v_lo)``. A Python int when ``v`` is int64, ``α`` ints and
    ``w`` None (exact under :func:`exact_bound`).

    Up to :data:`VECTOR_MAX_LEVELS` levels, the table ``K_ba = sign(b − a) p(|v_b − v_a|)`` and
    the O(n L) vector pass (``_dominance.level_pair_sum``); beyond, ``p(v_hi − v_lo)`` expanded
    in monomials ``v_lo^r v_hi^s`` (:func:`_monomials`) and the O(n log L) Fenwick pass
    (``_dominance.dominance_sums``), whose two sums are A's two signs."""
    L = len(v)
    if L <= VECTOR_MAX_LEVELS:
        d = v[:, None] - v[None, :]
        K = np.sign(d) * sum(a * np.abs(d) ** m for m, a in enumerate(alpha))
        return level_pair_sum(seq, keys, mask, w, K)
    plus, minus = dominance_sums(seq, keys, mask, w, v, _monomials(alpha), bits)
    return plus - minus
