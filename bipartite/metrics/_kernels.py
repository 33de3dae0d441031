"""The two private AUC kernels behind every AUC in :mod:`bipartite.metrics` (docs/theory.md §2.2):
the coded sort (unweighted labels) and the sort order with per-tie-group sums (weights,
populations). Per-query statistics are the grouped engine's (``_grouped.py``). The module is private to the ``bipartite.metrics`` package; its entry points
(``__all__``) carry no underscore only so that the package's public module may import them.
See the :mod:`bipartite.metrics` docstring for the algorithms.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import check_binary, check_finite

__all__ = ["auc_from_labels", "auc_from_weights", "below", "binary_labels", "finite_exponent_range", "multipartite_from_levels", "multipartite_from_weights", "pow2_normalise", "ranked_sums", "sort_order"]


# --------------------------------------------------------------------------------------------
# Normalisation: every AUC is a ratio of bilinear forms in the weights, so a power of two that
# brings the largest weight near 1 changes nothing (it is exact) and keeps sums and products of
# weights inside the float64 range (weights of 1e-170 would otherwise underflow to 0 in ΣP·ΣN).
# --------------------------------------------------------------------------------------------
def pow2_normalise(x: np.ndarray, axis: int | None = None) -> np.ndarray:
    """``x · 2^−e`` with ``2^(e−1) ≤ max x < 2^e`` (over ``axis``): exact, and then ``max x ∈ [½, 1)``.
    All-zero rows are left as they are."""
    e = np.frexp(np.max(x, axis=axis, keepdims=axis is not None))[1]
    return np.ldexp(x, -e)


# --------------------------------------------------------------------------------------------
# Kernel 1 (unweighted): one sort of int64 keys that carry the labels in their low bits
# --------------------------------------------------------------------------------------------
#: Length of the blocks of the streaming loops; a block's temporaries stay in the L2 cache.
_BLOCK = 1 << 15
#: Most label bits one coded sort carries (binary labels: one bit each; L levels: ⌈log2 L⌉).
_MAX_BITS = 6
_LOW63 = np.int64(0x7FFF_FFFF_FFFF_FFFF)


def _exponent_range(s: np.ndarray) -> tuple[int, int]:
    """IEEE-754 exponent fields of the smallest non-zero ``|s|`` and of the largest ``|s|``
    (subnormals have field 0; all zero gives (2047, 0)). A non-negative double orders like its
    bit pattern read as an integer; zeros wrap to the largest unsigned value."""
    lo, hi = 1 << 64, 0
    buf = np.empty(min(len(s), _BLOCK))
    ib, ub = buf.view(np.int64), buf.view(np.uint64)
    for a in range(0, len(s), _BLOCK):
        m = min(len(s) - a, _BLOCK)
        np.abs(s[a:a + m], out=buf[:m])
        hi = max(hi, int(ib[:m].max()))
        ib[:m] -= 1
        lo = min(lo, int(ub[:m].min()) + 1)
    return min(lo >> 52, 2047), hi >> 52


def finite_exponent_range(s: np.ndarray) -> tuple[int, int]:
    """:func:`_exponent_range`, refusing NaN and inf (exponent field 2047) by name: the finiteness
    check of the scores folded into the pass that the coded sort makes anyway."""
    e_range = _exponent_range(s)
    if e_range[1] == 2047:
        check_finite(s, "y_score")
    return e_range


def _key_exponent(e_range: tuple[int, int], bits: int) -> int | None:
    """The q for which :func:`_coded_keys` of ``s · 2^q`` are exact with ``bits`` free low bits,
    or None when the non-zero ``|s|`` span too many binades.

    The int64 key of a double (its bit pattern, magnitude bits flipped for negatives) uses 11
    exponent bits. Scaling by ``2^q`` is exact while no non-zero value becomes subnormal, so keys
    with ``bits`` free bits exist iff the exponent fields span at most ``2^(11−bits) − 1`` values:
    nearly any finite scores for one bit (not, e.g., subnormals beside values ≥ 2, or a span of
    more than about 1022 binades: those take the sort-order route), ratios ``max|s| / min|s|``
    below 2^63 for 5 bits."""
    e_min, e_max = e_range
    q_lo = 1 - e_min if e_min > 0 else 0   # smallest non-zero |s| stays normal (subnormals: q ≥ 0)
    q_hi = (1 << (11 - bits)) - 1 - e_max   # largest |s| keeps its key below 2^(63 − bits)
    return min(0, q_hi) if q_lo <= q_hi else None


def _coded_keys(s: np.ndarray, codes: np.ndarray, bits: int, q: int) -> np.ndarray:
    """Sorted int64 keys ``key(s_i · 2^q) · 2^bits + codes_i``: ascending scores, equal scores
    equal keys, and within a tie the codes ascending. Built block by block, then one ``sort``."""
    n = len(s)
    out = np.empty(n, dtype=np.int64)
    t = np.empty(min(n, _BLOCK))
    k, m = t.view(np.int64), np.empty(len(t), dtype=np.int64)
    # 2^q with q < −1022 is applied in two exact steps (2^q itself would underflow).
    scale = [] if q == 0 else [2.0**q] if q >= -1022 else [2.0**-1022, 2.0 ** (q + 1022)]
    for a in range(0, n, _BLOCK):
        b = min(n, a + _BLOCK)
        tt, kk, mm, o = t[: b - a], k[: b - a], m[: b - a], out[a:b]
        np.add(s[a:b], 0.0, out=tt)   # −0.0 + 0.0 = +0.0: the two zeros tie
        for c in scale:
            tt *= c
        np.right_shift(kk, 63, out=mm)  # all ones for negatives: flip their magnitude bits
        mm &= _LOW63
        mm ^= kk
        np.left_shift(mm, bits, out=o)
        o |= codes[a:b]
    out.sort()
    return out


def _pack_labels(Y: np.ndarray) -> np.ndarray:
    """Up to 8 binary label columns packed into one integer per row (column j in bit j).
    Integer and boolean 0/1 labels (:func:`binary_labels`) are packed by an integer product
    without a float copy; one integer column is its own code."""
    if Y.dtype == bool or np.issubdtype(Y.dtype, np.integer):
        if Y.shape[1] == 1:
            return Y[:, 0].view(np.uint8) if Y.dtype == bool else Y[:, 0]
        return Y @ (1 << np.arange(Y.shape[1], dtype=np.int64))
    if Y.shape[1] == 1:
        return (Y[:, 0] != 0).view(np.uint8)
    return np.einsum("ij,j->i", Y, 2.0 ** np.arange(Y.shape[1])).astype(np.uint8)


def binary_labels(y: ArrayLike, name: str, ndim: int = 1) -> np.ndarray:
    """:func:`check_binary` without its float64 copy for integer and boolean arrays (returned as
    they are): their values are all 0 or 1 iff their bitwise OR is 0 or 1 (a negative value sets
    the sign bit), one pass. Anything else (masked arrays included: not a plain ndarray), and
    every error, goes through check_binary."""
    if (type(y) is np.ndarray and y.ndim == ndim and y.size and y.dtype.isnative
            and y.dtype.kind in "biu"  # not np.integer: timedelta64 is one
            and (y.dtype == bool or int(np.bitwise_or.reduce(y, axis=None)) in (0, 1))):
        return y.view(np.int64) if y.dtype == np.uint64 else y  # uint64 mixes with no int type
    return check_binary(y, name, ndim=ndim)


#: Sorted keys whose sampled block has fewer than this share of key changes are summed by runs
#: of equal keys (:func:`_run_position_sums`), not element by element.
_RUN_SHARE = 1 / 8


def _few_runs(a: np.ndarray) -> bool:
    """Whether the sorted keys ``a`` look tie-heavy: fewer than ``_RUN_SHARE`` key changes in one
    block from their middle (the rule only picks between two exact computations)."""
    mid = a[len(a) // 2 : len(a) // 2 + _BLOCK]
    return len(mid) > 1 and np.count_nonzero(mid[1:] != mid[:-1]) < _RUN_SHARE * len(mid)


def _run_position_sums(a: np.ndarray, bits: int) -> tuple[list[int], list[int], np.ndarray]:
    """:func:`_label_position_sums` from the runs of equal keys: a run of length l starting at
    position r holds one code and contributes ``l`` positives and ``l r + l (l − 1) / 2`` to the
    position sum of every label in its code; a tie group changes code where a run starts with the
    score part of the run before. O(n) compares, then O(runs · bits)."""
    n, mask = len(a), (1 << bits) - 1
    rs = np.flatnonzero(a[1:] != a[:-1])
    rs += 1
    rs = np.concatenate([np.zeros(1, dtype=rs.dtype), rs])
    ln = np.diff(np.append(rs, n))
    psum = ln * rs + ln * (ln - 1) // 2
    key = a[rs]
    code = key & mask
    cnt, S = [], []
    for j in range(bits):
        bj = (code >> j) & 1
        cnt.append(int(np.dot(bj, ln)))
        S.append(int(np.dot(bj, psum)))
    head = key >> bits
    return cnt, S, rs[1:][head[1:] == head[:-1]]


def _label_position_sums(a: np.ndarray, bits: int) -> tuple[list[int], list[int], np.ndarray]:
    """For sorted coded keys with one binary label per low bit: per label the number of positives
    and the sum of their positions; and the positions where a tie group changes code."""
    n, mask = len(a), (1 << bits) - 1
    cnt, S = [0] * bits, [0] * bits
    pos = np.arange(min(n, _BLOCK), dtype=np.int64)
    lab, x = np.empty(len(pos), dtype=np.int64), np.empty(len(pos), dtype=np.int64)
    edges = []
    for lo in range(0, n, _BLOCK):
        hi = min(n, lo + _BLOCK)
        for j in range(bits):
            b = lab[: hi - lo]
            np.bitwise_and(a[lo:hi], 1 << j, out=b)
            c = np.count_nonzero(b)
            cnt[j] += c
            # integer dot product (no BLAS call: its threads stall on a busy machine)
            S[j] += (int(np.dot(b, pos[: hi - lo])) >> j) + lo * c
        st = max(lo, 1)
        xx = x[: hi - st]
        np.bitwise_xor(a[st:hi], a[st - 1 : hi - 1], out=xx)  # same score, other code: 0 < x ≤ mask
        edge = xx == 1 if bits == 1 else xx.view(np.uint64) - np.uint64(1) < np.uint64(mask)
        if edge.any():
            edges.append(np.flatnonzero(edge) + st)
    return cnt, S, np.concatenate(edges) if edges else np.zeros(0, dtype=np.int64)


def _code_ties(a: np.ndarray, edges: np.ndarray, bits: int) -> list[int]:
    """Per label j, ``Σ ± n_pos n_neg`` over the positive and negative runs of the same tie
    group (found from ``edges``): + where the negatives sort after the positives (the position sum
    counted those tied pairs lost), − where before (counted won). Exact integers."""
    mask = (1 << bits) - 1
    if len(edges) == 0:
        return [0] * bits
    head = a[edges] & ~np.int64(mask)  # the score part of the key
    newg = np.empty(len(edges), dtype=bool)
    newg[0] = True
    np.not_equal(head[1:], head[:-1], out=newg[1:])
    g_first = np.searchsorted(a, head[newg], "left")
    g_end = np.searchsorted(a, head[newg] | mask, "right")
    # runs of one code inside those groups: they start at the group starts and at the edges
    rs = np.sort(np.concatenate([g_first, edges]))
    first = np.searchsorted(rs, g_first)  # index of each group's first run
    size = np.diff(np.append(first, len(rs)))
    ln = np.diff(np.append(rs, 0))
    ln[first + size - 1] = g_end - rs[first + size - 1]
    code = a[rs] & mask
    G = np.add.reduceat(ln, first)
    out = []
    for j in range(bits):
        lp = ln * ((code >> j) & 1)        # positives of label j in each run
        upto = np.cumsum(ln - lp)          # negatives up to each run (by code within a group)
        P = np.add.reduceat(lp, first)
        base = upto[first] - (ln - lp)[first]  # negatives before each group
        # Σ_pos runs n_pos · (negatives after − negatives before), per group then summed
        out.append(int(P @ (G - P) - 2 * (int(np.dot(lp, upto)) - int(P @ base))))
    return out


def _coded_binary_aucs(s: np.ndarray, Y: np.ndarray, e_range: tuple[int, int]) -> np.ndarray | None:
    """AUC of each column of the 0/1 matrix Y (≤ _MAX_BITS columns) from one coded sort, in exact
    integer arithmetic (docs/theory.md §2.3): ``U = Σ_pos position − n₁(n₁−1)/2`` counts the
    pairs whose negative sorts first; inside a tie group that depends on the other label bits, and
    :func:`_code_ties` corrects the tied pairs to ½. None when the keys cannot hold the bits."""
    n, bits = Y.shape
    q = _key_exponent(e_range, bits)
    if q is None:
        return None
    a = _coded_keys(s, _pack_labels(Y), bits, q)
    sums = _run_position_sums if _few_runs(a) else _label_position_sums
    cnt, S, edges = sums(a, bits)
    ties = _code_ties(a, edges, bits)
    out = np.full(bits, np.nan)
    for j in range(bits):
        n1 = cnt[j]
        if 0 < n1 < n:
            out[j] = (2 * S[j] - n1 * (n1 - 1) + ties[j]) / (2 * n1 * (n - n1))
    return out


def _run_histogram(a: np.ndarray, bits: int, L: int) -> np.ndarray:
    """(L, T) counts of each code in each tie group (ascending) of sorted coded keys: each
    (score, code) pair is one run of equal keys."""
    rs = np.concatenate([[0], np.flatnonzero(a[1:] != a[:-1]) + 1])
    ln = np.diff(np.append(rs, len(a))).astype(np.float64)
    head = a[rs]
    newg = np.empty(len(rs), dtype=bool)
    newg[0] = True
    np.not_equal(head[1:] >> bits, head[:-1] >> bits, out=newg[1:])
    gid = np.cumsum(newg) - 1
    G = np.zeros((L, int(gid[-1]) + 1))
    G[head & ((1 << bits) - 1), gid] = ln
    return G


# --------------------------------------------------------------------------------------------
# Kernel 2 (weights, groups, populations): one sort order, sums per tie group
# --------------------------------------------------------------------------------------------
def _tie_starts(sorted_scores: np.ndarray) -> np.ndarray:
    new = np.empty(len(sorted_scores), dtype=bool)
    new[0] = True
    np.not_equal(sorted_scores[1:], sorted_scores[:-1], out=new[1:])
    return np.flatnonzero(new)


def ranked_sums(scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """One sort; per tie group (ascending score order), the sums of each weight row.

    Parameters
    ----------
    scores : (n,) float
    weights : (m, n) float — weight *rows* (positives, negatives, ordinal levels...); row layout
        keeps every gather and segment sum one-dimensional and contiguous.

    Returns
    -------
    G : (m, T) sums of each weight row over each tie group. (Per query: the grouped engine,
    ``bipartite/metrics/_grouped.py``.)
    """
    order, ks = sort_order(scores)
    # float64 sums: exact for integer counts below 2**53 (STYLE.md habit 6).
    return np.add.reduceat(weights[:, order], _tie_starts(ks), axis=1)


def below(G: np.ndarray) -> np.ndarray:
    """Sums over the strictly lower tie groups."""
    return np.cumsum(G, axis=-1) - G


def _auc_ratio(Gp: np.ndarray, Gn: np.ndarray) -> np.ndarray:
    """docs/theory.md §2 from tie-group sums of positive (Gp) and negative (Gn) weight, rows = labels:
    ``Σ_t P_t (N_below,t + ½ N_t) / (ΣP ΣN)``, NaN where a label has no positive or negative
    weight. The callers scale the weights by powers of two first (:func:`pow2_normalise`, exact)
    so that the products cannot under- or overflow. Totals come from the same tie-group sums as
    the numerator, so a constant scorer (one tie group) gives exactly ½ in floating point."""
    num = np.einsum("kt,kt->k", Gp, below(Gn) + 0.5 * Gn)
    denom = Gp.sum(axis=1) * Gn.sum(axis=1)
    return np.divide(num, denom, out=np.full(len(num), np.nan), where=denom > 0)


def auc_from_weights(scores: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """AUC of one scorer against K labels given positive and negative weights (n, K).

    ``AUC_k = Σ_{i,j} pos_ik neg_jk s(f_i, f_j) / (Σ pos_k Σ neg_k)``: the Mann–Whitney statistic
    when weights are 0/1 sample weights, and the exact population AUC of docs/theory.md §2 when
    ``pos = p η``, ``neg = p (1 − η)`` (then self-pairs are counted as ties). NaN where a label has
    no positive or no negative weight (no warning here; callers warn).
    """
    K = pos.shape[1]
    rows = pow2_normalise(np.concatenate([pos, neg], axis=1), 0).T  # each column max in [½, 1)
    G = ranked_sums(scores, rows)
    return _auc_ratio(G[:K], G[K:])


def sort_order(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An ascending order of the (finite) scores, as ``np.argsort`` gives, and the scores' int64
    keys in that order (equal keys = tied scores, −0.0 and 0.0 included), from one ``np.sort``
    of int64 keys instead of an argsort (several times slower).

    Each key is the order-preserving integer of the double (its bit pattern, magnitude bits
    flipped for negatives) with its low b = ⌈log2 n⌉ bits replaced by the row index. The sort
    orders by the remaining high bits, then by index; rows whose keys differ only in the low b
    bits (within about 2^(b−52) relative: rare unless scores are that close) may come out of
    order, and only their runs of equal high bits are re-sorted by the full key (a lexsort of
    those rows). The result is exactly ascending."""
    n = len(scores)
    b = max(1, (n - 1).bit_length())
    mask = np.int64((1 << b) - 1)
    full = scores + 0.0               # −0.0 + 0.0 = +0.0: the two zeros tie
    k = full.view(np.int64)
    sign = k >> 63                    # all ones for negatives: flip their magnitude bits
    sign &= _LOW63
    k ^= sign
    del sign
    packed = k & ~mask
    packed |= np.arange(n, dtype=np.int64)
    packed.sort()
    order = packed
    order &= mask                     # the row indices, high bits in ascending order
    ks = np.take(k, order)
    down = np.flatnonzero(ks[1:] < ks[:-1])
    if len(down):
        high = ks >> b                # ascending: equal high bits are contiguous runs
        g = np.unique(high[down])
        lo, hi = np.searchsorted(high, g, "left"), np.searchsorted(high, g, "right")
        pos = np.repeat(lo - (np.cumsum(hi - lo) - (hi - lo)), hi - lo) + np.arange((hi - lo).sum())
        perm = np.lexsort((order[pos], ks[pos], high[pos]))
        order[pos], ks[pos] = order[pos][perm], ks[pos][perm]
    return order, ks


