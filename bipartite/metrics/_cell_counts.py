"""Few distinct scores without a sort of the rows (the *table route*), and the walks of sorted
keys that carry a binary label or an integer grade: per-query AUC (the gAUC), average
precision and DCG (docs/theory.md §2, §8, §10.6), on the sort and formulas of
``bipartite/metrics/_sorted_rows.py``.

**The table route** (few distinct scores: :func:`label_stats`, :func:`ndcg_parts`). A sort by
query costs several times a sort of heavily tied scores (``np.sort`` of 16 distinct values runs
several times faster than of continuous ones; query ids are nearly all distinct per row). So
when the scores have few distinct values, the rows are not sorted: :class:`Ranks`
(``bipartite/metrics/_distinct.py``) finds them exactly — comparisons with a handful of values,
or hash tables in the L1 cache — and hands out each row's rank among them a chunk at a time;
each row then adds its count or weight to one cell (query, score level, label or grade) of a
table (``np.bincount`` or ``np.add.at`` per chunk), and the tie groups are the table's non-empty (query, level)
pairs, walked from the top score by cumulative sums along the levels. Exact, O(n + G·U) for G
queries and U distinct scores, taken while the table has at most ``TABLE_CELLS`` cells per row
(and U ≤ ``MAX_LEVELS``). A larger table (many queries of few rows, e.g. 256 levels and 100
rows per query) is not allocated: without weights, its non-empty cells come from one sort of
*compact keys* (query, level, label or grade; no row index, so uint32 up to 32 bits), walked in
blocks with cumulative sums and gathers at the tie-group ends (:func:`_cell_keys`,
:func:`_key_blocks`); with weights, the sort of the rows takes over. A strided sample turns
continuous scores down first, at almost no cost.

**The walks of sorted keys.** The compact keys (:func:`_walk_label_stats`, :func:`_key_dcg`):
cumulative sums and gathers at the tie-group ends, in blocks of about ``BLOCK`` rows: no
temporary of the input's size. The sort of the rows (many distinct scores, no weights): the
gAUC and AP by rows, not tie groups — a cumulative sum of the label per row and sums per
query, the tie groups only where rows tie (:func:`sorted_label_stats`) —, and the DCG@k from
each query's first k sorted rows alone (:func:`_window_dcg`): past the cut-off a row has no
discount. Both need far fewer operations per row than the tie-group scan of
:meth:`SortedRows.scan`, which stays for weights and several labels.

The module is private to ``bipartite.metrics``; its public names carry no underscore only so
that the package's modules may import them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from bipartite.metrics import _sorted_rows
from bipartite.metrics._distinct import Ranks, chunk_rows
from bipartite.metrics._sorted_rows import (
    SortedRows,
    ap_terms,
    auc_terms,
    dcg_per_query,
    dcg_terms,
    discount_sums,
    key_bits,
    per_query_add,
)

__all__ = ["MAX_LEVELS", "TABLE_CELLS", "label_stats", "ndcg_parts", "sorted_label_stats"]

_U = np.uint64
_NO_SPLIT = np.zeros(0, dtype=np.int64)  # compact keys: every run of equal cells is a tie group


# -- the table route: few distinct scores ----------------------------------------------------------
#: Most distinct scores of the table route (0: off, every metric takes the sort); and the most
#: cells of its (query, score level) table, as a multiple of the rows.
MAX_LEVELS = 1 << 10
TABLE_CELLS = 1.0


def _cell_chunks(rk: Ranks | None, U: int, codes: np.ndarray | None, low: np.ndarray | None = None,
                 low_levels: int = 1) -> Iterator[tuple[int, int, np.ndarray]]:
    """``(a, b, cells)`` for consecutive chunks of ``chunk_rows(n)`` rows:
    the cells ``(query · U + score rank) · low_levels + low`` of a (G, U, low_levels) table of
    rows a..b−1 (rank 0 without ``rk``), in a scratch array that the next chunk overwrites: no
    array of the input's size (:mod:`bipartite.metrics._distinct`)."""
    n = len(rk.s) if rk is not None else len(codes) if codes is not None else len(low)
    C = min(n, chunk_rows(n))
    buf = np.zeros(C, dtype=np.intp)
    tmp = np.empty(C, dtype=np.intp)
    L = low_levels if low is not None else 1
    direct = low is not None and low.dtype == np.intp  # else cast first: a mixed-type add is
    for a in range(0, n, C):                           # several times slower
        b = min(n, a + C)
        rr, t = buf[: b - a], tmp[: b - a]
        # cell = query · (U L) + rank · L + low, in as few passes as the parts allow
        if rk is not None:
            rk.chunk(a, b, rr)
            if L != 1:
                rr *= L
            if codes is not None:
                np.multiply(codes[a:b], U * L, out=t, casting="unsafe")
                rr += t
        elif codes is not None:
            np.multiply(codes[a:b], U * L, out=rr, casting="unsafe")
        else:
            rr[:] = 0
        if low is not None:
            if direct:
                rr += low[a:b]
            else:
                np.copyto(t, low[a:b], casting="unsafe")  # 0/1 floats: exact
                rr += t
        yield a, b, rr


