"""Exact ranking metrics for one or several binary labels (docs/theory.md §2, §3).

Every AUC in the package — empirical, weighted, multi-label, multipartite, per-group, and the exact
population AUC of :class:`bipartite.population.FiniteProblem` — is the tie-group formula of
docs/theory.md §2.2, computed by one of two private kernels that share it:

* **Coded sort** (unweighted labels: :func:`auc`, :func:`multilabel_auc`, :func:`multipartite_auc`).
  The scores become int64 keys that order like them (the bit pattern of a double, scaled by a
  power of two so that low bits are free), the labels ride in those low bits (up to
  ``_MAX_BITS`` binary labels, or ⌈log2 L⌉ bits of an ordinal level), and one ``np.sort`` of the
  keys — far faster than ``np.argsort`` — replaces the argsort and every gather. Counts are exact
  integers: the sum of the positives' positions gives the pairs counted won, and the tie groups
  that mix codes correct their pairs to ½ (:func:`_coded_binary_aucs`); for levels the runs of
  equal keys are the (tie group × level) histogram (:func:`_run_histogram`). Used whenever the
  non-zero scores span few enough binades (always for one label).
* **Argsort** (sample weights, population masses, groups, and the fallback): one argsort and
  per-tie-group sums of the weights (:func:`_ranked_sums`, :func:`_weighted_label_sums`).

Weights are scaled by a power of two first (exact): sums and products of weights cannot under- or
overflow, so every metric is invariant to rescaling the weights. **Ties count ½** everywhere: a
pair with equal scores contributes half a win. With fractional (population) weights a point's
pairing with itself is a tie, so self-pairs are included, as docs/theory.md §2 requires.

Undefined values (a label with only one class, an ordinal label with one level) return NaN with an
:class:`~bipartite.UndefinedMetricWarning`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bipartite._utils.validation import (
    check_array,
    check_binary,
    check_consistent_length,
    check_nonnegative,
    check_option,
    check_sample_weight,
    warn_undefined,
)
from bipartite.labels import cost_matrix
from bipartite.ranked_metrics import (
    ranked_accuracy,
    ranked_exact_match,
    ranked_f1,
    ranked_map,
    ranked_precision,
    ranked_recall,
    ranked_scores,
    unranked_scores,
)

__all__ = [
    # ranked (label-ranking) metrics of RLSEP §5.3, implemented in bipartite.ranked_metrics
    "ranked_scores",
    "ranked_precision",
    "ranked_recall",
    "ranked_f1",
    "ranked_accuracy",
    "ranked_exact_match",
    "ranked_map",
    "unranked_scores",
    "auc",
    "multilabel_auc",
    "multipartite_auc",
    "group_auc",
    "average_precision",
    "ndcg_at_k",
    "diff_auc",
    "min_auc",
    "weighted_auc",
    "weighted_multipartite_auc",
]


# --------------------------------------------------------------------------------------------
# Normalisation: every AUC is a ratio of bilinear forms in the weights, so a power of two that
# brings the largest weight near 1 changes nothing (it is exact) and keeps sums and products of
# weights inside the float64 range (weights of 1e-170 would otherwise underflow to 0 in ΣP·ΣN).
# --------------------------------------------------------------------------------------------
def _pow2_normalise(x: np.ndarray, axis: int | None = None) -> np.ndarray:
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


def _key_exponent(e_range: tuple[int, int], bits: int) -> int | None:
    """The q for which :func:`_coded_keys` of ``s · 2^q`` are exact with ``bits`` free low bits,
    or None when the non-zero ``|s|`` span too many binades.

    The int64 key of a double (its bit pattern, magnitude bits flipped for negatives) uses 11
    exponent bits. Scaling by ``2^q`` is exact while no non-zero value becomes subnormal, so keys
    with ``bits`` free bits exist iff the exponent fields span at most ``2^(11−bits) − 1`` values:
    any finite scores for one bit, ratios ``max|s| / min|s|`` below 2^63 for 5 bits."""
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
    """Up to 8 binary label columns packed into one byte per row (column j in bit j)."""
    if Y.shape[1] == 1:
        return (Y[:, 0] != 0).view(np.uint8)
    return np.einsum("ij,j->i", Y, 2.0 ** np.arange(Y.shape[1])).astype(np.uint8)


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
    cnt, S, edges = _label_position_sums(a, bits)
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
# Kernel 2 (weights, groups, populations): one argsort, sums per tie group
# --------------------------------------------------------------------------------------------
def _tie_starts(sorted_scores: np.ndarray) -> np.ndarray:
    new = np.empty(len(sorted_scores), dtype=bool)
    new[0] = True
    np.not_equal(sorted_scores[1:], sorted_scores[:-1], out=new[1:])
    return np.flatnonzero(new)


def _ranked_sums(
    scores: np.ndarray, weights: np.ndarray, groups: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """One sort; per tie group (ascending score order), the sums of each weight row.

    Parameters
    ----------
    scores : (n,) float
    weights : (m, n) float — weight *rows* (positives, negatives, ordinal levels...); row layout
        keeps every gather and segment sum one-dimensional and contiguous.
    groups : (n,) int, optional — if given, ties are taken within each group only.

    Returns
    -------
    G : (m, T) sums of each weight row over each tie group,
    tie_group_of : (T,) group id of each tie group, or None.
    """
    if groups is None:
        order = np.argsort(scores)
        starts = _tie_starts(scores[order])
    else:
        order = np.lexsort((scores, groups))
        s, g = scores[order], groups[order]
        starts = np.flatnonzero(np.r_[True, (s[1:] != s[:-1]) | (g[1:] != g[:-1])])
    # float64 sums: exact for integer counts below 2**53 (STYLE.md habit 6).
    G = np.add.reduceat(weights[:, order], starts, axis=1)
    return G, None if groups is None else groups[order][starts]


def _below(G: np.ndarray) -> np.ndarray:
    """Sums over the strictly lower tie groups."""
    return np.cumsum(G, axis=-1) - G


def _auc_ratio(Gp: np.ndarray, Gn: np.ndarray) -> np.ndarray:
    """docs/theory.md §2 from tie-group sums of positive (Gp) and negative (Gn) weight, rows = labels:
    ``Σ_t P_t (N_below,t + ½ N_t) / (ΣP ΣN)``, NaN where a label has no positive or negative
    weight. The callers scale the weights by powers of two first (:func:`_pow2_normalise`, exact)
    so that the products cannot under- or overflow. Totals come from the same tie-group sums as
    the numerator, so a constant scorer (one tie group) gives exactly ½ in floating point."""
    num = np.einsum("kt,kt->k", Gp, _below(Gn) + 0.5 * Gn)
    denom = Gp.sum(axis=1) * Gn.sum(axis=1)
    return np.divide(num, denom, out=np.full(len(num), np.nan), where=denom > 0)


def _auc_from_weights(scores: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """AUC of one scorer against K labels given positive and negative weights (n, K).

    ``AUC_k = Σ_{i,j} pos_ik neg_jk s(f_i, f_j) / (Σ pos_k Σ neg_k)``: the Mann–Whitney statistic
    when weights are 0/1 sample weights, and the exact population AUC of docs/theory.md §2 when
    ``pos = p η``, ``neg = p (1 − η)`` (then self-pairs are counted as ties). NaN where a label has
    no positive or no negative weight (no warning here; callers warn).
    """
    K = pos.shape[1]
    rows = _pow2_normalise(np.concatenate([pos, neg], axis=1), 0).T  # each column max in [½, 1)
    G, _ = _ranked_sums(scores, rows)
    return _auc_ratio(G[:K], G[K:])


def _weighted_label_sums(
    scores: np.ndarray, Y: np.ndarray, w: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per label (rows) and tie group, the positive and the negative weight of 0/1 labels Y
    (n, K), from one argsort; the tie groups come from ``np.sort`` (cheaper than a gather). One
    label rides in the sign of the gathered weight; more are gathered packed, 8 to a byte."""
    n, K = Y.shape
    order = np.argsort(scores)
    starts = _tie_starts(np.sort(scores))
    wn = np.ones(n) if w is None else _pow2_normalise(w)
    if K == 1:
        vo = np.take(np.where(Y[:, 0] != 0, wn, -wn), order)
        return (np.add.reduceat(np.maximum(vo, 0.0), starts)[None],
                np.add.reduceat(np.maximum(-vo, 0.0), starts)[None])
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


