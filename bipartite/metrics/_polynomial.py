"""Multipartite AUC with polynomial costs (docs/theory.md §3.2): the costs
``c(y, y') = p(y − y')`` of a polynomial ``p(d) = Σ_m α_m d^m`` (``"squared"``: ``d²``; a user
matrix that is one, to rounding). Private to ``bipartite.metrics``; the routing is
``_multipartite.cost_structure`` and the ratio ``_multipartite.multipartite_from_levels``.

``A = Σ_{f_i > f_j} ω_i ω_j K_{ℓ_i ℓ_j}`` (``K = C − Cᵀ``) counts each pair of different levels
``+c`` when the higher level scores higher and ``−c`` otherwise: a dominance count (which of the
two is higher in level and in score), as the uniform route's inversions, but weighted by
``p(v_hi − v_lo)``. Expanded in monomials ``v_lo^r v_hi^s``, it is summed bit by bit of the
level index (:func:`ordered_pairs`): O(n) per bit and monomial after the one sort, so
O(n log L) for a fixed degree, where the general route is O(n L).

No route of prefix sums after the sort does better: such a route computes
``Σ_{f_i > f_j} Σ_r U_r(ℓ_i) W_r(ℓ_j)``, which equals A on every input only if ``U Wᵀ = K``, so it
needs rank K terms, and ``K_ab = sign(v_a − v_b) (v_a − v_b)²`` (``"squared"``) has rank
L − (L mod 2), the most an antisymmetric matrix has (levels 0..L−1, checked for L ≤ 69, 256, 1024;
the linear costs' K has rank 2, and their route is O(n)): an O(n L) route. The sign makes A a
dominance sum (level and score order), as the uniform route's inversion count.
"""

from __future__ import annotations

from math import comb

import numpy as np

__all__ = ["coded_tied_cost", "exact_bound", "level_total", "ordered_pairs", "polynomial_costs",
           "tied_cost"]

