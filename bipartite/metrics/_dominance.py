"""Dominance sums over a sequence of levels, in one compiled pass (docs/theory.md §3.2): with
Fenwick trees over the levels (:func:`dominance_sums`, O(n log L)) or with a vector of L running
sums (:func:`level_pair_sum`, O(n L), any cost table). Private to ``bipartite.metrics``; the
routes that use it are ``_polynomial.ordered_pairs`` (uniform and polynomial costs: the vector
pass up to ``VECTOR_MAX_LEVELS`` levels, the trees beyond) and ``_multipartite`` (general costs).

For the levels ``ℓ_1..ℓ_n`` of the rows in ascending score order, weights ``ω`` (1 unweighted),
level values ``v`` and a cost ``c(lo, hi) = Σ_{(r,s)} β_rs v_lo^r v_hi^s`` of a pair (``v_lo``
the lower level's value), :func:`dominance_sums` returns

* ``plus  = Σ_{f_p < f_q, ℓ_p < ℓ_q} ω_p ω_q c(ℓ_p, ℓ_q)`` (the lower level scores lower), and
* ``minus = Σ_{f_p < f_q, ℓ_p > ℓ_q} ω_p ω_q c(ℓ_q, ℓ_p)`` (the higher level scores lower);

tied pairs (equal scores) count in neither: a tie group's rows are queried before any of them
enters the running sums. So ``A = plus − minus`` is the numerator of docs/theory.md §3.2 with
ties at ½, and nothing is left to correct.

Row q's share is ``ω_q Σ_r M^<_r CL_{ℓ_q r}`` and ``ω_q Σ_s M^>_s CH_{ℓ_q s}``, where ``M^<_r``
(``M^>_s``) sums ``ω_p v_p^r`` over the rows of lower (higher) levels in lower tie groups, and the per-level
tables ``CL_{b r} = Σ_s β_rs v_b^s``, ``CH_{b s} = Σ_r β_rs v_b^r`` hold the rest of the
monomials. A Fenwick tree over the level index keeps the running sums ``M`` of every monomial
power: a prefix query and an update per row, each ``⌈log2 L⌉`` nodes at most, so
O(n log L · (deg + 1)) after the one sort, in one pass over the sequence.

* **Exact** (unweighted, integer values and coefficients, every sum below 2^62 —
  ``_polynomial.exact_bound``): one tree of int64 sums; ``M^>`` is the running total less
  the lower levels and the row's own level (exact integers); Python ints are returned.
* **Floating point** (weighted, or non-integer values): a second tree over the reversed level
  index gives ``M^>`` directly, so every running sum adds non-negative terms (``ω ≥ 0``,
  ``v ≥ 0``) of one side's rows only: nothing of a heavy level's own rows cancels.

The kernel is compiled by numba on its first call (once per monomial degree and dtype; the
machine code is cached on disk), and numba is imported only then: ``import bipartite`` does not
pay for it.
"""

from __future__ import annotations

import functools

import numpy as np

from bipartite._utils.compiled import compiled

__all__ = ["dominance_sums", "level_pair_sum"]


@functools.cache
def _kernel(E: int, exact: bool):
    """The compiled pass for E monomial powers (0..E−1). E is a constant of the closure, so the
    loops over the powers are unrolled; numba's cache keys its machine code by the closure's
    values, one entry per E. A tie group's rows are queried against the rows before the group
    and enter the trees when the next group starts, so tied pairs count in neither sum."""
    if exact:
        def run(seq, keys, mask, PW, CL, CH, size):
            low = np.zeros((size + 1, E), np.int64)   # Fenwick tree: node k sums levels (k − lowbit(k), k]
            own = np.zeros((size, E), np.int64)       # per level
            tot = np.zeros(E, np.int64)
            plus = np.int64(0)
            minus = np.int64(0)
            g = 0                                      # first row of the open tie group
            for q in range(seq.shape[0]):
                if q > 0 and (keys[q] | mask) != (keys[q - 1] | mask):
                    for p in range(g, q):              # the closed group enters the trees
                        b = np.int64(seq[p])
                        k = b + 1
                        while k <= size:
                            for e in range(E):
                                low[k, e] += PW[b, e]
                            k += k & -k
                        for e in range(E):
                            own[b, e] += PW[b, e]
                            tot[e] += PW[b, e]
                    g = q
                b = np.int64(seq[q])
                k = b                                  # levels < b: tree prefix of b nodes
                while k > 0:
                    for e in range(E):
                        m = low[k, e]
                        plus += m * CL[b, e]
                        minus -= m * CH[b, e]
                    k &= k - 1
                for e in range(E):                     # M^> = total − lower levels − level b
                    minus += (tot[e] - own[b, e]) * CH[b, e]
            return plus, minus
    else:
        def run(seq, keys, mask, w, PW, CL, CH, size):
            low = np.zeros((size + 1, E))              # over the levels
            high = np.zeros((size + 1, E))             # over the reversed levels
            plus = 0.0
            minus = 0.0
            g = 0
            for q in range(seq.shape[0]):
                if q > 0 and (keys[q] | mask) != (keys[q - 1] | mask):
                    for p in range(g, q):
                        b = np.int64(seq[p])
                        wp = w[p]
                        k = b + 1
                        while k <= size:
                            for e in range(E):
                                low[k, e] += wp * PW[b, e]
                            k += k & -k
                        k = size - b                   # reversed index: levels > b first
                        while k <= size:
                            for e in range(E):
                                high[k, e] += wp * PW[b, e]
                            k += k & -k
                    g = q
                b = np.int64(seq[q])
                a = 0.0
                k = b
                while k > 0:
                    for e in range(E):
                        a += low[k, e] * CL[b, e]
                    k &= k - 1
                plus += w[q] * a
                a = 0.0
                k = size - 1 - b
                while k > 0:
                    for e in range(E):
                        a += high[k, e] * CH[b, e]
                    k &= k - 1
                minus += w[q] * a
            return plus, minus
    return compiled(run)


