"""The report's per-scorer statistics in one walk of each sort order, a block of rows at a time
(docs/theory.md §2.3, §2.6, §7.5).

:func:`scorer_stats` gives, for one scorer, what :func:`bipartite.diagnostics._placement_sums.label_sums`
(the labels' :class:`~bipartite.diagnostics._placement_sums.PlacementSums`, with their within-query sums)
and :func:`bipartite.diagnostics._pairs.pair_stats` (the label pairs' win rates ``W_{k>j}``,
near-tie rates and DeLong variances) give, with the same formulas on the same sort orders: the
weight rows of the labels and of the label pairs (:func:`bipartite.diagnostics._placement_sums.
label_pair_weights`: ``w y_k``, ``w (1 − y_k)``; ``w y_k (1 − y_j)``, ``w y_j (1 − y_k)``) are
built for a block of sorted rows at a time from the 0/1 labels and the weights gathered into that
block (one ``take`` of a table of the weight rows of each label combination, :func:`weight_table`,
indexed by the rows' label bits), and every sum the placements need is carried from block to
block:

* the **global order** (the scorer's :class:`~bipartite.metrics.QuerySegments` without query
  ids), in blocks cut at tie-group starts: the negative weight below each tie group plus ½ the
  tied (a cumulative sum whose carry enters the block's first element, so the sums are those of
  one cumulative sum over all rows), the positive weight above plus ½ the tied (from the row's
  total, :func:`masses`), the rows' placements times their weights summed per unit at once
  (``below``, ``above``); for the label pairs also the cumulative "j only" weight of every
  row, and the rows' packed labels in score order, kept for the near ties (while they fit in
  :data:`NEAR_CELLS`, else made again in blocks of pairs);
* the **per-query order** (with query ids; :func:`~bipartite.metrics.query_major` makes it from the global order
  by a radix sort of the query codes, O(n), instead of a second comparison sort), in blocks of
  whole queries, its tie groups the runs of one query and one score: the within-query AUC
  numerators of the labels (``within``), with the grouped engine's formulas
  (:meth:`bipartite.metrics.QuerySegments.auc`: every weight row scaled by the same power of
  two, each tie group's positives times the negatives below plus ½ the tied);
* the **near ties** of each pair ``(k, j)``: ``Σ_{i k only} w_i (C_j[hi_i] − C_j[lo_i])`` with
  ``lo``/``hi`` the first score ``≥ s_i − tol`` and the first ``> s_i + tol``
  (:func:`bipartite.dictatorship.near_tie_rate`'s bounds), stepped from each row over its
  next :data:`WINDOW_STEPS` neighbours, the rest searched in the window of sorted scores their
  bounds fall in (the same comparisons, so the same answers as a search of all scores:
  :func:`_window`).

No array of the size of the input is made per weight row besides the near ties' cumulative
sums: the temporaries of a block stay in the cache and are reused, where the whole-array route
(:mod:`bipartite.diagnostics._placement_sums`, kept as the tests' reference and for wide label sets)
allocates and faults in several n-sized arrays per weight row. The scorer-independent sums (the
weight rows' totals and per-unit sums, the rows with weight: :func:`masses`) are made once for
all scorers; when every row weighs the same power of two (no weight column), from one count of
the rows of each (unit, label combination): every such sum is that power times a count, the
same float in any order of summation. :func:`fused` says when this route is taken (at most :data:`FUSED_ROWS` label and
pair rows).

The report takes these sums from the compiled passes of :mod:`bipartite.diagnostics._walk`
(``scorer_stats(compiled=True)``: the same formulas row by row, one packed-key sort per scorer,
docs/theory.md §7.5); the NumPy walks of this module (``compiled=False``) are their reference in
``tests/test_diagnostics_compiled_walk.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from bipartite.diagnostics import _packed
from bipartite.diagnostics._packed import COUNT_CELLS
from bipartite.diagnostics._pairs import PairStats
from bipartite.diagnostics._placement_sums import PlacementSums, side_scales
from bipartite.diagnostics._walk import near_sums, sorted_rows, walk_sums
from bipartite.metrics import (
    QuerySegments,
    auc_terms,
    carried_cumsum,
    query_major,
    segment_below,
    tie_placements,
)

__all__ = ["BLOCK_CELLS", "COMPILED_MIN_ROWS", "COUNT_CELLS", "FUSED_ROWS", "KEEP_BYTES", "MAX_BLOCK_CELLS", "MIN_BLOCK", "NEAR_CELLS", "WINDOW_STEPS",
           "Masses", "compiled_walk", "exact_sums", "fused", "kept", "masses", "pair_result", "scorer_stats", "weight_table",
           "within_result"]

#: Most label + label-pair weight rows of the one-walk route (``K + K(K − 1)/2``: K ≤ 10);
#: wider label sets take the whole-array route, blocked by pairs.
FUSED_ROWS = 64
#: About this many (weight row × row) cells per block (2 MiB per float64 temporary).
BLOCK_CELLS = 1 << 18
#: Most (weight row × row) cells per block when many units ask for long blocks (128 MiB per
#: float64 temporary).
MAX_BLOCK_CELLS = 1 << 24
#: Most cells of the near ties' cumulative sums held at once (256 MiB: one per label pair and
#: row, kept from the walk of the global order while they fit, else made in blocks of pairs).
NEAR_CELLS = 1 << 25
#: Fewest rows for which the report takes the compiled passes (:func:`compiled_walk`).
COMPILED_MIN_ROWS = 1 << 20
#: Fewest rows per block.
MIN_BLOCK = 1 << 12
#: Rows stepped over from each row to its near-tie window's bounds before a binary search
#: (:func:`_window`).
WINDOW_STEPS = 2
#: Most bytes of the label pairs' placement sums kept for the report's bootstrap, all scorers
#: together (:func:`kept`; past it the bootstrap builds them again per chunk of replicates).
KEEP_BYTES = 1 << 28


#: The weights handed to the compiled passes when every row weighs the same (they read the
#: constant from the weight table instead).
_NO_WEIGHTS = np.zeros(0)


def compiled_walk(n: int) -> bool:
    """Whether the report takes the compiled passes (:mod:`bipartite.diagnostics._walk`) for
    ``n`` rows: from :data:`COMPILED_MIN_ROWS` on. Below, the NumPy walks of this module, whose
    first call loads nothing (the compiled passes' first call in a process loads numba and their
    cached machine code: 0.6–0.9 s of CPU, against a saving of about 0.24 µs per row and
    scorer; ``benchmarks/results/report_cpu.md``). The two give the same tables (bit for bit
    when every row weighs the same; within 1e−13 relative with float weights)."""
    return n >= COMPILED_MIN_ROWS


def fused(K: int) -> bool:
    """Whether ``K`` labels (and their ``K(K − 1)/2`` pairs) take the one-walk route."""
    return K + K * (K - 1) // 2 <= FUSED_ROWS


def kept(m: int, U: int, scorers: int) -> bool:
    """Whether the placement sums of ``m`` label pairs over ``U`` units (three (m, U) float64
    tables each) are kept for the bootstrap for all ``scorers`` (:data:`KEEP_BYTES`)."""
    return 0 < m and 3 * 8 * m * U * scorers <= KEEP_BYTES


def _block_rows(m: int, G: int) -> int:
    """Rows per block for ``m`` weight rows and ``G`` units: about :data:`BLOCK_CELLS` cells,
    and at least G rows (each block's per-unit sums cost O(m G)) up to
    :data:`MAX_BLOCK_CELLS` cells."""
    m = max(m, 1)
    return max(MIN_BLOCK, BLOCK_CELLS // m, min(G, MAX_BLOCK_CELLS // m))


def _blocks(starts: np.ndarray, n: int, B: int) -> Iterator[tuple[int, int, int, int]]:
    """``(a, b, i0, i1)``: blocks ``[a, b)`` of about ``B`` sorted positions cut at ``starts``
    (sorted, ``starts[0] = 0``), and the ``starts[i0:i1]`` inside each."""
    want = np.arange(B, n, B)
    i = np.searchsorted(starts, want)
    cuts = np.unique(i[i < len(starts)])
    bounds_i = np.r_[0, cuts, len(starts)]
    bounds = np.r_[starts[bounds_i[:-1]], n]
    for t in range(len(bounds_i) - 1):
        yield int(bounds[t]), int(bounds[t + 1]), int(bounds_i[t]), int(bounds_i[t + 1])


def _per_unit(out: np.ndarray, cq: np.ndarray, X: np.ndarray) -> None:
    """``out[r, g] += Σ_{i: cq_i = g} X[r, i]`` for every row r."""
    G = out.shape[1]
    for r in range(len(out)):
        out[r] += np.bincount(cq, X[r], minlength=G)


def weight_table(K: int, kj: np.ndarray, sp: np.ndarray, sn: np.ndarray) -> np.ndarray:
    """(2m, 2^K) the m weight rows of a row of weight 1 for each combination of its K labels
    (column ``c``: label k positive where bit k of ``c`` is set), the positive sides then the
    negative sides: ``y_k``, then the pairs' ``y_k (1 − y_j) sp``; ``1 − y_k``, then
    ``y_j (1 − y_k) sn`` (:func:`bipartite.diagnostics._placement_sums.weight_rows`'s rows, the
    pairs' scaled by their powers of two). A block's rows are one ``take`` of its rows' label bits
    (:meth:`Masses.block`) times their weights: ``w · 1 = w``, ``w · 0 = 0``, ``w · sp`` as
    ``(w · 1) · sp``, the same floats as the rows built label by label."""
    Y = _packed.combination_bits(K).T == 1  # (K, 2^K)
    Yk, Yj = Y[kj[:, 0]], Y[kj[:, 1]]
    return np.concatenate([Y, (Yk & ~Yj) * sp[K:, None], ~Y, (Yj & ~Yk) * sn[K:, None]]
                          ).astype(np.float64)


@dataclass
class Masses:
    """Scorer-independent sums of the m weight rows (the K labels, then the label pairs ``kj``):
    ``P``, ``N`` (m,) their positive and negative totals, ``Pq``, ``Nq`` (m, G) per unit (None
    with rows as units), ``n_pos``, ``n_neg`` (m,) the rows with weight on each side, and the
    row weights ``w`` (n,), constant ``c`` when every row has that weight (else None); ``lab``
    (n,) the K labels of each row packed in the bits of one integer, with its query code above
    them when the units are queries (one gather a row: :meth:`labels_codes`); ``ep``,
    ``en`` (K,) the binary exponents of the labels' largest positive and negative weights (the
    grouped engine's scales, :meth:`bipartite.metrics.QuerySegments.auc`); ``sp``, ``sn`` (m,)
    the powers of two every weight row is multiplied by (:meth:`block`): 1 for the labels, for a
    label pair's sides :func:`bipartite.diagnostics._placement_sums.side_scales` (as ``label_sums``);
    ``tab`` (2m, 2^K) the rows of each label combination (:func:`weight_table`), times ``c``
    when the weights are constant."""

    K: int
    kj: np.ndarray
    P: np.ndarray
    N: np.ndarray
    Pq: np.ndarray | None
    Nq: np.ndarray | None
    n_pos: np.ndarray
    n_neg: np.ndarray
    w: np.ndarray
    c: float | None
    lab: np.ndarray
    ep: np.ndarray
    en: np.ndarray
    sp: np.ndarray
    sn: np.ndarray
    tab: np.ndarray | None = None

    def __post_init__(self):
        if self.tab is None:
            self.scales(self.sp, self.sn)

    def scales(self, sp: np.ndarray, sn: np.ndarray) -> None:
        """Set the pairs' powers of two ``sp``, ``sn`` (m,) and the table of rows with them."""
        self.sp, self.sn = sp, sn
        tab = weight_table(self.K, self.kj, sp, sn)
        self.tab = tab * self.c if self.c is not None else tab

    def labels_codes(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The packed labels (b,) of the rows ``idx`` (for :meth:`block`) and their query codes
        (b,) intp, from one gather of :attr:`lab` (built with query codes: they ride above the
        label bits)."""
        v = self.lab[idx]
        return v, (v >> self.lab.dtype.type(self.K)).astype(np.intp)

    def block(self, v: np.ndarray, idx: np.ndarray | slice, rows: slice | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
        """The weight rows ``(pos, neg)`` (m, b) of the rows ``idx`` whose packed labels are
        ``v`` (``lab[idx]``, query codes above the label bits ignored): one ``take`` of
        :attr:`tab` (:func:`weight_table`) times the rows' weights. ``rows``: only those weight
        rows (a slice of 0..m−1: the labels ``slice(0, K)``, the pairs ``slice(K, m)``)."""
        m = len(self.sp)
        r = range(m)[rows] if rows is not None else range(m)
        tab = self.tab if rows is None else self.tab[np.r_[r, m + np.asarray(r, dtype=int)]]
        c = v & v.dtype.type((1 << self.K) - 1)
        R = tab.take(c if c.dtype.itemsize < 8 else c.astype(np.intp), axis=1)
        if self.c is None:
            R *= self.w[idx]
        return R[:len(r)], R[len(r):]

    def weights(self, idx: np.ndarray | slice) -> np.ndarray | float:
        """The row weights of the rows ``idx`` (the constant, when they are)."""
        return self.c if self.c is not None else self.w[idx]


def masses(Yt: np.ndarray, w: np.ndarray, kj: np.ndarray, codes: np.ndarray | None,
           G: int | None, *, constant: float | None = None,
           packed: tuple[np.ndarray, np.ndarray | None] | None = None) -> Masses:
    """:class:`Masses` of the labels ``Yt`` (K, n) bool with row weights ``w`` (n,) (scaled by a
    power of two) and the label pairs ``kj`` (p, 2), per query code (``codes``, G queries) or
    with rows as units (``codes`` None), in blocks of input rows. ``constant``: the weight of
    every row, when the caller knows it (else ``w`` is compared with its first entry);
    ``packed``: the rows' codes and their count (:func:`bipartite.diagnostics._packed.packed`
    of ``Yt``, ``codes``), when the caller has them."""
    K, n = Yt.shape
    m = K + len(kj)
    c = constant if constant is not None else (
        float(w[0]) if n and np.all(w == w[0]) else None)
    if packed is None:  # the one packing (query code above the label bits) and its count
        packed = _packed.packed(Yt, codes, G, count=c is not None, compiled=compiled_walk(n))
    lab, cnt = packed
    # the rows of each label (with a count at hand)
    has = None if cnt is None else cnt.sum(axis=0) @ _packed.combination_bits(K)
    ep, en = np.zeros(K, dtype=np.int64), np.zeros(K, dtype=np.int64)
    for k in range(K):
        if c is not None:  # the constant, where the side has a row
            h = has[k] if has is not None else np.count_nonzero(Yt[k])
            ep[k] = np.frexp(c)[1] if h else 0
            en[k] = np.frexp(c)[1] if h < n else 0
        else:
            ep[k] = np.frexp(np.max(w, where=Yt[k], initial=0.0))[1]
            en[k] = np.frexp(np.max(w, where=~Yt[k], initial=0.0))[1]
    out = Masses(K, kj, np.zeros(m), np.zeros(m), None, None, np.zeros(m, dtype=np.int64),
                 np.zeros(m, dtype=np.int64), w, c, lab, ep, en, np.ones(m), np.ones(m))
    units = G if codes is not None else 1
    if exact_sums(out) and cnt is not None and units << K <= COUNT_CELLS:
        _counted(out, G if codes is not None else None, cnt)
        return out
    if codes is not None:
        out.Pq, out.Nq = np.zeros((m, G)), np.zeros((m, G))
    top_p, top_n = np.zeros(m), np.zeros(m)  # the largest weight of each side
    B = _block_rows(m, G or 0)
    for a in range(0, n, B):  # the rows unscaled (sp = sn = 1 until the loop ends)
        b = min(n, a + B)
        pos, neg = out.block(lab[a:b], slice(a, b))
        out.n_pos += np.count_nonzero(pos, axis=1)
        out.n_neg += np.count_nonzero(neg, axis=1)
        np.maximum(top_p, pos.max(axis=1, initial=0.0), out=top_p)
        np.maximum(top_n, neg.max(axis=1, initial=0.0), out=top_n)
        if codes is not None:
            _per_unit(out.Pq, codes[a:b], pos)
            _per_unit(out.Nq, codes[a:b], neg)
    # the pairs' powers of two; a sum of weights does not underflow, so scaling the sums made
    # unscaled is exact (a power of two ≥ 1 times a normal float)
    sp, sn = np.ones(m), np.ones(m)
    sp[K:], sn[K:] = side_scales(top_p[K:]), side_scales(top_n[K:])
    if codes is not None:
        out.Pq *= sp[:, None]
        out.Nq *= sn[:, None]
        out.P, out.N = out.Pq.sum(axis=1), out.Nq.sum(axis=1)
    else:
        out.scales(sp, sn)
        for a in range(0, n, B):  # the totals, summed as the whole-array route sums them
            b = min(n, a + B)
            pos, neg = out.block(lab[a:b], slice(a, b))
            out.P += pos.sum(axis=1)
            out.N += neg.sum(axis=1)
    out.scales(sp, sn)
    return out


def exact_sums(ms: Masses) -> bool:
    """Whether every row weighs the same power of two (``ms.c``): then every sum of row
    weights is that power times a count, exact in any order of summation."""
    return ms.c is not None and ms.c > 0 and np.frexp(ms.c)[0] == 0.5


def _counted(out: Masses, G: int | None, cnt: np.ndarray) -> None:
    """:func:`masses`' sums when every row weighs the same power of two ``c`` (no weight column:
    every row 1, scaled to ½), from one count of the rows of each (unit, label combination)
    (:attr:`Masses.lab`; ``G`` None: rows as units, the totals only). Every sum of the block
    loop is then ``c`` times a count (the partial sums of equal powers of two are exact, in any
    order), so both give the same floats."""
    K, m, c = out.K, len(out.sp), out.c
    T = weight_table(K, out.kj, np.ones(m), np.ones(m))  # (2m, 2^K) 0/1
    rows = (T != 0).astype(np.int64) @ cnt.sum(axis=0)  # the rows on each side (2m,)
    out.n_pos, out.n_neg = rows[:m], rows[m:]
    top = np.where(rows > 0, c, 0.0)  # the largest weight of each side
    sp, sn = np.ones(m), np.ones(m)
    sp[K:], sn[K:] = side_scales(top[K:m]), side_scales(top[m + K:])
    S = (T @ cnt.T.astype(np.float64)) * c  # (2m, units): integer sums (exact), times c
    S[:m] *= sp[:, None]
    S[m:] *= sn[:, None]
    if G is not None:
        out.Pq, out.Nq = S[:m], S[m:]
        out.P, out.N = out.Pq.sum(axis=1), out.Nq.sum(axis=1)
    else:
        out.P, out.N = S[:m, 0], S[m:, 0]
    out.scales(sp, sn)


def _global(seg: QuerySegments, ms: Masses, codes: np.ndarray | None,
            G: int | None, keep: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(below, above, (C, vs))``: the rows' placements times their weights, summed per unit
    (m, G), or per row in input order (m, n) with rows as units; ``C`` (p, n + 1) the pairs'
    cumulative "j only" weight in score order and ``vs`` (n,) the rows' packed labels
    (:attr:`Masses.lab`) in score order, for the near ties without a second gather (``keep``),
    else None."""
    o, starts, n = seg.order, seg.starts, seg.n
    m, K, p = len(ms.P), ms.K, len(ms.kj)
    shape = (m, G) if codes is not None else (m, n)
    below, above = np.zeros(shape), np.zeros(shape)
    C = vs = None
    if keep and p:
        C = np.empty((p, n + 1))
        C[:, 0] = 0.0
        vs = np.empty(n, dtype=ms.lab.dtype)  # the packed labels in score order, for the near ties
    carry, cc = np.zeros((2, m)), np.zeros(p)  # one running sum over all rows, in blocks
    for a, b, i0, i1 in _blocks(starts, n, _block_rows(m, G or 0)):
        idx = o[a:b]
        v, cq = ms.labels_codes(idx) if codes is not None else (ms.lab[idx], None)
        pos, neg = ms.block(v, idx)
        ties = i1 - i0 < b - a
        st = starts[i0:i1] - a
        Gp = np.add.reduceat(pos, st, axis=1) if ties else pos
        Gn = np.add.reduceat(neg, st, axis=1) if ties else neg
        if C is not None:  # the rows' own cumulative sums
            C[:, a + 1:b + 1], cc = carried_cumsum(neg[K:], cc)
            vs[a:b] = v
        Bt, At = tie_placements(Gp, Gn, carry=carry, total=ms.P)
        if ties:
            sizes = np.diff(np.r_[st, b - a])
            Bt, At = np.repeat(Bt, sizes, axis=1), np.repeat(At, sizes, axis=1)
        Bt *= pos
        At *= neg
        if codes is not None:
            _per_unit(below, cq, Bt)
            _per_unit(above, cq, At)
        else:
            below[:, idx], above[:, idx] = Bt, At
    return below, above, (C, vs)


def _within(qorder: np.ndarray, s: np.ndarray, n_rows: np.ndarray, ms: Masses
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(inner, P, N)`` (K, G) of the labels in the per-query order ``qorder``
    (:func:`~bipartite.metrics.query_major`; ``n_rows`` (G,) the rows of each query): each query's AUC times
    ``P_q N_q`` (0 where undefined) and its positive and negative weight, as
    :func:`bipartite.diagnostics._placement_sums.label_sums` takes them from
    :meth:`bipartite.metrics.QuerySegments.auc` (the same power-of-two scales; the tie groups
    are the runs of one query and one score)."""
    K, ep, en, G = ms.K, ms.ep, ms.en, len(n_rows)
    scaled = bool(ep.any() or en.any())  # else every scale is 2⁰
    first = np.r_[0, np.cumsum(n_rows)[:-1]]  # each query's first position in qorder
    num, P, N = np.zeros((K, G)), np.zeros((K, G)), np.zeros((K, G))
    for a, b, q0, q1 in _blocks(first, len(qorder), _block_rows(K, 0)):
        if b == a:
            continue
        idx = qorder[a:b]
        cq = np.repeat(np.arange(q0, q1), n_rows[q0:q1])  # the rows' queries
        sq = s[idx]
        new = np.empty(b - a, dtype=bool)
        new[0] = True
        np.not_equal(sq[1:], sq[:-1], out=new[1:])
        new[1:] |= cq[1:] != cq[:-1]
        st = np.flatnonzero(new)
        pos, neg = ms.block(ms.lab[idx], idx, slice(0, K))
        if scaled:
            pos, neg = np.ldexp(pos, -ep[:, None]), np.ldexp(neg, -en[:, None])
        if len(st) < b - a:  # ties: the tie groups' sums
            Gp, Gn = np.add.reduceat(pos, st, axis=1), np.add.reduceat(neg, st, axis=1)
        else:
            Gp, Gn = pos, neg
        tqb = cq[st]
        qf = np.flatnonzero(np.r_[True, tqb[1:] != tqb[:-1]])
        q = tqb[qf]  # the engine's AUC numerators, within each query (QuerySegments.auc)
        num[:, q] = np.add.reduceat(auc_terms(Gp, Gn, segment_below(Gn, qf)), qf, axis=1)
        P[:, q] = np.add.reduceat(Gp, qf, axis=1)
        N[:, q] = np.add.reduceat(Gn, qf, axis=1)
    return within_result(num, P, N, ep, en)


def within_result(num: np.ndarray, P: np.ndarray, N: np.ndarray, ep: np.ndarray, en: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(inner, P, N)`` (K, G) from the scaled per-query AUC numerators ``num`` and weights
    ``P``, ``N`` (each label's rows times ``2^−ep_k``, ``2^−en_k``): the AUC times the unscaled
    ``P_q N_q`` (0 where undefined), as :meth:`bipartite.metrics.QuerySegments.auc` and
    :func:`bipartite.diagnostics._placement_sums.label_sums` take it (both walks end here)."""
    ok = (P > 0) & (N > 0)
    auc = np.divide(num, P * N, out=np.full(num.shape, np.nan), where=ok)
    P, N = np.ldexp(P, ep[:, None]), np.ldexp(N, en[:, None])
    return np.where(ok, auc * P * N, 0.0), P, N


def _pairs_of(ms: Masses, sl: slice) -> Masses:
    """``ms`` restricted to the label pairs ``sl`` (the near ties read only their rows)."""
    K = ms.K
    keep = np.r_[np.arange(K), K + np.arange(len(ms.kj))[sl]]
    return replace(ms, kj=ms.kj[sl], sp=ms.sp[keep], sn=ms.sn[keep], tab=None)


def _cumsums(seg: QuerySegments, ms: Masses) -> np.ndarray:
    """(p, n + 1) the cumulative "j only" weight of the pairs of ``ms`` in score order (what
    :func:`_global` keeps when it fits in :data:`NEAR_CELLS`), one walk of the order."""
    o, n, p = seg.order, seg.n, len(ms.kj)
    C = np.empty((p, n + 1))
    C[:, 0] = 0.0
    cc, B = np.zeros(p), _block_rows(p, 0)
    for a in range(0, n, B):
        b = min(n, a + B)
        idx = o[a:b]
        C[:, a + 1:b + 1], cc = carried_cumsum(
            ms.block(ms.lab[idx], idx, slice(ms.K, None))[1], cc)
    return C


def _near_ties(seg: QuerySegments, s: np.ndarray, ms: Masses, C: np.ndarray | None,
               tol: float, vs: np.ndarray | None = None) -> np.ndarray:
    """(p,) the numerators ``Σ_{i k only} w_i (C_j[hi_i] − C_j[lo_i])`` of the pairs' near-tie
    rates (module docstring), each block's bounds searched in their window of sorted scores;
    ``C``: the pairs' cumulative "j only" weights (None: made here, in blocks of pairs of at
    most :data:`NEAR_CELLS` cells); ``vs``: the packed labels in score order (None: gathered)."""
    if C is None:
        step = max(1, NEAR_CELLS // (seg.n + 1))
        return np.concatenate([
            _near_ties(seg, s, sub, _cumsums(seg, sub), tol)
            for sub in (_pairs_of(ms, slice(i, i + step)) for i in range(0, len(ms.kj), step))])
    o, n = seg.order, seg.n
    ss = np.sort(s)  # = s[o] value for value (o sorts s; ±0 compare equal), without the gather
    num = np.zeros(len(ms.kj))
    B = _block_rows(len(ms.kj), 0)
    for a in range(0, n, B):
        b = min(n, a + B)
        idx = o[a:b]
        gate, _ = ms.block(ms.lab[idx] if vs is None else vs[a:b], idx, slice(ms.K, None))
        on = np.flatnonzero(gate.any(axis=0))  # the rows "k only" in some pair
        if not len(on):
            continue
        pos = a + on
        key = ss[pos]
        lo, hi = _window(ss, pos, key - tol, key + tol)
        num += np.einsum("pi,pi->p", gate[:, on], C[:, hi] - C[:, lo])
    return num


def _window(ss: np.ndarray, pos: np.ndarray, lo_key: np.ndarray, hi_key: np.ndarray,
            steps: int = WINDOW_STEPS) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)``: for the sorted positions ``pos`` (ascending) of the sorted scores ``ss``,
    the first position of a score ``≥ lo_key`` and the first of a score ``> hi_key``
    (``lo_key ≤ ss[pos] ≤ hi_key``): ``np.searchsorted(ss, lo_key, "left")`` and
    ``np.searchsorted(ss, hi_key, "right")``, the same comparisons. The bounds lie next to
    ``pos`` unless the scores are dense at the tolerance: each is first stepped from ``pos``
    one row at a time, ``steps`` times (a sequential read of the neighbours, where a binary
    search of the block's window of scores costs ~20 scattered reads a row); the rows whose
    bound lies further are searched, in the window of scores their bounds fall in."""
    n = len(ss)
    lo, hi = pos.copy(), pos + 1
    go_lo = np.ones(len(pos), dtype=bool)
    go_hi = go_lo.copy()
    for _ in range(steps):  # ss sorted: once a step fails, every further one would
        j = np.maximum(lo - 1, 0)
        go_lo &= (lo > 0) & (ss[j] >= lo_key)
        lo -= go_lo
        j = np.minimum(hi, n - 1)
        go_hi &= (hi < n) & (ss[j] <= hi_key)
        hi += go_hi
    for far, out, keys, side in ((go_lo, lo, lo_key, "left"), (go_hi, hi, hi_key, "right")):
        if far.any():
            k = keys[far]
            L, R = np.searchsorted(ss, k[[0, -1]], side=side)
            out[far] = np.searchsorted(ss[L:R], k, side=side) + L
    return lo, hi


def scorer_stats(s: np.ndarray, seg: QuerySegments | None, qorder: np.ndarray | None, Yt: np.ndarray,
                 ms: Masses, codes: np.ndarray | None, G: int | None, weight: np.ndarray,
                 n_rows: np.ndarray, tol: float | None, *, compiled: bool = True
                 ) -> tuple[PlacementSums, PlacementSums | None, np.ndarray | None]:
    """``(labels, pairs, near_tie)`` of the scores ``s`` (float64, their global ``seg`` and, with
    query codes, per-query ``qorder`` orders, :func:`~bipartite.metrics.query_major`): the labels'
    :class:`PlacementSums` (with ``within`` when ``qorder`` is given), the label pairs' (None without pairs) and the pairs' near-tie rates
    (``tol`` None: not computed); ``weight``, ``n_rows``: the units' row weight and rows.
    ``compiled`` (the report's route): the sums from the compiled passes of
    :mod:`bipartite.diagnostics._walk` (which sort the rows themselves: ``seg`` and ``qorder``
    unused);
    False: from this module's NumPy walks (``_global``, ``_within``, ``_near_ties``: the
    tests' reference, ``tests/test_diagnostics_compiled_walk.py``)."""
    K, p = ms.K, len(ms.kj)
    clustered = codes is not None
    if compiled:  # docs/theory.md §7.5: the same sums from compiled passes (_walk)
        const = ms.c is not None
        order, ss, vv, ww = sorted_rows(s, ms.lab, _NO_WEIGHTS if const else ms.w, const)
        below, above, wsums = walk_sums(ss, vv, ww, const, order, ms.tab, K, ms.P,
                                        G if clustered else None,
                                        n_rows if clustered else None, ms.ep, ms.en)
        # the order is read no more: for one label pair its memory takes the near ties'
        # cumulative sums (no new n-sized array), else it goes now
        scratch = order if tol is not None and p == 1 else None
        del order
    else:
        seg = QuerySegments(s, check_input=False) if seg is None else seg
        if qorder is None and clustered:
            qorder = query_major(seg.order, codes, G)
        keep = tol is not None and p * (len(s) + 1) <= NEAR_CELLS
        below, above, (C, vs) = _global(seg, ms, codes, G, keep)
    if clustered:
        Pq, Nq = ms.Pq, ms.Nq
    else:  # rows as units: the weight rows themselves, in input order
        Pq, Nq = ms.block(ms.lab, slice(None))
    within, P, N = None, Pq[:K], Nq[:K]
    if compiled and clustered:
        within, P, N = within_result(*wsums, ms.ep, ms.en)
    elif qorder is not None:
        within, P, N = _within(qorder, s, n_rows, ms)
    labels = PlacementSums(pos=P, neg=N, below=below[:K], above=above[:K], within=within,
                           weight=weight, n_rows=n_rows, n_pos=ms.n_pos[:K],
                           n_neg=ms.n_neg[:K], clustered=clustered)
    if not p:
        return labels, None, None
    pairs = PlacementSums(pos=Pq[K:], neg=Nq[K:], below=below[K:], above=above[K:],
                          within=None, weight=weight, n_rows=n_rows, n_pos=ms.n_pos[K:],
                          n_neg=ms.n_neg[K:], clustered=clustered)
    near = None
    if tol is not None:
        num = (near_sums(ss, vv, ww, ms.c is not None, ms.tab, K, tol, scratch=scratch)
               if compiled else
               _near_ties(seg, s, ms, C, tol, vs))
        den = ms.P[K:] * ms.N[K:]
        near = np.divide(num, den, out=np.full(p, np.nan), where=den > 0)
    return labels, pairs, near


def pair_result(ps: PlacementSums | None, near: np.ndarray | None, m: int) -> PairStats:
    """The :class:`~bipartite.diagnostics._pairs.PairStats` of ``m`` label pairs from their
    placement sums ``ps`` (``W_{k>j}`` is the pairs' pooled AUC, its DeLong variance theirs) and
    near-tie rates ``near``."""
    if ps is None or not m:
        return PairStats(*(np.full(m, np.nan) for _ in range(3)), np.zeros(m, dtype=np.int64),
                         np.zeros(m, dtype=np.int64))
    return PairStats(win=ps.auc(), var=ps.var(),
                     near_tie=np.full(m, np.nan) if near is None else near,
                     n_k_only=ps.n_pos.astype(np.int64), n_j_only=ps.n_neg.astype(np.int64))