def _table(rk: Ranks | None, U: int, codes: np.ndarray | None, M: int, low: np.ndarray | None = None,
           low_levels: int = 1, weights: np.ndarray | None = None) -> np.ndarray:
    """(M,) the counts (int64; or the sums of ``weights``, in row order) of the cells of
    :func:`_cell_chunks`, a chunk at a time: ``np.bincount`` of the chunk added to the table
    while the table is no larger than a chunk, else ``np.add.at`` (O(rows), whatever M) — the
    counts then in int32 (below 2^31 rows), converted at the end: a table of 10⁶ cells hit at
    random by 10⁷ rows takes half the time at half the bytes (fewer cache misses)."""
    n = len(rk.s) if rk is not None else len(codes) if codes is not None else len(low)
    C = min(n, chunk_rows(n))
    small = M <= C
    narrow = not small and weights is None and n < 1 << 31
    T = np.zeros(M, dtype=np.float64 if weights is not None else np.int32 if narrow else np.int64)
    ones = np.ones(C, dtype=np.int32) if narrow else None  # add.at: one dtype
    for a, b, c in _cell_chunks(rk, U, codes, low, low_levels):
        wc = None if weights is None else weights[a:b]
        if small:
            T += np.bincount(c, weights=wc, minlength=M)
        else:
            np.add.at(T, c, ones[: b - a] if narrow else wc)
    return T.astype(np.int64) if narrow else T


