"""Exact, approximate and supported Pareto frontiers of per-label AUCs (docs/theory.md §6)."""


from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_option,
    check_positive,
    check_problem_aucs_defined,
    check_time_limit,
    check_tolerance,
)
from bipartite.pareto.arrangement import cell_scores, cell_vectors, effective_scores, lex_scores
from bipartite.pareto.dominance import greedy_unique, pareto_filter, unique_rows
from bipartite.pareto.dp import (
    DEFAULT_TOL_DP,
    dp_limit,
    pair_weight_stack,
    problem_order_values,
    subset_dp,
)
from bipartite.pareto.milp import (
    DEFAULT_TOL,
    DEFAULT_TOL_MULTI,
    MILP_BACKENDS,
    WeakOrderMILP,
    auc_milp,
    solver_outcome,
)
from bipartite.pareto.sweep import (  # simplex_grid, weight_sweep: public here too
    SIMPLEX_GRID_MAX_POINTS,
    path_vertices,
    seed_values,
    simplex_grid,
    weight_sweep,
)

if TYPE_CHECKING:
    import pandas as pd

    from bipartite.population import FiniteProblem

__all__ = ["SIMPLEX_GRID_MAX_POINTS", "exact_frontier", "frontier_table", "is_pareto_optimal",
           "simplex_grid", "supported_frontier", "weight_sweep"]


# --------------------------------------------------------------------------------------------
# Exact and approximate frontiers
# --------------------------------------------------------------------------------------------
def _check_problem(problem: FiniteProblem) -> None:
    check_problem_aucs_defined(problem, "its Pareto frontier")


