"""The exact Pareto frontier by a dynamic programme over subsets of points (docs/theory.md §6).
"""


from __future__ import annotations

import time

import numpy as np

from bipartite.pareto.dominance import (
    MarginIndex,
    concat_ranges,
    dominated_with_margin,
    frontier_rows,
)

# --------------------------------------------------------------------------------------------
# Subset dynamic programme over weak orders (exact; useful tied blocks only)
# --------------------------------------------------------------------------------------------
#: Default resolution of the subset DP: AUC vectors within this (max-norm) are one point. The DP
#: adds O(n²) floating terms per vector (error ~1e-15); 1e-12 is far above that noise and far
#: below any gap that a MILP solver can resolve.
DEFAULT_TOL_DP = 1e-12
#: ``method="auto"`` uses the DP up to this many points for K ≥ 3 labels (it beat the MILP at
#: every n measured up to this bound; n = 10 takes 1-9 s, see ``benchmarks/bench_pareto.py``).
DP_MAX_N = 12
#: ... and up to this many for K = 2: with only the useful tied blocks and the bound
#: (:func:`subset_dp`), ``FiniteProblem.random(16, 2, seed)`` took 4-12 s and under 0.25 GB on
#: seeds 0-2 (2 shared cores; ``python benchmarks/bench_pareto.py --targets``), while the exact
#: MILP did not finish n = 14 in 240 s.
DP_MAX_N_K2 = 16


def dp_limit(K: int) -> int:
    """The default size limit of the subset DP for ``K`` labels: :data:`DP_MAX_N_K2` for K ≤ 2,
    :data:`DP_MAX_N` otherwise.

    >>> dp_limit(2), dp_limit(3)
    (16, 12)
    """
    if isinstance(K, bool) or not isinstance(K, int | np.integer) or K < 1:
        raise ValueError(f"The 'K' parameter must be a positive integer, got {K!r}.")
    return DP_MAX_N_K2 if K <= 2 else DP_MAX_N
#: Rows per chunk of a stored frontier: a chunk whose componentwise maximum (shifted by the
#: block's gain) is dominated with margin by a candidate is dropped before the filter.
CHUNK = 16
#: States with at most this many candidate rows skip the chunk test (its overhead would dominate).
_PRUNE_MIN = 4096

# useful_blocks is a kernel of subset_dp (not in __all__: inputs are the caller's).
__all__ = ["CHUNK", "DEFAULT_TOL_DP", "DP_MAX_N", "DP_MAX_N_K2", "dp_limit", "subset_dp"]


