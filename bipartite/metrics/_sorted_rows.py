"""Rows sorted by (query, score) from one sort of packed keys, and the streaming per-query
ranking metrics built on it: per-query AUC (the gAUC), average precision and DCG
(docs/theory.md §2, §8).

**The sort.** Each row becomes one uint64 key, from the top bit down: the query code
(⌈log2 G⌉ bits), a *bucket* of the score, optional low bits carried along (a binary label, a
relevance level) and the row index (⌈log2 n⌉ bits). The bucket is ``⌊(s − min s) · scale⌋``
(or ``⌊(max s − s) · scale⌋`` for a descending order) in the bits left over: floating-point
subtraction, multiplication and truncation are monotone, so equal scores share a bucket and a
higher score never gets a lower one. One ``np.sort`` of the keys orders the rows by (query,
bucket, carried bits, row). Distinct scores that share a bucket of a query (*collisions*: rare
when the scores spread over the range) are found by comparing the scores of neighbouring rows
of equal bucket, and only their runs are re-sorted by the exact scores (a lexsort of those
rows). The result is exactly the order of ``np.lexsort((row, carried, ±score, query))``;
rows of one (query, score) are a *tie group*.

**The scan.** The metrics are sums over tie groups of per-row values (a label's weight, a
gain, a count) and of the same sums over the earlier tie groups of the query. The sorted keys
are walked in blocks of ``BLOCK`` rows with the open tie group and the query's running sums
carried across blocks (:meth:`SortedRows.scan`): no array of the size of the input besides the
keys, and the per-row values are read from the keys' carried bits (labels, levels) or gathered
one block at a time (weights).

**The table route** of few distinct scores, and the walks of sorted keys that carry the
label or grade: ``bipartite/metrics/_cell_counts.py``.

**Temporaries.** Every pass works on chunks or blocks of at most a few 10⁴ rows: on the
virtual machine measured (benchmarks/bench_ranking_metrics.py) a fresh array of the input's
size costs page faults (about 2 µs per 4 KiB page) that, at 10⁵–10⁶ rows, weigh as much as a
sort of two-valued scores.

The module is private to ``bipartite.metrics``; its public names carry no underscore only so
that the package's modules may import them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

__all__ = ["BELOW_OFFSET_RATIO", "BLOCK", "MIN_BLOCKS", "SortedRows", "ap_terms", "auc_terms",
           "block_length", "carried_cumsum", "dcg_per_query", "dcg_terms", "discount_sums", "key_bits",
           "per_query_add", "ranking_stats", "segment_below",
           "tie_placements"]

#: Most rows per block of the streaming loops (their temporaries stay in the L2 cache); a
#: smaller input is walked in about ``MIN_BLOCKS`` blocks (temporaries a fraction of it).
BLOCK = 1 << 14
MIN_BLOCKS = 16


def block_length(n: int) -> int:
    """Rows per block for n rows: ``BLOCK``, or n / ``MIN_BLOCKS`` (at least 2^11) below."""
    return max(1, min(BLOCK, max(1 << 11, -(-n // MIN_BLOCKS))))
_U = np.uint64


def key_bits(m: int) -> int:
    """Bits needed for the values 0..m−1."""
    return max(0, int(m) - 1).bit_length()


class SortedRows:
    """Rows in (query, score) order from one sort of packed uint64 keys (module docstring).

    Parameters
    ----------
    s : ndarray (n,), finite float64
    codes : ndarray (n,) of int codes in [0, n_codes), or None (one query)
    n_codes : int
    low : ndarray (n,) of non-negative ints below 2**low_bits, or None — carried in the keys
        between the score and the row index (rows of one tie group are ordered by it)
    low_bits : int
    descending : bool — scores descending within each query (queries always ascending)

    Sizes are limited by the 64 key bits: ``⌈log2 n⌉ + ⌈log2 n_codes⌉ + low_bits ≤ 63``
    (checked before allocating); the fewer bits are left for the bucket, the more rows share
    one and are re-sorted exactly.
    """

    #: Most bits of the score bucket (2^53 − 1 is exact in float64; fewer only force collisions).
    max_bucket_bits = 53

    def __init__(self, s: np.ndarray, codes: np.ndarray | None = None, n_codes: int = 1,
                 low: np.ndarray | None = None, low_bits: int = 0, *, descending: bool = False):
        n = len(s)
        self.n, self.s, self.descending = n, s, descending
        self.n_codes = int(n_codes) if codes is not None else 1
        self.b = max(1, key_bits(n))
        self.c = key_bits(self.n_codes) if codes is not None else 0
        self.lb = int(low_bits) if low is not None else 0
        used = self.b + self.c + self.lb
        if used > 63:
            raise ValueError(f"Too many rows and queries for one sort of 64-bit keys: n = {n}, "
                             f"{self.n_codes} queries and {self.lb} carried bits need {used} > 63 "
                             f"bits.")
        self.h = min(64 - used, self.max_bucket_bits)  # bucket bits
        self.shift = self.lb + self.b           # key >> shift: (query, bucket)
        self.idx_mask = _U((1 << self.b) - 1)
        self.low_mask = _U((1 << self.lb) - 1)
        self.keys = self._build(s, codes, low)
        self.keys.sort()
        self.split = self._fix_collisions()

    # -- construction ---------------------------------------------------------------------------
    def _scale(self, s: np.ndarray) -> tuple[float, float, float]:
        """(origin, factor, halve): bucket = ⌊(±(s − origin)) · halve · factor⌋, clipped."""
        lo, hi = float(s.min()), float(s.max())
        top = float(2**self.h - 1)
        halve = 1.0 if np.isfinite(hi - lo) else 0.5  # a span past the float range: halve first
        span = hi * halve - lo * halve
        factor = min(top / span, 2.0**1000) if span > 0 else 0.0
        return (hi if self.descending else lo), factor, halve

    def _build(self, s: np.ndarray, codes: np.ndarray | None, low: np.ndarray | None) -> np.ndarray:
        n = self.n
        keys = np.empty(n, dtype=_U)
        origin, factor, halve = self._scale(s)
        top = float(2**self.h - 1)
        B = block_length(n)
        t = np.empty(min(n, B))
        u = np.empty(len(t), dtype=_U)
        sh, cs = _U(self.shift), _U(64 - self.c)
        for a in range(0, n, B):
            b = min(n, a + B)
            tt, uu, o = t[: b - a], u[: b - a], keys[a:b]
            if halve == 1.0:
                np.subtract(s[a:b], origin, out=tt)
            else:
                np.multiply(s[a:b], halve, out=tt)
                tt -= origin * halve
            if self.descending:
                np.negative(tt, out=tt)
            tt *= factor
            np.minimum(tt, top, out=tt)
            np.copyto(o, tt, casting="unsafe")   # truncation: monotone
            o <<= sh
            if self.c:
                np.copyto(uu, codes[a:b], casting="unsafe")
                uu <<= cs
                o |= uu
            if self.lb:
                np.copyto(uu, low[a:b], casting="unsafe")
                uu <<= _U(self.b)
                o |= uu
            o |= np.arange(a, b, dtype=_U)
        return keys

    def _fix_collisions(self) -> np.ndarray:
        """Re-sort, by the exact scores, the runs of equal (query, bucket) that hold distinct
        scores; return the positions inside those runs where a new tie group starts."""
        bad = []
        B = block_length(self.n)
        for a in range(1, self.n, B):
            b = min(self.n, a + B)
            hb = self.keys[a - 1 : b] >> _U(self.shift)
            eq = np.flatnonzero(hb[1:] == hb[:-1])
            if len(eq) == 0:
                continue
            ib = self.keys[a - 1 : b] & self.idx_mask
            if len(eq) > len(hb) // 8:
                v = self.s[ib]
                d = eq[v[eq + 1] != v[eq]]
            else:
                d = eq[self.s[ib[eq + 1]] != self.s[ib[eq]]]
            if len(d):
                bad.append(d + a)
        if not bad:
            return np.zeros(0, dtype=np.int64)
        sh = _U(self.shift)
        runs = np.unique(self.keys[np.concatenate(bad)] >> sh)
        lo = np.searchsorted(self.keys, runs << sh, "left")
        hi = np.searchsorted(self.keys, (runs << sh) | _U((1 << self.shift) - 1), "right")
        ln = hi - lo
        pos = np.repeat(lo - (np.cumsum(ln) - ln), ln) + np.arange(ln.sum())
        sub = self.keys[pos]
        sv = self.s[(sub & self.idx_mask).astype(np.intp)]
        perm = np.lexsort((sub, -sv if self.descending else sv, sub >> sh))
        sub, sv = sub[perm], sv[perm]
        self.keys[pos] = sub
        hbs = sub >> sh
        cut = (hbs[1:] == hbs[:-1]) & (sv[1:] != sv[:-1])
        return pos[1:][cut]

    # -- reading the sorted rows ----------------------------------------------------------------
    def index(self, a: int, b: int) -> np.ndarray:
        """Input row index of the sorted positions a..b−1."""
        return (self.keys[a:b] & self.idx_mask).astype(np.intp)

    def low(self, a: int, b: int) -> np.ndarray:
        """Carried bits of the sorted positions a..b−1 (uint64)."""
        v = self.keys[a:b] >> _U(self.b)
        v &= self.low_mask
        return v

    def query(self, pos: np.ndarray | slice) -> np.ndarray:
        """Query code of the sorted positions ``pos``."""
        if not self.c:
            return np.zeros(len(self.keys[pos]), dtype=np.intp)
        return (self.keys[pos] >> _U(64 - self.c)).astype(np.intp)

    def new_group(self, a: int, b: int) -> np.ndarray:
        """(b − a,) bool: whether each sorted position a..b−1 starts a tie group."""
        new = np.empty(b - a, dtype=bool)
        sh = _U(self.shift)
        if a == 0:
            new[0] = True
            np.not_equal(self.keys[1:b] >> sh, self.keys[: b - 1] >> sh, out=new[1:])
        else:
            np.not_equal(self.keys[a:b] >> sh, self.keys[a - 1 : b - 1] >> sh, out=new)
        i, j = np.searchsorted(self.split, [a, b])
        new[self.split[i:j] - a] = True
        return new

    def order(self) -> np.ndarray:
        """(n,) the input rows in sorted order."""
        return self.index(0, self.n)

    def tie_starts(self) -> np.ndarray:
        """(T,) sorted position of each tie group's first row."""
        B = block_length(self.n)
        return np.concatenate([np.flatnonzero(self.new_group(a, min(self.n, a + B))) + a
                               for a in range(0, self.n, B)])

    # -- the scan -------------------------------------------------------------------------------
    def scan(self, values: Callable[[int, int], np.ndarray], m: int, m_earlier: int | None = None,
             *, counts: bool = False) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Walk the tie groups in sorted order, a block at a time: yield ``(q, S, E)`` for the
        tie groups completed in the block, with ``q`` (T_b,) their query codes, ``S`` (m, T_b)
        the sums over each group of the per-row values ``values(a, b)`` (m, b − a) of the
        sorted positions a..b−1, and ``E`` (m, T_b) the sums over the earlier tie groups of the
        same query (below in an ascending order, above in a descending one), for the first
        ``m_earlier`` rows only (default all). The values keep their dtype: integer counts are
        summed exactly, and faster (a float cumulative sum is many times slower than an integer
        one); ``counts``: the first ``m_earlier`` rows hold integers, cumulated as int64."""
        me = m if m_earlier is None else m_earlier
        open_s, open_q = None, -1
        run, run_q = None, -1
        B = block_length(self.n)
        for a in range(0, self.n, B):
            b = min(self.n, a + B)
            new = self.new_group(a, b)
            V = np.asarray(values(a, b)).reshape(m, b - a)
            if new.all():  # no ties in the block
                cont, S, q = False, V, self.query(slice(a, b))
            else:
                st = np.flatnonzero(new)
                cont = len(st) == 0 or st[0] != 0
                starts = np.concatenate([[0], st]) if cont else st
                S, q = np.add.reduceat(V, starts, axis=1), self.query(starts + a)
            if open_s is not None:
                if cont:
                    S[:, 0] += open_s
                else:
                    S, q = np.concatenate([open_s[:, None], S], axis=1), np.r_[open_q, q]
            last = b == self.n
            if not last:
                open_s, open_q = S[:, -1].copy(), q[-1]
                S, q = S[:, :-1], q[:-1]
            if not S.shape[1]:
                continue
            if run is None:
                run = np.zeros(me, dtype=np.int64 if counts else S.dtype)
            E, run, run_q = _earlier(S[:me].astype(np.int64) if counts else S[:me], q, run, run_q)
            yield q, S, E


#: A segment whose running-sum offset exceeds this multiple of its own mass (per row) has its
#: lower sums recomputed alone by :func:`segment_below`: the subtraction of the offset costs
#: about ``2**-53 · offset`` of absolute accuracy, i.e. at most ``2**20 · 2**-53 ≈ 1e-10`` of the
#: segment's own mass below this ratio.
BELOW_OFFSET_RATIO = 2.0 ** 20


def segment_below(G: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Sums of ``G`` (m, T) over the strictly lower entries of the same segment (a query's tie
    groups), the segments starting at the ascending indices ``first`` (``first[0] == 0``).

    Integer ``G`` (counts) is summed in integers, exactly. Otherwise float64: one running sum
    over all segments, shifted by one (not ``cumsum − G``, which loses a light
    entry after a heavy one), minus each segment's starting offset. Subtracting the offset is
    exact unless it dwarfs the segment: a light query after heavy ones (weights 1e17 in one
    query, 1 in the next) would keep nothing of its own sums. Where the offset exceeds
    :data:`BELOW_OFFSET_RATIO` times the segment's mass, that row of that segment is summed
    alone instead.

    >>> segment_below(np.array([[1e17, 1e17, 1.0, 2.0]]), np.array([0, 2])).tolist()
    [[0.0, 1e+17, 0.0, 1.0]]
    """
    G = np.asarray(G)
    if G.dtype.kind not in "iu":
        G = G.astype(np.float64, copy=False)
    B = np.zeros_like(G)
    if G.shape[-1] > 1:
        np.cumsum(G[:, :-1], axis=1, out=B[:, 1:])
    if len(first) > 1:
        off = B[:, first]  # the running sum before each segment
        lens = np.diff(np.r_[first, G.shape[-1]])
        B -= np.repeat(off, lens, axis=1)
        if G.dtype.kind in "iu":  # integer counts: exact
            return B
        mass = np.add.reduceat(np.abs(G), first, axis=1)
        for r, q in np.argwhere((np.abs(off) > BELOW_OFFSET_RATIO * mass) & (mass > 0)):
            a = first[q]
            b = a + lens[q]
            B[r, a] = 0.0
            np.cumsum(G[r, a:b - 1], out=B[r, a + 1:b])
    return B