def dominance_sums(seq: np.ndarray, keys: np.ndarray, mask: int, w: np.ndarray | None,
                   v: np.ndarray, beta: dict, bits: int) -> tuple:
    """``(plus, minus)`` of the module docstring for the level indices ``seq`` (unsigned ints
    below ``2**bits``, in ascending score order), the sorted tie keys ``keys`` (rows p, q are
    tied iff ``keys[p] | mask == keys[q] | mask``; tied pairs count in neither sum), weights
    ``w`` (None: unweighted), level values ``v`` and monomial coefficients
    ``beta = {(r, s): β_rs}`` (r: the lower level's power). Python ints when ``w`` is None and
    ``v`` and ``β`` are integers (the caller guarantees that every sum stays below 2^62),
    floats otherwise."""
    exact = w is None and v.dtype.kind == "i" and all(isinstance(b, int) for b in beta.values())
    if not beta or len(seq) < 2:
        return (0, 0) if exact else (0.0, 0.0)
    E = max(max(r, s) for r, s in beta) + 1
    size = 1 << bits
    dt = np.int64 if exact else np.float64
    vv = np.zeros(size, dtype=dt)
    vv[: len(v)] = v
    PW = np.ones((size, E), dtype=dt)
    for e in range(1, E):
        PW[:, e] = PW[:, e - 1] * vv
    CL, CH = np.zeros((size, E), dtype=dt), np.zeros((size, E), dtype=dt)
    for (r, s), b in beta.items():
        CL[:, r] += b * PW[:, s]
        CH[:, s] += b * PW[:, r]
    seq = np.ascontiguousarray(seq)
    keys = np.ascontiguousarray(keys)
    m = keys.dtype.type(mask)
    if exact:
        plus, minus = _kernel(E, True)(seq, keys, m, PW, CL, CH, size)
        return int(plus), int(minus)
    ww = np.ones(len(seq)) if w is None else np.ascontiguousarray(w, dtype=np.float64)
    plus, minus = _kernel(E, False)(seq, keys, m, ww, PW, CL, CH, size)
    return float(plus), float(minus)


@functools.cache
def _vector_kernel(exact: bool):
    """The compiled O(n L) pass of :func:`level_pair_sum`: a vector F of L running sums,
    ``F_b = Σ ω_p K_{b ℓ_p}`` over the rows of lower tie groups, read once per row and added a
    row of ``Kᵀ`` per row (a contiguous, vectorised loop). Exact: the rows enter a vector of the
    table's own integer type (int32 where :func:`level_pair_sum` finds that it holds ``B`` rows'
    sums: twice the lanes of int64), folded into the int64 sums every ``B`` rows; a row reads
    both."""
    if exact:
        def run(seq, keys, mask, KT, B):
            L = KT.shape[1]
            F = np.zeros(L, np.int64)                  # the folded sums
            G = np.zeros(L, KT.dtype)                  # the rows since the last fold
            A = np.int64(0)
            g = 0
            left = B
            for q in range(seq.shape[0]):
                if q > 0 and (keys[q] | mask) != (keys[q - 1] | mask):
                    for p in range(g, q):              # the closed tie group enters G
                        if left == 0:
                            for j in range(L):
                                F[j] += G[j]
                                G[j] = 0
                            left = B
                        a = seq[p]
                        for j in range(L):
                            G[j] += KT[a, j]
                        left -= 1
                    g = q
                b = seq[q]
                A += F[b] + G[b]
            return A
    else:
        def run(seq, keys, mask, w, KT):
            L = KT.shape[1]
            F = np.zeros(L)
            A = 0.0
            g = 0
            for q in range(seq.shape[0]):
                if q > 0 and (keys[q] | mask) != (keys[q - 1] | mask):
                    for p in range(g, q):
                        a = seq[p]
                        wp = w[p]
                        for j in range(L):
                            F[j] += wp * KT[a, j]
                    g = q
                A += w[q] * F[seq[q]]
            return A
    return compiled(run)


def level_pair_sum(seq: np.ndarray, keys: np.ndarray, mask: int, w: np.ndarray | None,
                   K: np.ndarray):
    """``A = Σ_{f_p < f_q} ω_p ω_q K_{ℓ_q ℓ_p}`` for any (L, L) table K (tied pairs 0; the
    arguments as :func:`dominance_sums`'): one compiled pass, O(n L), the L running sums
    ``F_b`` in one vector (docs/theory.md §3.2). A Python int for an int64 K unweighted (the
    caller guarantees that every sum stays below 2^62), a float otherwise."""
    if len(seq) < 2:
        return 0 if w is None and K.dtype.kind == "i" else 0.0
    seq, keys = np.ascontiguousarray(seq), np.ascontiguousarray(keys)
    m = keys.dtype.type(mask)
    KT = np.ascontiguousarray(K.T)
    if w is None and K.dtype.kind == "i":
        B = (2**31 - 1) // max(int(np.abs(KT).max()), 1)   # rows whose sums int32 holds
        narrow = B >= KT.shape[1]                      # else int64 sums, never folded
        return int(_vector_kernel(True)(seq, keys, m, KT.astype(np.int32 if narrow else np.int64),
                                        B if narrow else len(seq)))
    ww = np.ones(len(seq)) if w is None else np.ascontiguousarray(w, dtype=np.float64)
    return float(_vector_kernel(False)(seq, keys, m, ww, KT.astype(np.float64)))