def useful_blocks(Ws: np.ndarray) -> np.ndarray:
    """The tied blocks that the subset DP needs (docs/theory.md §6.3), as sorted bit masks.

    Split a tied block B of a weak order into ``B1 ≻ B2`` or ``B2 ≻ B1`` (everything else
    unchanged): only the pairs between B1 and B2 change, from ½ to 1 or 0, so the two values are
    ``t ± d/2`` around the tied order's value t, with ``d = Σ_{i∈B1, j∈B2} D_ij`` and
    ``D = Ω − Ωᵀ`` per objective (``Ws[r]`` = Ω). By antisymmetry the pairs inside B1 cancel:
    ``d = Σ_{i∈B1} r_i(B)``, ``r_i(B) = Σ_{j∈B} D_ij``. If some bipartition has ``d ≥ 0`` in
    every objective (or ``d ≤ 0``: the complement's ``d ≥ 0``), a split order is at least as good
    as the tie everywhere. So B is **useful** only if every non-empty proper subset B1 has a sum
    ``Σ_{i∈B1} r_i(B)`` with a positive and a negative component; singletons always are.
    Splitting useless blocks until none is left never lowers a value (the number of blocks grows,
    so it stops): every achievable vector is at or below the vector of an order made of useful
    blocks only, and the two sets of vectors have the same Pareto frontier, exactly. Signs are
    taken on the float sums (a true sum within float noise, ~1e-16, of zero is a difference below
    any resolution the DP uses).

    The test runs on every mask at once for the singletons (and their complements), then on the
    few masks left for the other subsets. For ``FiniteProblem.random(n, 2, seed)`` about 100 of
    the 4 095 blocks of 12 points are useful; ``subset_dp`` enumerates only those (the 3^n of
    all blocks is what limited it to n ≈ 14).

    >>> from bipartite.population import FiniteProblem
    >>> Ws = pair_weight_stack(FiniteProblem.random(5, 2, seed=0))
    >>> B = useful_blocks(Ws)
    >>> bool(np.all(np.isin(1 << np.arange(5), B))), len(B) < 31
    (True, True)
    """
    R_, n, _ = Ws.shape
    D = Ws - np.swapaxes(Ws, 1, 2)
    N = 1 << n
    shifts = np.arange(n)
    singles = (1 << shifts).astype(np.int64)
    found = [singles]
    step = max(1, (1 << 22) // max(n * R_, 1))
    cand = []
    for a in range(0, N, step):
        masks = np.arange(a, min(N, a + step), dtype=np.int64)
        inside = ((masks[:, None] >> shifts) & 1).astype(bool)
        r = np.einsum("bj,kij->bik", inside.astype(np.float64), D, optimize=True)  # r_i(B)
        mixed = (r > 0).any(axis=2) & (r < 0).any(axis=2)
        ok = (mixed | ~inside).all(axis=1) & (inside.sum(axis=1) >= 2)
        cand.append(masks[ok])
    cand = np.concatenate(cand)
    sub_cache: dict[int, np.ndarray] = {}
    keep = np.ones(len(cand), dtype=bool)
    for c, B in enumerate(cand):  # subsets of size 2 .. k − 2 (sizes 1, k − 1 are tested)
        members = np.flatnonzero((int(B) >> shifts) & 1)
        k = len(members)
        if k < 4:
            continue
        sub = sub_cache.get(k)
        if sub is None:
            allsub = ((np.arange(1, (1 << k) - 1)[:, None] >> np.arange(k)) & 1)
            size = allsub.sum(axis=1)
            sub = sub_cache[k] = allsub[(size >= 2) & (size <= k - 2)].astype(np.float64)
        r = D[:, members][:, :, members].sum(axis=2).T                      # (k, R_)
        ss = sub @ r
        keep[c] = not bool(np.any(np.all(ss >= 0, axis=1) | np.all(ss <= 0, axis=1)))
    found.append(cand[keep])
    return np.sort(np.concatenate(found))


def point_dominance(Ws: np.ndarray) -> np.ndarray:
    """Pairs of points that some optimal order ranks in a fixed way (docs/theory.md §6.3):
    ``E[i, j]`` means every weak order is at most as good, in every objective, as one that
    places i at or above j (in the same block or higher), and E is acyclic.

    Swap i and j in an order that places j strictly above i (each takes the other's block). A
    point m in a block above both or below both keeps its pairs with {i, j} on the same sides;
    a point m strictly between them changes ``W_jm + W_mi`` into ``W_im + W_mj``; a point in
    j's (i's) block gains half of that; the pair itself changes ``W_ji`` into ``W_ij``. So the
    swap loses nothing in any objective when, for every objective and every other point m,
    ``W_im ≥ W_jm``, ``W_mi ≤ W_mj`` and ``W_ij ≥ W_ji`` (for AUCs, ``W_ij = a_i b_j``:
    ``p_i η_ik ≥ p_j η_jk`` and ``p_i (1 − η_ik) ≤ p_j (1 − η_jk)`` in every label). Such a
    pair also has ``s_i ≥ s_j`` for ``s_i = Σ_{m,r} (W_im − W_mi)``; E keeps it only when i
    comes first in the order by ``s`` descending, then index (so E is acyclic). Swapping the
    pairs of E that an order violates, and splitting its useless blocks (:func:`useful_blocks`),
    never lowers a value, and ends: a split adds a block, a swap keeps the blocks and removes at
    least one inversion of that order. So the orders made of useful blocks that respect E reach
    the same Pareto set of vectors as all weak orders, exactly.

    >>> import numpy as np
    >>> Ws = np.array([[[0.1, 0.3], [0.1, 0.2]]])   # point 0 beats point 1 everywhere
    >>> point_dominance(Ws).tolist()
    [[False, True], [False, False]]
    """
    R_, n, _ = Ws.shape
    s = (Ws.sum(axis=2) - Ws.sum(axis=1)).sum(axis=0)
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((np.arange(n), -s))] = np.arange(n)
    E = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(n):
            if i == j or rank[i] > rank[j]:
                continue
            others = np.ones(n, dtype=bool)
            others[[i, j]] = False
            E[i, j] = bool(np.all(Ws[:, i, others] >= Ws[:, j, others])
                           and np.all(Ws[:, others, i] <= Ws[:, others, j])
                           and np.all(Ws[:, i, j] >= Ws[:, j, i]))
    return E