def _filter_candidates(cands: list[tuple[np.ndarray, np.ndarray]], dims: int,
                       tol: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Non-dominated candidates in the first ``dims`` coordinates, de-duplicated within tol
    (keeping the lexicographically largest full vector of each duplicate group)."""
    if not cands:
        return []
    V = np.array([v for v, _ in cands])
    keep = np.flatnonzero(pareto_filter(V[:, :dims]))
    # among near-duplicates keep the lexicographically largest full vector
    order = keep[np.lexsort((-V[keep]).T[::-1])]
    return [cands[i] for i in greedy_unique(V[:, :dims], order, tol)]


def _exact_points(milp: WeakOrderMILP, K: int, tol: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Recursive ε-constraint (δ = tol). ``rec(k, lower)`` is the Pareto frontier in the
    coordinates 0..k of ``A(lower) = {x achievable : x_j ≥ lower_j}``, each point represented by
    the lexicographic maximum (0, 1, ..., K−1) of its class. See :func:`exact_frontier`."""
    order = tuple(range(K))
    # Cache of solved lexicographic problems: (bounds, result). If bounds' <= bounds and the
    # cached result satisfies the current bounds, it is the lexicographic maximum of the smaller
    # set too; if the cached problem was infeasible, so is the current one.
    cache_t: list[np.ndarray] = []
    cache_r: list[tuple[np.ndarray, np.ndarray] | None] = []

    def lex(lower: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        if cache_t:
            T = np.array(cache_t)
            for c in np.flatnonzero(np.all(T <= lower, axis=1)):
                res = cache_r[c]
                if res is None:
                    return []
                if np.all(res[0] >= lower):
                    return [res]
        z = milp.lexmax(order, lower, tol=tol)
        res = None if z is None else (milp.values(z), z)
        cache_t.append(lower.copy())
        cache_r.append(res)
        return [] if res is None else [res]

    def rec(k: int, lower: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        if k == 0:
            return lex(lower)
        out: list[tuple[np.ndarray, np.ndarray]] = []
        lo = lower.copy()
        while True:
            F = rec(k - 1, lo)
            if not F:
                break
            out.extend(F)
            lo = lo.copy()
            lo[k] = min(v[k] for v, _ in F) + tol
        return _filter_candidates(out, k + 1, tol)

    return rec(K - 1, np.full(K, -np.inf))


def _approx_points(problem: FiniteProblem, milp: WeakOrderMILP, eps: float,
                   tol: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """ε-approximate K = 2 frontier by the MILP, seeded with the supported points (see
    :func:`exact_frontier`). Returns (values, scores) pairs."""
    SV, SS = path_vertices(problem, tol)
    SV, SS = SV[::-1], SS[::-1]  # AUC_2 ascending: the sweep direction
    v, vs = SV[0], SS[0]          # the lexicographic maximum (AUC_1, AUC_2): a vertex
    out: list[tuple[np.ndarray, np.ndarray]] = [(v, vs)]
    i = 0
    while True:
        while i < len(SV) and SV[i][1] <= v[1] + tol:
            i += 1
        if i == len(SV):
            break  # v has the largest AUC_2 (within tol)
        S = SV[i]
        if S[1] - v[1] <= eps and v[0] - S[0] <= eps:
            # every frontier point from v to the next vertex S lies in the box between them,
            # within eps of v: no MILP needed
            v, vs = S, SS[i]
            out.append((v, vs))
            continue
        # w: the Pareto point with the largest AUC_2 among those with AUC_1 >= v_1 - eps.
        if S[0] >= v[0] - eps:
            # S is feasible for w, so w_2 >= S_2 > v_2 + eps (S is not within eps of v): the
            # sweep resumes at v_2 + eps without solving for w.
            s = v[1] + eps
        else:
            z = milp.lexmax((1, 0), np.array([v[0] - eps, -np.inf]), tol=tol)
            w = milp.values(z)
            s = w[1] + tol if w[1] <= v[1] + eps else v[1] + eps
        # next point: lexicographic maximum (AUC_1, AUC_2) with AUC_2 >= s; a vertex with
        # AUC_2 >= s is feasible, so AUC_1 >= its AUC_1 is a valid cut.
        j = int(np.searchsorted(SV[:, 1], s))
        lo = np.array([SV[j][0] - tol if j < len(SV) else -np.inf, s])
        z = milp.lexmax((0, 1), lo, tol=tol)
        if z is None:
            break
        v, vs = milp.values(z), milp.scores(z)
        out.append((v, vs))
    return out


def _eps_cover(V: np.ndarray, eps: float) -> np.ndarray:
    """Indices of a subset of the rows of V such that every row is within eps (max-norm) of a
    chosen row: rows visited in lexicographic order, a row is chosen when no chosen row covers
    it (a valid cover, not a minimum one)."""
    chosen: list[int] = []
    for i in np.lexsort(V.T[::-1])[::-1]:
        if not chosen or np.min(np.max(np.abs(V[chosen] - V[i]), axis=1)) > eps:
            chosen.append(int(i))
    return np.sort(np.array(chosen, dtype=np.int64))


_METHODS = ("auto", "dp", "milp")


def exact_frontier(
    problem: FiniteProblem,
    *,
    eps: float | None = None,
    tol: float | None = None,
    time_limit: float | None = None,
    return_scores: bool = False,
    method: str = "auto",
    backend: str | None = None,
    dp_max_n: int | None = None,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    r"""All Pareto-optimal per-label AUC vectors of a finite problem (docs/theory.md §6, LA25 §3).

    The achievable set is ``{(AUC_1(f), ..., AUC_K(f)) : f a weak order of the n points}`` (ties
    ½, self-pairs included). Two exact algorithms compute its Pareto frontier:

    **Subset dynamic programme** (``method="dp"``; :func:`subset_dp`). A weak order is a
    sequence of blocks of tied points; the AUC vector splits over the blocks, and the part a block
    adds depends only on the block and on the set of points below it. So the Pareto set of the
    prefixes that place a set U of points is the Pareto filter of ``F(U \ B) + g(B, rest)`` over
    the non-empty blocks ``B ⊆ U``, and dominated prefixes can be pruned exactly (the rest of the
    order adds the same vector to each). Only the *useful* tied blocks are enumerated (a block
    that some bipartition splits without loss in every label is never needed:
    :func:`~bipartite.pareto.dp.useful_blocks`, about 100 of the 2^n − 1 at n = 12), and a
    prefix is dropped when one of a few known achievable vectors (the supported vertices for
    K = 2, loss-aggregation orders on a weight grid for K ≥ 3) beats its best completion, and
    only the prefixes that respect point dominance are states (when point i beats point j
    against every other point in every label, some optimal order ranks i at or above j:
    :func:`~bipartite.pareto.dp.point_dominance`). All three leave the frontier unchanged
    (proofs in :func:`subset_dp`, docs/theory.md §6.3). Time and memory grow like 2^n
    times the frontier sizes: milliseconds at n = 6, 2-4 CPU s and 0.16-0.24 GB at n = 16 (K = 2,
    seeds 0-2; 9-101 s and 0.3-2.1 GB at n = 18), 1-9 s at n = 10 and 30 s at n = 12 (K = 3, seed 0:
    491 395 points), where the MILP needs minutes. Resolution ``tol``
    (default 1e-12): vectors within ``tol`` in max-norm are merged, so every Pareto point x has
    a returned y with ``y ≥ x − n·tol``.

    **ε-constraint MILP** (``method="milp"``) over the weak-order MILP (module docstring) with
    step ``δ = tol``:

    * ``rec(0, t)``: the lexicographic maximum of (AUC_1, ..., AUC_K) subject to
      ``AUC_j ≥ t_j``; it is Pareto-optimal in ``A(t) = {x : x_j ≥ t_j}``.
    * ``rec(k, t)`` (frontier of A(t) in coordinates 1..k+1): start with ``t_{k+1} = −∞``;
      repeat ``F = rec(k−1, t)``, collect F, ``t_{k+1} ← min_{x∈F} x_{k+1} + δ`` until F is empty;
      keep the non-dominated collected points. For K = 2 this is the classical loop "max AUC_1
      s.t. AUC_2 ≥ previous + δ, then max AUC_2 at that AUC_1".

    Why no point is missed: F, the frontier of A(t), is unchanged while ``t_{k+1}`` stays at or
    below ``min_F x_{k+1}`` (no point of F leaves, and the points that leave were dominated by F),
    and a Pareto point x of A(t) projects onto the frontier of A(t') for every visited
    ``t'_{k+1} ≤ x_{k+1}`` (whatever dominates its projection there would dominate x), with x
    itself as the lexicographic representative. The only approximation is δ: a point is missed
    only if its AUC_{k+1} exceeds that of a found point by less than δ, and then that found point
    is at least as good in the other coordinates: **every Pareto point x has a returned y with
    y ≥ x − δ** (componentwise), and the result is exact whenever distinct achievable values of a
    coordinate differ by more than δ. With floating-point data no useful positive lower bound on
    that gap exists (it is a subset-sum of the pair weights ``(W_ij − W_ji)/2``; for rational
    data, with L a common denominator of the products ``p_i η_ik p_j (1 − η_jk)``, it is at
    least ``1/(2 L π_k(1−π_k))``), so δ = ``tol``
    (default 1e-9 for K = 2, 1e-7 for K ≥ 3: see ``DEFAULT_TOL_MULTI``) is a resolution: AUC
    vectors within ``tol`` (max-norm) are treated as one
    point. δ is far above float error (~1e-15); thresholds are enforced exactly on the rounded
    solution (a solver answer that violates one after rounding is cut off and re-solved), and HiGHS
    presolve is off (it returned wrong optima on small instances of this model). Solved
    subproblems are cached: a cached lexicographic maximum over a larger feasible set
    that satisfies the current thresholds is reused, which removes most solves of the K ≥ 3
    recursion. The tests compare both algorithms with brute-force enumeration of all weak orders
    and with each other.

    ``method="auto"`` (default) uses the DP for ``n ≤ dp_max_n`` (default 16 for K = 2, 12 for
    K ≥ 3) and the MILP above, or whenever a MILP ``backend`` is named.

    **ε-approximate mode** (``eps`` given): returns a subset of the exact frontier such that
    **every Pareto-optimal AUC vector is within eps in max-norm of a returned one**.

    * DP (any K): the exact frontier, then a greedy cover (a row is kept unless a kept row is
      within eps of it).
    * MILP (K = 2): a sweep in the direction of increasing AUC_2, seeded with the supported
      points (:func:`supported_frontier`, computed by sorting, no MILP). From a returned point v:
      if the next vertex S has ``S_2 − v_2 ≤ eps`` and ``v_1 − S_1 ≤ eps``, every frontier point
      between them lies in the box spanned by v and S, within eps of v, and S is returned without
      a solve. Otherwise it finds w, the frontier point of largest AUC_2 with
      ``AUC_1 ≥ v_1 − eps``. If ``w_2 ≤ v_2 + eps`` every frontier point from v to w is within eps
      of v and the sweep resumes after w; otherwise it resumes at ``AUC_2 ≥ v_2 + eps``, and the
      frontier points it skips lie between v and w, so within eps of v. When ``S_1 ≥ v_1 − eps``
      S itself shows ``w_2 ≥ S_2 > v_2 + eps`` and w is not solved for. Vertices give valid
      extra bounds to each solve. At most about ``(range_1 + range_2)/eps + 1`` points, four
      MILP solves per point that the vertices do not already cover.

    Parameters
    ----------
    problem : FiniteProblem (every prior strictly inside (0, 1))
    eps : float > 0, optional — ε-approximate mode (MILP: K = 2 only).
    tol : float, optional — resolution (DP, default 1e-12) or δ and de-duplication radius
        (MILP, see above; default by K).
    time_limit : float > 0, optional — wall seconds; :class:`TimeoutError` when exceeded.
    dp_max_n : int, optional — the subset DP's size limit (default
        :func:`~bipartite.pareto.dp.dp_limit`: 16 for K = 2, 12 for K ≥ 3): ``method="auto"``
        uses the DP up to this many points, and ``method="dp"`` refuses larger problems (the DP
        holds ``O(2^n · |frontier|)`` vectors, and the frontiers grow with n too: n = 17 ran
        past 3 minutes and 2 GB on seed 0). Raise it deliberately.
    return_scores : bool — also return one score vector per frontier point.
    method : "auto" (default), "dp" or "milp".
    backend : "highspy" or "cvxpy", optional — the MILP's solver interface (default
        "highspy"); naming one selects the MILP (an error with ``method="dp"``).

    Returns
    -------
    points : ndarray of shape (m, K), sorted lexicographically (AUC_1 first), exact population
        AUCs of the returned orders (:meth:`FiniteProblem.auc` up to float rounding, ~1e-16: the
        values that the DP or the MILP computed for them, not re-evaluated).
    scores : ndarray of shape (m, n), only with ``return_scores=True``; row r is a weak order
        (integer scores) attaining ``points[r]``.

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.random(4, 2, seed=1)
    >>> F = exact_frontier(P)
    >>> F.shape[1], bool(np.all(np.diff(F[:, 0]) > 0) and np.all(np.diff(F[:, 1]) < 0))
    (2, True)
    >>> bool(np.allclose(F, exact_frontier(P, method="milp")))
    True
    """
    _check_problem(problem)
    method = check_option(method, "method", _METHODS)
    time_limit = check_time_limit(time_limit)
    dp_max_n = (dp_limit(problem.K) if dp_max_n is None
                else check_positive(dp_max_n, "dp_max_n", integer=True))
    if backend is not None:
        check_option(backend, "backend", MILP_BACKENDS)
        if method == "dp":
            raise ValueError(f"The 'backend' parameter ({backend!r}) selects the MILP; it cannot "
                             "be combined with method='dp'.")
        method = "milp"
    backend = "highspy" if backend is None else backend
    if method == "auto":
        method = "dp" if problem.n <= dp_max_n else "milp"
    if method == "dp" and problem.n > dp_max_n:
        raise ValueError(
            f"method='dp' on n = {problem.n} points is past the subset DP's limit dp_max_n = "
            f"{dp_max_n} (its time and memory grow like 2^n times the frontier size); raise "
            f"'dp_max_n' deliberately, use "
            f"method='milp', or the ε-approximate mode ('eps').")
    if tol is None:
        if method == "dp":
            tol = DEFAULT_TOL_DP
        else:
            tol = DEFAULT_TOL if problem.K <= 2 else DEFAULT_TOL_MULTI
    tol = check_tolerance(tol, "tol", allow_zero=False)
    if eps is not None:
        eps = check_tolerance(eps, "eps", allow_zero=False)
        if method == "milp" and problem.K != 2:
            raise ValueError(f"The ε-approximate mode ('eps') of method='milp' is implemented "
                             f"for K = 2 labels, got K = {problem.K}; use method='dp' (n <= "
                             f"{dp_limit(problem.K)} is fast) or eps=None.")
    # Every route returns the values of its orders with them (the DP's sums along the order's
    # blocks, the MILP's const + coef·z): no order is re-evaluated here.
    if method == "dp":
        V, S = subset_dp(pair_weight_stack(problem), float(tol), time_limit,
                         lower=seed_values(problem))
    else:
        milp = auc_milp(problem, backend, time_limit, tol)
        if problem.n == 1:
            V, S = np.full((1, problem.K), 0.5), np.zeros((1, 1))
        else:
            pts = (_exact_points(milp, problem.K, tol) if eps is None
                   else _approx_points(problem, milp, float(eps), tol))
            V = np.array([v for v, _ in pts])
            S = np.array([milp.scores(z) for _, z in pts] if eps is None
                         else [s for _, s in pts])
    S = S.reshape(len(S), problem.n)
    V = V.reshape(len(S), problem.K)
    keep = unique_rows(V, tol)
    V, S = V[keep], S[keep]
    if eps is not None and method == "dp":
        keep = _eps_cover(V, float(eps))
        V, S = V[keep], S[keep]
    return (V, S) if return_scores else V


def is_pareto_optimal(problem: FiniteProblem, scores: ArrayLike, *, tol: float = DEFAULT_TOL,
                      method: str = "auto", backend: str = "highspy") -> bool:
    """Whether a scorer's AUC vector is Pareto-optimal on a finite problem (docs/theory.md §6).

    * ``method="dp"``: computes the exact frontier (:func:`exact_frontier`, subset DP) and
      checks that no frontier point x has ``x ≥ a − tol`` everywhere and ``x > a + tol``
      somewhere, with ``a`` the scorer's AUC vector.
    * ``method="milp"``: a certificate by one MILP solve, ``max Σ_k AUC_k`` (coefficients scaled
      per label) over weak orders subject to ``AUC_k ≥ a_k`` for every k (thresholds relaxed by
      ``tol/10`` for the solver). The scorer is Pareto-optimal iff the optimum's summed AUCs
      exceed ``Σ_k a_k`` by at most ``tol``.

    Either way: no weak order improves one label without losing on another (up to ``tol``).
    ``method="auto"`` (default) uses the DP for ``n ≤ dp_limit(K)`` and the MILP above; the DP does
    not depend on a solver's tolerances (see ``_MIP_TOL`` for why that matters).

    >>> from bipartite.population import FiniteProblem
    >>> from bipartite.bayes import loss_aggregation
    >>> P = FiniteProblem.random(4, 2, seed=0)
    >>> is_pareto_optimal(P, loss_aggregation(P.eta, P.pi)), is_pareto_optimal(P, np.zeros(4))
    (True, False)
    """
    _check_problem(problem)
    method = check_option(method, "method", _METHODS)
    check_option(backend, "backend", MILP_BACKENDS)
    tol = check_tolerance(tol, "tol")
    a = problem.auc(problem.check_scores(scores))
    if problem.n == 1:
        return True
    if method == "auto":
        method = "dp" if problem.n <= dp_limit(problem.K) else "milp"
    if method == "dp":
        F = exact_frontier(problem, method="dp")
        better = np.all(F >= a - tol, axis=1) & np.any(F > a + tol, axis=1)
        return not bool(np.any(better))
    milp = auc_milp(problem, backend, None, tol)
    obj = (milp.coef / milp.scale[:, None]).sum(axis=0)
    z = milp.solve(obj, a - tol / 10.0, np.full(problem.K, np.inf))
    if z is None:  # only a tolerance artefact: the scorer's own order is feasible
        return True
    return bool(milp.values(z).sum() <= a.sum() + tol)


# --------------------------------------------------------------------------------------------
# Supported points and weight sweeps
# --------------------------------------------------------------------------------------------
def _supported_rows(F: np.ndarray) -> np.ndarray:
    """Indices of the rows v of the antichain F that are the unique maximiser of ``a·u`` over
    the rows u of F for some strictly positive a: the linear programme ``a ≥ 1``,
    ``(u − v)·a ≤ −1`` for every other row u (HiGHS via :func:`scipy.optimize.linprog`). Rows
    that are not vertices of the convex hull of F (Qhull) are skipped."""
    from scipy.optimize import linprog
    from scipy.spatial import ConvexHull, QhullError

    m, K = F.shape
    if m <= K + 1:
        cand = np.arange(m)
    else:
        try:
            cand = np.sort(ConvexHull(F).vertices)
        except QhullError:  # flat or degenerate point set: test every row
            cand = np.arange(m)
    out = []
    for i in cand:
        D = np.delete(F, i, axis=0) - F[i]
        if len(D) == 0:
            out.append(int(i))
            continue
        res = linprog(np.zeros(K), A_ub=D, b_ub=-np.ones(len(D)), bounds=[(1.0, None)] * K,
                      method="highs")
        if solver_outcome(res.status, "linprog"):   # infeasible: not supported
            out.append(int(i))
    return np.array(out, dtype=np.int64)


_SUPPORTED_METHODS = ("auto", "arrangement", "frontier")
#: ``supported_frontier(method="auto")`` enumerates the cells of the arrangement up to this many
#: labels and reads the vertices off the exact frontier beyond: the recursion over flats meets
#: every face of the simplex too (2^K of them), so at n = 2 it took 0.4 CPU s for K = 8 and
#: 5.4 s for K = 10 against 0.01 s, while for K = 5 it was 2-3 times faster (n = 5, 6) and for
#: K = 6 about 2 times slower (n = 4, 5); measured side by side on ``FiniteProblem.random(n, K,
#: seed=0)``.
ARRANGEMENT_MAX_K = 5


def supported_frontier(problem: FiniteProblem, *, tol: float = DEFAULT_TOL,
                       return_scores: bool = False, method: str = "auto"
                       ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Supported Pareto points: the convex-hull vertices reached by loss aggregation (docs/theory.md
    §4, §6; LA25 §3).

    For mixing weights ``a = (1 − λ, λ)``, ``λ ∈ (0, 1)``, the Bayes scorer of
    ``a_1 AUC_1 + a_2 AUC_2`` is ``f_λ = (1 − λ) η_1/(π_1(1−π_1)) + λ η_2/(π_2(1−π_2))``
    (:func:`bipartite.bayes.loss_aggregation`), and the scalarised objective is
    ``const + Σ_{i<j} p_i p_j (f_λ(x_i) − f_λ(x_j)) (S_ij − S_ji)/2``, so its maximisers are exactly
    the weak orders that agree with f_λ on every pair it does not tie. The order of f_λ changes
    only at the breakpoints ``λ_ij`` where two points tie, computed exactly from the pairs (not a
    grid). Inside each open interval between consecutive breakpoints the maximiser is unique up to
    points with identical η (which no AUC distinguishes), so its AUC vector is the unique
    maximiser for an open set of directions: a hull **vertex**; every vertex with a positive
    normal arises this way. At a breakpoint the tied points' orders on either side are reverses of
    each other, so the tied order's AUC vector is the **midpoint** of the two neighbouring vertices:
    on a hull edge, Pareto-optimal (it maximises a positive scalarisation) but not a vertex, and it
    is not returned. The endpoints λ = 0, 1 tie points with equal η_k and are not vertices either;
    the extreme vertices are the limits λ → 0⁺, 1⁻, i.e. the lexicographic optima.

    **K = 3** (``method="arrangement"``, the default). The same argument in the weight
    triangle: the order of ``f_a`` changes only on the tie lines ``{a : a·(E_i − E_j) = 0}``,
    ``E_ik = η_ik/(π_k(1−π_k))``, and each open cell of their arrangement gives one vertex. The
    cells are met by walking every line once
    (:func:`~bipartite.pareto.arrangement.cell_vectors`: the AUC vectors of the cells beside a
    line are one cumulative sum of the crossings' jumps, no sort), and each cell is taken once,
    from the line that bounds it clockwise at its lowest vertex
    (:func:`~bipartite.pareto.arrangement.walk_faces`), so no copies are merged:
    ``O(n⁴ log n)`` for ``O(n⁴)`` cells, 3 CPU s at n = 60 (545 356 vertices) and 17 s at
    n = 100 (3.8 million vertices; the walk that merged every copy took over 160 s;
    docs/theory.md §6.2).

    **4 ≤ K ≤ 5** (``method="arrangement"``, the default up to ``ARRANGEMENT_MAX_K`` labels).
    The cells of the arrangement of the tie
    hyperplanes in the weight simplex, by the recursion over flats
    (:func:`~bipartite.pareto.arrangement.arrangement_faces`; every cell is entered from one of
    its facets), one sort per face: the number of faces grows like ``(n²/2)^(K−1)``, 0.5 CPU s
    at n = 7 and 16 s at n = 12 for K = 4, far below the frontier route (32 s at n = 7).

    **Any K ≥ 2** (``method="frontier"``, the default for K ≥ 6, where the recursion's 2^K faces
    of the simplex dominate). The vertices are read off the
    exact frontier (:func:`exact_frontier`, so sizes where it is affordable: the DP up to
    n = 12): a Pareto point v is a vertex reached by positive
    weights iff the linear programme ``a ≥ 1, a·(v − u) ≥ 1`` for every other frontier point u is
    feasible (scale a up to turn any strictly positive separating weight into one with these
    margins; a positive weighting is maximised on the frontier). Only vertices of the convex hull
    of the frontier (Qhull) are tested. For every K the routes give the same points (tested).

    ``method``: "auto" ("arrangement" up to K = 5, "frontier" beyond), "arrangement" (the
    breakpoint sweep for K = 2, the walk for K = 3, the recursion over flats for K ≥ 4) or
    "frontier".

    Returns
    -------
    points : (m, K) sorted lexicographically, de-duplicated within ``tol``; ``scores`` (m, n)
    with ``return_scores=True``.

    Raises
    ------
    ValueError
        For K = 1 (a single AUC has no trade-off: use the Bayes scorer).

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.random(4, 2, seed=1)
    >>> S = supported_frontier(P)
    >>> bool(np.all(pareto_filter(S)))
    True
    """
    _check_problem(problem)
    tol = check_tolerance(tol, "tol")
    method = check_option(method, "method", _SUPPORTED_METHODS)
    if problem.K < 2:
        raise ValueError(f"supported_frontier needs K >= 2 labels, got K = {problem.K}.")
    if problem.K == 2 and method != "frontier":
        V, S = path_vertices(problem, tol)
        return (V, S) if return_scores else V
    if method == "auto" and problem.K > ARRANGEMENT_MAX_K:
        method = "frontier"
    if method == "frontier":
        F, FS = exact_frontier(problem, return_scores=True)
        keep = _supported_rows(F)
        return (F[keep], FS[keep]) if return_scores else F[keep]
    E = effective_scores(problem)
    if problem.K == 3:
        V, L = cell_vectors(problem, tol)
        keep = unique_rows(V, tol)
        V = V[keep]
        if not return_scores:
            return V
        S = np.array([lex_scores(E, list(lv)) for lv in L[keep]]).reshape(len(V), problem.n)
        return V, S
    S = cell_scores(E)
    V = problem_order_values(problem, S)
    keep = unique_rows(V, tol)
    return (V[keep], S[keep]) if return_scores else V[keep]


def frontier_table(problem: FiniteProblem, **frontier_options: Any) -> pd.DataFrame:
    """The Pareto frontier of per-label AUCs of a finite problem as a table (docs/theory.md §6).

    ``frontier_options`` (``method``, ``eps``, ``time_limit``, ``dp_max_n``, ...) are passed to
    :func:`exact_frontier`.

    One row per exact Pareto-optimal AUC vector (:func:`bipartite.pareto.exact_frontier`) with
    ``supported`` (a vertex reached by a weight sweep, :func:`bipartite.pareto.supported_frontier`;
    K ≥ 2), then one row each for the Bayes scorers of loss aggregation (a = 1)
    and label aggregation (sum, linear costs) with their Pareto certificate
    (:func:`bipartite.pareto.is_pareto_optimal`).

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.25] * 4, [[0.9, 0.1], [0.6, 0.7], [0.2, 0.8], [0.1, 0.3]])
    >>> t = frontier_table(P)
    >>> t["point"].iloc[-2:].tolist(), bool(t["pareto_optimal"].iloc[-2:].all())
    (['loss aggregation (a = 1)', 'label aggregation (sum)'], True)
    """
    import pandas as pd

    from bipartite.bayes import label_aggregation, loss_aggregation

    exact = exact_frontier(problem, **frontier_options)
    supported = supported_frontier(problem) if problem.K >= 2 else np.zeros((0, problem.K))
    rows = []
    for i, point in enumerate(exact):
        row = {"point": f"frontier {i + 1}"}
        row.update({f"AUC_{k + 1}": v for k, v in enumerate(point)})
        if problem.K >= 2:
            row["supported"] = bool(np.abs(supported - point).max(axis=1).min() <= 1e-7)
        row["pareto_optimal"] = True
        rows.append(row)
    for name, scores in [("loss aggregation (a = 1)", loss_aggregation(problem.eta, problem.pi)),
                         ("label aggregation (sum)", label_aggregation(problem))]:
        row = {"point": name}
        row.update({f"AUC_{k + 1}": v for k, v in enumerate(problem.auc(scores))})
        row["pareto_optimal"] = is_pareto_optimal(problem, scores)
        rows.append(row)
    return pd.DataFrame(rows)
