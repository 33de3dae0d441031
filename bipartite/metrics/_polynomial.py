"""Multipartite AUC with polynomial costs (docs/theory.md §3.2): the costs
``c(y, y') = p(y − y')`` of a polynomial ``p(d) = Σ_m α_m d^m`` (``"squared"``: ``d²``; a user
matrix that is one, to rounding). Private to ``bipartite.metrics``; the routing is
``_kernels.cost_structure`` and the ratio ``_kernels.multipartite_from_levels``.

``A = Σ_{f_i > f_j} ω_i ω_j K_{ℓ_i ℓ_j}`` (``K = C − Cᵀ``) counts each pair of different levels
``+c`` when the higher level scores higher and ``−c`` otherwise: a dominance count (which of the
two is higher in level and in score), as the uniform route's inversions, but weighted by
``p(v_hi − v_lo)``. Expanded in monomials ``v_lo^r v_hi^s``, it is summed bit by bit of the
level index (:func:`ordered_pairs`): O(n) per bit and monomial after the one sort, so
O(n log L) for a fixed degree, where the general route is O(n L).
"""

from __future__ import annotations

from math import comb

import numpy as np

__all__ = ["exact_bound", "level_total", "ordered_pairs", "polynomial_costs", "tied_cost"]

#: Highest degree the matrix detection tries (the kernel's passes grow with it).
_MAX_DEGREE = 4