def carried_cumsum(X: np.ndarray, carry: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative sums along the rows of ``X`` (m, b) after ``carry`` (m,): the sums of one
    running sum over the blocks before and this one; and the new carry. The carry is entered
    into ``X``'s first column for the sum, then put back (no copy of ``X``). The one home of the
    block-wise running sum (:func:`tie_placements`, the report's one walk)."""
    if not X.shape[1]:
        return np.cumsum(X, axis=1), carry
    first = X[:, 0].copy()
    X[:, 0] += carry
    out = np.cumsum(X, axis=1)
    X[:, 0] = first
    return out, out[:, -1].copy()


def tie_placements(Gp: np.ndarray, Gn: np.ndarray, first: np.ndarray | None = None, *,
                   carry: np.ndarray | None = None, total: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's placements of tie groups (docs/theory.md §2.3), the one home of the step.

    For tie groups in ascending score order with positive and negative masses ``Gp``, ``Gn``
    (m, T): ``below`` (m, T), the negative mass of the earlier groups of the same segment plus
    ½ the group's own, and ``above`` (m, T), the positive mass of the later groups plus ½ its
    own. ``Σ_t Gp_t below_t`` over a segment is its AUC numerator (``= Σ_t Gn_t above_t``).

    ``first``: the ascending starts of the segments (the queries' first tie groups,
    ``first[0] == 0``); both sums are :func:`segment_below`'s (``above`` on the reversed order),
    so a light query next to heavy ones keeps its digits. None: one segment (the global order),
    possibly walked in blocks: ``carry`` (2, m), the negative and positive mass of the groups
    before these, entered into one running sum and updated in place to include these groups
    (the sums of one running sum over all blocks; ``Gp``, ``Gn`` must be writable: the carry
    enters their first column for the sum and is taken out again); ``total`` (m,), the positive mass of the
    whole segment (default: these groups' plus the carry's). Then ``below`` is the running
    negative mass less ½ the group's, ``above`` the total less the running positive mass plus
    ½ the group's.

    >>> b, a = tie_placements(np.array([[1.0, 0.0, 2.0]]), np.array([[0.0, 4.0, 1.0]]))
    >>> b.tolist(), a.tolist()
    ([[0.0, 2.0, 4.5]], [[2.5, 2.0, 1.0]])
    """
    if first is not None:
        below = segment_below(Gn, first)
        below += 0.5 * Gn
        T = Gp.shape[-1]
        above = segment_below(Gp[:, ::-1], T - np.r_[first[1:], T][::-1])[:, ::-1]
        above += 0.5 * Gp
        return below, above
    sums = []
    for r, X in enumerate((Gn, Gp)):  # running sums, each after its carry
        if carry is None:
            sums.append(np.cumsum(X, axis=1))
            continue
        C, carry[r] = carried_cumsum(X, carry[r])
        sums.append(C)
    below, above = sums
    below -= 0.5 * Gn
    if total is None:
        total = above[:, -1:] if above.shape[1] else np.zeros((len(above), 1))
    else:
        total = np.asarray(total)[:, None]
    np.subtract(total, above, out=above)
    above += 0.5 * Gp
    return below, above


def _earlier(S: np.ndarray, q: np.ndarray, run: np.ndarray, run_q: int
             ) -> tuple[np.ndarray, np.ndarray, int]:
    """Sums of the rows ``S`` (r, T) over the earlier tie groups of the same query
    (:func:`bipartite.metrics._grouped.segment_below`; ``run`` is added to a first query that
    continues ``run_q``); the new carry."""
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    E = segment_below(S, starts)
    if q[0] == run_q:
        E[:, : starts[1] if len(starts) > 1 else len(q)] += run[:, None]
    carry = E[:, -1] + S[:, -1]
    return E, carry, int(q[-1])


def per_query_add(out: np.ndarray, q: np.ndarray, X: np.ndarray) -> None:
    """``out[:, g] += Σ_{t: q_t = g} X[:, t]`` for query codes ``q`` in non-decreasing order."""
    first = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    out[:, q[first]] += np.add.reduceat(X, first, axis=1)


# -- the formulas (one home: the grouped engine's array methods use them too) -------------------
def auc_terms(X: np.ndarray, Y: np.ndarray, Y_before: np.ndarray) -> np.ndarray:
    """``X_t (Y_before,t + ½ Y_t)``: the pairs (x, y) won by the x side in tie group t, ties ½,
    when the groups are walked from the side that x beats (ascending: X = positives, Y =
    negatives below; descending: X = negatives, Y = positives above). Summed over a query and
    divided by ``P N``, the AUC (docs/theory.md §2)."""
    return X * (Y_before + 0.5 * Y)


def ap_terms(P: np.ndarray, W: np.ndarray, P_above: np.ndarray, W_above: np.ndarray
             ) -> np.ndarray:
    """``P_t · precision_t`` with precision at the threshold of tie group t = the positive over
    the total weight scored at or above it (sklearn's ``average_precision_score``: a tie group is
    one threshold). Summed over a query and divided by its positive weight, the AP
    (docs/theory.md §8)."""
    at = W_above + W
    return P * np.divide(P_above + P, at, out=np.zeros_like(at), where=at > 0)


def discount_sums(kk: int, size: int) -> np.ndarray:
    """``D[p] = Σ_{r < min(p, kk)} 1 / log2(r + 2)`` for p = 0..size: the DCG discounts of the
    first p positions with cut-off kk."""
    m = min(kk, size)
    D = np.empty(size + 1)
    D[0] = 0.0
    np.cumsum(1.0 / np.log2(np.arange(m) + 2.0), out=D[1 : m + 1])
    D[m + 1 :] = D[m]
    return D


def dcg_terms(mean_gain: np.ndarray, count: np.ndarray, count_above: np.ndarray, D: np.ndarray
              ) -> np.ndarray:
    """Tie group t's DCG: its mean gain times the discounts of the positions it occupies
    (``count_above`` ... ``count_above + count − 1``, from 0 at the top; ``D`` from
    :func:`discount_sums`), as sklearn's ``ndcg_score`` (``ignore_ties=False``: tied items share
    their mean gain)."""
    ca = np.asarray(count_above, dtype=np.intp)  # no copy of intp counts
    hi = ca + np.asarray(count, dtype=np.intp)
    return mean_gain * (D.take(hi) - D.take(ca))


# -- the streaming statistics --------------------------------------------------------------------
def ranking_stats(rows: SortedRows, values: Callable[[int, int], np.ndarray], K: int = 1, *,
                  auc: bool = True, ap: bool = False) -> dict[str, np.ndarray]:
    """Per query and label, from a descending :class:`SortedRows` and the per-row positive and
    negative weights ``values(a, b)`` (2K, b − a) of the sorted positions a..b−1 (the K positive
    rows, then the K negative rows): ``"P"``, ``"N"`` — the positive and negative weight —,
    with ``auc`` ``"U"``, the AUC numerator ``Σ_t N_t (P_above + ½ P_t)`` (:func:`auc_terms`),
    and with ``ap`` ``"A"``, the AP numerator ``Σ_t P_t precision_t`` (:func:`ap_terms`). Each
    (K, G)."""
    if not rows.descending:
        raise ValueError("ranking_stats walks the scores from the top: descending=True.")
    groups = rows.scan(values, 2 * K, 2 * K if ap else K)
    return _group_stats(groups, K, rows.n_codes, auc=auc, ap=ap)


def _group_stats(groups: Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]], K: int, G: int,
                 *, auc: bool, ap: bool) -> dict[str, np.ndarray]:
    """:func:`ranking_stats` from the tie groups ``(q, S, E)`` of :meth:`SortedRows.scan`,
    walked from the top score."""
    names = ["P", "N"] + ["U"] * auc + ["A"] * ap
    out = np.zeros((len(names), K, G))
    for q, S, E in groups:
        X = np.empty((len(names), K, S.shape[1]))
        X[:2] = S.reshape(2, K, -1)
        P, N, Pa, Na = X[0], X[1], E[:K], E[K:]
        if auc:
            X[2] = auc_terms(N, P, Pa)
        if ap:
            X[-1] = ap_terms(P, P + N, Pa, Pa + Na)
        per_query_add(out.reshape(-1, G), q, X.reshape(-1, S.shape[1]))
    return dict(zip(names, out, strict=True))


def dcg_per_query(rows: SortedRows, gains: Callable[[int, int], np.ndarray], D: np.ndarray
                  ) -> np.ndarray:
    """(G,) DCG of each query from a descending :class:`SortedRows` and the per-row gains
    ``gains(a, b)`` of sorted positions, ties averaged (:func:`dcg_terms`)."""
    if not rows.descending:
        raise ValueError("dcg_per_query walks the scores from the top: descending=True.")

    def values(a: int, b: int) -> np.ndarray:
        v = np.ones((2, b - a))
        v[1] = gains(a, b)
        return v

    return _group_dcg(rows.scan(values, 2, 1, counts=True), rows.n_codes, D)


def _group_dcg(groups: Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]], G: int,
               D: np.ndarray) -> np.ndarray:
    """:func:`dcg_per_query` from the tie groups ``(q, S, E)``: ``S`` (2, T) the items and
    their gain sums, ``E`` (1, T) the items above (int64), walked from the top score."""
    out = np.zeros((1, G))
    for q, S, E in groups:
        per_query_add(out, q, dcg_terms(S[1] / S[0], S[0], E[0], D)[None])
    return out[0]
