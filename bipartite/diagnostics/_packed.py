"""The rows' label combinations, packed (docs/theory.md §7.5): each row's K labels in the bits of
one integer, bit k set where label k is positive, its query code above them (``code << K``), and
the rows of each (unit, label combination) counted, in one compiled pass over the rows. The one
home of the packing: the report's masses (:func:`bipartite.diagnostics._scan.masses`, and through
them the compiled walk's one gather a row) and its class counts
(:class:`bipartite.diagnostics._context.Data`) read the same codes and the same count.

The code of a row is ``Σ_k y_k 2^k + q 2^K``: a count of the codes, reshaped (units, 2^K), holds
the rows of every unit and label combination, from which every per-unit count of rows, of a
label's positives, or of a pair's "k only" rows is a product with a 0/1 table."""

from __future__ import annotations

import functools

import numpy as np

from bipartite._utils.compiled import compiled

__all__ = ["COUNT_CELLS", "code_dtype", "fits", "packed"]

#: Most (unit × label combination) cells counted at once (64 MiB of int64); past it no count.
COUNT_CELLS = 1 << 23


def code_dtype(bits: int) -> np.dtype:
    """The narrowest unsigned type of ``bits`` bits (at most 64)."""
    return np.dtype(np.uint8 if bits <= 8 else np.uint16 if bits <= 16 else
                    np.uint32 if bits <= 32 else np.uint64)


def fits(K: int, G: int | None) -> bool:
    """Whether ``K`` label bits and the codes of ``G`` queries (None: none) fit one 64-bit
    code."""
    return K + (0 if G is None else int(max(G, 1) - 1).bit_length()) <= 64


@functools.cache
def _kernel():
    def run(Yt, codes, K, lab, cnt):
        n = lab.shape[0]
        queries = codes.shape[0] == n
        count = cnt.shape[0] > 0
        for i in range(n):
            v = np.uint64(0)
            for k in range(K):
                if Yt[k, i]:
                    v |= np.uint64(1) << np.uint64(k)
            if queries:
                v |= np.uint64(codes[i]) << np.uint64(K)
            lab[i] = v
            if count:
                cnt[v] += 1
    return compiled(run)


def packed(Yt: np.ndarray, codes: np.ndarray | None, G: int | None, *, count: bool = True
           ) -> tuple[np.ndarray, np.ndarray | None]:
    """``(lab, cnt)``: the rows' codes (n,) ``Σ_k Yt[k] 2^k + codes 2^K`` in the narrowest
    unsigned type (:func:`code_dtype`), and the rows of each code (units, 2^K) int64 (``units``
    G, or 1 without ``codes``) when ``count`` and it holds at most :data:`COUNT_CELLS` cells,
    else None. ``Yt`` (K, n) bool; the codes must fit 64 bits (:func:`fits`)."""
    Yt = np.ascontiguousarray(Yt, dtype=bool)
    K, n = Yt.shape
    if not fits(K, G if codes is not None else None):
        raise ValueError(f"{K} labels and {G} query codes do not fit one 64-bit code.")
    bits = K + (0 if codes is None else int(max(G, 1) - 1).bit_length())
    lab = np.empty(n, dtype=code_dtype(bits))
    units = G if codes is not None else 1
    cells = units << K
    cnt = np.zeros(cells if count and cells <= COUNT_CELLS else 0, dtype=np.int64)
    q = (np.empty(0, dtype=np.int64) if codes is None else
         np.ascontiguousarray(codes, dtype=np.int64))
    _kernel()(Yt, q, K, lab, cnt)
    return lab, cnt.reshape(units, 1 << K) if len(cnt) else None
