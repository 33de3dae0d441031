"""Cross-pair statistics of one scorer for many label pairs at once (docs/theory.md §7.5): the
win rates ``W_{k>j}`` and the near-tie rates of every pair (their one home, the all-pairs kernel
behind :func:`bipartite.dictatorship.cross_pair_win_rates` and
:func:`~bipartite.dictatorship.near_tie_rates`: one pass for both, on the scorer's one sort),
and the DeLong variances of the win rates from the per-unit placement sums
(:mod:`bipartite.diagnostics._placement_sums`: rows, or clustered by query), in blocks of pairs.

For the pair (k, j) the "k only" rows (``y_k = 1, y_j = 0``) play the positives and the "j only"
rows (``y_j = 1, y_k = 0``) the negatives; a block of pairs is a block of weight rows (m, n) fed
to the grouped engine's segment sums together (:func:`pair_sums`). The inputs are checked once by
the caller (:func:`bipartite.diagnostics.diagnose`), not once per pair: at K = 174 (15 051 pairs)
the per-pair route (:func:`bipartite.dictatorship.cross_pair_win_rate`,
:func:`bipartite.dictatorship.near_tie_rate`, one validation and one sort each) is the slow
reference of the tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from bipartite._utils.validation import pow2_normalise
from bipartite.diagnostics._placement_sums import PlacementSums, label_pair_weights, label_sums
from bipartite.dictatorship import pair_rates_checked
from bipartite.metrics import QuerySegments

__all__ = ["BLOCK_ELEMENTS", "PairStats", "cross_masks", "pair_blocks", "pair_stats", "pair_sums"]

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
    return label_pair_weights(Y, w, np.column_stack([ks, js]))


def pair_blocks(m: int, n: int) -> Iterator[slice]:
    """Blocks of at most :data:`BLOCK_ELEMENTS` (pair × row) weights of ``m`` pairs."""
    step = max(1, BLOCK_ELEMENTS // max(n, 1))
    for b0 in range(0, m, step):
        yield slice(b0, min(m, b0 + step))


def pair_sums(s: np.ndarray, Y: np.ndarray, ws: np.ndarray, kj: np.ndarray, *,
              codes: np.ndarray | None = None, G: int | None = None,
              seg: QuerySegments | None = None, within: bool = False) -> PlacementSums:
    """The :class:`~bipartite.diagnostics._placement_sums.PlacementSums` of the win rates of the pairs
    ``kj`` (m, 2) (one block), with units the queries ``codes`` (or the rows); ``ws``: the row
    weights, scaled by a power of two; ``within``: also the within-query sums (a per-query
    sort; the exact leave-one-query-out jackknife needs them, the win rates do not)."""
    return label_sums(s, Y, ws, kj, codes=codes, G=G, seg=seg, within=within)


def pair_stats(s: np.ndarray, Y: np.ndarray, w: np.ndarray, pairs: list[tuple[int, int]], *,
               tol: float, delong: bool, seg: QuerySegments | None = None,
               codes: np.ndarray | None = None, G: int | None = None) -> PairStats:
    """:class:`PairStats` of the scores ``s`` (n,) for the label pairs ``pairs`` of the checked
    0/1 labels ``Y`` (n, K) with row weights ``w`` (n,), pooled over all rows; ``seg``: the
    scores' segments (one query), when already sorted. ``delong``: also the DeLong variances,
    clustered by the query codes ``codes`` (G queries) when given."""
    seg = QuerySegments(s, check_input=False) if seg is None else seg
    n, m = len(s), len(pairs)
    out = PairStats(*(np.full(m, np.nan) for _ in range(3)), np.zeros(m, dtype=np.int64),
                    np.zeros(m, dtype=np.int64))
    if m == 0:
        return out
    kj = np.asarray(pairs, dtype=np.int64)
    ws = pow2_normalise(w)  # a power of two: exact, and 1e-170 weights do not underflow
    Yb = Y.astype(bool)
    # the one home of the all-pairs win and near-tie rates, on this scorer's sort
    W, T, _ = pair_rates_checked(Yb, s, ws, tol, order=seg.order)  # NaN: empty sides
    out.win[:], out.near_tie[:] = W[kj[:, 0], kj[:, 1]], T[kj[:, 0], kj[:, 1]]
    both = (w > 0)[:, None] & Yb
    for label, count in ((0, out.n_k_only), (1, out.n_j_only)):
        a, b = kj[:, label], kj[:, 1 - label]
        count[:] = np.einsum("ni,ni->i", both[:, a], ~Yb[:, b], dtype=np.int64) if len(a) else 0
    if not delong:
        return out
    for sl in pair_blocks(m, n):
        out.var[sl] = pair_sums(s, Y, ws, kj[sl], codes=codes, G=G, seg=seg).var()
    return out