#: Highest degree the matrix detection tries (the kernel's passes grow with it).
_MAX_DEGREE = 4
#: Rows per block of :func:`ordered_pairs`: its dozen block arrays stay in the L2/L3 caches.
_ROWS = 1 << 15


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
    B = min(n, _ROWS)
    vb, one, t, u = (np.empty(B, dtype=dt) for _ in range(4))
    rows = {e: np.empty(B, dtype=dt) for e in range(2, P + 1)}   # ω v^e; 0, 1 below
    rows[1] = vb if w is None else np.empty(B, dtype=dt)
    rows[0] = None if w is None else np.empty(B, dtype=dt)
    cs1 = {e: np.empty(B, dtype=dt) for e in need1}
    cs0 = {e: np.empty(B, dtype=dt) for e in need0}
    # the one-side rows each term reads: ω v^e of the bit-1 rows (running sums over them for
    # s <= r, dotted for s > r) and of the bit-0 rows (dotted for s <= r, summed for s > r)
    sides1 = sorted({e for e in need1 if rows[e] is not None}
                    | {s for r, s in beta if s > r})
    sides0 = sorted({e for e in need0 if rows[e] is not None}
                    | {r for r, s in beta if s <= r and rows[r] is not None})
    oe = {e: np.empty(B, dtype=dt) for e in sides1}
    ze = {e: np.empty(B, dtype=dt) for e in sides0}
    pos = np.arange(1, B + 1, dtype=dt)
    sh, mk = np.empty(B, dtype=seq.dtype), np.empty(B, dtype=bool)
    cnt = np.zeros(1 << bits, dtype=np.int64)
    cnt[: len(v)] = np.bincount(seq, minlength=len(v))       # rows per level: the partition
    seq, out = seq.copy(), np.empty_like(seq)
    wseq, wout = (None, None) if w is None else (w.copy(), np.empty_like(w))
    gorder, total = np.zeros(1, dtype=np.int64), 0
    for b in range(bits - 1, -1, -1):
        G = 1 << (bits - 1 - b)
        Mg = mom.reshape(P + 1, G, 2, 1 << b).sum(axis=3)[:, gorder]   # (e, group, bit)
        M0, M1 = Mg[:, :, 0], Mg[:, :, 1]
        T = X = 0
        for (r, s), beta_rs in beta.items():   # the level totals' terms
            T += beta_rs * num((M0[r] * M1[s]).sum())
            if s <= r:                          # less the bit-1 rows of earlier groups
                X -= beta_rs * num(np.dot(M0[r], np.cumsum(M1[s]) - M1[s]))
            else:                               # the bit-0 rows of the group and of the earlier
                X += beta_rs * num(np.dot(M1[s], M0[r] + np.cumsum(M0[r]) - M0[r]))
        carry1, carry0 = dict.fromkeys(need1, 0), dict.fromkeys(need0, 0)
        zp = 0
        op = int(cnt.reshape(G, 2, 1 << b)[:, 0].sum())   # rows with bit b = 0
        for lo in range(0, n, B):   # blocks: a dozen arrays of B rows stay in the cache
            hi = min(n, lo + B)
            m, sq, o, vv, sm, mm = hi - lo, seq[lo:hi], one[: hi - lo], vb[: hi - lo], \
                sh[: hi - lo], mk[: hi - lo]
            np.right_shift(sq, b, out=sm)
            sm &= 1
            np.copyto(o, sm)
            if identity:
                np.copyto(vv, sq)
            else:
                np.take(v, sq, out=vv)
            if w is not None:
                np.copyto(rows[0][:m], wseq[lo:hi])
                np.multiply(vv, wseq[lo:hi], out=rows[1][:m])
            for e in range(2, P + 1):
                np.multiply(rows[e - 1][:m], vv, out=rows[e][:m])
            ow, zw = {}, {}   # ω v^e of the bit-1 rows and of the bit-0 rows (0 elsewhere)
            for e in sides1:
                ow[e] = np.multiply(o, rows[e][:m], out=oe[e][:m])
            for e in sides0:
                zw[e] = np.subtract(rows[e][:m], ow[e], out=ze[e][:m]) if e in ow else \
                    np.subtract(rows[e][:m], np.multiply(o, rows[e][:m], out=t[:m]),
                                out=ze[e][:m])
            if w is None and (0 in need1 or 0 in need0):
                bc = np.cumsum(o, out=t[:m])                     # bit-1 rows up to each row
            for e, c, carry, side in [(e, cs1[e][:m], carry1, ow) for e in need1] + \
                    [(e, cs0[e][:m], carry0, zw) for e in need0]:
                if rows[e] is not None:
                    np.cumsum(side[e], out=c)
                elif carry is carry1:
                    np.copyto(c, bc)
                else:                                            # bit-0 rows: positions less
                    np.subtract(pos[:m], bc, out=c)
                c += carry[e]
                carry[e] = c[-1]
            for (r, s), beta_rs in beta.items():
                if s <= r:    # Σ_{q bit 0} ω v_q^r · (ω v^s of the bit-1 rows before q)
                    zr = np.subtract(1, o, out=u[:m]) if rows[r] is None else zw[r]
                    X += beta_rs * num(np.dot(zr, cs1[s][:m]))
                else:         # Σ_{p bit 1} ω v_p^s · (ω v^r of the bit-0 rows after p)
                    X -= beta_rs * num(np.dot(ow[s], cs0[r][:m]))
            if b:             # the stable partition, block by block into its two halves
                np.not_equal(sm, 0, out=mm)
                n1 = int(np.count_nonzero(mm))
                np.compress(mm, sq, out=out[op : op + n1])
                if wseq is not None:
                    np.compress(mm, wseq[lo:hi], out=wout[op : op + n1])
                np.logical_not(mm, out=mm)
                np.compress(mm, sq, out=out[zp : zp + m - n1])
                if wseq is not None:
                    np.compress(mm, wseq[lo:hi], out=wout[zp : zp + m - n1])
                op, zp = op + n1, zp + m - n1
        total += T - 2 * X
        if b:
            seq, out = out, seq
            if wseq is not None:
                wseq, wout = wout, wseq
            gorder = np.concatenate([2 * gorder, 2 * gorder + 1])
    return total


