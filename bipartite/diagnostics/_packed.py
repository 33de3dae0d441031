"""The rows' label combinations, packed (docs/theory.md §7.5): each row's K labels in the bits of
one integer, bit k set where label k is positive, its query code above them (``code << K``), and
the rows of each (unit, label combination) counted (one ``bincount`` of the codes; on the
report's compiled route both in one compiled pass, the same codes and counts). The one
home of the packing: the report's masses (:func:`bipartite.diagnostics._scan.masses`, and through
them the compiled walk's one gather a row) and its class counts
(:class:`bipartite.diagnostics._context.Data`) read the same codes and the same count.

The code of a row is ``Σ_k y_k 2^k + q 2^K``: a count of the codes, reshaped (units, 2^K), holds
the rows of every unit and label combination, from which every per-unit count of rows, of a
label's positives, or of a pair's "k only" rows is a product with a 0/1 table."""

from __future__ import annotations

import functools

import numpy as np

from bipartite._utils.compiled import compiled as _compiled

__all__ = ["COUNT_CELLS", "code_dtype", "combination_bits", "fits", "packed"]

#: Most (unit × label combination) cells counted at once (64 MiB of int64); past it no count.
COUNT_CELLS = 1 << 23


def code_dtype(bits: int) -> np.dtype:
    """The narrowest unsigned type of ``bits`` bits (at most 64)."""
    return np.dtype(np.uint8 if bits <= 8 else np.uint16 if bits <= 16 else
                    np.uint32 if bits <= 32 else np.uint64)


def combination_bits(K: int) -> np.ndarray:
    """(2^K, K) 0/1: row ``c`` holds the K labels of the combination ``c`` (bit k of ``c``), so
    a count of the codes (units, 2^K) times it is each unit's positives per label."""
    return (np.arange(1 << K)[:, None] >> np.arange(K)[None, :]) & 1


def fits(K: int, G: int | None) -> bool:
    """Whether ``K`` label bits and the codes of ``G`` queries (None: none) fit one 64-bit
    code."""
    return K + (0 if G is None else int(max(G, 1) - 1).bit_length()) <= 64


@functools.cache
def _pack(K: int, queries: bool, count: bool):
    """The compiled :func:`packed`: every row's code and its count in one pass."""
    def run(Yt, codes, lab, cnt):
        cells = np.uint64(cnt.shape[0])
        for i in range(lab.shape[0]):
            v = np.uint64(codes[i]) << np.uint64(K) if queries else np.uint64(0)
            for k in range(K):
                v |= np.uint64(Yt[k, i]) << np.uint64(k)
            lab[i] = v  # (the code fits lab's type: fits(), code_dtype())
            if count:
                if v >= cells:  # a query code outside 0..G−1 (negative ones wrap above)
                    return i
                cnt[v] += 1
        return -1
    return _compiled(run)


def packed(Yt: np.ndarray, codes: np.ndarray | None, G: int | None, *, count: bool = True,
           compiled: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """``(lab, cnt)``: the rows' codes (n,) ``Σ_k Yt[k] 2^k + codes 2^K`` in the narrowest
    unsigned type (:func:`code_dtype`), and the rows of each code (units, 2^K) int64 (``units``
    G, or 1 without ``codes``) when ``count`` and it holds at most :data:`COUNT_CELLS` cells,
    else None. ``Yt`` (K, n) bool; the codes must fit 64 bits (:func:`fits`). ``compiled``:
    in one compiled pass (numba, loaded on the first call: the report's compiled route,
    :func:`bipartite.diagnostics._scan.compiled_walk`), else with NumPy (a shift and an or per
    label, one ``bincount``: the same codes and counts)."""
    Yt = np.asarray(Yt, dtype=bool)
    K, n = Yt.shape
    if not fits(K, G if codes is not None else None):
        raise ValueError(f"{K} labels and {G} query codes do not fit one 64-bit code.")
    bits = K + (0 if codes is None else int(max(G, 1) - 1).bit_length())
    t = code_dtype(bits).type
    units = G if codes is not None else 1
    cells = units << K
    count = count and cells <= COUNT_CELLS
    if compiled:
        lab = np.empty(n, dtype=t)
        cnt = np.zeros(cells if count else 0, dtype=np.int64)
        q = np.ascontiguousarray(codes, dtype=np.intp) if codes is not None else np.zeros(0, np.intp)
        bad = _pack(K, codes is not None, count)(np.ascontiguousarray(Yt).view(np.uint8), q,
                                                 lab, cnt)
        if bad >= 0:
            raise ValueError(f"The query code {int(q[bad])} at row {bad} is outside 0..{G - 1} "
                             f"(G = {G}).")
        return lab, cnt.reshape(units, 1 << K) if count else None
    low = min(K, 8)  # the first 8 labels' bits in one byte, then widened once
    byte = Yt[0].view(np.uint8).copy() if K else np.zeros(n, dtype=np.uint8)
    for k in range(1, low):
        byte |= np.left_shift(Yt[k].view(np.uint8), k, dtype=np.uint8)
    if codes is None:
        lab = byte.astype(t)
    else:  # the query codes above the label bits
        lab = np.left_shift(codes, K, dtype=t, casting="unsafe")
        lab |= byte
    for k in range(low, K):
        lab |= np.left_shift(Yt[k].view(np.uint8), k, dtype=t)
    if not count:
        return lab, None
    return lab, np.bincount(lab, minlength=cells).reshape(units, 1 << K)
