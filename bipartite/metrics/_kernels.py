"""The private AUC kernels behind every AUC in :mod:`bipartite.metrics` (docs/theory.md §2.2,
§3.2): the coded sort (unweighted labels), the sort order with per-tie-group sums (weights,
populations) or midranks (many labels: the rank route), and the ordinal kernel (multipartite
AUC as ½ + ½ A/Z). Per-query statistics are the grouped engine's (``_grouped.py``). The module
is private to the ``bipartite.metrics`` package; its entry points (``__all__``) carry no
underscore only so that the package's public module may import them. See the
:mod:`bipartite.metrics` docstring for the algorithms.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import check_binary, check_finite, pow2_normalise
from bipartite.labels import cost_matrix, cost_potential
from bipartite.metrics._polynomial import (
    coded_tied_cost,
    exact_bound,
    level_total,
    ordered_pairs,
    polynomial_costs,
    tied_cost,
)
from bipartite.metrics._ranking import auc_terms

__all__ = ["auc_from_labels", "auc_from_weights", "below", "binary_labels", "cost_structure",
           "finite_exponent_range", "matrix_structure", "multipartite_from_levels",
           "multipartite_from_weights", "ranked_sums", "sort_order"]


# --------------------------------------------------------------------------------------------
# Kernel 1 (unweighted): one sort of int64 keys that carry the labels in their low bits
# --------------------------------------------------------------------------------------------
#: Length of the blocks of the streaming loops; a block's temporaries stay in the L2 cache.
_BLOCK = 1 << 15
#: Length of the blocks of the tie-bound scans (rank route, ordinal kernel): their ~8
#: temporaries stay under 1 % of the scores' bytes from n = 10^6 (and in the L1/L2 caches).
_SCAN = 1 << 13
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


def below(G: np.ndarray, axis: int = -1) -> np.ndarray:
    """Sums over the strictly lower tie groups (or indices along ``axis``): the running sum
    shifted by one, not ``cumsum − G``, which loses a light entry beside heavy earlier ones."""
    G = np.moveaxis(G, axis, -1)
    out = np.zeros_like(G, dtype=np.result_type(G.dtype, np.float64))
    np.cumsum(G[..., :-1], axis=-1, out=out[..., 1:])
    return np.moveaxis(out, -1, axis)


def _auc_ratio(Gp: np.ndarray, Gn: np.ndarray) -> np.ndarray:
    """docs/theory.md §2 from tie-group sums of positive (Gp) and negative (Gn) weight, rows = labels:
    ``Σ_t P_t (N_below,t + ½ N_t) / (ΣP ΣN)``, NaN where a label has no positive or negative
    weight. The callers scale the weights by powers of two first (:func:`pow2_normalise`, exact)
    so that the products cannot under- or overflow. Totals come from the same tie-group sums as
    the numerator, so a constant scorer (one tie group) gives exactly ½ in floating point."""
    num = auc_terms(Gp, Gn, below(Gn)).sum(axis=1)
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
        # runs of equal high bits (ascending: contiguous), found in ks without an n-array
        g = np.unique(ks[down] >> b) << b
        lo, hi = np.searchsorted(ks, g, "left"), np.searchsorted(ks, g | mask, "right")
        pos = np.repeat(lo - (np.cumsum(hi - lo) - (hi - lo)), hi - lo) + np.arange((hi - lo).sum())
        perm = np.lexsort((order[pos], ks[pos], ks[pos] >> b))
        order[pos], ks[pos] = order[pos][perm], ks[pos][perm]
    return order, ks


def _weighted_label_sums(scores: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per tie group, the positive and the negative weight (rows of (1, T)) of one 0/1 label y,
    from one sort order (:func:`sort_order`, whose keys give the tie groups); the label rides
    in the sign of the gathered weight."""
    order, ks = sort_order(scores)
    starts = _tie_starts(ks)
    del ks
    wn = pow2_normalise(w)
    vo = np.take(np.where(y != 0, wn, -wn), order)
    Gp = np.add.reduceat(np.maximum(vo, 0.0, out=wn), starts)
    np.negative(vo, out=vo)
    return Gp[None], np.add.reduceat(np.maximum(vo, 0.0, out=vo), starts)[None]





