"""The private binary-label AUC kernels behind every AUC of one scorer against 0/1 labels or
positive and negative masses in :mod:`bipartite.metrics` (docs/theory.md §2.2): the coded sort
(unweighted labels), and the sort order with per-tie-group sums (weights, populations) or
midranks (many labels: the rank route); the input checks the public metrics share (the scores,
binary labels); and the block scans of sorted keys that the rank route and the ordinal kernels
(``_multipartite.py``) share. Per-query statistics are the grouped engine's (``_grouped.py``).
The module is private to the ``bipartite.metrics`` package; its entry points (``__all__``) carry
no underscore only so that the package's other modules may import them. See the
:mod:`bipartite.metrics` docstring for the algorithms.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.compiled import compiled
from bipartite._utils.order_keys import LOW63, compiled_float_key, float_key
from bipartite._utils.validation import (
    check_array,
    check_binary,
    check_consistent_length,
    check_finite,
    pow2_normalise,
)
from bipartite.metrics._sorted_rows import auc_terms

__all__ = ["BLOCK", "CELLS", "MAX_BITS", "SCAN", "auc_from_labels", "auc_from_weights", "below",
           "binary_labels", "check_scores", "coded_keys", "finite_exponent_range",
           "key_exponent", "prefix_sums", "ranked_sums", "sort_order", "tie_bounds"]


# --------------------------------------------------------------------------------------------
# Kernel 1 (unweighted): one sort of int64 keys that carry the labels in their low bits
# --------------------------------------------------------------------------------------------
#: Length of the blocks of the streaming loops; a block's temporaries stay in the L2 cache.
BLOCK = 1 << 15
#: Length of the blocks of the tie-bound scans (rank route, ordinal kernel): their ~8
#: temporaries stay under 1 % of the scores' bytes from n = 10^6 (and in the L1/L2 caches).
SCAN = 1 << 13
#: Most label bits one coded sort carries (binary labels: one bit each; L levels: ⌈log2 L⌉).
MAX_BITS = 6
#: The compiled float key the keys pass calls, under this global name: bound at compile time by
#: :func:`bipartite._utils.compiled.compiled` (``calls``), not through a closure.
_float_key = None


@functools.cache
def _key_passes():
    """The two compiled passes of the coded sort (``_utils.compiled``, numba loaded on the first
    call): the exponent bounds of the scores (one read) and the keys (one write, in blocks so that
    the scaled doubles are read back from the cache). ``tests/test_metrics.py`` keeps the NumPy
    reference of both."""
    low63 = np.uint64(LOW63)  # the magnitude bits
    one = np.uint64(1)

    def bounds(u):                  # u: the scores' bit patterns (uint64)
        lo = ~np.uint64(0)
        hi = np.uint64(0)
        for i in range(u.shape[0]):
            a = u[i] & low63        # |s|: a non-negative double orders like its bits
            hi = max(hi, a)
            lo = min(lo, a - one)   # zeros wrap to the largest value
        return lo, hi

    def keys(s, codes, bits, c1, c2, out):
        of = out.view(np.float64)
        for a in range(0, s.shape[0], SCAN):
            b = min(s.shape[0], a + SCAN)
            for i in range(a, b):
                of[i] = (s[i] + 0.0) * c1 * c2      # −0.0 + 0.0 = +0.0: the two zeros tie
            for i in range(a, b):
                k = out[i]
                out[i] = (_float_key(k) << bits) | np.int64(codes[i])
        return out

    return compiled(bounds), compiled(keys, calls={"_float_key": compiled_float_key()})


def _exponent_range(s: np.ndarray) -> tuple[int, int]:
    """IEEE-754 exponent fields of the smallest non-zero ``|s|`` and of the largest ``|s|``
    (subnormals have field 0; all zero gives (2047, 0)), from one compiled read of the bits
    (:func:`_key_passes`)."""
    lo, hi = _key_passes()[0](np.ascontiguousarray(s, dtype=np.float64).view(np.uint64))
    return min((int(lo) + 1) >> 52, 2047), int(hi) >> 52


def finite_exponent_range(s: np.ndarray) -> tuple[int, int]:
    """:func:`_exponent_range`, refusing NaN and inf (exponent field 2047) by name: the finiteness
    check of the scores folded into the pass that the coded sort makes anyway."""
    e_range = _exponent_range(s)
    if e_range[1] == 2047:
        check_finite(s, "y_score")
    return e_range


def key_exponent(e_range: tuple[int, int], bits: int) -> int | None:
    """The q for which :func:`coded_keys` of ``s · 2^q`` are exact with ``bits`` free low bits,
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


