"""The report's per-scorer sums in compiled passes over the scorer's sorted rows (docs/theory.md
§7.5): what :func:`bipartite.diagnostics._scan.scorer_stats` takes from its NumPy walks
(``_global``, ``_within``, ``_near_ties`` of :mod:`bipartite.diagnostics._scan`, which stay as
the tests' reference, ``tests/test_diagnostics_compiled_walk.py``), with the same formulas in
the same order of summation, row by row, and no temporary of the size of the input per weight
row:

* :func:`sorted_rows`: the rows' scores, packed labels (:attr:`~bipartite.diagnostics._scan.
  Masses.lab`, query code above the label bits) and weights in the global (score, row) order,
  from one sort of packed keys and one random read a row (a payload of the labels and the
  score's low bits);
* :func:`walk_sums`: walks of the global tie groups (runs of one score; a row of its own
  score without the group loop; four weight rows a walk, their running sums in registers) for
  both of:
* :func:`global_sums`: each group's positive and negative weight of every weight row, one
  running sum of each over all groups (:func:`bipartite.metrics.tie_placements` with a carry:
  the negative weight below plus ½ the tied, the positive weight above plus ½ the tied, from
  the row's total), the rows' placements times their weights added to their unit;
* :func:`within_sums`: each query's AUC numerators of the labels with the grouped engine's
  formulas (:meth:`bipartite.metrics.QuerySegments.auc`: each label's rows scaled by its power
  of two, each tie group's positives times the negatives below plus ½ the tied,
  :func:`bipartite.metrics.auc_terms`), from running sums per query updated as its rows come:
  a query's rows come in its score order (:func:`bipartite.metrics.query_major` keeps it), its
  tie groups the global groups' rows of that query, so each query's sums are those of its own
  walk, without the per-query order;
* :func:`near_sums`: the near-tie numerators of the label pairs, ``Σ_{i k only} w_i (C_j[hi_i] −
  C_j[lo_i])`` (``lo``/``hi`` by the same comparisons as ``np.searchsorted(ss, s_i − tol,
  "left")`` and ``(ss, s_i + tol, "right")``), ``C_j`` the cumulative "j only" weight (the same
  sequential sums as one cumulative sum), kept for a few pairs (only the rows with another row
  in their window add to the sums), else carried by two pointers that only move forward.

Sums of a tie group, and the running sums, add the rows in the same order as the NumPy walk
(``np.add.reduceat``, ``np.cumsum`` are sequential), so the placements are the same floats; the
per-unit sums and the near-tie numerators add the same terms in another order: equal when
every row weighs the same power of two (every sum then an exact multiple of it), within a few
ulps otherwise. The kernels are compiled by numba on their first call
(:func:`bipartite._utils.compiled.compiled`; a few seconds per variant: weights constant or
not, units queries or rows, the numbers of labels and weight rows; then cached on disk).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from bipartite._utils.compiled import compiled, compiled_prefetch
from bipartite._utils.order_keys import compiled_float_key

__all__ = ["global_sums", "near_sums", "sorted_rows", "walk_sums", "within_sums"]

#: The compiled functions the passes below call, under these global names: bound at compile time
#: by :func:`bipartite._utils.compiled.compiled` (``calls``), never through a closure (that would
#: defeat numba's disk cache).
_float_key = order_key = prefetch = None

#: How many rows ahead the walk asks for the cache line of a row's unit (its per-query sums or,
#: rows as units, its row of sums): the units' sums are read and written in the rows' score
#: order, a random order, and the CPU alone keeps only a few of those misses in flight.
#: Measured (``benchmarks/bench_walk.py``, 2·10⁶ rows, 20 000 queries): 8 rows ahead takes the
#: one pass of the global and within-query sums from 27 to 22 ms; 2–12 are within 1 ms of it.
AHEAD = 8


@functools.cache
def _order_key():
    """The compiled scalar map of a float64's bit pattern ``u`` (uint64) to an unsigned integer of
    the same order, −0 as +0: :func:`bipartite._utils.order_keys.float_key` with the sign bit
    flipped (so that the signed order reads as unsigned); :func:`_gather` takes a key ``u`` back
    to the pattern as ``float_key(u ^ 2^63)`` (``float_key`` is an involution)."""
    def run(u):
        sign = np.uint64(1 << 63)
        if (u << np.uint64(1)) == 0:  # ±0
            return sign
        return np.uint64(_float_key(np.int64(u))) ^ sign
    return compiled(run, calls={"_float_key": compiled_float_key()})


@functools.cache
def _keys(packed: bool):
    def run(bits, lab, b, keys, pk):
        n = bits.shape[0]
        sign = np.uint64(1 << 63)
        low = np.uint64((1 << (b + 2)) - 1)
        for i in range(n):
            u = bits[i]
            z = sign if u == sign else np.uint64(0)  # −0: its sign kept in the payload
            u = order_key(u)
            keys[i] = ((u >> np.uint64(b + 2)) << np.uint64(b)) | np.uint64(i)
            if packed:
                pk[i] = z | ((u & low) << np.uint64(32)) | np.uint64(lab[i])
    return compiled(run, calls={"order_key": _order_key()})


@functools.cache
def _gather(packed: bool):
    def run(keys, b, s, lab, pk, ss, vv, at):
        n = keys.shape[0]
        mask = np.uint64((1 << b) - 1)
        sign = np.uint64(1 << 63)
        low = np.uint64((1 << (b + 2)) - 1)
        sb = ss.view(np.uint64)
        if packed:  # one random read a row: the payload, into the scores' place
            for i in range(n):
                sb[i] = pk[keys[i] & mask]
        else:  # tight loops: many random reads in flight at once
            for i in range(n):
                ss[i] = s[keys[i] & mask]
            for i in range(n):
                vv[i] = lab[keys[i] & mask]
        # the decoding, the order check and a count of the collisions, without a branch (a
        # loop the compiler vectorises: the branches would slow every row, 3 ms at 2·10⁶)
        unsorted = False
        found = 0
        k0 = keys[0] if n else np.uint64(0)
        u0 = np.uint64(0)
        for i in range(n):
            k = keys[i]
            if packed:  # the score from the key's top bits and the payload's low ones
                wd = sb[i]
                u = ((k >> np.uint64(b)) << np.uint64(b + 2)) | ((wd >> np.uint64(32)) & low)
                sb[i] = np.uint64(_float_key(np.int64(u ^ sign))) | (wd & sign)
                vv[i] = wd & np.uint64(0xFFFFFFFF)
            else:
                u = order_key(sb[i])
            unsorted |= k < k0
            # a collision: distinct scores in one bucket (row 0 has no predecessor)
            found += ((k >> np.uint64(b)) == (k0 >> np.uint64(b))) & (u != u0) & (i > 0)
            k0 = k
            u0 = u
        # the keys become the order; where there are collisions, their positions on the way
        # (a branch on a shared bucket, taken by ties and collisions only)
        hits = 0
        if found:  # (then n ≥ 2)
            k0 = keys[0]
            for i in range(1, n):
                k = keys[i]
                if (k >> np.uint64(b)) == (k0 >> np.uint64(b)):
                    if order_key(sb[i]) != order_key(sb[i - 1]):
                        if hits < at.shape[0]:
                            at[hits] = i
                        hits += 1
                keys[i - 1] = k0 & mask
                k0 = k
            keys[n - 1] = k0 & mask
        else:
            for i in range(n):
                keys[i] &= mask
        return hits, unsorted
    return compiled(run, calls={"order_key": _order_key(), "_float_key": compiled_float_key()})


@functools.cache
def _collisions():
    def run(order, ss, vv, b, at, hits):
        n = ss.shape[0]
        sb = ss.view(np.uint64)
        done = 0
        for t in range(hits if hits <= at.shape[0] else n):
            i = at[t] if hits <= at.shape[0] else t
            if i < done:
                continue
            h = order_key(sb[i]) >> np.uint64(b + 2)
            a = i
            e = i + 1
            while a > 0 and (order_key(sb[a - 1]) >> np.uint64(b + 2)) == h:
                a -= 1
            while e < n and (order_key(sb[e]) >> np.uint64(b + 2)) == h:
                e += 1
            if e - a > 1:  # the run (in row order) sorted by (score, row)
                p = np.argsort(ss[a:e], kind="mergesort") + a
                order[a:e] = order[p]
                ss[a:e] = ss[p]
                vv[a:e] = vv[p]
            done = e
    return compiled(run, calls={"order_key": _order_key()})


@functools.cache
def _take():
    def run(order, w, ww):
        for i in range(order.shape[0]):
            ww[i] = w[order[i]]
    return compiled(run)


def _float_sort(keys: np.ndarray) -> None:
    """Sort the keys (top two bits 0) as float64: positive floats below 2, in the integers'
    order (where subnormals are not taken as 0)."""
    keys.view(np.float64).sort()


def sorted_rows(s: np.ndarray, lab: np.ndarray, w: np.ndarray, const: bool
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(order, ss, vv, ww)`` (n,): the rows in ascending (score, row) order (``−0 = +0``; the
    order of ``QuerySegments(s).order``), their scores, packed labels (uint32 up to 32 bits,
    else int64) and weights (empty when every row weighs the same, ``const``), from one sort
    of packed 64-bit keys: the score's float64 pattern as an order-preserving integer, its top
    ``62 − ⌈log2 n⌉`` bits above the row index (the top two bits 0: the keys sort as positive
    float64, the fastest sort of ``np.sort``; checked, else sorted as integers). With labels of
    up to 32 bits and n ≤ 2^29, a row's labels, the score's dropped bits and its sign when
    −0 ride in one 64-bit payload: one random read a row, the score rebuilt from the key and
    the payload; else the scores and labels are gathered. Distinct scores that share a key's
    top bits (a run of one key bucket holding distinct scores: relative differences below about
    2^−(50 − ⌈log2 n⌉)) are re-sorted by score within their run, stably (the rows of a run are
    in row order)."""
    s = np.ascontiguousarray(s, dtype=np.float64)
    n = len(s)
    b = max(1, (n - 1).bit_length())
    # two label-code types (fewer compiled variants): uint32, else int64
    lab = np.ascontiguousarray(lab, dtype=np.uint32 if lab.dtype.itemsize <= 4 else np.int64)
    packed = lab.dtype == np.uint32 and b <= 29
    # arrays from NumPy (large ones on huge pages: fewer TLB misses in the random reads)
    pk = np.empty(n if packed else 0, np.uint64)
    keys, ss = np.empty(n, np.uint64), np.empty(n)
    vv = pk.view(np.uint32)[:n] if packed else np.empty(n, dtype=lab.dtype)  # pk's memory, read
    at = np.empty(4096, np.int64)  # the first collisions' positions
    for as_float in (True, False):
        _keys(packed)(s.view(np.uint64), lab, b, keys, pk)
        if as_float:
            _float_sort(keys)
        else:  # (subnormal keys compared as 0: denormals-are-zero set in this process)
            keys.sort()
        hits, unsorted = _gather(packed)(keys, b, s, lab, pk, ss, vv, at)
        if not unsorted:
            break
    order = keys.view(np.int64)
    if hits:
        _collisions()(order, ss, vv, b, at, hits)
    ww = np.empty(0 if const else n)
    if not const:
        _take()(order, np.ascontiguousarray(w, dtype=np.float64), ww)
    return order, ss, vv, ww