def _row_ranks(scores: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """Per row, in row order: twice the midrank (1-based; exact integers) unweighted, or the
    weighted midrank ``W_below + ½ W_tied`` (the weight of the lower scores plus half that of the
    row's tie group, itself included) with the normalised weights ``w``. One sort order."""
    order, ks = sort_order(scores)
    n = len(order)
    cw = None if w is None else _prefix_sums(w[order])
    out = np.empty(n)
    for lo in range(0, n, _SCAN):
        hi = min(n, lo + _SCAN)
        tb = _tie_bounds(ks, 0, lo, hi)
        first, end = (np.arange(lo, hi), np.arange(lo + 1, hi + 1)) if tb is None else tb
        out[order[lo:hi]] = first + end + 1 if w is None else 0.5 * (cw[first] + cw[end])
    return out


def _label_sums(Y: np.ndarray, cols: list, negatives: bool) -> np.ndarray:
    """``Yᵀ R`` (K, m) for 0/1 labels Y (n, K) and the row values R = [cols] (n, m; None: a column
    of ones), and ``(1 − Y)ᵀ R`` after it when ``negatives``: one read of Y, in row blocks that
    are cast to float64 once, of at most _CELLS cells and a quarter of the input's bytes."""
    n, K = Y.shape
    out = np.zeros((2 if negatives else 1, K, len(cols)))
    step = max(1, min(_CELLS, (Y.nbytes + 8 * n) // 32) // max(K, 1))
    Rc = np.ones((min(n, step), len(cols)))
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        Yc = np.array(Y[lo:hi], dtype=np.float64, copy=True if negatives else None)
        R = Rc[: hi - lo]
        for j, c in enumerate(cols):
            if c is not None:
                R[:, j] = c[lo:hi]
        out[0] += Yc.T @ R
        if negatives:
            np.subtract(1.0, Yc, out=Yc)   # a copy: Y itself is never written
            out[1] += Yc.T @ R
    return out


def _rank_aucs(scores: np.ndarray, Y: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """AUC of each column of Y from one sort and one pass over the labels (docs/theory.md §2.3):
    unweighted ``(Σ_pos 2 r − n₁(n₁ + 1)) / (2 n₁ n₀)`` with r the midranks (exact integers below
    2^53); weighted, with ρ the weighted midranks, ``Σ_{i pos} w_i ρ_i − ½ P²`` (the won pairs:
    the positives' pairs among themselves, self-pairs as ties, sum to ½ P²), taken from the
    negatives' side, ``P N − (Σ_{j neg} w_j ρ_j − ½ N²)``, where they weigh less than the
    positives (no cancellation of the heavier class)."""
    n = len(scores)
    if w is None:
        S = _label_sums(Y, [_row_ranks(scores, None), None], False)[0]
        n1 = S[:, 1]
        n0 = n - n1
        num = S[:, 0] - n1 * (n1 + 1)
        den = 2 * n1 * n0
    else:
        wn = pow2_normalise(w)
        S = _label_sums(Y, [wn * _row_ranks(scores, wn), wn], True)
        P, N = S[0, :, 1], S[1, :, 1]
        num = np.where(P <= N, S[0, :, 0] - 0.5 * P * P, P * N - (S[1, :, 0] - 0.5 * N * N))
        den = P * N
    return np.divide(num, den, out=np.full(len(num), np.nan), where=den > 0)


#: The coded route (one sort, the labels in the low key bits) for at most this many unweighted
#: labels, by n (below 2^20, larger); the rank route beyond. Measured with
#: ``benchmarks/bench_metrics.py --rule`` (coded / rank time, n = 1e5 and 1e6, continuous and
#: tie-heavy scores): 0.65–0.84 at K = 1, 2; 0.8–1.5 at K = 3, 4; 1.1–2.2 at K = 6.
_MAX_CODED_LABELS = ((1 << 20, 2), (None, 4))


def auc_from_labels(scores: np.ndarray, Y: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """AUC of each column of the 0/1 matrix Y (n, K) with optional sample weights.

    Unweighted: the labels ride in the low bits of the sort keys (one sort) for few labels
    (``_MAX_CODED_LABELS``) when the score range allows it (for one label nearly always: see
    :func:`_key_exponent`). Otherwise, and with weights for K > 1: the rank route, one sort order
    and one pass over the labels (:func:`_rank_aucs`), O(n log n + nK) time and O(n) memory
    beyond Y. One weighted label: a sort order and per-tie-group weight sums
    (:func:`_weighted_label_sums`)."""
    n, K = Y.shape
    if w is None:
        e_range = finite_exponent_range(scores)
        if K <= next(m for size, m in _MAX_CODED_LABELS if size is None or n < size):
            out = _coded_binary_aucs(scores, Y, e_range)
            if out is not None:
                return out
        return _rank_aucs(scores, Y, None)
    check_finite(scores, "y_score")
    if K > 1:
        return _rank_aucs(scores, Y, w)
    Gp, Gn = _weighted_label_sums(scores, Y[:, 0], w)
    return _auc_ratio(pow2_normalise(Gp, 1), pow2_normalise(Gn, 1))




# --------------------------------------------------------------------------------------------
# Kernel 3 (ordinal levels, docs/theory.md §3): AUC_MP = ½ + ½ A / Z
# --------------------------------------------------------------------------------------------
# A pair (i, j) and its reverse contribute ω_i ω_j (C_{ℓ_i ℓ_j} s_ij + C_{ℓ_j ℓ_i} s_ji) to the
# numerator and ω_i ω_j (C_{ℓ_i ℓ_j} + C_{ℓ_j ℓ_i}) to Z, and s_ij + s_ji = 1; so, with the
# antisymmetric costs K = C − Cᵀ, AUC_MP = ½ + ½ A / Z, A = Σ_{f_i > f_j} ω_i ω_j K_{ℓ_i ℓ_j}:
# tied pairs count ½ by symmetry and need no tie bookkeeping. Three routes by the costs:
#
# * difference form, C_ab = g_a − g_b (linear, gain): with Δg_k = g_k − g_{k−1},
#   A = Σ_k Δg_k D_k and Z = Σ_k Δg_k W_{<k} W_{≥k}, where D_k = Σ_{ℓ_i ≥ k > ℓ_j} ω_i ω_j
#   sign(f_i − f_j) is the Mann–Whitney difference of the binarised label 1[ℓ ≥ k], and
#   D_k = Σ_{a ≥ k} R_a = −Σ_{a < k} R_a with R_a = Σ_{ℓ_i = a} ω_i (W_below(i) − W_above(i)):
#   one pass after the sort (per-level sums of tie-group ranks), exact integers unweighted;
# * uniform: AUC_MP = 1 − (Q + ½ T) / Z with Q the (weighted) pairs ranked against their levels
#   (inversions of the levels in score order, counted bit by bit: O(n log L)) and T the tied
#   pairs of different levels (exact integers unweighted; weighted, Q + ½ T is the mean of the
#   inversions with the levels ascending and descending inside the tie groups: no difference
#   of large sums anywhere);
# * any other costs: A from running per-level sums, O(n L) in chunks of ``_CELLS`` cells.

#: Cells (rows × levels) of the temporaries of the general-cost route.
_CELLS = 1 << 18


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


def _tie_bounds(keys: np.ndarray, mask: int, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray] | None:
    """For the sorted ``keys[lo:hi]`` (equal ``key | mask`` = tied scores), the first position of
    each one's tie group and the position after its end; None when no position there ties."""
    n, s0 = len(keys), max(lo - 1, 0)
    h = keys[s0 : min(hi + 1, n)] | mask
    neq = h[1:] != h[:-1]        # neq[j]: positions s0 + j and s0 + j + 1 differ
    if neq.all():
        return None
    off, m = lo - s0, hi - lo
    pos = np.arange(lo, hi)
    first = np.where(np.concatenate([[True], neq[: m - 1]]) if lo == 0 else neq[:m], pos, 0)
    if first[0] == 0 and lo > 0:   # the group of position lo starts before it
        first[0] = np.searchsorted(keys, keys[lo] & ~np.int64(mask), "left")
    ends = neq[off : off + m] if hi < n else np.append(neq[off:], True)
    end = np.where(ends, pos + 1, n)
    if not ends[-1]:
        end[-1] = np.searchsorted(keys, keys[hi - 1] | mask, "right")
    return np.maximum.accumulate(first), np.minimum.accumulate(end[::-1])[::-1]


def _prefix_sums(ws: np.ndarray) -> np.ndarray:
    """``[0, w_0, w_0 + w_1, ...]`` (n + 1), summed block by block (error ~(block + n/block) ulps
    instead of n)."""
    out = np.empty(len(ws) + 1)
    out[0] = 0.0
    for lo in range(0, len(ws), _BLOCK):
        hi = min(len(ws), lo + _BLOCK)
        np.cumsum(ws[lo:hi], out=out[lo + 1 : hi + 1])
        out[lo + 1 : hi + 1] += out[lo]
    return out


def _level_sequence(scores: np.ndarray, level: np.ndarray, L: int, w: np.ndarray | None):
    """The levels in ascending score order, the sorted tie keys (equal ``key | mask`` = tied
    scores), the mask, and the (normalised) weights in that order (None unweighted).
    Unweighted, with ⌈log2 L⌉ ≤ _MAX_BITS and a score range the keys hold: one coded sort, the
    levels in the low key bits (ascending within each tie group). Otherwise one sort order
    (:func:`sort_order`) and a gather of the levels (within a tie group in row order)."""
    bits = max(1, (L - 1).bit_length())
    if w is None:
        e_range = finite_exponent_range(scores)
        q = _key_exponent(e_range, bits) if bits <= _MAX_BITS else None
        if q is not None:
            a = _coded_keys(scores, level, bits, q)
            lev = np.empty(len(a), dtype=np.uint8)
            for lo in range(0, len(a), _BLOCK):
                np.bitwise_and(a[lo : lo + _BLOCK], (1 << bits) - 1, out=lev[lo : lo + _BLOCK],
                               casting="unsafe")
            return lev, a, (1 << bits) - 1, None
    else:
        check_finite(scores, "y_score")
    order, ks = sort_order(scores)
    lev = level[order]
    if lev.dtype.itemsize > 2 and L <= 1 << 16:   # ≤ 16-bit keys: radix argsorts (_inversions)
        lev = lev.astype(np.uint8 if L <= 256 else np.uint16)
    ws = None if w is None else pow2_normalise(w)[order]
    return lev, ks, 0, ws


def _level_rank_sums(lev: np.ndarray, keys: np.ndarray, mask: int, L: int,
                     ws: np.ndarray | None) -> np.ndarray:
    """``R_a = Σ_{ℓ_i = a} ω_i (W_below(i) − W_above(i))`` over the levels (below/above: strictly
    lower/higher scores), block by block; int64 and exact unweighted."""
    n = len(keys)
    cw = None if ws is None else _prefix_sums(ws)
    R = np.zeros(L, dtype=np.int64 if ws is None else np.float64)
    for lo in range(0, n, _SCAN):
        hi = min(n, lo + _SCAN)
        tb = _tie_bounds(keys, mask, lo, hi)
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


def _tied_pairs(lev: np.ndarray, keys: np.ndarray, mask: int, L: int, ws: np.ndarray | None,
                descending: bool = False, groups: bool = False):
    """T = Σ ω_i ω_j over the tied pairs of different levels (an exact int unweighted). Puts the
    levels (and weights) of each tie group in ascending order first, as the coded keys have them,
    so that no tied pair counts as an inversion (:func:`_inversions`); ``descending``: in
    descending order, so that every tied pair of different levels does (then T is not
    computed: 0 is returned). ``groups``: also the positions in tie groups and where each group
    starts among them."""
    parts = []
    for lo in range(0, len(keys), _SCAN):
        tb = _tie_bounds(keys, mask, lo, min(len(keys), lo + _SCAN))
        if tb is not None:
            parts.append(np.flatnonzero(tb[1] - tb[0] > 1) + lo)
    if not parts:
        return (0, np.zeros(0, dtype=np.intp), np.zeros(0, dtype=bool)) if groups else 0
    idx = np.concatenate(parts)
    h = keys[idx] | mask
    gnew = np.concatenate([[True], h[1:] != h[:-1]])
    key = np.cumsum(gnew) - 1
    key *= L
    key += (L - 1 - lev[idx].astype(np.int64)) if descending else lev[idx]   # (tie group, level)
    if descending:
        perm = np.argsort(key, kind="stable")
        lev[idx], ws[idx] = lev[idx][perm], ws[idx][perm]
        return 0
    if mask == 0:                       # levels in row order inside the tie groups: sort them
        if ws is None:
            key.sort()
            lev[idx] = key % L
        else:
            perm = np.argsort(key, kind="stable")
            key, lev[idx], ws[idx] = key[perm], lev[idx][perm], ws[idx][perm]
    pos = np.arange(len(idx))
    gstart = np.maximum.accumulate(np.where(gnew, pos, 0))
    rstart = np.maximum.accumulate(np.where(np.concatenate([[True], key[1:] != key[:-1]]), pos, 0))
    if ws is None:
        T = int((rstart - gstart).sum())
        return (T, idx, gnew) if groups else T
    cw = _prefix_sums(ws[idx])
    return float((ws[idx] * (cw[rstart] - cw[gstart])).sum())


def _ones_position_sum(one: np.ndarray) -> int:
    """``Σ_p p · one_p`` for a 0/1 array, block by block (no n-sized temporary)."""
    pos = np.arange(min(len(one), _BLOCK), dtype=np.int64)
    return sum(int(np.dot(one[lo : lo + _BLOCK].astype(np.int64), pos[: len(one[lo : lo + _BLOCK])]))
               + lo * int(np.count_nonzero(one[lo : lo + _BLOCK]))
               for lo in range(0, len(one), _BLOCK))


def _inversions(lev: np.ndarray, bits: int, ws: np.ndarray | None):
    """``Σ_{p < q, ℓ_p > ℓ_q} ω_p ω_q`` over the level sequence (an exact int unweighted), one
    bit at a time from the top (a wavelet matrix): at bit b the sequence is stably grouped by
    the higher bits, and a pair first split by bit b is an inversion iff its bit-1 member comes
    first in its group. Per bit: the pairs (one before zero) within the groups, then a stable
    radix argsort of ≤ 16-bit keys; O(n) per bit.

    Unweighted, with c1(q) the ones before position q: ``Σ_{q zero} c1(q) = Σ_q c1(q) −
    n1 (n1 − 1)/2`` and ``Σ_q c1(q) = n1 (n − 1) − Σ_{p one} p``, less, per group, its zeros times
    the ones before the group."""
    n = len(lev)
    seq, w, total = lev, ws, 0
    for b in range(bits - 1, -1, -1):
        starts = np.searchsorted(seq, np.arange((1 << (bits - b - 1)) + 1) << (b + 1))
        one = (seq >> b) & 1
        if w is None:
            ones = np.array([np.count_nonzero(one[a:z])
                             for a, z in zip(starts[:-1], starts[1:], strict=True)], dtype=np.int64)
            before = np.cumsum(ones) - ones             # ones before each group
            zeros = np.diff(starts) - ones
            n1 = int(ones.sum())
            total += (n1 * (n - 1) - _ones_position_sum(one) - n1 * (n1 - 1) // 2
                      - int(zeros @ before))
        else:   # per group, from its own running sums: all terms ≥ 0, nothing cancels
            w1 = w * one
            w0 = w - w1
            for a, z in zip(starts[:-1], starts[1:], strict=True):
                if z - a > 1:
                    total += float((w0[a + 1 : z] * _prefix_sums(w1[a : z - 1])[1:]).sum())
        del one
        if b:
            perm = np.argsort(seq >> b, kind="stable")
            seq = seq[perm]
            w = None if w is None else w[perm]
    return total


def _general_numerator(lev: np.ndarray, keys: np.ndarray, mask: int, L: int,
                       ws: np.ndarray | None, K: np.ndarray) -> float:
    """``A = Σ_i ω_i u_{ℓ_i}`` with ``u = K W_below`` over the tie groups below i's: u grows by
    ``ω_j K[:, ℓ_j]`` with each point j, so running sums of the gathered columns of K give it;
    O(n L), in chunks of _CELLS cells."""
    n = len(keys)
    m = max(1, min(_BLOCK, _CELLS // L))
    K = np.ascontiguousarray(K)
    carry = np.zeros(L)       # u over the positions < lo
    open_u = carry            # u below the tie group open at lo
    A = 0.0
    buf = np.empty((L, min(n, m) + 2))   # one buffer: fresh pages per chunk cost more than the sums
    for lo in range(0, n, m):
        hi = min(n, lo + m)
        lc = lev[lo:hi]
        # column 0: open_u; column 1 + j: u over the positions < lo + j (levels × positions:
        # the running sums run along contiguous rows, many times faster than down columns)
        P = buf[:, : hi - lo + 2]
        P[:, 0], P[:, 1] = open_u, carry
        np.take(K, lc, axis=1, out=P[:, 2:])
        if ws is not None:
            P[:, 2:] *= ws[lo:hi]
        np.cumsum(P[:, 1:], axis=1, out=P[:, 1:])
        tb = _tie_bounds(keys, mask, lo, hi)
        cols = np.arange(1, hi - lo + 1) if tb is None else np.maximum(tb[0] - lo, -1) + 1
        u = P[lc, cols]
        A += float(u.sum() if ws is None else (u * ws[lo:hi]).sum())
        carry = P[:, -1].copy()
        if hi < n:
            f = int(np.searchsorted(keys, keys[hi] & ~np.int64(mask), "left"))
            if lo <= f < hi:
                open_u = P[:, f - lo + 1].copy()
    return A


def _half_plus(A: float, Z: float) -> float:
    """``½ + ½ A / Z`` (A/Z clipped to [−1, 1], rounding); NaN when Z is not positive."""
    return 0.5 + 0.5 * min(1.0, max(-1.0, A / Z)) if Z > 0 else float("nan")


def multipartite_from_levels(scores: np.ndarray, level: np.ndarray, L: int,
                             w: np.ndarray | None, structure: tuple[str, np.ndarray | None]) -> float:
    """AUC_MP (docs/theory.md §3) for one observed level per point (``level`` in [0, L)) and the
    costs' ``structure`` (:func:`cost_structure`): one sort (coded or :func:`sort_order`), then
    O(n) for difference-form costs, O(n log L) for uniform costs, O(n L) in chunks otherwise."""
    kind, par = structure
    lev, keys, mask, ws = _level_sequence(scores, level, L, w)
    W = np.bincount(lev, minlength=L) if ws is None else np.bincount(lev, ws, minlength=L)
    if kind == "difference":
        return _difference_ratio(_level_rank_sums(lev, keys, mask, L, ws), W, par)
    if kind == "polynomial":
        return _polynomial_ratio(lev, keys, mask, L, ws, W, *par)
    if kind == "general":
        Z = float(W @ par @ W)
        return _half_plus(_general_numerator(lev, keys, mask, L, ws, par - par.T), Z)
    bits = max(1, (L - 1).bit_length())
    if ws is None:   # exact integers: Q + ½ T from the ascending order within ties
        T = _tied_pairs(lev, keys, mask, L, None)
        del keys
        Q = _inversions(lev, bits, None)
        Z = int(np.dot(np.cumsum(W) - W, W))
        return (2 * Z - 2 * Q - T) / (2 * Z) if Z > 0 else float("nan")
    # weighted: tied pairs counted won in one order and lost in the other, Q + ½ T = ½ (Qa + Qd)
    lev_d, ws_d = lev.copy(), ws.copy()
    _tied_pairs(lev_d, keys, mask, L, ws_d, descending=True)
    _tied_pairs(lev, keys, mask, L, ws)
    del keys
    loss = 0.5 * (_inversions(lev, bits, ws) + _inversions(lev_d, bits, ws_d))
    Z = float((below(W) * W).sum())
    return 1.0 - loss / Z if Z > 0 else float("nan")


def _polynomial_ratio(lev, keys, mask, L, ws, W, v, alpha) -> float:
    """``½ + ½ A / Z`` for polynomial costs (``_polynomial``), A summed over the pairs in score
    order with the levels ascending inside the tie groups, where each tied pair of different
    levels then counts its cost once: unweighted that is subtracted (exact integers under
    ``exact_bound``); weighted, A is the mean of the ascending and the descending order (as the
    uniform route: nothing subtracted)."""
    if ws is None and np.all(v == np.round(v)) and np.all(alpha == np.round(alpha)) \
            and exact_bound(len(lev), v, alpha):
        v, alpha, W = v.astype(np.int64), [int(a) for a in alpha], W.astype(np.int64)
    else:
        alpha = [float(a) for a in alpha]
    bits = max(1, (L - 1).bit_length())
    if ws is None and mask and not any(alpha[1::2]):   # coded keys, even p: runs of the keys
        A = ordered_pairs(lev, None, v, alpha, bits) - coded_tied_cost(keys, bits, lev, v, alpha)
    elif ws is None:
        T, idx, gnew = _tied_pairs(lev, keys, mask, L, None, groups=True)
        A = ordered_pairs(lev, None, v, alpha, bits) - tied_cost(v[lev[idx]], gnew, T, alpha)
    else:
        lev_d, ws_d = lev.copy(), ws.copy()
        _tied_pairs(lev_d, keys, mask, L, ws_d, descending=True)
        _tied_pairs(lev, keys, mask, L, ws)
        A = 0.5 * (ordered_pairs(lev, ws, v, alpha, bits) + ordered_pairs(lev_d, ws_d, v, alpha, bits))
    return _half_plus(A, level_total(W, v, alpha))


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
    m = max(1, _CELLS // len(K))
    A = sum(float(np.sum(G[:, t:t + m] * (K @ Gb[:, t:t + m]))) for t in range(0, G.shape[1], m))
    return _half_plus(A, float(T @ par @ T))