def _table_levels(s: np.ndarray, G: int, sortable: bool = False) -> Ranks | None:
    """:class:`Ranks` (descending) when the scores have few enough distinct values for a (G, U)
    table of at most ``TABLE_CELLS · n`` cells (and ``MAX_LEVELS``), else None; ``sortable``:
    up to ``MAX_LEVELS`` whatever the table's size (a table too large for the rows then takes
    :func:`_cell_keys`)."""
    cap = MAX_LEVELS if sortable else min(MAX_LEVELS, int(TABLE_CELLS * len(s)) // max(G, 1))
    return Ranks.find(s, cap, descending=True)


def _cell_keys(rk: Ranks, codes: np.ndarray | None, G: int, low: np.ndarray | None = None,
               low_bits: int = 0) -> np.ndarray | None:
    """The cells ``(query, score level, low)`` of :func:`_cell_chunks` as compact keys, sorted:
    for a table too large to allocate, one sort of the keys puts each tie group (query, level)
    in a run, from the top score. The keys hold no row index (every per-row value rides in
    them), so they take ``⌈log2 G⌉ + ⌈log2 U⌉ + low_bits`` bits: uint32 when that is at most
    32, whose sort costs about two thirds of a sort of the float64 scores. None past 64 bits or
    2^31 rows (the int64 sums of :func:`_walk_label_stats`)."""
    ub, cb = key_bits(len(rk.values)), key_bits(G)
    if cb + ub + low_bits > 64 or len(rk.s) >= 1 << 31:
        return None
    k = np.empty(len(rk.s), dtype=np.uint32 if cb + ub + low_bits <= 32 else _U)
    for a, b, c in _cell_chunks(rk, 1 << ub, codes, low, 1 << low_bits):
        np.copyto(k[a:b], c, casting="unsafe")
    k.sort()
    return k


def _runs_blocks(k: np.ndarray, lb: int) -> Iterator[tuple[int, int]]:
    """``(a, b)``: blocks of about ``BLOCK`` rows of the sorted keys ``k``, each extended to the
    end of the run of equal ``k >> lb`` holding its last row (no run crosses two blocks). From
    2^22 rows, blocks of 4 ``BLOCK`` rows (there the calls per block weigh more: 0.16 s
    against 0.22 s for nDCG at 10⁷ rows)."""
    n, dt = len(k), k.dtype.type
    top = (1 << (8 * k.dtype.itemsize)) - 1
    step = _sorted_rows.BLOCK if n < 1 << 22 else 4 * _sorted_rows.BLOCK  # read at each call
    a = 0
    while a < n:
        b = min(n, a + step)
        if b < n:  # to the end of the run holding row b − 1
            nxt = ((int(k[b - 1]) >> lb) + 1) << lb
            b = n if nxt > top else int(np.searchsorted(k, dt(nxt)))
        yield a, b
        a = b


def _key_blocks(k: np.ndarray, lb: int, ub: int
                ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """Walk sorted compact keys (:func:`_cell_keys`; per-row value in the low ``lb`` bits, the
    score level in the ``ub`` bits above) in blocks of about ``BLOCK`` rows cut at tie-group
    boundaries (:func:`_runs_blocks`): yield ``(a, kb, end, q)`` — the block's first row, its
    keys, the last row of each of its tie groups (relative to ``a``) and the group's query
    code. The temporaries stay small: arrays of the input's size, fresh at each call, cost
    page faults that at 10⁵–10⁶ rows weigh as much as the arithmetic (blocks of 2^16 rows take
    about twice the time of 2^14 at 10⁵ rows, for that reason)."""
    dt = k.dtype.type
    for a, b in _runs_blocks(k, lb):
        kb = k[a:b]
        tk = kb >> dt(lb)
        end = np.flatnonzero(tk[1:] != tk[:-1])
        end = np.append(end, b - a - 1)
        yield a, kb, end, (kb.take(end) >> dt(lb + ub)).astype(np.intp)


def sorted_label_stats(rows: SortedRows, *, auc: bool = True, ap: bool = False
                       ) -> dict[str, np.ndarray] | None:
    """:func:`ranking_stats` (K = 1, no weights) of the binary label carried as the one low bit
    of a descending :class:`SortedRows`, by rows (:func:`_walk_label_stats`). None from 2^31
    rows: the caller takes :func:`ranking_stats`."""
    if not rows.descending or rows.lb != 1:
        raise ValueError("sorted_label_stats: a descending SortedRows carrying one label bit.")
    if rows.n >= 1 << 31:
        return None
    return _walk_label_stats(rows.keys, rows.b, rows.shift, 64 - rows.c if rows.c else None,
                             rows.n_codes, rows.split, auc=auc, ap=ap)


def _walk_label_stats(keys: np.ndarray, lab_sh: int, tie_sh: int, q_sh: int | None, G: int,
                      split: np.ndarray, *, auc: bool, ap: bool) -> dict[str, np.ndarray]:
    """:func:`ranking_stats` (K = 1, no weights) from sorted keys (uint64 or uint32, fewer than
    2^31) that carry a binary label at bit ``lab_sh``, whose tie groups are the runs of equal
    ``key >> tie_sh`` (cut further at the positions ``split``: distinct scores in one bucket),
    the query code in the bits from ``q_sh`` up (None: one query), scores descending. By rows
    rather than by tie groups: with ``c_i`` the positives of sorted rows 0..i (a cumulative
    sum), ``a_q`` those before query q, ``r_q`` its first row, and ``S_q``, ``P_q``, ``n_q``
    the sum of ``c_i``, the positives and the rows of query q, ``Σ_{negative i ∈ q} (c_i −
    a_q) = S_q − n_q a_q − P_q (P_q + 1) / 2`` (the positives of q hold ``c = a_q + 1 …
    a_q + P_q``): the AUC numerator of :func:`auc_terms` when no two rows of q tie. A tie
    group t (P_t positives, N_t negatives; its negatives sort first) adds ``½ N_t P_t``,
    computed only where rows tie. AP: each positive's precision ``(c_i − a_q) / (i + 1 −
    r_q)``, or for a tie group its threshold's ``(B_t − a_q) / (e_t + 1 − r_q)`` (its last
    row e_t, ``B_t = c_{e_t}``; :func:`ap_terms`). Per-row passes over blocks cut at tie-group
    ends (:func:`_runs_blocks`), all AUC sums in int64 (exact: ``S_q < n² < 2^62``).
    docs/theory.md §2.3, §2.5 (AUC and gAUC, ties ½), §8.5 (AP, a tie group one threshold)."""
    dt = keys.dtype.type
    lsh, sh = dt(lab_sh), dt(tie_sh)
    qsh = None if q_sh is None else dt(q_sh)
    tot = np.zeros((3, G), dtype=np.int64)  # S, P, rows per query
    ties = np.zeros(G, dtype=np.int64)  # Σ_t N_t P_t
    num_ap = np.zeros(G)
    base, q_prev, a_prev, r_prev = 0, -1, 0, 0  # the open query: code, a_q, r_q
    for a, b in _runs_blocks(keys, tie_sh):
        kb = keys[a:b]
        lab = kb >> lsh if lab_sh else kb.copy()
        lab &= dt(1)
        c = np.cumsum(lab, dtype=np.int64)
        c += base
        if qsh is not None:
            qk = kb >> qsh
            st = np.flatnonzero(qk[1:] != qk[:-1])
            st += 1
            st = np.concatenate([[0], st])
            cols = qk.take(st).astype(np.intp)
            tot[0, cols] += np.add.reduceat(c, st)
            tot[1, cols] += np.add.reduceat(lab, st, dtype=np.int64)
            tot[2, cols] += np.diff(st, append=b - a)
        else:
            st, cols = np.zeros(1, dtype=np.intp), np.zeros(1, dtype=np.intp)
            tot[0, 0] += int(c.sum())
            tot[1, 0] += int(c[-1]) - base
            tot[2, 0] += b - a
        queries = None
        if ap:  # a_q and r_q of each query of the block (the first may have begun before)
            A0 = c.take(st) - lab.take(st).astype(np.int64)
            R0 = st + a
            if cols[0] == q_prev:
                A0[0], R0[0] = a_prev, r_prev
            q_prev, a_prev, r_prev = int(cols[-1]), int(A0[-1]), int(R0[-1])
            pos = np.flatnonzero(lab)
            seg = np.searchsorted(st, pos, side="right") - 1  # each positive's query
            t = (c.take(pos) - A0.take(seg)) / (pos + a + 1 - R0.take(seg))
            num_ap[cols] += np.bincount(seg, t, minlength=len(st))
            queries = (st, cols, A0, R0)
        tg = kb >> sh
        cont = tg[1:] == tg[:-1]  # row i + 1 continues the tie group of row i
        i, j = np.searchsorted(split, [a + 1, b])
        if i < j:
            cont[split[i:j] - a - 1] = False  # a distinct score in the same bucket
        if cont.any():
            _tied_groups(np.flatnonzero(cont) + 1, c, lab, kb, qsh, a, ties, num_ap, queries)
        base = int(c[-1])
    P, n = tot[1], tot[2]
    out = {"P": P.astype(np.float64)[None], "N": (n - P).astype(np.float64)[None]}
    if auc:
        a_q = np.cumsum(P) - P
        X = tot[0] - n * a_q
        X *= 2
        X -= P * (P + 1)
        X += ties
        out["U"] = 0.5 * X.astype(np.float64)[None]
    if ap:
        out["A"] = num_ap[None]
    return out


def _tied_groups(cont: np.ndarray, c: np.ndarray, lab: np.ndarray, kb: np.ndarray,
                 qsh: np.unsignedinteger | None, a: int, ties: np.ndarray, num_ap: np.ndarray,
                 queries: tuple[np.ndarray, ...] | None) -> None:
    """The tie groups of :func:`_walk_label_stats` in one block, from the rows ``cont`` that
    continue the group of the row before (relative to the block's first row ``a``): each run
    of them and the row before is a group ``f..e``; ``N_t P_t`` added to ``ties`` at its query
    (``qsh``: the keys' query shift; None: one query), and with ``queries`` (the block's query
    starts, codes, ``a_q`` and ``r_q``) the AP terms of its positives in ``num_ap`` swapped for
    the group's."""
    brk = np.flatnonzero(np.diff(cont) != 1)
    f = np.concatenate([cont[:1], cont[brk + 1]]) - 1  # first row of each group
    e = np.append(cont[brk], cont[-1])  # last row
    B = c.take(e)
    A = c.take(f) - lab.take(f).astype(np.int64)  # positives before the group
    P = B - A
    N = (e - f + 1) - P
    if qsh is None:
        ties[0] += int(np.dot(N, P))
    else:
        np.add.at(ties, (kb.take(f) >> qsh).astype(np.intp), N * P)
    if queries is None:
        return
    st, cols, A0, R0 = queries
    rows = np.concatenate([f, cont])
    rows = rows[lab.take(rows) == 1]
    s_r = np.searchsorted(st, rows, side="right") - 1
    s_g = np.searchsorted(st, f, side="right") - 1
    old = (c.take(rows) - A0.take(s_r)) / (rows + a + 1 - R0.take(s_r))
    new = P * ((B - A0.take(s_g)) / (e + a + 1 - R0.take(s_g)))
    num_ap[cols] += np.bincount(s_g, new, minlength=len(st)) - np.bincount(
        s_r, old, minlength=len(st))

def label_stats(s: np.ndarray, y: np.ndarray, codes: np.ndarray | None = None, G: int = 1,
                w: np.ndarray | None = None, *, auc: bool = True, ap: bool = False
                ) -> dict[str, np.ndarray] | None:
    """:func:`ranking_stats` for one binary label (K = 1) without a sort of the scores, when
    they have few distinct values (:func:`_table_levels`; else None: take the sort). Each row
    adds its weight (a count without ``w``, exact) to its cell (query, score level, label) of
    one ``np.bincount``; the tie groups are the table's non-empty (query, level) pairs, walked
    from the top score: ``P_above`` is a cumulative sum along the levels. A table of more than
    ``TABLE_CELLS · n`` cells is not allocated: without weights its non-empty cells come from
    one sort of compact keys (:func:`_cell_keys`, :func:`_walk_label_stats`), with weights the
    sort of the rows takes over. ``w`` scaled by a power of two (exact). Same formulas (:func:`auc_terms`, :func:`ap_terms`;
    docs/theory.md §2, §8)."""
    rk = _table_levels(s, G, sortable=w is None)
    if rk is None:
        return None
    U = len(rk.values)
    if G * U > TABLE_CELLS * len(s):
        k = _cell_keys(rk, codes, G, y, 1)
        if k is None:
            return None
        q_sh = None if codes is None else 1 + key_bits(U)  # cells: (query, level, label)
        return _walk_label_stats(k, 0, 1, q_sh, G, _NO_SPLIT, auc=auc, ap=ap)
    T = _table(rk, U, codes, G * U * 2, y, 2, w).reshape(G, U, 2)
    N, P = T[..., 0], T[..., 1]
    Pa = _before(P)
    out = {"P": _row_sums(P)[None], "N": _row_sums(N)[None]}
    if auc:
        if w is None:  # 2 N (P_above + ½ P) in integers: exact
            X = 2 * Pa
            X += P
            X *= N
            out["U"] = 0.5 * _row_sums(X)[None]
        else:
            out["U"] = _row_sums(auc_terms(N, P, Pa))[None]
    if ap:
        Na = _before(N)
        Pf, Paf = P.astype(np.float64), Pa.astype(np.float64)
        out["A"] = _row_sums(ap_terms(Pf, Pf + N, Paf, Paf + Na))[None]
    return out


def ndcg_parts(rel: np.ndarray, s: np.ndarray, g: np.ndarray | None, G: int, kk: int,
               exponential: bool, *, top: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """(G,) DCG@kk and ideal DCG@kk of each query (docs/theory.md §10.6), ties averaged
    (:func:`dcg_terms`), for relevance ``rel`` (finite, non-negative float64, or integers or
    booleans, used as they are; gain ``2^rel − 1`` with ``exponential``, else ``rel``) and query
    codes ``g`` (None: one query). Integer grades below 256 ride in the keys as a level (the ideal order is by level, its counts from one
    ``np.bincount``); otherwise a second sort orders the gains. Few distinct scores take the
    table route (no sort): one ``np.bincount`` of (query, score level, grade) cells when that
    table is small enough, else counts and gain sums per (query, score level) from two, and the
    ideal DCG from the counts per (query, gain level). ``top``: ``rel.max()``, or for integer
    grades any bound from above (levels with no rows change nothing), if known."""
    n = len(rel)
    lev, lut = None, None
    top = rel.max() if top is None else top
    if top < 256:
        if rel.dtype.kind in "biu":  # integer grades as given: no copy
            lev = rel.view(np.uint8) if rel.dtype == bool else rel
        else:
            lev8 = rel.astype(np.uint8)
            lev = lev8 if np.array_equal(lev8, rel) else None  # integer grades
        if lev is not None:
            L = int(top) + 1
            lut = np.arange(L, dtype=np.float64)
            lut = np.exp2(lut) - 1.0 if exponential else lut
    if lev is None:
        rel = rel.astype(np.float64, copy=False)  # the gains are floats
    rk = _table_levels(s, G, sortable=lev is not None)
    if rk is not None and lev is not None and G * len(rk.values) > TABLE_CELLS * n:
        k = _cell_keys(rk, g, G, lev, key_bits(L))
        if k is not None and G * kk > n // 4:  # every row counts: one walk of the keys
            return _key_dcg(k, key_bits(len(rk.values)), key_bits(L), lut, G, kk)
        if k is not None:  # the first kk rows of each query (and the grade counts) suffice
            n_q, D, idcg = _grade_ideal_dcg(g, G, lev, lut, kk)
            mask = k.dtype.type((1 << key_bits(L)) - 1)
            dcg = _window_dcg(k, key_bits(L), _NO_SPLIT,
                              lambda x: lut.take((x & mask).astype(np.intp)), n_q, kk, D)
            return dcg, idcg
        rk = None  # past 64 key bits: the sort
    if rk is not None:
        U = len(rk.values)
        if lev is not None and G * U * L <= TABLE_CELLS * n:  # one table: (query, score, grade)
            T = _table(rk, U, g, G * U * L, lev, L).reshape(G, U, L)
            # einsum: numpy's sum over a short axis is several times slower
            counts, C, S = (np.einsum("gul->gl", T), np.einsum("gul->gu", T),
                            np.einsum("gul,l->gu", T, lut))
            del T
            D = discount_sums(kk, int(np.einsum("gl->g", counts).max()))
            idcg = _level_dcg(lut[::-1], counts[:, ::-1], D)
            return _tie_group_dcg(C, S, D), idcg
        gains = lut[lev] if lev is not None else np.exp2(rel) - 1.0 if exponential else rel
        C = _table(rk, U, g, G * U).reshape(G, U)
        S = _table(rk, U, g, G * U, weights=gains).reshape(G, U)
        D = discount_sums(kk, int(_row_sums(C).max()))
        return _tie_group_dcg(C, S, D), _ideal_dcg(gains, lev, lut, g, G, D)
    if lev is not None:
        rows = SortedRows(s, g, G, low=lev, low_bits=max(1, (L - 1).bit_length()),
                          descending=True)
        n_q, D, idcg = _grade_ideal_dcg(g, G, lev, lut, kk)
        dcg = _window_dcg(rows.keys, rows.shift, rows.split,
                          lambda k: lut.take(((k >> _U(rows.b)) & rows.low_mask).view(np.intp)),
                          n_q, kk, D)
        if dcg is None:
            dcg = dcg_per_query(rows, lambda a, b: lut.take(rows.low(a, b).view(np.intp)), D)
        return dcg, idcg
    gains = np.exp2(rel) - 1.0 if exponential else rel
    n_q = np.bincount(g, minlength=G) if g is not None else np.array([n])
    D = discount_sums(kk, int(n_q.max()))
    idcg = _ideal_dcg(gains, None, None, g, G, D)
    rows = SortedRows(s, g, G, descending=True)
    dcg = _window_dcg(rows.keys, rows.shift, rows.split,
                      lambda k: gains.take((k & rows.idx_mask).view(np.intp)), n_q, kk, D)
    if dcg is None:
        dcg = dcg_per_query(rows, lambda a, b: gains[rows.index(a, b)], D)
    return dcg, idcg


def _grade_ideal_dcg(g: np.ndarray | None, G: int, lev: np.ndarray, lut: np.ndarray, kk: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(n_q, D, ideal DCG@kk)`` per query from the counts per (query, integer grade) of one
    ``np.bincount`` of the unsorted rows: the rows of each query, the discount sums
    (:func:`discount_sums`) and the DCG of the grades in descending order."""
    L = len(lut)
    counts = _table(None, 1, g, G * L, lev, L).reshape(G, L)
    n_q = _row_sums(counts).astype(np.int64)
    D = discount_sums(kk, int(n_q.max()))
    return n_q, D, _level_dcg(lut[::-1], counts[:, ::-1], D)


def _window_dcg(keys: np.ndarray, tie_sh: int, split: np.ndarray,
                gain: Callable[[np.ndarray], np.ndarray], n_q: np.ndarray, kk: int,
                D: np.ndarray) -> np.ndarray | None:
    """(G,) DCG@kk from sorted keys (a descending :class:`SortedRows`, or the compact keys of
    :func:`_cell_keys`) whose tie groups are the runs of equal ``key >> tie_sh`` (cut further
    at the positions ``split``), read only in each query's first ``min(kk, n_q)`` sorted rows,
    its *window* (``n_q`` the rows of each query, in code order; ``gain`` the gains of sorted
    keys): a row past the cut-off has no discount (docs/theory.md §10.6). Ties averaged
    (:func:`dcg_terms`): the tie groups are found in the windows (equal query and score bucket,
    no collision split between), and a group that runs on past its window (equal bucket at the
    first row after it) is followed to its end — the end of its bucket's run or the next
    split — for its gain sum and size. None (the caller walks every row) when the windows hold
    more than a quarter of the rows: then the scan costs no more and needs no arrays of the
    windows' size."""
    n, dt = len(keys), keys.dtype.type
    m = np.minimum(n_q, kk)
    W = int(m.sum())
    if W > n // 4:
        return None
    row_q = np.cumsum(n_q) - n_q
    wend = np.cumsum(m)
    off = np.arange(W) - np.repeat(wend - m, m)  # position in the query (0: the top)
    pos = np.repeat(row_q, m) + off  # ascending sorted positions
    kw = keys.take(pos)
    sh = dt(tie_sh)
    tg = kw >> sh
    new = np.empty(W, dtype=bool)
    new[:1] = True
    np.not_equal(tg[1:], tg[:-1], out=new[1:])
    new[off == 0] = True
    if len(split):  # a collision split inside a window starts a group
        k = np.searchsorted(pos, split)
        ok = k < W
        k = k[ok][pos.take(k[ok]) == split[ok]]
        new[k] = True
    starts = np.flatnonzero(new)
    S = np.add.reduceat(gain(kw), starts)
    C = np.diff(starts, append=W)
    # the last group of a full window, when the row after the window continues it
    qf = np.flatnonzero((m < n_q) & (m > 0))
    p = (row_q + m).take(qf)  # the first row after the window
    run = (keys.take(p) >> sh) == (keys.take(p - 1) >> sh)
    if len(split):
        i = np.searchsorted(split, p)
        run &= ~((i < len(split)) & (split.take(np.minimum(i, len(split) - 1)) == p))
    if run.any():
        qf, p = qf[run], p[run]
        nxt = (keys.take(p - 1) >> sh).astype(_U) + _U(1)  # uint32 keys: no wrap at tie_sh 0
        top = nxt >= _U(1 << (8 * keys.dtype.itemsize - tie_sh))  # the last run of the keys
        nxt <<= _U(tie_sh)
        nxt[top] = 0
        end = np.searchsorted(keys, nxt.astype(dt)).astype(np.int64)
        end[top] = n
        if len(split):  # a split inside the bucket's run ends the group earlier
            i = np.searchsorted(split, p, side="right")
            sp = np.where(i < len(split), split.take(np.minimum(i, len(split) - 1)), n)
            end = np.minimum(end, sp)
        ln = end - p
        idx = np.repeat(p - (np.cumsum(ln) - ln), ln) + np.arange(int(ln.sum()))
        t = np.searchsorted(starts, wend.take(qf) - 1, side="right") - 1  # the window's last
        S[t] += np.add.reduceat(gain(keys.take(idx)), np.cumsum(ln) - ln)
        C[t] += ln
    above = off.take(starts)
    q = np.repeat(np.arange(len(m)), m).take(starts)
    return np.bincount(q, dcg_terms(S / C, C, above, D), minlength=len(m))


def _key_dcg(k: np.ndarray, ub: int, lb: int, lut: np.ndarray, G: int, kk: int
             ) -> tuple[np.ndarray, np.ndarray]:
    """(G,) DCG@kk and ideal DCG@kk from sorted compact keys carrying the integer grade in the
    low ``lb`` bits (:func:`_cell_keys`; ``lut`` the gain of each grade), in blocks
    (:func:`_key_blocks`): each tie group's items, its gain sum by ``np.add.reduceat`` over the
    group (integer gains in int64: exact) and the items above it from its query's
    first row (a binary search of the keys per query); the counts per (query, grade) for the
    ideal order (:func:`dcg_terms`)."""
    L, n, dt = len(lut), len(k), k.dtype.type
    row_q = np.empty(G + 1, dtype=np.intp)
    row_q[:G] = np.searchsorted(k, np.arange(G, dtype=k.dtype) << dt(lb + ub))
    row_q[G] = n
    D = discount_sums(kk, int(np.diff(row_q).max()))
    exact = np.array_equal(lut, np.round(lut)) and lut.max() * n < 2.0**53
    lut_g = lut.astype(np.int64) if exact else lut
    dcg = np.zeros((1, G))
    per = np.zeros(G * L, dtype=np.int64)
    mask = dt((1 << lb) - 1)
    for a, kb, end, q in _key_blocks(k, lb, ub):
        grade = (kb & mask).astype(np.intp)
        # each tie group's own sum (not differences of a cumulative sum over the block, which
        # lose a small query's gains after large float gains: 2^60 − 1 next to 2^5 − 1)
        gain = np.add.reduceat(lut_g.take(grade[: end[-1] + 1]), np.r_[0, end[:-1] + 1])
        C = np.diff(end, prepend=-1)
        above = (a + 1 - row_q.take(q)) + end
        above -= C
        per_query_add(dcg, q, dcg_terms(gain / C, C, above, D)[None])
        rq = (kb >> dt(lb + ub)).astype(np.intp)
        lo = int(rq[0])
        rq -= lo
        rq *= L
        rq += grade
        per[lo * L : (int(q[-1]) + 1) * L] += np.bincount(rq, minlength=(int(q[-1]) + 1 - lo) * L)
    per = per.reshape(G, L)
    return dcg[0], _level_dcg(lut[::-1], per[:, ::-1], D)


def _ideal_dcg(gains: np.ndarray, lev: np.ndarray | None, lut: np.ndarray | None,
               g: np.ndarray | None, G: int, D: np.ndarray) -> np.ndarray:
    """(G,) ideal DCG: the gains of each query in descending order, ties averaged (tied gains
    are equal: their mean is the gain). From the counts per (query, gain level): the integer
    grades ``lev`` (``lut`` their gains), or the gains' own distinct values when few
    (:func:`_table_levels`); else from a sort of the gains."""
    if lev is not None:
        L = len(lut)
        counts = _table(None, 1, g, G * L, lev, L).reshape(G, L)
        return _level_dcg(lut[::-1], counts[:, ::-1], D)
    rk = _table_levels(gains, G)
    if rk is None:
        ideal = SortedRows(gains, g, G, descending=True)
        return dcg_per_query(ideal, lambda a, b: gains[ideal.index(a, b)], D)
    U = len(rk.values)
    return _level_dcg(rk.values, _table(rk, U, g, G * U).reshape(G, U), D)


def _level_dcg(vals: np.ndarray, counts: np.ndarray, D: np.ndarray) -> np.ndarray:
    """(G,) DCG of queries whose items are ranked by level, from the top: ``counts`` (G, U) items
    of each level, of gain ``vals`` (U,) (the ideal DCG: tied items have one gain)."""
    return _row_sums(dcg_terms(vals[None, :], counts, _before(counts), D))


def _tie_group_dcg(C: np.ndarray, S: np.ndarray, D: np.ndarray) -> np.ndarray:
    """(G,) DCG from the items ``C`` (G, U) and their gain sums ``S`` of each (query, score
    level), levels from the top score: each tie group's mean gain over its positions."""
    mean = np.divide(S, C, out=np.zeros(S.shape), where=C > 0)
    return _row_sums(dcg_terms(mean, C, _before(C), D))


def _before(x: np.ndarray) -> np.ndarray:
    """(G, U) sums of ``x`` over the earlier columns of each row (an exclusive cumulative sum
    along the levels): column by column while the levels are few and the rows many (numpy's
    cumulative sum along a short axis costs several times more), else ``np.cumsum``."""
    if x.shape[1] > 32 or x.shape[0] < 64:
        out = np.cumsum(x, axis=1)
        out -= x
        return out
    out = np.empty_like(x)
    out[:, :1] = 0
    for j in range(1, x.shape[1]):
        np.add(out[:, j - 1], x[:, j - 1], out=out[:, j])
    return out


def _row_sums(x: np.ndarray) -> np.ndarray:
    """(G,) float64 sums of the rows of ``x`` (G, U): einsum (numpy's sum over a short axis is
    several times slower)."""
    return np.einsum("gu->g", x, dtype=np.float64)
