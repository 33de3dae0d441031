"""The exact Pareto frontier by a dynamic programme over subsets of points (docs/theory.md §6).
"""


from __future__ import annotations

import time

import numpy as np

from bipartite.pareto.dominance import frontier_rows

# --------------------------------------------------------------------------------------------
# Subset dynamic programme over weak orders (exact, O(3^n · frontier size))
# --------------------------------------------------------------------------------------------
#: Default resolution of the subset DP: AUC vectors within this (max-norm) are one point. The DP
#: adds O(n²) floating terms per vector (error ~1e-15); 1e-12 is far above that noise and far
#: below any gap that a MILP solver can resolve.
DEFAULT_TOL_DP = 1e-12
#: ``method="auto"`` uses the DP up to this many points (its cost grows like 3^n; it beat the
#: MILP at every n measured up to this bound, see ``benchmarks/bench_pareto.py``).
DP_MAX_N = 12

__all__ = ["DEFAULT_TOL_DP", "DP_MAX_N", "subset_dp"]


def subset_dp(Ws: np.ndarray, tol: float,
               time_limit: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Pareto frontier of ``(Σ_ij Ws[r, i, j] S_ij)_r`` over all weak orders S of n points.

    A weak order is a sequence of blocks ``B_1 > B_2 > ... > B_m`` (ordered set partition). Its
    value splits over the blocks: block ``B``, placed after the points ``T`` and above the rest
    ``R = all \\ T \\ B``, adds ``g(B, R) = Σ_{i∈B, j∈R} W_ij + ½ Σ_{i, j∈B} W_ij`` (pairs
    below it, then ties inside it, self-pairs included), which depends on ``B`` and ``R`` only.
    So ``F(U)``, the Pareto set of the values of the prefixes that place exactly the points U, is
    ``pareto(∪_{∅≠B⊆U} F(U \\ B) + g(B, complement of U))``. Pruning dominated prefixes is exact:
    the rest of the order adds the same vector to every prefix of U, so a dominated prefix can
    only complete to dominated orders. ``F(all)`` is the frontier. Dominance is taken at
    resolution ``tol`` and vectors within ``tol`` are merged at every state
    (:func:`frontier_rows`), so every Pareto vector x has a returned y with ``y ≥ x − n·tol``
    (at most n merges along the prefixes of its order).

    Cost: ``Σ_U Σ_{B⊆U} |F(U\\B)| ≤ 3^n · max|F|`` vector additions and one Pareto filter per
    state. Returns the values (m, R) and integer scores (m, n) of one weak order per point.
    """
    R_, n, _ = Ws.shape
    N = 1 << n
    full = N - 1
    deadline = None if time_limit is None else time.monotonic() + float(time_limit)
    masks = np.arange(N, dtype=np.int64)
    bits = ((masks[:, None] >> np.arange(n)) & 1).astype(np.float64)   # (N, n)
    # tie[B] = ½ Σ_{i,j∈B} W_ij ; row[R][i] = Σ_{j∈R} W_ij
    tie = 0.5 * np.einsum("bi,rij,bj->br", bits, Ws, bits, optimize=True)      # (N, R_)
    row = np.einsum("rij,bj->bir", Ws, bits, optimize=True)                    # (N, n, R_)
    # Flat storage of every state's frontier: values, back-pointers (previous state's row, block).
    cap = 1 << 16
    vals = np.zeros((cap, R_))
    prev_row = np.full(cap, -1, dtype=np.int64)
    block = np.zeros(cap, dtype=np.int64)
    off = np.zeros(N, dtype=np.int64)
    cnt = np.zeros(N, dtype=np.int64)
    off[0], cnt[0], used = 0, 1, 1          # F(∅) = {0}
    pow2 = 1 << np.arange(n, dtype=np.int64)
    sub_cache: dict[int, np.ndarray] = {}
    for U in range(1, N):
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError("The subset DP ran out of its 'time_limit'.")
        members = pow2[bits[U] > 0]
        k = len(members)
        combos = sub_cache.get(k)
        if combos is None:
            combos = sub_cache[k] = bits[1:1 << k, :k].astype(bool)       # nonempty subsets
        subs = combos.astype(np.int64) @ members                            # (2^k − 1,)
        prev = U ^ subs
        g = tie[subs] + bits[subs] @ row[full ^ U]                          # (2^k − 1, R_)
        c = cnt[prev]
        total = int(c.sum())
        which = np.repeat(np.arange(len(subs)), c)
        pos = np.arange(total) - np.repeat(np.cumsum(c) - c, c)
        src = off[prev][which] + pos
        C = vals[src] + g[which]
        keep = frontier_rows(C, tol)
        m = len(keep)
        if used + m > cap:
            while used + m > cap:
                cap *= 2
            vals = np.resize(vals, (cap, R_))
            prev_row = np.resize(prev_row, cap)
            block = np.resize(block, cap)
        vals[used:used + m] = C[keep]
        prev_row[used:used + m] = src[keep]
        block[used:used + m] = subs[which[keep]]
        off[U], cnt[U] = used, m
        used += m
    rows = np.arange(off[full], off[full] + cnt[full])
    V = vals[rows].copy()
    # Back-track each final vector to its blocks, top block first; scores: top block highest.
    S = np.zeros((len(rows), n))
    for t, r in enumerate(rows):
        blocks = []
        while r > 0:
            blocks.append(int(block[r]))
            r = int(prev_row[r])
        # blocks were collected bottom-up
        for level, b in enumerate(blocks):
            S[t, bits[b] > 0] = level
    return V, S