@functools.cache
def _walk(const: bool, units: bool, m: int, K: int, glob: bool, within: bool, normal: bool):
    """Passes over the global tie groups, four weight rows each (their running sums held in
    registers, not memory): the placements times the weights per unit (``glob``,
    :func:`global_sums`) and, in the first, each query's AUC numerators (``within``,
    :func:`within_sums`); a row of its own score without the group loops."""
    mask = (1 << K) - 1

    def run(ss, vv, ww, order, tab, total, acc, ltab, fp, fn, st, wp, wn, stamp):
        n = ss.shape[0]

        def unit(i):  # row i's unit: its query, else the row itself (in input order)
            return (vv[i] >> K) if units else order[i]

        def put(u, r, lo, hi):  # a row's placements times its weights, to its unit u
            if units:
                acc[u, r] += lo
                acc[u, m + r] += hi
            else:
                acc[u, r] = lo
                acc[u, m + r] = hi

        def single(r, c, x, u, cn, cp):  # weight row r of a row of its own score: its
            # tie_placements with the carry (cn, cp), times its weights, to its unit u
            p = tab[c, r] if const else tab[c, r] * x
            q = tab[c, m + r] if const else tab[c, m + r] * x
            cn, cp = cn + q, cp + p
            put(u, r, (cn - 0.5 * q) * p, ((total[r] - cp) + 0.5 * p) * q)
            return cn, cp

        def weights(i, r):  # row i's positive and negative weight on weight row r
            c = vv[i] & mask
            x = 1.0 if const else ww[i]
            return (tab[c, r], tab[c, m + r]) if const else (tab[c, r] * x, tab[c, m + r] * x)

        def group(r, a, b, cn, cp):  # weight row r over the tie group a..b−1, its sums
            gp, gn = weights(a, r)  # adding its rows in order (np.add.reduceat)
            for i in range(a + 1, b):
                p, q = weights(i, r)
                gp, gn = gp + p, gn + q
            cn, cp = cn + gn, cp + gp
            bt = cn - 0.5 * gn
            at = (total[r] - cp) + 0.5 * gp
            for i in range(a, b):
                p, q = weights(i, r)
                put(unit(i), r, bt * p, at * q)
            return cn, cp

        def scaled(c, x, k):  # label k's weights of a row, times 2^−ep_k and 2^−en_k
            pk = ltab[k, c] if const else ltab[k, c] * x
            qk = ltab[K + k, c] if const else ltab[K + k, c] * x
            if normal:  # 2^−e is in the table
                return pk, qk
            return math.ldexp(pk, int(fp[k])), math.ldexp(qk, int(fn[k]))

        def query(u, gp, gn, k):  # auc_terms of a query's tie group, summed over the query
            bn = st[u, 2 * K + k]  # the query's negatives below: its N so far
            st[u, k] += gp * (bn + 0.5 * gn)
            st[u, K + k] += gp
            st[u, 2 * K + k] = bn + gn

        def queries(a, b):  # each query's rows of the tie group a..b−1, summed in order, once
            for i in range(a, b):
                u = vv[i] >> K
                new = stamp[u] != a + 1
                stamp[u] = a + 1
                for k in range(K):
                    pk, qk = scaled(vv[i] & mask, 1.0 if const else ww[i], k)
                    wp[u, k] = pk if new else wp[u, k] + pk
                    wn[u, k] = qk if new else wn[u, k] + qk
            for i in range(a, b):
                u = vv[i] >> K
                if stamp[u] == a + 1:
                    stamp[u] = -(a + 1)
                    for k in range(K):
                        query(u, wp[u, k], wn[u, k], k)

        for r0 in range(0, max(m, 1), 4):  # four weight rows a pass: their carries in registers
            n0 = n1 = n2 = n3 = p0 = p1 = p2 = p3 = 0.0
            skip = 0  # the end of the tie group being walked
            cur = ss[0] if n else 0.0
            for a in range(n):
                if a + AHEAD < n:  # the unit of a row a few ahead: its sums into the cache
                    if glob:
                        prefetch(acc, unit(a + AHEAD))
                    if within and r0 == 0:
                        prefetch(st, vv[a + AHEAD] >> K)
                nxt = ss[a + 1] if a + 1 < n else np.nan
                if a < skip:  # a later row of a tie group, done with its first
                    cur = nxt
                    continue
                if nxt != cur:  # a row of its own score: the group's sums are its weights
                    c = vv[a] & mask
                    x = 1.0 if const else ww[a]
                    if glob:
                        u = unit(a)
                        n0, p0 = single(r0, c, x, u, n0, p0)
                        if r0 + 1 < m:
                            n1, p1 = single(r0 + 1, c, x, u, n1, p1)
                        if r0 + 2 < m:
                            n2, p2 = single(r0 + 2, c, x, u, n2, p2)
                        if r0 + 3 < m:
                            n3, p3 = single(r0 + 3, c, x, u, n3, p3)
                    if within and r0 == 0:
                        for k in range(K):
                            pk, qk = scaled(c, x, k)
                            query(vv[a] >> K, pk, qk, k)
                    cur = nxt
                    continue
                b = a + 1
                while b < n and ss[b] == cur:
                    b += 1
                if glob:
                    n0, p0 = group(r0, a, b, n0, p0)
                    if r0 + 1 < m:
                        n1, p1 = group(r0 + 1, a, b, n1, p1)
                    if r0 + 2 < m:
                        n2, p2 = group(r0 + 2, a, b, n2, p2)
                    if r0 + 3 < m:
                        n3, p3 = group(r0 + 3, a, b, n3, p3)
                if within and r0 == 0:
                    queries(a, b)
                skip = b
                cur = nxt
    return compiled(run, calls={"prefetch": compiled_prefetch()})


