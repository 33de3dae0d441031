"""The report's per-scorer sums in compiled passes over the scorer's sorted rows (docs/theory.md
§7.5): what :func:`bipartite.diagnostics._scan.scorer_stats` takes from its NumPy walks
(``_global``, ``_within``, ``_near_ties`` of :mod:`bipartite.diagnostics._scan`, which stay as
the tests' reference, ``tests/test_diagnostics_compiled_walk.py``), with the same formulas in
the same order of summation, row by row, and no temporary of the size of the input per weight
row:

* :func:`sorted_rows`: the rows' scores, packed labels (:attr:`~bipartite.diagnostics._scan.
  Masses.lab`, query code above the label bits) and weights gathered into the global (score,
  row) order once;
* :func:`global_sums`: one walk of the global tie groups (runs of one score): each group's
  positive and negative weight of every weight row, one running sum of each over all groups
  (:func:`bipartite.metrics.tie_placements` with a carry: the negative weight below plus ½ the
  tied, the positive weight above plus ½ the tied, from the row's total), the rows' placements
  times their weights added to their unit; and, with query ids, each query's AUC numerators of
  the labels in the same walk: a query's rows come in its own score order in the global one
  (the per-query order of :func:`bipartite.metrics.query_major`), so each query carries its
  negative weight below from group to group, with the grouped engine's formulas
  (:meth:`bipartite.metrics.QuerySegments.auc`: each label's rows scaled by its power of two,
  the positives of a query's tie group times the negatives below plus ½ the tied,
  :func:`bipartite.metrics.auc_terms`) — no per-query sort;
* :func:`near_sums`: the near-tie numerators of the label pairs, ``Σ_{i k only} w_i (C_j[hi_i] −
  C_j[lo_i])``, ``lo``/``hi`` found by two pointers that only move forward over the sorted
  scores (the same comparisons as ``np.searchsorted(ss, s_i − tol, "left")`` and
  ``(ss, s_i + tol, "right")``), ``C_j`` the running "j only" weight carried at each pointer
  (the same sequential sums as one cumulative sum).

Sums of a tie group, and the running sums, add the rows in the same order as the NumPy walk
(``np.add.reduceat``, ``np.cumsum`` are sequential), so the placements are the same floats; the
per-unit sums and the near-tie numerators add the same terms in another order: equal when
every row weighs the same power of two (every sum then an exact multiple of it), within a few
ulps otherwise. A query's running negative weight starts from 0 at the query (the NumPy walk
takes a running sum over all queries less an offset, :func:`bipartite.metrics.segment_below`):
with float weights its within-query numerators are the more exact. The kernels are compiled by numba on their first call
(:func:`bipartite._utils.compiled.compiled`; a few seconds, once per weights/units/width/label
code type, then cached on disk).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from bipartite._utils.compiled import compiled

__all__ = ["global_sums", "near_sums", "sorted_rows"]


@functools.cache
def _keys():
    def run(bits, b):
        n = bits.shape[0]
        keys = np.empty(n, np.uint64)
        sign = np.uint64(1 << 63)
        for i in range(n):
            u = bits[i]
            if u == sign:  # −0 is +0
                u = np.uint64(0)
            u = ~u if u & sign else u | sign  # the float's order as an unsigned integer's
            keys[i] = ((u >> np.uint64(b)) << np.uint64(b)) | np.uint64(i)
        return keys
    return compiled(run)


@functools.cache
def _gather(const: bool):
    def run(keys, b, s, lab, w, vv):
        n = keys.shape[0]
        mask = np.uint64((1 << b) - 1)
        ss = np.empty(n)
        ww = np.empty(0 if const else n)
        for i in range(n):  # tight loops: many random reads in flight at once
            ss[i] = s[keys[i] & mask]
        for i in range(n):
            vv[i] = lab[keys[i] & mask]
        if not const:
            for i in range(n):
                ww[i] = w[keys[i] & mask]
        a = 0  # the first row of the current run of one key bucket
        mixed = False  # whether the run holds distinct scores
        for i in range(1, n + 1):
            if i < n and (keys[i] >> np.uint64(b)) == (keys[a] >> np.uint64(b)):
                mixed |= ss[i] != ss[i - 1]
                continue
            if mixed:  # a collision: the run (in row order) sorted by (score, row)
                p = np.argsort(ss[a:i], kind="mergesort") + a
                keys[a:i] = keys[p]
                ss[a:i] = ss[p]
                vv[a:i] = vv[p]
                if not const:
                    ww[a:i] = ww[p]
            a = i
            mixed = False
        for i in range(n):  # the keys become the order
            keys[i] &= mask
        return ss, ww
    return compiled(run)


def sorted_rows(s: np.ndarray, lab: np.ndarray, w: np.ndarray, const: bool
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(order, ss, vv, ww)`` (n,): the rows in ascending (score, row) order (``−0 = +0``; the
    order of ``QuerySegments(s).order``), their scores, packed labels (uint32 up to 32 bits,
    else int64) and weights (empty
    when every row weighs the same, ``const``), from one ``np.sort`` of packed uint64 keys: the
    score's float64 pattern as an order-preserving integer, its top ``64 − ⌈log2 n⌉`` bits above
    the row index. Distinct scores that share those bits (a run of one key bucket holding
    distinct scores: relative differences below about 2^−(52 − ⌈log2 n⌉)) are re-sorted by
    score within their run, stably (the rows of a run are in row order)."""
    s = np.ascontiguousarray(s, dtype=np.float64)
    b = max(1, (len(s) - 1).bit_length())
    keys = _keys()(s.view(np.uint64), b)
    keys.sort()
    # two label-code types (fewer compiled variants): uint32, else int64
    lab = np.ascontiguousarray(lab, dtype=np.uint32 if lab.dtype.itemsize <= 4 else np.int64)
    vv = np.empty(len(s), dtype=lab.dtype)
    ss, ww = _gather(bool(const))(keys, b, s, lab, np.ascontiguousarray(w, dtype=np.float64),
                                  vv)
    return keys.view(np.int64), ss, vv, ww


