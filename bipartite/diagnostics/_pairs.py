"""Cross-pair statistics of one scorer for many label pairs at once (docs/theory.md §7.5): the
win rates ``W_{k>j}``, their DeLong variances and the near-tie rates, from the scorer's **one
sort** (:class:`bipartite.metrics.QuerySegments`), in blocks of pairs.

For the pair (k, j) the "k only" rows (``y_k = 1, y_j = 0``) play the positives and the "j only"
rows (``y_j = 1, y_k = 0``) the negatives; a block of pairs is a block of weight rows (m, n) fed
to the grouped engine's segment sums together. The inputs are checked once by the caller
(:func:`bipartite.diagnostics.diagnose`), not once per pair: at K = 174 (15 051 pairs) the
per-pair route (:func:`bipartite.dictatorship.cross_pair_win_rate`,
:func:`bipartite.dictatorship.near_tie_rate`, one validation and one sort each) is the slow
reference of the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bipartite.diagnostics._inference import delong_rows
from bipartite.metrics import QuerySegments

__all__ = ["BLOCK_ELEMENTS", "PairStats", "cross_masks", "pair_stats"]

#: Pairs are processed in blocks of at most this many (pair × row) weights (8 MiB per float64
#: array; a block holds a handful of them).
BLOCK_ELEMENTS = 1 << 20


@dataclass
class PairStats:
    """Per label pair (in the order given): ``win`` = W_{k>j} (NaN when a side is empty),
    ``var`` its DeLong variance (NaN when not asked for, or a side has a single row),
    ``near_tie`` the near-tie rate, ``n_k_only`` / ``n_j_only`` the rows with positive weight on
    each side."""

    win: np.ndarray
    var: np.ndarray
    near_tie: np.ndarray
    n_k_only: np.ndarray
    n_j_only: np.ndarray


def cross_masks(Y: np.ndarray, w: np.ndarray, ks: np.ndarray, js: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """The weights (m, n) of the "k only" and "j only" rows of the pairs ``(ks[i], js[i])``."""
    Yk, Yj = Y[:, ks].T.astype(bool), Y[:, js].T.astype(bool)
    return w * (Yk & ~Yj), w * (Yj & ~Yk)


def _near_ties(seg: QuerySegments, s: np.ndarray, pos: np.ndarray, neg: np.ndarray, tol: float,
               P: np.ndarray, N: np.ndarray) -> np.ndarray:
    """Share of the (pos, neg) pair weight whose scores are within ``tol``: for every row of the
    sorted order the window ``[s − tol, s + tol]`` (two ``searchsorted`` for all pairs), then a
    cumulative sum of each pair's negative weight read at the window's ends."""
    ss = s[seg.order]
    lo = np.searchsorted(ss, ss - tol, side="left")
    hi = np.searchsorted(ss, ss + tol, side="right")
    cum = np.zeros((len(neg), len(ss) + 1))
    np.cumsum(neg[:, seg.order], axis=1, out=cum[:, 1:])
    num = np.einsum("mi,mi->m", pos[:, seg.order], cum[:, hi] - cum[:, lo])
    ok = (P > 0) & (N > 0)
    return np.divide(num, P * N, out=np.full(len(num), np.nan), where=ok)


def pair_stats(s: np.ndarray, Y: np.ndarray, w: np.ndarray, pairs: list[tuple[int, int]], *,
               tol: float, delong: bool, seg: QuerySegments | None = None) -> PairStats:
    """:class:`PairStats` of the scores ``s`` (n,) for the label pairs ``pairs`` of the checked
    0/1 labels ``Y`` (n, K) with row weights ``w`` (n,), pooled over all rows; ``seg``: the
    scores' segments (one query), when already sorted. ``delong``: also the DeLong variances."""
    seg = QuerySegments(s, check_input=False) if seg is None else seg
    n, m = len(s), len(pairs)
    out = PairStats(*(np.full(m, np.nan) for _ in range(3)), np.zeros(m, dtype=np.int64),
                    np.zeros(m, dtype=np.int64))
    if m == 0:
        return out
    scale = float(np.ldexp(1.0, -int(np.frexp(w.max())[1]))) if w.max() > 0 else 1.0
    ws = w * scale  # a power of two: exact, and 1e-170 weights do not underflow in P N
    kj = np.asarray(pairs, dtype=np.int64)
    step = max(1, BLOCK_ELEMENTS // n)
    for b0 in range(0, m, step):
        sl = slice(b0, min(m, b0 + step))
        pos, neg = cross_masks(Y, ws, kj[sl, 0], kj[sl, 1])
        P, N = pos.sum(axis=1), neg.sum(axis=1)
        out.n_k_only[sl] = np.count_nonzero(pos, axis=1)
        out.n_j_only[sl] = np.count_nonzero(neg, axis=1)
        if delong:
            theta, a, b = delong_rows(seg, pos, neg)
            out.win[sl] = theta
            out.var[sl] = np.sum(a * a, axis=1) + np.sum(b * b, axis=1)
        else:
            out.win[sl] = seg.auc(pos, neg)[0][:, 0]
        out.near_tie[sl] = _near_ties(seg, s, pos, neg, tol, P, N)
    return out