def closed_states(E: np.ndarray) -> np.ndarray:
    """Mask over the 2^n subsets U (bit masks) of the prefixes that respect ``E``
    (:func:`point_dominance`): with j placed, every i with ``E[i, j]`` is placed too."""
    n = len(E)
    masks = np.arange(1 << n, dtype=np.int64)
    ok = np.ones(1 << n, dtype=bool)
    for i, j in zip(*np.nonzero(E), strict=True):
        ok &= ~(((masks >> j) & 1).astype(bool) & ~((masks >> i) & 1).astype(bool))
    return ok


def subset_dp(Ws: np.ndarray, tol: float, time_limit: float | None = None, *,
              chunk: int = CHUNK, blocks: str = "useful", lower: np.ndarray | None = None,
              dominance: bool = True) -> tuple[np.ndarray, np.ndarray]:
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

    **Useful blocks only** (``blocks="useful"``, default): a tied block that some bipartition
    splits without loss in every objective is never needed, so only the blocks of
    :func:`useful_blocks` are enumerated (about 100 of the 4 095 blocks at n = 12), and the
    frontier is the same set of vectors (the proof is in :func:`useful_blocks`).
    ``blocks="all"`` enumerates every non-empty subset (the reference: 3^n blocks in all).

    **Bound** (``lower``, optional: the values of some achievable orders, e.g. the supported
    vertices). The rest R of the points can add at most ``b(R) = ½ Σ_{i,j∈R} max(W_ij, W_ji)``
    inside R (each pair on its better side; the Bayes order of an AUC attains it), so a prefix x
    of U completes to at most ``x + b(V \\ U)``. When a row e of ``lower`` has
    ``e ≥ x + b`` everywhere and ``e > x + b + tol`` somewhere, every completion of x is
    dominated at resolution tol by the achievable e, and x is dropped (a whole run F(U \\ B) + g
    at once when its componentwise maximum is). No prefix of a Pareto vector is dropped this
    way (e would dominate it), so the result is unchanged; the tests compare it with the DP
    without the bound and with brute force.

    **Point dominance** (``dominance=True``, default): when point i beats point j against
    every other point in every objective (:func:`point_dominance`), some order that ranks i at
    or above j is at least as good as any order, so only the prefixes U that hold i whenever
    they hold j are states (:func:`closed_states`; 13-27% of the 2^n subsets for
    ``FiniteProblem.random(18, 2, seed)``, seeds 0-2); the frontier is the same set of vectors
    (the proof, with the useful blocks, is in :func:`point_dominance`).

    Each stored ``F(U)`` is cut into chunks of ``chunk`` rows with their componentwise maxima.
    At a state, a candidate chunk ``F(U \\ B)`` + g whose maximum is dominated with margin
    (:func:`dominated_with_margin`) by one of the candidates (the first and last rows of the
    chunks) is dropped unread: its rows are dominated at resolution tol and dominate nothing
    that the witness does not, so the filter's result is unchanged. Most chunks go (about 80%
    for K = 2), before their rows are gathered.

    Cost: ``Σ_U Σ_{B⊆U useful} |F(U\\B)|`` vector additions (at most ``3^n · max|F|`` with
    ``blocks="all"``) and one Pareto filter per state; memory ``O(2^n n + Σ_U |F(U)|)``.
    ``FiniteProblem.random(16, 2, seed)``: 4-12 s (``benchmarks/bench_pareto.py --targets``).
    Returns the values (m, R) and integer scores (m, n) of one weak order per point.
    """
    R_, n, _ = Ws.shape
    if not np.all(np.isfinite(Ws)):
        raise ValueError("The 'Ws' parameter must be finite (pair weights of labels with a prior "
                         "in (0, 1)).")
    if lower is not None:
        lower = np.asarray(lower, dtype=np.float64)
        if lower.ndim != 2 or lower.shape[1] != R_ or not np.all(np.isfinite(lower)):
            raise ValueError(f"The 'lower' parameter must be a finite (m, {R_}) array of "
                             f"achievable values, got shape {lower.shape}.")
    N = 1 << n
    full = N - 1
    deadline = None if time_limit is None else time.monotonic() + float(time_limit)
    masks = np.arange(N, dtype=np.int64)
    bits = ((masks[:, None] >> np.arange(n)) & 1).astype(np.float64)   # (N, n)
    # tie[B] = ½ Σ_{i,j∈B} W_ij ; row[R][i] = Σ_{j∈R} W_ij
    tie = 0.5 * np.einsum("bi,rij,bj->br", bits, Ws, bits, optimize=True)      # (N, R_)
    row = np.einsum("rij,bj->bir", Ws, bits, optimize=True)                    # (N, n, R_)
    bound = None
    if lower is not None and len(lower):
        # bound[R]: the most any order of the points R can add inside R, per objective (every
        # pair at its better side): an upper bound on a prefix's completion.
        best = np.maximum(Ws, np.swapaxes(Ws, 1, 2))
        bound = 0.5 * np.einsum("bi,rij,bj->br", bits, best, bits, optimize=True)
        known = MarginIndex(lower)  # the known vectors' tables, built once for every state
    # Flat storage of every state's frontier: values, back-pointers (previous state's row, block),
    # and of its chunks: componentwise maxima, first row, length.
    store = {"vals": np.zeros((1 << 16, R_)), "prev": np.full(1 << 16, -1, dtype=np.int64),
             "block": np.zeros(1 << 16, dtype=np.int64)}
    cstore = {"top": np.zeros((1 << 12, R_)), "first": np.zeros(1 << 12, dtype=np.int64),
              "len": np.ones(1 << 12, dtype=np.int64)}
    off, cnt = np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)
    coff, ccnt = np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)
    ftop = np.zeros((N, R_))                           # componentwise maximum of each F(U)
    cnt[0], ccnt[0], used, cused = 1, 1, 1, 1          # F(∅) = {0}: one row, one chunk
    pow2 = 1 << np.arange(n, dtype=np.int64)
    sub_cache: dict[int, np.ndarray] = {}
    if blocks not in ("useful", "all"):
        raise ValueError(f"The 'blocks' parameter must be 'useful' or 'all', got {blocks!r}.")
    useful = useful_blocks(Ws) if blocks == "useful" else None
    closed = closed_states(point_dominance(Ws)) if dominance else None
    states = range(1, N) if closed is None else np.flatnonzero(closed)[1:].tolist()
    for U in states:
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError("The subset DP ran out of its 'time_limit'.")
        if useful is None:
            members = pow2[bits[U] > 0]
            k = len(members)
            combos = sub_cache.get(k)
            if combos is None:
                combos = sub_cache[k] = bits[1:1 << k, :k].astype(np.int64)  # nonempty subsets
            subs = combos @ members                                           # (2^k − 1,)
        else:
            subs = useful[(useful & U) == useful]
        prev = U ^ subs
        if closed is not None:  # blocks whose rest is not a state
            subs, prev = subs[closed[prev]], prev[closed[prev]]
        if bound is not None:  # states left empty by the bound test
            live = cnt[prev] > 0
            subs, prev = subs[live], prev[live]
            if len(subs) == 0:
                continue
        g = tie[subs] + bits[subs] @ row[full ^ U]                          # (2^k − 1, R_)
        if bound is not None:  # whole runs whose best completion a known vector beats
            live = ~known(ftop[prev] + g + bound[full ^ U], tol)
            subs, prev, g = subs[live], prev[live], g[live]
            if len(subs) == 0:
                continue
        # candidate chunks: F(U \ B) + g(B), one run of chunks per block B
        run = np.arange(len(subs))
        if int(cnt[prev].sum()) > _PRUNE_MIN:
            # whole runs first (witnesses: the first and last row of every run), then chunks
            # (witnesses: the first and last row of every chunk left)
            ends = np.stack([off[prev], off[prev] + cnt[prev] - 1], axis=1).ravel()
            wit = store["vals"][ends] + np.repeat(g, 2, axis=0)  # presorted pairs
            run = run[~dominated_with_margin(wit, ftop[prev] + g, tol)]
        cc = ccnt[prev[run]]
        cid = concat_ranges(coff[prev[run]], cc)
        run = np.repeat(run, cc)
        first, length = cstore["first"][cid], cstore["len"][cid]
        if len(cid) > len(subs):
            tops = cstore["top"][cid] + g[run]
            alive = np.ones(len(cid), dtype=bool)
            if bound is not None:  # chunks whose best completion a known vector beats
                alive = ~known(tops + bound[full ^ U], tol)
            ends = np.stack([first, first + length - 1], axis=1)[alive].ravel()
            wit = store["vals"][ends] + g[np.repeat(run[alive], 2)]     # presorted runs
            alive[alive] = ~dominated_with_margin(wit, tops[alive], tol)
            run, first, length = run[alive], first[alive], length[alive]
        src = concat_ranges(first, length)
        which = np.repeat(run, length)
        C = store["vals"][src] + g[which]
        if bound is not None:
            alive = ~known(C + bound[full ^ U], tol)
            if not alive.any():
                continue
            C, src, which = C[alive], src[alive], which[alive]
        keep = frontier_rows(C, tol)
        m = len(keep)
        V = C[keep]
        starts = np.arange(0, m, chunk)
        mc = len(starts)
        _reserve(store, used + m)
        _reserve(cstore, cused + mc)
        store["vals"][used:used + m] = V
        store["prev"][used:used + m] = src[keep]
        store["block"][used:used + m] = subs[which[keep]]
        cstore["top"][cused:cused + mc] = np.maximum.reduceat(V, starts, axis=0)
        cstore["first"][cused:cused + mc] = used + starts
        cstore["len"][cused:cused + mc] = np.diff(np.append(starts, m))
        ftop[U] = V.max(axis=0)
        off[U], cnt[U], coff[U], ccnt[U] = used, m, cused, mc
        used, cused = used + m, cused + mc
    rows = np.arange(off[full], off[full] + cnt[full])
    return store["vals"][rows].copy(), _backtrack(store, rows, bits)


def _backtrack(store: dict[str, np.ndarray], rows: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """Integer scores (m, n) of one weak order per stored final row of :func:`subset_dp`: every
    row at once, lowest block first (it was added last, level 0), along the back-pointers."""
    S = np.zeros((len(rows), bits.shape[1]))
    r, level = rows.copy(), 0
    while True:
        act = np.flatnonzero(r > 0)
        if len(act) == 0:
            break
        S[act] += level * bits[store["block"][r[act]]]
        r[act] = store["prev"][r[act]]
        level += 1
    return S


#: Weak orders per block of :func:`order_values` (bounds its (block, n, n) comparison table).
_ORDER_BLOCK = 1024


def pair_weight_stack(problem) -> np.ndarray:
    """``Ws[k] = problem.pair_weights(k)`` (K, n, n): ``AUC_k = Σ_ij Ws[k, i, j] S_ij``."""
    return np.stack([problem.pair_weights(k) for k in range(problem.K)])


#: Largest n for which :func:`problem_order_values` builds the dense (K, n, n) pair weights
#: (K = 2, n = 2048: 64 MiB); above it, one sort per order.
DENSE_ORDER_MAX_N = 2048


def problem_order_values(problem, S: np.ndarray) -> np.ndarray:
    """Exact population AUCs (m, K) of the weak orders given by scores S (m, n) on a finite
    problem: :func:`order_values` over :func:`pair_weight_stack` (one vectorised pass) up to
    n = :data:`DENSE_ORDER_MAX_N`; above it :meth:`FiniteProblem.auc` per order (a sort, no
    n × n array: the dense route needs K n² floats, 6.4 GB and minutes at n = 20 000)."""
    S = np.asarray(S, dtype=np.float64).reshape(-1, problem.n)
    if problem.n <= DENSE_ORDER_MAX_N:
        return order_values(pair_weight_stack(problem), S)
    return np.array([problem.auc(s) for s in S], dtype=np.float64).reshape(len(S), problem.K)


def order_values(Ws: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Values ``Σ_ij Ws[r, i, j] S_ij`` (m, R) of m weak orders given by scores S (m, n), ties ½
    and self-pairs included: with ``Ws = pair_weight_stack(problem)`` the exact population AUCs of
    every row (:meth:`FiniteProblem.auc` up to float rounding, ~1e-16), in one vectorised pass
    per block of orders (no per-order validation or sort). Internal: inputs are the callers'."""
    R_, n, _ = Ws.shape
    S = np.asarray(S, dtype=np.float64).reshape(-1, n)
    W = Ws.reshape(R_, n * n).T
    out = np.empty((len(S), R_))
    step = max(1, min(_ORDER_BLOCK, (1 << 22) // max(n * n, 1)))
    for a in range(0, len(S), step):
        s = S[a:a + step]
        C = (s[:, :, None] > s[:, None, :]).astype(np.float64)
        C += 0.5 * (s[:, :, None] == s[:, None, :])
        out[a:a + step] = C.reshape(len(s), n * n) @ W
    return out


def _reserve(arrays: dict[str, np.ndarray], size: int) -> None:
    """Grow every array of ``arrays`` (first axis, doubling) to hold at least ``size`` rows."""
    cap = len(next(iter(arrays.values())))
    if size <= cap:
        return
    while cap < size:
        cap *= 2
    for key, a in arrays.items():
        grown = np.empty((cap, *a.shape[1:]), dtype=a.dtype)
        grown[: len(a)] = a
        arrays[key] = grown