@functools.cache
def _global(const: bool, units: bool, normal: bool):
    def run(ss, vv, ww, order, tab, K, total, fp, fn, R, T, seen, touched):
        n = ss.shape[0]
        m = total.shape[0]
        mask = (1 << K) - 1
        # columns of a query's record R[q]: below (m), above (m), then the labels' scaled AUC
        # numerators, positive and negative weights and negative weight below (K each)
        num, pw, nw, bw = 2 * m, 2 * m + K, 2 * m + 2 * K, 2 * m + 3 * K
        gp = np.zeros(m)
        gn = np.zeros(m)
        cp = np.zeros(m)   # the running positive and negative weight (tie_placements' carry)
        cn = np.zeros(m)
        bt = np.zeros(m)
        at = np.zeros(m)
        a = 0
        while a < n:
            b = a + 1
            while b < n and ss[b] == ss[a]:
                b += 1
            nt = 0
            for i in range(a, b):  # the group's sums, its rows in order (np.add.reduceat)
                c = vv[i] & mask
                x = 1.0 if const else ww[i]
                for r in range(m):
                    p = tab[c, r] if const else tab[c, r] * x
                    q = tab[c, m + r] if const else tab[c, m + r] * x
                    gp[r] = p if i == a else gp[r] + p
                    gn[r] = q if i == a else gn[r] + q
                if units:  # and each query's part of it, scaled (QuerySegments.auc)
                    u = vv[i] >> K
                    new = seen[u] == 0
                    if new:
                        seen[u] = 1
                        touched[nt] = u
                        nt += 1
                    for k in range(K):
                        p = tab[c, k] if const else tab[c, k] * x
                        q = tab[c, m + k] if const else tab[c, m + k] * x
                        p = p * fp[k] if normal else math.ldexp(p, int(fp[k]))
                        q = q * fn[k] if normal else math.ldexp(q, int(fn[k]))
                        T[u, k] = p if new else T[u, k] + p
                        T[u, K + k] = q if new else T[u, K + k] + q
            for r in range(m):  # tie_placements with a carry
                cn[r] += gn[r]
                cp[r] += gp[r]
                bt[r] = cn[r] - 0.5 * gn[r]
                at[r] = (total[r] - cp[r]) + 0.5 * gp[r]
            for i in range(a, b):
                c = vv[i] & mask
                x = 1.0 if const else ww[i]
                u = (vv[i] >> K) if units else order[i]
                for r in range(m):
                    p = tab[c, r] if const else tab[c, r] * x
                    q = tab[c, m + r] if const else tab[c, m + r] * x
                    if units:
                        R[u, r] += bt[r] * p
                        R[u, m + r] += at[r] * q
                    else:
                        R[u, r] = bt[r] * p
                        R[u, m + r] = at[r] * q
            for j in range(nt):  # auc_terms: Gp (below + ½ Gn), summed over each query
                u = touched[j]
                seen[u] = 0
                for k in range(K):
                    xp = T[u, k]
                    xn = T[u, K + k]
                    R[u, num + k] += xp * (R[u, bw + k] + 0.5 * xn)
                    R[u, pw + k] += xp
                    R[u, nw + k] += xn
                    R[u, bw + k] += xn
            a = b
    return compiled(run)