def polynomial_costs(levels: np.ndarray, C: np.ndarray) -> np.ndarray | None:
    """The coefficients ``α`` (ascending degree, at most :data:`_MAX_DEGREE`) of a polynomial ``p``
    with ``C_ab = p(y_a − y_b)`` below the diagonal (to 8 ulps of the largest cost, as
    ``_kernels.matrix_structure`` recognises difference form), or None. Fitted to the first
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
    return [np.ones_like(v)] + [v**e for e in range(1, P + 1)]


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


def ordered_pairs(seq: np.ndarray, w: np.ndarray | None, v: np.ndarray, alpha, bits: int):
    """``Σ_{p < q} ω_p ω_q K_{ℓ_q ℓ_p}`` over the positions of the level sequence ``seq``
    (uint8/uint16 level indices): each pair of different levels counts ``+c`` when the lower level
    comes first, ``−c`` otherwise, with ``c = p(v_hi − v_lo)``. A Python int when ``v`` is int64,
    ``α`` ints and ``w`` None (exact under :func:`exact_bound`).

    A wavelet matrix: at bit b the sequence is stably grouped by the higher bits, and the pairs
    first split by bit b are those of one group with different bits (the bit-0 member the lower
    level), counted +c when the bit-0 member comes first and −c otherwise: ``S_b = T_b − 2 X_b``,
    where ``T_b`` (all such pairs, either order) comes from the level totals and ``X_b`` (bit-1
    member first) from running sums of ``ω v^s`` over the bit-1 rows dotted with ``ω v^r`` of the
    bit-0 rows (``s ≤ r``; else running sums over the bit-0 rows, dotted with the bit-1 rows:
    every sum is of one side's rows, so no heavy row cancels against itself). Global running
    sums count the rows of the earlier groups too; their share is known from the level totals
    and subtracted. Then one stable partition by bit b (zeros first), which keeps each group's
    rows together and in order. O(n) per bit and monomial (into reused buffers: fresh n-sized
    arrays cost more than the arithmetic), and O(L) per bit."""
    n = len(seq)
    exact = w is None and v.dtype.kind == "i"
    beta = _monomials(alpha)
    if not beta or n < 2:
        return 0 if exact else 0.0
    P = max(r + s for r, s in beta)
    vp = _powers(v, P)
    Wl = np.bincount(seq, w, minlength=len(v))
    mom = np.zeros((P + 1, 1 << bits), dtype=np.int64 if exact else np.float64)
    mom[:, : len(v)] = [Wl * vp[e] for e in range(P + 1)]
    need1 = sorted({s for r, s in beta if s <= r})          # running sums over the bit-1 rows
    need0 = sorted({r for r, s in beta if s > r})           # ... and over the bit-0 rows
    num, dt = (int, np.int64) if exact else (float, np.float64)
    identity = exact and np.array_equal(v, np.arange(len(v)))
    buf = {k: np.empty(n, dtype=dt) for k in ("v", "one", "t", "u")}
    rows = {e: np.empty(n, dtype=dt) for e in range(2, P + 1)}   # ω v^e; 0, 1 below
    rows[1] = buf["v"] if w is None else np.empty(n, dtype=dt)
    rows[0] = None if w is None else np.empty(n, dtype=dt)
    cs1 = {e: np.empty(n, dtype=dt) for e in need1}
    cs0 = {e: np.empty(n, dtype=dt) for e in need0}
    pos = np.arange(1, n + 1, dtype=dt) if w is None and 0 in cs0 else None
    sh, mk = np.empty_like(seq), np.empty(n, dtype=bool)
    seq, out = seq.copy(), np.empty_like(seq)
    wseq, wout = (None, None) if w is None else (w.copy(), np.empty_like(w))
    gorder, total = np.zeros(1, dtype=np.int64), 0
    for b in range(bits - 1, -1, -1):
        G = 1 << (bits - 1 - b)
        Mg = mom.reshape(P + 1, G, 2, 1 << b).sum(axis=3)[:, gorder]   # (e, group, bit)
        M0, M1 = Mg[:, :, 0], Mg[:, :, 1]
        np.right_shift(seq, b, out=sh)
        sh &= 1
        one, t, u = buf["one"], buf["t"], buf["u"]
        np.copyto(one, sh)
        if identity:
            np.copyto(buf["v"], seq)
        else:
            np.take(v, seq, out=buf["v"])
        if w is not None:
            np.copyto(rows[0], wseq)
            np.multiply(buf["v"], wseq, out=rows[1])
        for e in range(2, P + 1):
            np.multiply(rows[e - 1], buf["v"], out=rows[e])
        for e in need1:
            if rows[e] is None:   # unweighted count
                np.cumsum(one, out=cs1[e])
            else:
                np.multiply(one, rows[e], out=t)
                np.cumsum(t, out=cs1[e])
        for e in need0:
            if rows[e] is None:   # unweighted count: positions less ones (exact)
                np.cumsum(one, out=cs0[e])
                np.subtract(pos, cs0[e], out=cs0[e])
            else:
                np.multiply(one, rows[e], out=t)
                np.subtract(rows[e], t, out=t)
                np.cumsum(t, out=cs0[e])
        T = X = 0
        for (r, s), beta_rs in beta.items():
            T += beta_rs * num((M0[r] * M1[s]).sum())
            if s <= r:            # Σ_{q bit 0} ω v_q^r · (ω v^s of the bit-1 rows before q)
                if rows[r] is None:
                    np.subtract(1, one, out=u)
                else:
                    np.multiply(one, rows[r], out=u)
                    np.subtract(rows[r], u, out=u)
                ob = np.cumsum(M1[s]) - M1[s]                   # bit-1 rows of earlier groups
                X += beta_rs * (num(np.dot(u, cs1[s])) - num(np.dot(M0[r], ob)))
            else:                 # Σ_{p bit 1} ω v_p^s · (ω v^r of the bit-0 rows after p)
                zb = np.cumsum(M0[r]) - M0[r]                   # bit-0 rows of earlier groups
                np.multiply(one, rows[s], out=u)
                X += beta_rs * (num(np.dot(M1[s], M0[r] + zb)) - num(np.dot(u, cs0[r])))
        total += T - 2 * X
        if b:
            np.not_equal(sh, 0, out=mk)
            k = n - int(np.count_nonzero(mk))
            np.compress(mk, seq, out=out[k:])
            if wseq is not None:
                np.compress(mk, wseq, out=wout[k:])
            np.logical_not(mk, out=mk)
            np.compress(mk, seq, out=out[:k])
            seq, out = out, seq
            if wseq is not None:
                np.compress(mk, wseq, out=wout[:k])
                wseq, wout = wout, wseq
            gorder = np.concatenate([2 * gorder, 2 * gorder + 1])
    return total


def tied_cost(vt: np.ndarray, gnew: np.ndarray, T, alpha):
    """``Σ c(ℓ_q, ℓ_p)`` over the pairs ``p < q`` of different levels in each tie group, ``T`` of
    them (``vt``: the values of the rows in tie groups, ascending inside each; ``gnew``: where
    each group starts): ``α_0 T`` plus, per degree m ≥ 1 (pairs of one level add 0),
    ``Σ_q Σ_j C(m, j) v_q^{m−j} (−1)^j Σ_{p < q in the group} v_p^j``."""
    total = alpha[0] * T
    if len(vt) == 0:
        return total
    start = np.maximum.accumulate(np.where(gnew, np.arange(len(vt)), 0))
    vp = _powers(vt, len(alpha) - 1)
    pre = []
    for j in range(len(alpha)):
        c = np.concatenate([np.zeros(1, vt.dtype), np.cumsum(vp[j])])
        pre.append(c[:-1] - c[start])                      # Σ_{p < q in q's group} v_p^j
    for m in range(1, len(alpha)):
        for j in range(m + 1) if alpha[m] else ():
            t = np.dot(vp[m - j], pre[j])
            total += alpha[m] * comb(m, j) * (-1) ** j * (int(t) if t.dtype.kind == "i" else t)
    return total