def _weighted_label_sums(
    scores: np.ndarray, Y: np.ndarray, w: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per label (rows) and tie group, the positive and the negative weight of 0/1 labels Y
    (n, K), from one sort order (:func:`sort_order`, whose keys give the tie groups). One
    label rides in the sign of the gathered weight; more are gathered packed, 8 to a byte."""
    n, K = Y.shape
    order, ks = sort_order(scores)
    starts = _tie_starts(ks)
    del ks
    wn = np.ones(n) if w is None else pow2_normalise(w)
    if K == 1:
        vo = np.take(np.where(Y[:, 0] != 0, wn, -wn), order)
        Gp = np.add.reduceat(np.maximum(vo, 0.0, out=wn if w is not None else None), starts)
        np.negative(vo, out=vo)
        return Gp[None], np.add.reduceat(np.maximum(vo, 0.0, out=vo), starts)[None]
    wo = np.take(wn, order)
    Gp, Gn = np.empty((K, len(starts))), np.empty((K, len(starts)))
    for k0 in range(0, K, 8):
        codes = np.take(_pack_labels(Y[:, k0 : k0 + 8]), order)
        for k in range(k0, min(K, k0 + 8)):
            pos = ((codes >> (k - k0)) & 1) * wo
            Gp[k] = np.add.reduceat(pos, starts)
            Gn[k] = np.add.reduceat(wo - pos, starts)  # exact: pos is wo or 0
    return Gp, Gn


#: Coded sorts (up to _MAX_BITS labels each) or one shared argsort, for K unweighted labels: the
#: coded route is taken while it needs at most this many sorts, by n (below 2^20, below 2^23,
#: larger). Measured (``benchmarks/bench_metrics.py --rule``, tie-heavy scores, coded / argsort
#: time): n = 1e5: 0.55 (K = 1), 0.97 (1 sort), 1.5–2.2 (2–6 sorts); n = 1e6: 0.34, 0.72 (1 sort),
#: 1.0–1.1 (2–3), 1.7 (6); n = 1e7: 0.15 (K = 1), 0.32–0.42 (1–4 sorts). An argsort costs about
#: 3 sorts of the keys at n = 1e6 and 8–10 at n = 1e7.
_MAX_CODED_SORTS = ((1 << 20, 1), (1 << 23, 3), (None, 8))


def auc_from_labels(scores: np.ndarray, Y: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """AUC of each column of the 0/1 matrix Y (n, K) with optional sample weights.

    Unweighted: the labels ride in the low bits of the sort keys, up to ``_MAX_BITS`` labels per
    sort, when that takes few sorts (``_MAX_CODED_SORTS``) and the score range allows it (for one
    label nearly always: see :func:`_key_exponent`). Otherwise, and with weights: a sort order and
    per-tie-group weight sums (:func:`_weighted_label_sums`)."""
    n, K = Y.shape
    if w is None:
        e_range = finite_exponent_range(scores)
        bits = min(K, _MAX_BITS)
        while bits > 1 and _key_exponent(e_range, bits) is None:
            bits -= 1
        n_sorts = -(-K // bits)
        limit = next(m for size, m in _MAX_CODED_SORTS if size is None or n < size)
        if n_sorts <= limit and _key_exponent(e_range, bits) is not None:
            per = -(-K // n_sorts)  # balanced groups of labels
            parts = [_coded_binary_aucs(scores, Y[:, k0 : k0 + per], e_range)
                     for k0 in range(0, K, per)]
            return np.concatenate(parts)
    else:
        check_finite(scores, "y_score")
    Gp, Gn = _weighted_label_sums(scores, Y, w)
    return _auc_ratio(pow2_normalise(Gp, 1), pow2_normalise(Gn, 1))


def _multipartite_ratio(G: np.ndarray, C: np.ndarray) -> float:
    """AUC_MP (docs/theory.md §3) from tie-group sums of level weights G (L, T) and costs C (L, L):
    ``num = Σ_t Σ_a G[a,t] Σ_b C[a,b] (B[b,t] + ½ G[b,t])``, ``den = Σ_{a,b} C[a,b] T_a T_b`` with
    B the sums over lower tie groups. NaN when the denominator is 0 (fewer than two levels with
    weight, or zero costs). C is scaled by a power of two first (exact)."""
    C = pow2_normalise(C)
    num = float(np.sum(G * (C @ (below(G) + 0.5 * G))))
    T = G.sum(axis=1, keepdims=True)  # same operation order as num: a constant scorer gives ½
    den = float(np.sum(T * (C @ T)))
    return num / den if den > 0 else float("nan")


def multipartite_from_weights(scores: np.ndarray, level_w: np.ndarray, C: np.ndarray) -> float:
    """AUC_MP from per-point level weights (n, L) — the population route (docs/theory.md §3)."""
    G = ranked_sums(scores, np.ascontiguousarray(pow2_normalise(level_w).T))
    return _multipartite_ratio(G, C)


def multipartite_from_levels(
    scores: np.ndarray, level: np.ndarray, L: int, w: np.ndarray | None, C: np.ndarray
) -> float:
    """AUC_MP for one observed level per point (uint8 ``level`` in [0, L)) — the empirical route:
    unweighted, one coded sort (levels in the low key bits) and its runs; with weights (or too
    many levels, or a score range the keys cannot hold), one argsort and a (tie group, level)
    histogram. O(n log n + T L)."""
    bits = max(1, (L - 1).bit_length())
    if w is None and bits <= _MAX_BITS:
        q = _key_exponent(finite_exponent_range(scores), bits)
        if q is not None:
            a = _coded_keys(scores, level, bits, q)
            return _multipartite_ratio(_run_histogram(a, bits, L), C)
    else:
        check_finite(scores, "y_score")
    order, ks = sort_order(scores)
    new = np.zeros(len(scores), dtype=np.int64)
    new[_tie_starts(ks)] = 1
    gid = np.cumsum(new) - 1
    T = int(gid[-1]) + 1
    wo = None if w is None else pow2_normalise(w)[order]
    hist = np.bincount(gid * L + level[order], weights=wo, minlength=T * L)
    return _multipartite_ratio(np.ascontiguousarray(hist.reshape(T, L).T, dtype=np.float64), C)