def _label_table(tab: np.ndarray, K: int, ep: np.ndarray, en: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """``(ltab, fp, fn, normal)``: the labels' rows of ``tab`` (2K, 2^K), each label's scaled
    by ``2^−ep_k`` and ``2^−en_k`` (the grouped engine's scales) where those are normal floats
    (``normal``): x · 2^−e is x scaled exactly as ``np.ldexp(x, −e)`` (one rounding of the
    same exact product), and the labels' rows are 0, 1 or the constant weight, so
    (t · 2^−e) · w = (t · w) · 2^−e; else unscaled, ``fp``, ``fn`` the exponents −e."""
    m = tab.shape[0] // 2
    ep, en = np.asarray(ep, np.int64), np.asarray(en, np.int64)
    normal = bool(np.all(np.abs(ep) < 1020) and np.all(np.abs(en) < 1020))
    ltab = np.concatenate([tab[:K], tab[m:m + K]])
    if normal:
        ltab[:K] *= np.ldexp(1.0, -ep)[:, None]
        ltab[K:] *= np.ldexp(1.0, -en)[:, None]
    return np.ascontiguousarray(ltab), -ep.astype(np.float64), -en.astype(np.float64), normal


def walk_sums(ss: np.ndarray, vv: np.ndarray, ww: np.ndarray, const: bool, order: np.ndarray,
              tab: np.ndarray, K: int, total: np.ndarray, G: int | None,
              n_rows: np.ndarray | None = None, ep: np.ndarray | None = None,
              en: np.ndarray | None = None, *, glob: bool = True
              ) -> tuple[np.ndarray | None, np.ndarray | None, tuple | None]:
    """``(below, above, (num, P, N))``: :func:`global_sums` and, with ``n_rows`` (queries:
    ``G`` given), :func:`within_sums`, from one pass over the rows (``glob`` False: the
    within-query sums only, ``below``, ``above`` None; without ``n_rows`` the third is None)."""
    m = len(total)
    within = n_rows is not None
    if within and G is None:
        raise ValueError("walk_sums: the within-query sums need query codes (G), got G=None")
    U = G if G is not None else len(ss)
    acc = np.zeros((U if glob else 0, 2 * m))  # a unit's sums side by side
    if within:
        ltab, fp, fn, normal = _label_table(tab, K, ep, en)
        Gw = len(n_rows)
        st = np.zeros((Gw, 3 * K))  # a query's numerators, P and N side by side
        wp, wn, stamp = np.empty((Gw, K)), np.empty((Gw, K)), np.zeros(Gw, np.int64)
    else:
        ltab, fp, fn, normal = np.zeros((2 * K, 1 << K)), np.zeros(K), np.zeros(K), True
        st, wp, wn, stamp = (np.zeros((0, 3 * K)), np.zeros((0, K)), np.zeros((0, K)),
                             np.zeros(0, np.int64))
    _walk(bool(const), G is not None, m if glob else 0, int(K), bool(glob), within, normal)(
        ss, vv, ww, order, np.ascontiguousarray(tab.T),
        np.ascontiguousarray(total, dtype=np.float64), acc, ltab, fp, fn, st, wp, wn, stamp)
    below = above = sums = None
    if glob:
        below, above = np.ascontiguousarray(acc[:, :m].T), np.ascontiguousarray(acc[:, m:].T)
    if within:
        sums = tuple(np.ascontiguousarray(st[:, j * K:(j + 1) * K].T) for j in range(3))
    return below, above, sums


def global_sums(ss: np.ndarray, vv: np.ndarray, ww: np.ndarray, const: bool, order: np.ndarray,
                tab: np.ndarray, K: int, total: np.ndarray, G: int | None
                ) -> tuple[np.ndarray, np.ndarray]:
    """``(below, above)``: the rows' placements times their weights (module docstring), summed
    per query (m, G) (the query codes above the ``K`` label bits of ``vv``), or per row in input
    order (m, n) (``G`` None); ``tab`` (2m, 2^K) the weight rows of each label combination
    (:func:`bipartite.diagnostics._scan.weight_table`, times the weight when ``const``),
    ``total`` (m,) the positive weight of each row."""
    below, above, _ = walk_sums(ss, vv, ww, const, order, tab, K, total, G)
    return below, above


def within_sums(ss: np.ndarray, vv: np.ndarray, ww: np.ndarray, const: bool, tab: np.ndarray,
                K: int, n_rows: np.ndarray, ep: np.ndarray, en: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(num, P, N)`` (K, G): each query's AUC numerator of the ``K`` labels and its positive
    and negative weight, every label's rows scaled by ``2^−ep_k`` and ``2^−en_k``
    (module docstring; ``n_rows`` (G,) the rows of each query, the codes above the label bits of
    ``vv``); 0 for a query without rows."""
    m = tab.shape[0] // 2
    _, _, sums = walk_sums(ss, vv, ww, const, np.zeros(0, np.int64), tab, K, np.zeros(m),
                           len(n_rows), n_rows, ep, en, glob=False)
    return sums



@functools.cache
def _near(const: bool, K: int, m: int):
    mask = (1 << K) - 1
    p = m - K

    def run(ss, vv, ww, tab, tol, num):
        n = ss.shape[0]
        clo = np.zeros(p)   # the running "j only" weight before lo and before hi
        chi = np.zeros(p)
        lo = 0
        hi = 0
        for i in range(n):
            below = ss[i] - tol
            above = ss[i] + tol
            while True:  # each pointer past its rows, the row's weight added to its sums
                if ss[lo] < below:  # lo ≤ i: ss[i] ≥ below
                    j, run = lo, clo
                    lo += 1
                elif hi < n and ss[hi] <= above:
                    j, run = hi, chi
                    hi += 1
                else:
                    break
                c = vv[j] & mask
                x = 1.0 if const else ww[j]
                for t in range(p):
                    run[t] += tab[m + K + t, c] if const else tab[m + K + t, c] * x
            c = vv[i] & mask
            x = 1.0 if const else ww[i]
            for t in range(p):
                g = tab[K + t, c] if const else tab[K + t, c] * x
                if g != 0.0:
                    num[t] += g * (chi[t] - clo[t])
    return compiled(run)


#: Most cells of the pairs' cumulative "j only" weights (n, p) :func:`near_sums` keeps
#: (64 MiB); more pairs take the two pointers that carry the sums.
NEAR_PREFIX_CELLS = 1 << 23


@functools.cache
def _near_prefix(const: bool, K: int, m: int):
    mask = (1 << K) - 1
    p = m - K

    def run(ss, vv, ww, tab, gate, tol, num, C, idx):
        n = ss.shape[0]
        cnt = 0
        for t0 in range(0, max(p, 1), 4):  # four pairs a sweep: their running sums in
            s0 = s1 = s2 = s3 = 0.0  # registers (np.cumsum's order, row by row)
            if n:
                prev = cur = ss[0]  # the scores of rows i − 1, i (in registers)
            for i in range(n):
                c = vv[i] & mask
                x = 1.0 if const else ww[i]
                if t0 < p:
                    s0 += tab[m + K + t0, c] if const else tab[m + K + t0, c] * x
                    C[i, t0] = s0
                if t0 + 1 < p:
                    s1 += tab[m + K + t0 + 1, c] if const else tab[m + K + t0 + 1, c] * x
                    C[i, t0 + 1] = s1
                if t0 + 2 < p:
                    s2 += tab[m + K + t0 + 2, c] if const else tab[m + K + t0 + 2, c] * x
                    C[i, t0 + 2] = s2
                if t0 + 3 < p:
                    s3 += tab[m + K + t0 + 3, c] if const else tab[m + K + t0 + 3, c] * x
                    C[i, t0 + 3] = s3
                if t0 == 0:  # the rows "k only" in some pair with a neighbour in their window
                    nxt = ss[min(i + 1, n - 1)]
                    left = (i > 0) & (not (prev < cur - tol))
                    right = (i + 1 < n) & (nxt <= cur + tol)
                    idx[cnt] = i  # (without a branch: one the predictor cannot learn costs more)
                    cnt += gate[c] & (left | right)
                    prev = cur
                    cur = nxt
        lo = 0
        hi = 0
        for j in range(cnt):  # the others add g · (C_{i+1} − C_i) = g · 0 (C_i in C[i − 1])
            i = idx[j]
            key = ss[i] - tol  # lo: the first score ≥ key, two steps back, else the pointer
            a = i - ((i > 0) & (not (ss[max(i - 1, 0)] < key)))
            a -= (a < i) & (a > 0) & (not (ss[max(a - 1, 0)] < key))
            if (a < i - 1) & (a > 0) & (not (ss[max(a - 1, 0)] < key)):
                while ss[lo] < key:  # lo only moves forward over the rows
                    lo += 1
                a = lo
            lo = a
            key = ss[i] + tol  # hi: the first score > key
            e = i + 1 + ((i + 1 < n) & (ss[min(i + 1, n - 1)] <= key))
            e += (e > i + 1) & (e < n) & (ss[min(e, n - 1)] <= key)
            if (e > i + 2) & (e < n) & (ss[min(e, n - 1)] <= key):
                hi = max(hi, e)
                while hi < n and ss[hi] <= key:
                    hi += 1
                e = hi
            hi = e
            c = vv[i] & mask
            x = 1.0 if const else ww[i]
            for t in range(p):
                g = tab[K + t, c] if const else tab[K + t, c] * x
                v = g * (C[hi - 1, t] - (C[max(lo - 1, 0), t] if lo > 0 else 0.0))
                num[t] += v if g != 0.0 else 0.0  # + 0.0: the same sum
    return compiled(run)


def near_sums(ss: np.ndarray, vv: np.ndarray, ww: np.ndarray, const: bool, tab: np.ndarray,
              K: int, tol: float, scratch: np.ndarray | None = None) -> np.ndarray:
    """(p,) the near-tie numerators of the label pairs (rows ``K..m−1`` of ``tab``, module
    docstring) at tolerance ``tol``: with the pairs' cumulative "j only" weights kept (at most
    :data:`NEAR_PREFIX_CELLS` cells), one pass for them that also lists the rows "k only" in
    some pair whose window holds another row (a row alone adds ``g · (C[i + 1] − C[i])``, 0:
    it is not "j only" in the pair), then one over those, ``lo``/``hi`` found by up to two
    steps from the row, else by pointers that only move forward; with more pairs, the two
    pointers that carry the sums. The cumulative sums ``C[1..n]`` (``C[0] = 0``) are written
    into ``scratch`` (an array of 8-byte items the caller no longer needs, e.g. the order of
    :func:`sorted_rows` after :func:`walk_sums`) where it holds them, else into a new array."""
    m = tab.shape[0] // 2
    num = np.zeros(m - K)
    tab = np.ascontiguousarray(tab)
    if (m - K) * len(ss) <= NEAR_PREFIX_CELLS:
        gate = np.ascontiguousarray((tab[K:m] != 0).any(axis=0))
        n, p = len(ss), m - K
        C = (scratch.view(np.float64)[:n * p].reshape(n, p) if scratch is not None
             and scratch.flags.c_contiguous and scratch.flags.writeable
             and scratch.dtype.itemsize == 8 and scratch.size >= n * p else np.empty((n, p)))
        _near_prefix(bool(const), int(K), m)(ss, vv, ww, tab, gate, float(tol), num, C,
                                             np.empty(n, np.int32))
    else:
        _near(bool(const), int(K), m)(ss, vv, ww, tab, float(tol), num)
    return num