def _auc_from_labels(scores: np.ndarray, Y: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """AUC of each column of the 0/1 matrix Y (n, K) with optional sample weights.

    Unweighted: the labels ride in the low bits of the sort keys, up to ``_MAX_BITS`` labels per
    sort, when that takes few sorts (``_MAX_CODED_SORTS``) and the score range allows it (it
    always does for one label: any finite scores). Otherwise, and with weights: one argsort and
    per-tie-group weight sums (:func:`_weighted_label_sums`)."""
    n, K = Y.shape
    if w is None:
        e_range = _exponent_range(scores)
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
    Gp, Gn = _weighted_label_sums(scores, Y, w)
    return _auc_ratio(_pow2_normalise(Gp, 1), _pow2_normalise(Gn, 1))


def _multipartite_ratio(G: np.ndarray, C: np.ndarray) -> float:
    """AUC_MP (docs/theory.md §3) from tie-group sums of level weights G (L, T) and costs C (L, L):
    ``num = Σ_t Σ_a G[a,t] Σ_b C[a,b] (B[b,t] + ½ G[b,t])``, ``den = Σ_{a,b} C[a,b] T_a T_b`` with
    B the sums over lower tie groups. NaN when the denominator is 0 (fewer than two levels with
    weight, or zero costs). C is scaled by a power of two first (exact)."""
    C = _pow2_normalise(C)
    num = float(np.sum(G * (C @ (_below(G) + 0.5 * G))))
    T = G.sum(axis=1, keepdims=True)  # same operation order as num: a constant scorer gives ½
    den = float(np.sum(T * (C @ T)))
    return num / den if den > 0 else float("nan")


def _multipartite_from_weights(scores: np.ndarray, level_w: np.ndarray, C: np.ndarray) -> float:
    """AUC_MP from per-point level weights (n, L) — the population route (docs/theory.md §3)."""
    G, _ = _ranked_sums(scores, np.ascontiguousarray(_pow2_normalise(level_w).T))
    return _multipartite_ratio(G, C)


def _multipartite_from_levels(
    scores: np.ndarray, level: np.ndarray, L: int, w: np.ndarray | None, C: np.ndarray
) -> float:
    """AUC_MP for one observed level per point (uint8 ``level`` in [0, L)) — the empirical route:
    unweighted, one coded sort (levels in the low key bits) and its runs; with weights (or too
    many levels, or a score range the keys cannot hold), one argsort and a (tie group, level)
    histogram. O(n log n + T L)."""
    bits = max(1, (L - 1).bit_length())
    if w is None and bits <= _MAX_BITS:
        q = _key_exponent(_exponent_range(scores), bits)
        if q is not None:
            a = _coded_keys(scores, level, bits, q)
            return _multipartite_ratio(_run_histogram(a, bits, L), C)
    order = np.argsort(scores)
    new = np.zeros(len(scores), dtype=np.int64)
    new[_tie_starts(np.sort(scores))] = 1
    gid = np.cumsum(new) - 1
    T = int(gid[-1]) + 1
    wo = None if w is None else _pow2_normalise(w)[order]
    hist = np.bincount(gid * L + level[order], weights=wo, minlength=T * L)
    return _multipartite_ratio(np.ascontiguousarray(hist.reshape(T, L).T, dtype=np.float64), C)


# --------------------------------------------------------------------------------------------
# Weighted kernels (the population route: bipartite.population, bipartite.dictatorship)
# --------------------------------------------------------------------------------------------
def weighted_auc(y_score: Any, pos_weight: Any, neg_weight: Any) -> np.ndarray:
    """AUC of one scorer against K labels from per-item positive and negative masses
    (docs/theory.md §2).

    ``AUC_k = Σ_{i,j} pos_ik neg_jk s(f_i, f_j) / (Σ_i pos_ik Σ_j neg_jk)`` with ``s = 1`` for
    ``f_i > f_j``, ``½`` for a tie and 0 otherwise. With 0/1 sample weights this is the
    Mann–Whitney statistic (:func:`auc`); with ``pos = p η`` and ``neg = p (1 − η)`` it is the exact
    population AUC of a finite-support problem, self-pairs counted as ties, so a constant scorer
    scores exactly ½ (:meth:`bipartite.population.FiniteProblem.auc`).

    Parameters
    ----------
    y_score : array-like of shape (n,)
    pos_weight, neg_weight : array-like of shape (n, K), non-negative

    Returns
    -------
    ndarray of shape (K,): NaN, without a warning, where a label has no positive or no negative
    mass (callers decide how to report it).

    >>> weighted_auc([0.1, 0.9], [[0.0], [1.0]], [[1.0], [0.0]]).tolist()
    [1.0]
    """
    s = _check_scores(y_score)
    pos = check_nonnegative(check_array(pos_weight, "pos_weight", ndim=2), "pos_weight")
    neg = check_nonnegative(check_array(neg_weight, "neg_weight", ndim=2), "neg_weight")
    if pos.shape != neg.shape or pos.shape[0] != len(s):
        raise ValueError(f"The 'pos_weight' and 'neg_weight' parameters must both have shape "
                         f"(n, K) with n = len(y_score) = {len(s)}, got {pos.shape} and "
                         f"{neg.shape}.")
    return _auc_from_weights(s, pos, neg)


def weighted_multipartite_auc(y_score: Any, level_weight: Any, costs: Any) -> float:
    """Multipartite AUC from per-item level masses (n, L) and an (L, L) cost matrix ``costs``
    (docs/theory.md §3): the population route of :func:`multipartite_auc`.

    ``AUC_MP = Σ_{i,j} Σ_{a,b} q_ia q_jb C_ab s(f_i, f_j) / Σ_{i,j} Σ_{a,b} q_ia q_jb C_ab`` (ties ½,
    self-pairs included). NaN, without a warning, when the denominator is 0.

    >>> weighted_multipartite_auc([0.0, 1.0], [[1.0, 0.0], [0.0, 1.0]], [[0, 0], [1, 0]])
    1.0
    """
    s = _check_scores(y_score)
    q = check_nonnegative(check_array(level_weight, "level_weight", ndim=2), "level_weight")
    C = check_nonnegative(check_array(costs, "costs", ndim=2), "costs")
    if q.shape[0] != len(s) or C.shape != (q.shape[1], q.shape[1]):
        raise ValueError(f"The 'level_weight' parameter must have shape (n, L) with n = "
                         f"{len(s)} and 'costs' shape (L, L), got {q.shape} and "
                         f"{C.shape}.")
    return _multipartite_from_weights(s, q, C)


# --------------------------------------------------------------------------------------------
# Public metrics
# --------------------------------------------------------------------------------------------
def _check_scores(y_score: Any, n: int | None = None) -> np.ndarray:
    s = check_array(y_score, "y_score", ndim=1)
    if n is not None:
        check_consistent_length(y_true=np.empty(n), y_score=s)
    return s


def auc(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """Area under the ROC curve: the Mann–Whitney statistic with ties counted ½ (docs/theory.md §2).

    ``AUC = Σ_{i pos, j neg} w_i w_j s(f_i, f_j) / (Σ_pos w · Σ_neg w)`` with
    ``s(a, b) = 1[a > b] + ½ 1[a = b]``. Equal to :func:`sklearn.metrics.roc_auc_score`,
    computed in O(n log n) from one sort.

    Parameters
    ----------
    y_true : array-like of shape (n,) with values in {0, 1}
    y_score : array-like of shape (n,)
    sample_weight : array-like of shape (n,), optional, non-negative

    Returns
    -------
    float — NaN, with an :class:`~bipartite.UndefinedMetricWarning`, when only one class has
    positive weight.

    >>> auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> auc([0, 1], [1.0, 1.0])  # a tie counts one half
    0.5
    """
    y = check_binary(y_true, "y_true")
    s = _check_scores(y_score, len(y))
    w = None if sample_weight is None else check_sample_weight(sample_weight, len(y))
    val = _auc_from_labels(s, y[:, None], w)[0]
    if np.isnan(val):
        return warn_undefined("AUC is undefined: y_true has only one class (with positive weight).")
    return float(val)


def multilabel_auc(Y: Any, y_score: Any, *, sample_weight: Any = None) -> np.ndarray:
    """The AUC of one scorer against each of K labels, sharing one sort (docs/theory.md §2).

    Parameters
    ----------
    Y : array-like of shape (n, K) with values in {0, 1}
    y_score : array-like of shape (n,)
    sample_weight : array-like of shape (n,), optional

    Returns
    -------
    ndarray of shape (K,) — NaN (with a warning) for labels with one class.

    >>> multilabel_auc([[0, 1], [1, 0], [1, 1]], [0.1, 0.5, 0.9]).tolist()
    [1.0, 0.5]
    """
    Yb = check_binary(Y, "Y", ndim=2)
    s = _check_scores(y_score, Yb.shape[0])
    w = None if sample_weight is None else check_sample_weight(sample_weight, Yb.shape[0])
    out = _auc_from_labels(s, Yb, w)
    bad = np.flatnonzero(np.isnan(out))
    if bad.size:
        warn_undefined(f"AUC is undefined for label(s) {bad.tolist()}: only one class.")
    return out


def _check_auc_vector(aucs: Any) -> np.ndarray:
    v = check_array(aucs, "aucs", ndim=1, finite=False)
    if np.isinf(v).any():
        raise ValueError(f"The 'aucs' parameter must not contain inf, got {v.tolist()}.")
    bad = np.flatnonzero(~np.isnan(v) & ((v < -_AUC_SLACK) | (v > 1 + _AUC_SLACK)))
    if bad.size:
        raise ValueError(f"The 'aucs' parameter must hold AUCs in [0, 1], got {float(v[bad[0]])!r} at "
                         f"index {int(bad[0])}.")
    if len(v) < 2:
        raise ValueError(f"The 'aucs' parameter must hold at least 2 per-label AUCs, got {len(v)}.")
    return np.clip(v, 0.0, 1.0)  # NaN stays NaN; rounding excess (a ratio of float sums) is removed


#: AUCs computed as ratios of floating-point sums may leave [0, 1] by a few ulps (1.0000000000000002
#: from a population AUC); :func:`diff_auc` and :func:`min_auc` accept and clip that much.
_AUC_SLACK = 1e-12


def diff_auc(aucs: Any) -> float:
    """Diff AUC of a vector of per-label AUCs: ``max_k AUC_k − min_k AUC_k`` (docs/theory.md §2).

    For K = 2 this is LA25 §7's ``|AUC_1 − AUC_2|``; lower is more balanced. NaN, with an
    :class:`~bipartite.UndefinedMetricWarning`, when an AUC is NaN (a label with one class).

    >>> diff_auc([0.616, 0.562])
    0.054
    >>> round(diff_auc([0.9, 0.7, 0.8]), 10)
    0.2
    """
    v = _check_auc_vector(aucs)
    if np.isnan(v).any():
        return warn_undefined("diff_auc is undefined: an AUC is NaN (a label with one class).")
    return float(round(v.max() - v.min(), 15))


def min_auc(aucs: Any) -> float:
    """Min AUC of a vector of per-label AUCs: ``min_k AUC_k``, the worst-served label
    (docs/theory.md §2; LA25 §7: higher is more balanced). NaN, with a warning, when an AUC is NaN.

    >>> min_auc([0.616, 0.562])
    0.562
    """
    v = _check_auc_vector(aucs)
    if np.isnan(v).any():
        return warn_undefined("min_auc is undefined: an AUC is NaN (a label with one class).")
    return float(v.min())


def multipartite_auc(
    y_true: Any, y_score: Any, *, costs: str | Any = "linear", sample_weight: Any = None
) -> float:
    """Multipartite AUC with costs (LA25 Def. 2.3 / Eq. 5; docs/theory.md §3).

    ``AUC_MP = Σ_{y>y'} c(y,y') [#{f(x)>f(x')} + ½ #{ties}] / Σ_{y>y'} c(y,y') n_y n_{y'}`` over
    pairs with ``Ȳ = y``, ``Ȳ' = y'``. A perfect ranking scores 1 and a constant scorer ½.
    O(n log n + n L) with one sort and cumulative level counts.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Ordinal labels (any real values; the L distinct values are the levels, sorted).
    y_score : array-like of shape (n,)
    costs : {"uniform", "linear", "squared", "gain"} or array-like (L, L)
        See :func:`bipartite.labels.cost_matrix`; a matrix is indexed by the sorted levels.
    sample_weight : array-like of shape (n,), optional

    Returns
    -------
    float — NaN (with a warning) if fewer than two levels are present.

    >>> multipartite_auc([0, 1, 2], [0.0, 2.0, 1.0], costs="linear")
    0.75
    >>> multipartite_auc([0, 1, 2], [0.0, 2.0, 1.0], costs="uniform")
    0.6666666666666666
    """
    y = check_array(y_true, "y_true", ndim=1)
    s = _check_scores(y_score, len(y))
    w = None if sample_weight is None else check_sample_weight(sample_weight, len(y))
    levels = np.unique(y)
    if len(levels) < 2:
        return warn_undefined("multipartite AUC is undefined: y_true has fewer than two levels.")
    C = cost_matrix(levels, costs)
    val = _multipartite_from_levels(s, _level_index(y, levels), len(levels), w, C)
    if np.isnan(val):
        return warn_undefined("multipartite AUC is undefined: no weighted pair has positive cost.")
    return val


def _level_index(y: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Index of each value of y in the sorted distinct ``levels`` (uint8 for up to 256 levels):
    a cast for levels 0..L−1, comparisons for few levels, a binary search otherwise (faster than
    ``np.unique(return_inverse=True)``, which sorts with an argsort)."""
    L = len(levels)
    dtype = np.uint8 if L <= 256 else np.intp
    if np.array_equal(levels, np.arange(L)):
        return y.astype(dtype)
    if L <= 16:
        idx = np.zeros(len(y), dtype=dtype)
        for v in levels[1:]:
            idx += y >= v
        return idx
    return np.searchsorted(levels, y).astype(dtype)


_GROUP_WEIGHTINGS = ("pairs", "uniform", "impressions")


def group_auc(
    y_true: Any,
    y_score: Any,
    groups: Any,
    *,
    sample_weight: Any = None,
    weighting: str = "pairs",
) -> float:
    """Group AUC (gAUC, MTRUB §3.1.2; docs/theory.md §2): per-group AUC, averaged over groups.

    Only groups containing both classes enter the average. Each group is weighted by
    ``weighting``: ``"pairs"`` (default) — its number of positive–negative pairs (weighted:
    ``Σ_pos w · Σ_neg w``), which makes gAUC the AUC over within-group pairs; ``"uniform"`` — 1
    per group; ``"impressions"`` — its total sample weight (number of rows when unweighted).
    One lexicographic sort serves all groups.

    Returns NaN (with a warning) if no group has both classes.

    >>> group_auc([0, 1, 0, 1], [0.2, 0.1, 0.3, 0.9], groups=[0, 0, 1, 1])
    0.5
    """
    y = check_binary(y_true, "y_true")
    s = _check_scores(y_score, len(y))
    g_raw = np.asarray(groups)
    if g_raw.ndim != 1:
        raise ValueError(f"The 'groups' parameter must be 1-dimensional, got shape {g_raw.shape}.")
    check_consistent_length(y_true=y, groups=g_raw)
    check_option(weighting, "weighting", _GROUP_WEIGHTINGS)
    w = _pow2_normalise(check_sample_weight(sample_weight, len(y)))  # exact; no underflow in P·N
    _, g = np.unique(g_raw, return_inverse=True)
    pos, neg = w * y, w * (1.0 - y)
    G, tg = _ranked_sums(s, np.stack([pos, neg]), groups=g)
    first = np.r_[True, tg[1:] != tg[:-1]]
    B = _below(G)
    B = B - B[:, first][:, np.cumsum(first) - 1]  # restart the lower sums at every group
    n_groups = int(g.max()) + 1
    num = np.bincount(tg, G[0] * (B[1] + 0.5 * G[1]), minlength=n_groups)
    P = np.bincount(g, pos, minlength=n_groups)
    N = np.bincount(g, neg, minlength=n_groups)
    ok = (P > 0) & (N > 0)
    if not ok.any():
        return warn_undefined("group AUC is undefined: no group has both classes.")
    per_group = num[ok] / (P[ok] * N[ok])
    if weighting == "pairs":
        gw = (P * N)[ok]
    elif weighting == "uniform":
        gw = np.ones(ok.sum())
    else:
        gw = np.bincount(g, w, minlength=n_groups)[ok]
    return float(np.sum(gw * per_group) / np.sum(gw))


def average_precision(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """Average precision, as :func:`sklearn.metrics.average_precision_score` (docs/theory.md §8).

    ``AP = Σ_t (R_t − R_{t−1}) P_t`` over distinct score thresholds (tied scores form one
    threshold). Returns NaN (with a warning) when there is no positive label — sklearn would
    return 0 there.

    >>> round(average_precision([0, 1, 1, 0], [0.1, 0.9, 0.4, 0.5]), 4)
    0.8333
    """
    from sklearn.metrics import average_precision_score

    y = check_binary(y_true, "y_true")
    s = _check_scores(y_score, len(y))
    w = check_sample_weight(sample_weight, len(y))
    if not np.any(w * y > 0):
        return warn_undefined("average precision is undefined: no positive label.")
    return float(average_precision_score(y, s, sample_weight=w))


def ndcg_at_k(
    relevance: Any,
    y_score: Any,
    *,
    k: int | None = 10,
    groups: Any = None,
    gain: str = "exponential",
) -> float:
    """Normalised DCG at cut-off k, averaged over groups (queries).

    ``DCG@k = Σ_{r<k} gain(rel_(r)) / log2(r + 2)`` over the list sorted by decreasing score, with
    ``gain = 2^rel − 1`` (``"exponential"``, the LETOR/MSLR convention) or ``rel`` (``"linear"``,
    sklearn's ``ndcg_score``). **Ties** are averaged as in sklearn (``ignore_ties=False``): tied
    items share the mean gain of their tie group over the positions they occupy. Groups whose
    ideal DCG is 0 (no relevant item) are undefined and excluded from the mean; NaN with a warning
    if every group is.

    >>> # DCG@3 = 3 + 0/log2(3) + 1/2 = 3.5;  IDCG@3 = 3 + 2/log2(3) + 1/2
    >>> round(ndcg_at_k([3, 2, 0, 1], [0.9, 0.1, 0.5, 0.4], k=3, gain="linear"), 4)
    0.735
    """
    rel = check_array(relevance, "relevance", ndim=1)
    check_nonnegative(rel, "relevance")
    s = _check_scores(y_score, len(rel))
    check_option(gain, "gain", ("exponential", "linear"))
    if k is not None and (not isinstance(k, (int, np.integer)) or k < 1):
        raise ValueError(f"The 'k' parameter must be a positive integer or None, got {k!r}.")
    if groups is None:
        g = np.zeros(len(rel), dtype=np.int64)
    else:
        g_raw = np.asarray(groups)
        check_consistent_length(relevance=rel, groups=g_raw)
        _, g = np.unique(g_raw, return_inverse=True)
    gains = np.exp2(rel) - 1.0 if gain == "exponential" else rel
    n = len(rel)
    n_groups = int(g.max()) + 1
    kk = n if k is None else int(k)

    def positions(order: np.ndarray) -> np.ndarray:
        gs = g[order]
        start = np.r_[0, np.flatnonzero(gs[1:] != gs[:-1]) + 1]
        first_of = np.repeat(start, np.diff(np.r_[start, n]))
        return np.arange(n) - first_of

    def discount(pos: np.ndarray) -> np.ndarray:
        return np.where(pos < kk, 1.0 / np.log2(pos + 2.0), 0.0)

    # Actual DCG with tie averaging: sort by (group, -score); tie groups share their mean gain.
    order = np.lexsort((-s, g))
    disc = discount(positions(order))
    gs, ss = g[order], s[order]
    new = np.r_[True, (gs[1:] != gs[:-1]) | (ss[1:] != ss[:-1])]
    tid = np.cumsum(new) - 1
    t_gain = np.bincount(tid, gains[order])
    t_cnt = np.bincount(tid)
    t_disc = np.bincount(tid, disc)
    dcg = np.bincount(gs[new], t_gain / t_cnt * t_disc, minlength=n_groups)
    # Ideal DCG: sort by decreasing gain within group (ties in gain are irrelevant).
    iorder = np.lexsort((-gains, g))
    idcg = np.bincount(g[iorder], gains[iorder] * discount(positions(iorder)), minlength=n_groups)
    ok = idcg > 0
    if not ok.any():
        return warn_undefined("nDCG is undefined: no group has a relevant item.")
    return float(np.mean(dcg[ok] / idcg[ok]))