def coded_keys(s: np.ndarray, codes: np.ndarray, bits: int, q: int) -> np.ndarray:
    """Sorted int64 keys ``key(s_i · 2^q) · 2^bits + codes_i``: ascending scores, equal scores
    equal keys, and within a tie the codes ascending. One compiled pass builds them
    (:func:`_key_passes`: ``s + 0.0`` so that ``−0.0`` ties ``+0.0``, the scaling, the bit
    pattern with the magnitude bits of negatives flipped), then one ``sort``."""
    # 2^q with q < −1022 is applied in two exact steps (2^q itself would underflow).
    c1, c2 = (2.0**q, 1.0) if q >= -1022 else (2.0**-1022, 2.0 ** (q + 1022))
    out = _key_passes()[1](np.ascontiguousarray(s, dtype=np.float64), np.ascontiguousarray(codes),
                           np.int64(bits), c1, c2, np.empty(len(s), dtype=np.int64))
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


def check_scores(y_score: ArrayLike, n: int | None = None, *, finite: bool = True,
                 labels: str = "y_true") -> np.ndarray:
    """``y_score`` as a 1-D float64 array of length n, the number of rows of the argument named
    ``labels``. ``finite=False`` leaves the NaN/inf check to the kernel
    (``finite_exponent_range`` or ``check_finite``: the same error). Every metric here uses the
    scores only through their order: integers beyond 2**53 are ranked exactly
    (``check_array(exact_integers="order")``), not rounded into ties."""
    s = check_array(y_score, "y_score", ndim=1, finite=finite, exact_integers="order")
    if n is not None:
        check_consistent_length(**{labels: np.empty(n)}, y_score=s)
    return s


#: Sorted keys whose sampled block has fewer than this share of key changes are summed by runs
#: of equal keys (:func:`_run_position_sums`), not element by element.
_RUN_SHARE = 1 / 8


def _few_runs(a: np.ndarray) -> bool:
    """Whether the sorted keys ``a`` look tie-heavy: fewer than ``_RUN_SHARE`` key changes in one
    block from their middle (the rule only picks between two exact computations)."""
    mid = a[len(a) // 2 : len(a) // 2 + BLOCK]
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
    pos = np.arange(min(n, BLOCK), dtype=np.int64)
    lab, x = np.empty(len(pos), dtype=np.int64), np.empty(len(pos), dtype=np.int64)
    edges = []
    for lo in range(0, n, BLOCK):
        hi = min(n, lo + BLOCK)
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
    """AUC of each column of the 0/1 matrix Y (≤ MAX_BITS columns) from one coded sort, in exact
    integer arithmetic (docs/theory.md §2.3): ``U = Σ_pos position − n₁(n₁−1)/2`` counts the
    pairs whose negative sorts first; inside a tie group that depends on the other label bits, and
    :func:`_code_ties` corrects the tied pairs to ½. None when the keys cannot hold the bits."""
    n, bits = Y.shape
    q = key_exponent(e_range, bits)
    if q is None:
        return None
    a = coded_keys(s, _pack_labels(Y), bits, q)
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
    k = float_key(full.view(np.int64))  # in place (full is this function's copy)
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
    cw = None if w is None else prefix_sums(w[order])
    out = np.empty(n)
    for lo in range(0, n, SCAN):
        hi = min(n, lo + SCAN)
        tb = tie_bounds(ks, 0, lo, hi)
        first, end = (np.arange(lo, hi), np.arange(lo + 1, hi + 1)) if tb is None else tb
        out[order[lo:hi]] = first + end + 1 if w is None else 0.5 * (cw[first] + cw[end])
    return out


def _label_sums(Y: np.ndarray, cols: list, negatives: bool) -> np.ndarray:
    """``Yᵀ R`` (K, m) for 0/1 labels Y (n, K) and the row values R = [cols] (n, m; None: a column
    of ones), and ``(1 − Y)ᵀ R`` after it when ``negatives``: one read of Y, in row blocks that
    are cast to float64 once, of at most CELLS cells and a quarter of the input's bytes."""
    n, K = Y.shape
    out = np.zeros((2 if negatives else 1, K, len(cols)))
    step = max(1, min(CELLS, (Y.nbytes + 8 * n) // 32) // max(K, 1))
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
    :func:`key_exponent`). Otherwise, and with weights for K > 1: the rank route, one sort order
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
# Scans of sorted keys in blocks (the rank route here, the ordinal kernels of _multipartite.py)
# --------------------------------------------------------------------------------------------
#: Cells (rows × labels or levels) of the chunked temporaries: the rank route's label sums
#: (:func:`_label_sums`) and the general-cost ordinal route.
CELLS = 1 << 18


def tie_bounds(keys: np.ndarray, mask: int, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray] | None:
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


def prefix_sums(ws: np.ndarray) -> np.ndarray:
    """``[0, w_0, w_0 + w_1, ...]`` (n + 1), summed block by block (error ~(block + n/block) ulps
    instead of n)."""
    out = np.empty(len(ws) + 1)
    out[0] = 0.0
    for lo in range(0, len(ws), BLOCK):
        hi = min(len(ws), lo + BLOCK)
        np.cumsum(ws[lo:hi], out=out[lo + 1 : hi + 1])
        out[lo + 1 : hi + 1] += out[lo]
    return out