def global_sums(ss: np.ndarray, vv: np.ndarray, ww: np.ndarray, const: bool, order: np.ndarray,
                tab: np.ndarray, K: int, total: np.ndarray, G: int | None,
                ep: np.ndarray, en: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``(below, above, (num, P, N))``: the rows' placements times their weights (module
    docstring), summed per query (m, G) (the query codes above the ``K`` label bits of ``vv``),
    or per row in input order (m, n) (``G`` None); with queries also each query's AUC numerator
    of the labels and its positive and negative weight (K, G), every label's rows scaled by
    ``2^−ep_k`` and ``2^−en_k`` (the grouped engine's scales; a query's rows come in its own
    score order in the global one), else None. ``tab`` (2m, 2^K): the weight rows of each label
    combination (:func:`bipartite.diagnostics._scan.weight_table`, times the weight when
    ``const``), ``total`` (m,) the positive weight of each row."""
    m = len(total)
    units = G is not None
    ep, en = np.asarray(ep, np.int64), np.asarray(en, np.int64)
    # 2^−e as a factor: x · 2^−e is x scaled exactly as np.ldexp(x, −e) (one rounding of the
    # same exact product) while 2^−e is a normal float, else np.ldexp itself
    normal = bool(np.all(np.abs(ep) < 1020) and np.all(np.abs(en) < 1020))
    fp = np.ldexp(1.0, -ep) if normal else -ep.astype(np.float64)
    fn = np.ldexp(1.0, -en) if normal else -en.astype(np.float64)
    R = np.zeros((G, 2 * m + 4 * K) if units else (len(ss), 2 * m))  # a unit's sums together
    T = np.empty((G if units else 0, 2 * K))
    _global(bool(const), units, normal)(
        ss, vv, ww, order, np.ascontiguousarray(tab.T), int(K),
        np.ascontiguousarray(total, dtype=np.float64), fp, fn, R, T,
        np.zeros(G if units else 0, np.uint8), np.empty(G if units else 0, np.int64))
    RT = np.ascontiguousarray(R.T)
    within = (RT[2 * m:2 * m + K], RT[2 * m + K:2 * m + 2 * K],
              RT[2 * m + 2 * K:2 * m + 3 * K]) if units else None
    return RT[:m], RT[m:2 * m], within


@functools.cache
def _near(const: bool):
    def run(ss, vv, ww, tab, K, tol, num):
        n = ss.shape[0]
        p = num.shape[0]
        m = K + p
        mask = (1 << K) - 1
        clo = np.zeros(p)   # the running "j only" weight before lo and before hi
        chi = np.zeros(p)
        lo = 0
        hi = 0
        for i in range(n):
            key = ss[i] - tol
            while ss[lo] < key:  # lo ≤ i: ss[i] ≥ key
                c = vv[lo] & mask
                x = 1.0 if const else ww[lo]
                for t in range(p):
                    chi_t = tab[m + K + t, c] if const else tab[m + K + t, c] * x
                    clo[t] += chi_t
                lo += 1
            key = ss[i] + tol
            while hi < n and ss[hi] <= key:
                c = vv[hi] & mask
                x = 1.0 if const else ww[hi]
                for t in range(p):
                    chi_t = tab[m + K + t, c] if const else tab[m + K + t, c] * x
                    chi[t] += chi_t
                hi += 1
            c = vv[i] & mask
            x = 1.0 if const else ww[i]
            for t in range(p):
                g = tab[K + t, c] if const else tab[K + t, c] * x
                if g != 0.0:
                    num[t] += g * (chi[t] - clo[t])
    return compiled(run)


def near_sums(ss: np.ndarray, vv: np.ndarray, ww: np.ndarray, const: bool, tab: np.ndarray,
              K: int, tol: float) -> np.ndarray:
    """(p,) the near-tie numerators of the label pairs (rows ``K..m−1`` of ``tab``, module
    docstring) at tolerance ``tol``."""
    m = tab.shape[0] // 2
    num = np.zeros(m - K)
    _near(bool(const))(ss, vv, ww, np.ascontiguousarray(tab), int(K), float(tol), num)
    return num