def _even_group_pairs(mom: list, m: int, integer: bool):
    """``Σ_groups ½ Σ_{p,q in the group} (v_q − v_p)^m`` for an even degree m, from the groups'
    power sums ``mom[j] = Σ_group v^j`` (``mom[0]``: the sizes): the binomial expansion
    ``Σ_j C(m, j) (−1)^j mom[m−j] · mom[j]``, no order needed (an exact int when ``integer``)."""
    t = sum(comb(m, j) * (-1) ** j * np.dot(mom[m - j], mom[j]) for j in range(m + 1))
    return int(t) // 2 if integer else t / 2


def tied_cost(vt: np.ndarray, gnew: np.ndarray, T, alpha):
    """``Σ c(ℓ_q, ℓ_p)`` over the pairs ``p < q`` of different levels in each tie group, ``T`` of
    them (``vt``: the values of the rows in tie groups, ascending inside each; ``gnew``: where
    each group starts): ``α_0 T`` plus, per degree m ≥ 1 (pairs of one level add 0), for even m
    half the group's ``Σ_{p,q} (v_q − v_p)^m`` from its moments (no order needed), for odd m
    ``Σ_q Σ_j C(m, j) v_q^{m−j} (−1)^j Σ_{p < q in the group} v_p^j`` (running sums)."""
    total = alpha[0] * T
    if len(vt) == 0 or not any(alpha[1:]):
        return total
    starts = np.flatnonzero(gnew)
    vp = [None, *_powers(vt, len(alpha) - 1)[1:]]
    mom = [np.diff(np.append(starts, len(vt)))] + [np.add.reduceat(x, starts) for x in vp[1:]]
    start = None
    for m in range(1, len(alpha)):
        if not alpha[m]:
            continue
        if m % 2 == 0:
            total += alpha[m] * _even_group_pairs(mom, m, vt.dtype.kind == "i")
            continue
        if start is None:
            start = np.maximum.accumulate(np.where(gnew, np.arange(len(vt)), 0))
        vp[0] = np.ones_like(vt) if vp[0] is None else vp[0]
        for j in range(m + 1):
            c = np.concatenate([np.zeros(1, vt.dtype), np.cumsum(vp[j])])
            tj = np.dot(vp[m - j], c[:-1] - c[start])         # Σ_{p < q in q's group} v_p^j
            total += alpha[m] * comb(m, j) * (-1) ** j * (int(tj) if tj.dtype.kind == "i"
                                                          else tj)
    return total


def coded_tied_cost(keys: np.ndarray, bits: int, lev: np.ndarray, v: np.ndarray, alpha):
    """:func:`tied_cost` for even polynomials from sorted coded keys (the score's key above
    ``bits`` low bits that hold the level, ascending inside each tie group): the tie groups are
    the runs of equal score keys and their pairs of one level the runs of equal keys, so
    ``T = Σ_G C(|G|, 2) − Σ_cells C(c, 2)`` and the moments come from per-group sums; a few
    passes over the keys instead of the tie-group gathers."""
    n = len(keys)
    head = keys >> bits
    starts = np.flatnonzero(np.concatenate([[True], head[1:] != head[:-1]]))
    if len(starts) == n:
        return 0
    cells = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    size = np.diff(np.append(starts, n))
    cell = np.diff(np.append(cells, n))
    T = int((size * (size - 1) // 2).sum()) - int((cell * (cell - 1) // 2).sum())
    total = alpha[0] * T
    vt = v[lev]
    vp = [None, *_powers(vt, len(alpha) - 1)[1:]]
    mom = [size] + [np.add.reduceat(x, starts) for x in vp[1:]]
    for m in range(2, len(alpha), 2):
        if alpha[m]:
            total += alpha[m] * _even_group_pairs(mom, m, vt.dtype.kind == "i")
    return total
