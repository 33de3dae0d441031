"""Pareto optimality of per-label AUCs on finite-support problems (THEORY §6, LA25 §3).

On a :class:`~bipartite.population.FiniteProblem` with ``n`` points the achievable set is the
finite set of AUC vectors ``(AUC_1, ..., AUC_K)`` of all weak orders of the points (ties count ½,
self-pairs included, THEORY §2). This module computes

* :func:`exact_frontier` — every Pareto-optimal AUC vector, by a dynamic programme over subsets
  of points (n ≤ 12 by default: ~1 s at n = 10) or an ε-constraint recursion over a weak-order
  mixed-integer linear program (MILP), or an ε-approximate subset of it (the MILP sweep is
  seeded with the supported vertices, which are computed by sorting);
* :func:`supported_frontier` — the supported points (vertices of the convex hull that a sweep of
  the loss-aggregation weights reaches), from the exact breakpoints of the sweep (K = 2);
* :func:`is_pareto_optimal` — a MILP certificate for one scorer;
* :func:`pareto_filter`, :func:`dominates`, :func:`hypervolume` — point-set utilities;
* :func:`weight_sweep` — per-label AUCs along a path of loss-aggregation weights (samples or
  exact populations).

**The weak-order MILP** (THEORY §6; one private builder, :class:`_WeakOrderMILP`, also serves
:func:`bipartite.costs.optimal_ranking`). Binary ``z_ij`` ("i ranked at least as high as j") for
every ordered pair ``i ≠ j``; completeness ``z_ij + z_ji ≥ 1``; transitivity
``z_ij + z_jk − z_ik ≤ 1`` for every ordered triple; ``S_ij = (z_ij + 1 − z_ji)/2``, ``S_ii = ½``.
Any objective ``Σ_ij W_ij S_ij`` is then ``Σ W / 2 + Σ_{i≠j} (W_ij − W_ji)/2 · z_ij``: linear.
The program has ``n(n−1)`` binaries and ``n(n−1)/2 + n(n−1)(n−2)`` constraints plus one row per
objective (the ε-constraint thresholds).

It is solved with HiGHS through ``highspy`` directly: the model is built once and every
ε-constraint solve only changes row bounds and the objective, and the lexicographic second solve is
warm-started with the first solve's solution (``Highs.setSolution``). cvxpy's HiGHS interface
(cvxpy 1.9) re-builds and re-passes the whole model at every ``solve`` and its ``warm_start``
only hands HiGHS the *previous* solution, which the next ε-constraint solve makes infeasible; it is
available as ``backend="cvxpy"`` (same model, cvxpy ``Parameter`` thresholds) for cross-checks and
the benchmark.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import numpy as np

from bipartite._validation import (
    check_array,
    check_option,
    check_probabilities,
)

__all__ = [
    "exact_frontier",
    "supported_frontier",
    "is_pareto_optimal",
    "pareto_filter",
    "dominates",
    "hypervolume",
    "weight_sweep",
    "milp_size",
]

#: Default tolerance on AUC values: the ε-constraint step δ, the de-duplication radius and the
#: margin of a strict improvement. AUC values are sums of ``O(n²)`` floating products, exact to
#: ~1e-15.
DEFAULT_TOL = 1e-9
#: Default δ of :func:`exact_frontier` for K ≥ 3. The recursion's thresholds must stay well above
#: HiGHS's feasibility tolerances (1e-9): with δ = 1e-9, ``FiniteProblem.random(5, 3, seed=3)``
#: lost 3 of its 52 Pareto points; with 1e-7 every K = 3 enumeration test passes. For K = 2 the
#: default stays 1e-9: a coarser δ merged distinct points of a deterministic problem whose masses
#: are ~1e-6 (``random(5, 2, seed=4, deterministic=True)``), and 1e-9 passes every K = 2 test.
DEFAULT_TOL_MULTI = 1e-7
#: HiGHS feasibility tolerances, on objective rows scaled to coefficients in [−1, 1]. Thresholds
#: are enforced exactly anyway: a solution whose rounded z violates one is cut off and the MILP
#: re-solved (see ``_WeakOrderMILP._solve_highspy``). The integrality tolerance
#: (``mip_feasibility_tolerance``) is 1e-7: at 1e-9 HiGHS 1.15 returned "optimal" answers whose
#: root dual bound was wrong (1 node, gap 0, a better feasible order exists: max AUC_1 s.t.
#: AUC_2 ≥ 0.5734188… on ``FiniteProblem.random(10, 2, seed=2)``), and the ε-constraint sweep
#: lost Pareto points on ``random(8, 2, seed=3)`` and ``random(9, 2, seed=5)``; at 1e-7 all
#: agree with the subset DP (``tests/test_pareto.py::test_dp_and_milp_agree_beyond_enumeration``).
_SOLVER_TOL = 1e-9
_MIP_TOL = 1e-7
_CVXPY_MIP_TOL = 1e-9
_BACKENDS = ("highspy", "cvxpy")


# --------------------------------------------------------------------------------------------
# The weak-order MILP (one builder)
# --------------------------------------------------------------------------------------------
class _WeakOrderMILP:
    """The weak-order MILP of THEORY §6 for one or several pairwise objectives.

    Parameters
    ----------
    weights : sequence of (n, n) arrays
        Objective ``r`` is ``Σ_ij weights[r][i, j] S_ij`` (an AUC_k with ``problem.pair_weights``,
        or AUC_MP with the multipartite pair weights).
    backend : "highspy" or "cvxpy"
    time_limit : float, optional — wall seconds for the whole life of this object.

    Values are handled in objective units; the rows and costs passed to the solver are divided by
    ``max |coefficient|`` of each objective (coefficients in [−1, 1]).
    """

    def __init__(self, weights: list[np.ndarray], *, backend: str = "highspy",
                 time_limit: float | None = None, tol: float = DEFAULT_TOL):
        Ws = [np.asarray(W, dtype=np.float64) for W in weights]
        n = Ws[0].shape[0]
        self.n, self.R = n, len(Ws)
        I, J = np.nonzero(~np.eye(n, dtype=bool))
        self.I, self.J = I, J
        self.m = len(I)
        idx = np.full((n, n), -1, dtype=np.int64)
        idx[I, J] = np.arange(self.m)
        self.const = np.array([W.sum() / 2.0 for W in Ws])
        self.coef = np.array([(W[I, J] - W[J, I]) / 2.0 for W in Ws]).reshape(self.R, self.m)
        scale = np.abs(self.coef).max(axis=1, initial=0.0)
        self.scale = np.where(scale > 0, scale, 1.0)
        # completeness rows (i < j): z_ij + z_ji >= 1
        iu, ju = np.triu_indices(n, 1)
        comp_cols = np.stack([idx[iu, ju], idx[ju, iu]], axis=1)
        # transitivity rows, every ordered triple of distinct points: z_ij + z_jk - z_ik <= 1
        tri = np.array([t for t in itertools.permutations(range(n), 3)], dtype=np.int64)
        tri = tri.reshape(-1, 3)
        trans_cols = np.stack(
            [idx[tri[:, 0], tri[:, 1]], idx[tri[:, 1], tri[:, 2]], idx[tri[:, 0], tri[:, 2]]],
            axis=1,
        )
        self.n_rows = len(comp_cols) + len(trans_cols) + self.R
        self.backend = check_option(backend, "backend", _BACKENDS)
        self.deadline = None if time_limit is None else time.monotonic() + float(time_limit)
        self.n_solves = 0
        if self.backend == "highspy":
            self._build_highspy(comp_cols, trans_cols)
        else:
            self._build_cvxpy(comp_cols, trans_cols)

    # ---- construction -------------------------------------------------------------------------
    def _build_highspy(self, comp_cols: np.ndarray, trans_cols: np.ndarray) -> None:
        import highspy

        self._hp = highspy
        h = highspy.Highs()
        inf = highspy.kHighsInf
        for name, value in [
            ("output_flag", False),
            ("mip_rel_gap", 0.0),
            ("mip_abs_gap", 0.0),
            ("mip_feasibility_tolerance", _MIP_TOL),
            ("primal_feasibility_tolerance", _SOLVER_TOL),
            ("random_seed", 0),
            # HiGHS 1.15 presolve returned wrong "optimal" points on several 4- and 5-point
            # instances of this model (checked against enumeration); without it every tested
            # instance is exact.
            ("presolve", "off"),
        ]:
            h.setOptionValue(name, value)
        m = self.m
        starts, index, value, lower, upper = [], [], [], [], []
        nnz = 0
        for c in comp_cols:
            starts.append(nnz)
            index += [int(c[0]), int(c[1])]
            value += [1.0, 1.0]
            lower.append(1.0)
            upper.append(inf)
            nnz += 2
        for c in trans_cols:
            starts.append(nnz)
            index += [int(c[0]), int(c[1]), int(c[2])]
            value += [1.0, 1.0, -1.0]
            lower.append(-inf)
            upper.append(1.0)
            nnz += 3
        self._obj_row0 = len(starts)
        for r in range(self.R):
            nz = np.flatnonzero(self.coef[r])
            starts.append(nnz)
            index += nz.tolist()
            value += (self.coef[r, nz] / self.scale[r]).tolist()
            lower.append(-inf)
            upper.append(inf)
            nnz += len(nz)
        lp = highspy.HighsLp()
        lp.num_col_ = m
        lp.num_row_ = len(starts)
        lp.col_cost_ = np.zeros(m)
        lp.col_lower_ = np.zeros(m)
        lp.col_upper_ = np.ones(m)
        lp.row_lower_ = np.array(lower)
        lp.row_upper_ = np.array(upper)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.array([*starts, nnz], dtype=np.int32)
        lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
        lp.a_matrix_.value_ = np.array(value, dtype=np.float64)
        lp.integrality_ = [highspy.HighsVarType.kInteger] * m
        lp.sense_ = highspy.ObjSense.kMaximize
        h.passModel(lp)
        self._h = h

    def _build_cvxpy(self, comp_cols: np.ndarray, trans_cols: np.ndarray) -> None:
        import cvxpy as cp
        import scipy.sparse as sp

        m = self.m
        z = cp.Variable(m, boolean=True)
        rows = np.repeat(np.arange(len(comp_cols)), 2)
        Acomp = sp.csr_matrix((np.ones(rows.size), (rows, comp_cols.ravel())),
                              shape=(len(comp_cols), m))
        rows = np.repeat(np.arange(len(trans_cols)), 3)
        vals = np.tile([1.0, 1.0, -1.0], len(trans_cols))
        Atrans = sp.csr_matrix((vals, (rows, trans_cols.ravel())), shape=(len(trans_cols), m))
        A = self.coef / self.scale[:, None]
        # Values lie in [0, 1]: in solver units |row| <= 1 / unit, so twice that stands for ±inf.
        self._big = float(2.0 / self.scale[0] + 1.0)
        self._lo = cp.Parameter(self.R, value=np.full(self.R, -self._big))
        self._up = cp.Parameter(self.R, value=np.full(self.R, self._big))
        self._c = cp.Parameter(m, value=np.zeros(m))
        cons = [Acomp @ z >= 1, Atrans @ z <= 1, A @ z >= self._lo, A @ z <= self._up]
        self._cp = cp
        self._z = z
        self._prob = cp.Problem(cp.Maximize(self._c @ z), cons)

    # ---- solving --------------------------------------------------------------------------------
    def size(self) -> tuple[int, int]:
        """(number of variables, number of constraints)."""
        return self.m, self.n_rows

    def values(self, z: np.ndarray) -> np.ndarray:
        """Objective values ``const_r + coef_r · z`` (objective units), shape (R,)."""
        return self.const + self.coef @ z

    def scores(self, z: np.ndarray) -> np.ndarray:
        """Scores of the weak order: ``score_i = #{j ≠ i : z_ij = 1}`` (i ≥ j), so ``i`` above
        ``j`` strictly gives a strictly larger score and tied points share a score."""
        s = np.zeros(self.n)
        np.add.at(s, self.I, z)
        return s

    def _remaining(self) -> float | None:
        if self.deadline is None:
            return None
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("The weak-order MILP ran out of its 'time_limit'.")
        return left

    def solve(self, objective: np.ndarray, lower: np.ndarray, upper: np.ndarray,
              start: np.ndarray | None = None) -> np.ndarray | None:
        """Maximise ``objective · z`` subject to ``lower_r ≤ value_r(z) ≤ upper_r`` (objective
        units, ±inf allowed). Returns the binary vector z, or None if infeasible."""
        lo = (np.asarray(lower, dtype=np.float64) - self.const) / self.scale
        up = (np.asarray(upper, dtype=np.float64) - self.const) / self.scale
        left = self._remaining()
        self.n_solves += 1
        if self.backend == "highspy":
            return self._solve_highspy(objective, lo, up, start, left)
        return self._solve_cvxpy(objective, lo, up, left)

    def _solve_highspy(self, objective, lo, up, start, left) -> np.ndarray | None:
        hp, h = self._hp, self._h
        inf = hp.kHighsInf
        h.changeColsCost(self.m, np.arange(self.m, dtype=np.int32), np.asarray(objective, float))
        rows = np.arange(self._obj_row0, self._obj_row0 + self.R, dtype=np.int32)
        h.changeRowsBounds(self.R, rows, np.where(np.isfinite(lo), lo, -inf),
                           np.where(np.isfinite(up), up, inf))
        h.setOptionValue("time_limit", float(left) if left is not None else inf)
        if start is not None:
            sol = hp.HighsSolution()
            sol.col_value = np.asarray(start, dtype=np.float64)
            h.setSolution(sol)
        n_cuts = 0
        try:
            while True:
                h.run()
                status = h.getModelStatus()
                if status in (hp.HighsModelStatus.kInfeasible,
                              hp.HighsModelStatus.kUnboundedOrInfeasible):
                    return None
                if status == hp.HighsModelStatus.kTimeLimit:
                    raise TimeoutError("The weak-order MILP ran out of its 'time_limit'.")
                if status != hp.HighsModelStatus.kOptimal:
                    raise RuntimeError(f"HiGHS returned status {h.modelStatusToString(status)}.")
                z = np.round(np.asarray(h.getSolution().col_value))
                # Safeguard: HiGHS accepts near-integer z (integrality tolerance); the rounded z
                # must satisfy the thresholds exactly (up to _SOLVER_TOL). If it does not, cut
                # off this one binary vector (a "no-good" cut, removed again below) and re-solve.
                act = self.coef @ z / self.scale
                if np.all(act >= lo - _SOLVER_TOL) and np.all(act <= up + _SOLVER_TOL):
                    return z
                if n_cuts >= 100:
                    raise RuntimeError("HiGHS kept returning solutions that violate the "
                                       "thresholds after rounding.")
                ones = np.flatnonzero(z > 0.5)
                coef = np.where(z > 0.5, -1.0, 1.0)
                h.addRow(1.0 - len(ones), inf, self.m, np.arange(self.m, dtype=np.int32), coef)
                n_cuts += 1
        finally:
            if n_cuts:
                first = h.getNumRow() - n_cuts
                h.deleteRows(n_cuts, np.arange(first, first + n_cuts, dtype=np.int32))

    def _solve_cvxpy(self, objective, lo, up, left) -> np.ndarray | None:
        cp = self._cp
        self._c.value = np.asarray(objective, dtype=np.float64)
        self._lo.value = np.where(np.isfinite(lo), lo, -self._big)
        self._up.value = np.where(np.isfinite(up), up, self._big)
        # 1e-9 here: this route has no re-solve safeguard for thresholds violated after rounding
        # (a looser tolerance let the sweep return the same point again and stall).
        opts = dict(mip_rel_gap=0.0, mip_abs_gap=0.0, mip_feasibility_tolerance=_CVXPY_MIP_TOL,
                    primal_feasibility_tolerance=_SOLVER_TOL, random_seed=0,
                    presolve="off")
        if left is not None:
            opts["time_limit"] = float(left)
        self._prob.solve(solver=cp.HIGHS, warm_start=True, **opts)
        if self._prob.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
            return None
        if self._prob.status != cp.OPTIMAL:
            raise RuntimeError(f"cvxpy/HiGHS returned status {self._prob.status}.")
        return np.round(self._z.value)

    def lexmax(self, order: tuple[int, ...], lower: np.ndarray,
               upper: np.ndarray | None = None, tol: float = DEFAULT_TOL) -> np.ndarray | None:
        """Lexicographic maximum of the objectives in ``order`` within the bounds.

        Each stage maximises one objective, then keeps it within ``tol / 10`` of its optimum
        (below δ = ``tol``, above the solver tolerance) and warm-starts the next stage."""
        lo = np.array(lower, dtype=np.float64)
        up = np.full(self.R, np.inf) if upper is None else np.array(upper, dtype=np.float64)
        z = None
        for r in order:
            obj = self.coef[r] / self.scale[r]
            z_new = self.solve(obj, lo, up, start=z)
            if z_new is None:
                if z is None:
                    return None
                # The warm start is feasible, so this can only be a tolerance artefact.
                break
            z = z_new
            lo[r] = max(lo[r], self.values(z)[r] - tol / 10.0)
        return z


def milp_size(n: int, K: int = 2) -> tuple[int, int]:
    """Size of the weak-order MILP of THEORY §6 for ``n`` points and ``K`` objective rows:
    ``(n(n−1) binaries, n(n−1)/2 + n(n−1)(n−2) + K constraints)``.

    >>> milp_size(10, 2)
    (90, 767)
    """
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"The 'n' parameter must be a positive integer, got {n!r}.")
    return n * (n - 1), n * (n - 1) // 2 + n * (n - 1) * (n - 2) + int(K)


# --------------------------------------------------------------------------------------------
# Point-set utilities
# --------------------------------------------------------------------------------------------
def _check_points(points: Any, name: str = "points") -> np.ndarray:
    P = check_array(points, name, ndim=2, allow_empty=True)
    return P


def dominates(a: Any, b: Any, *, maximize: bool = True) -> bool:
    """Whether ``a`` Pareto-dominates ``b``: ``a ≥ b`` in every coordinate and ``>`` in one
    (``≤``/``<`` with ``maximize=False``) (THEORY §6).

    >>> dominates([0.8, 0.7], [0.8, 0.6]), dominates([0.8, 0.7], [0.8, 0.7])
    (True, False)
    """
    x = check_array(a, "a", ndim=1)
    y = check_array(b, "b", ndim=1)
    if x.shape != y.shape:
        raise ValueError(f"The 'a' and 'b' parameters must have the same shape, got {x.shape} "
                         f"and {y.shape}.")
    if not maximize:
        x, y = -x, -y
    return bool(np.all(x >= y) and np.any(x > y))


def pareto_filter(points: Any, *, maximize: bool = True) -> np.ndarray:
    """Mask of the non-dominated rows of ``points`` (THEORY §6).

    Row ``i`` is kept unless another row dominates it (see :func:`dominates`); exact duplicates
    do not dominate each other, so all copies of a non-dominated point are kept. For two columns
    the filter sorts once (``O(m log m)``); for more columns it visits the rows by decreasing sum
    and compares each block with the rows kept so far (``O(m · (f + b) · K)`` time for f
    non-dominated rows and blocks of b rows).

    Parameters
    ----------
    points : array-like of shape (m, K)

    Returns
    -------
    ndarray of bool, shape (m,)

    >>> pareto_filter([[0.9, 0.1], [0.5, 0.5], [0.4, 0.4], [0.5, 0.5]]).tolist()
    [True, True, False, True]
    """
    P = _check_points(points)
    if not maximize:
        P = -P
    m, K = P.shape
    if m == 0:
        return np.zeros(0, dtype=bool)
    if K == 1:
        return P[:, 0] == P[:, 0].max()
    if K == 2:
        return _pareto_filter_2d(P)
    return _pareto_filter_nd(P)


def _dominated_by(A: np.ndarray, B: np.ndarray, tol: float = 0.0) -> np.ndarray:
    """Mask over rows b of B: some row a of A has ``a ≥ b − tol`` everywhere and
    ``a > b + tol`` somewhere (dominance at resolution tol; tol = 0: exact dominance).
    Vectorised, O(|A| |B| K)."""
    if len(A) == 0 or len(B) == 0:
        return np.zeros(len(B), dtype=bool)
    ge = np.all(A[None, :, :] >= B[:, None, :] - tol, axis=2)
    gt = np.any(A[None, :, :] > B[:, None, :] + tol, axis=2)
    return np.any(ge & gt, axis=1)


def _pareto_filter_nd(P: np.ndarray, tol: float = 0.0) -> np.ndarray:
    """Non-dominated rows for K ≥ 3 columns at resolution ``tol`` (:func:`_dominated_by`).

    Rows are visited by decreasing sum (ties broken lexicographically, decreasing). Rounding is
    monotone, so an exact dominator never comes after the row it dominates; a dominator at
    resolution tol can have a sum up to ``K·tol`` smaller. Each block is compared with the rows
    kept so far and with every row whose sum is within ``K·tol`` below the block's (its own
    block included): ``O(m · (|frontier| + block) · K)`` instead of ``O(m² K)``. A row dominated
    only by a dropped row is dropped too (that row's own dominator covers it)."""
    m, K = P.shape
    s = P.sum(axis=1)
    order = np.lexsort(tuple(-P[:, k] for k in range(K - 1, -1, -1)) + (-s,))
    Q, ns = P[order], -s[order]
    keep_sorted = np.zeros(m, dtype=bool)
    kept = np.zeros((0, K))
    step = 256
    a = 0
    while a < m:
        b = min(m, a + step)
        h = int(np.searchsorted(ns, ns[b - 1] + K * tol, side="right"))
        B = Q[a:b]
        alive = ~_dominated_by(kept, B, tol) & ~_dominated_by(Q[a:h], B, tol)
        keep_sorted[a:b] = alive
        if alive.any():
            kept = np.concatenate([kept, B[alive]])
            if len(kept) * len(B) * K > 2**24:  # keep memory bounded: smaller blocks
                step = max(16, step // 2)
        a = b
    keep = np.empty(m, dtype=bool)
    keep[order] = keep_sorted
    return keep


def _pareto_filter_2d(P: np.ndarray, tol: float = 0.0) -> np.ndarray:
    """Non-dominated rows of a two-column P at resolution ``tol`` (see :func:`_dominated_by`;
    tol = 0: exact dominance). One sort by (x desc, y desc); x values are grouped by single
    linkage at gap tol (tol = 0: equal x), so rows of an earlier group have x > x_i + tol and
    rows of the same group count as equal in x. A row is dominated iff an earlier group has
    y ≥ its y − tol, or its own group has y > its y + tol."""
    m = len(P)
    order = np.lexsort((-P[:, 1], -P[:, 0]))
    x, y = P[order, 0], P[order, 1]
    new_group = np.empty(m, dtype=bool)
    new_group[0] = True
    new_group[1:] = (x[:-1] - x[1:]) > tol
    gid = np.cumsum(new_group) - 1
    first = np.flatnonzero(new_group)
    group_top = np.maximum.reduceat(y, first)  # largest y of each x-group
    before = np.full(len(first), -np.inf)      # largest y over all earlier groups
    before[1:] = np.maximum.accumulate(group_top)[:-1]
    dominated = (before[gid] >= y - tol) | (group_top[gid] > y + tol)
    mask = np.empty(m, dtype=bool)
    mask[order] = ~dominated
    return mask


def hypervolume(points: Any, reference: Any) -> float:
    """Area dominated by a 2-D point set and bounded below by ``reference`` (maximisation).

    ``HV = area( ∪_p [r_1, p_1] × [r_2, p_2] )``; points not above the reference in both
    coordinates add nothing. Computed by one sort of the non-dominated points.

    >>> hypervolume([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], [0.0, 0.0])
    0.25
    """
    P = _check_points(points)
    r = check_array(reference, "reference", ndim=1)
    if P.shape[1:] != (2,) or r.shape != (2,):
        raise ValueError(f"hypervolume is two-dimensional: 'points' must have shape (m, 2) and "
                         f"'reference' shape (2,), got {P.shape} and {r.shape}.")
    P = P[np.all(P > r, axis=1)]
    if len(P) == 0:
        return 0.0
    P = np.unique(P[pareto_filter(P)], axis=0)
    P = P[np.argsort(-P[:, 0])]  # x descending, hence y ascending on the frontier
    x_next = np.append(P[1:, 0], r[0])
    return float(np.sum((P[:, 0] - x_next) * (P[:, 1] - r[1])))


def _greedy_unique(V: np.ndarray, order: np.ndarray, tol: float) -> np.ndarray:
    """Walk ``order`` (sorted by the first column of V, either direction) and keep a row unless
    it is within ``tol`` (max-norm) of a kept row. Kept rows are monotone in the first column, so
    only the tail of kept rows whose first coordinate is within ``tol`` needs checking."""
    kept: list[int] = []
    for i in order:
        dup = False
        for j in reversed(kept):
            if abs(V[j, 0] - V[i, 0]) > tol:
                break
            if np.max(np.abs(V[i] - V[j])) <= tol:
                dup = True
                break
        if not dup:
            kept.append(int(i))
    return np.array(kept, dtype=np.int64)


def _dedupe_sorted(P: np.ndarray, tol: float) -> np.ndarray:
    """Indices of a lexicographically sorted (first column first) subset of the rows of P in
    which no two rows are within ``tol`` of each other (max-norm; the first of a group is kept)."""
    if len(P) == 0:
        return np.zeros(0, dtype=np.int64)
    # sort on values rounded to 12 decimals so that float noise (~1e-16) cannot reorder rows
    return _greedy_unique(P, np.lexsort(np.round(P, 12).T[::-1]), tol)


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


def _merge_close(V: np.ndarray, tol: float) -> np.ndarray:
    """Indices of a subset of the rows of the antichain ``V`` with no two rows within ``tol``
    (max-norm), every dropped row within ``tol`` of a kept one; lexicographic order."""
    if V.shape[1] == 2:
        # antichain sorted by x descending has y ascending: near-duplicates are neighbours, so a
        # row is dropped when it is within tol of the last kept row.
        order = np.lexsort((V[:, 1], -V[:, 0]))
        return _greedy_unique(V, order, tol)
    return _greedy_unique(V, np.lexsort(V.T[::-1]), tol)


def _frontier_rows(C: np.ndarray, tol: float) -> np.ndarray:
    """Indices of the rows of C that no row dominates at resolution ``tol`` (see
    :func:`_dominated_by`), near-duplicates (within tol) merged.

    Floating sums of the same real number along different paths differ by ~1e-16; a strict
    filter would keep ``(0, 1, 0.76)`` beside ``(0, 1 − 1e-16, 0.77)``."""
    m, K = C.shape
    if m <= 1:
        return np.arange(m)
    mask = _pareto_filter_2d(C, tol) if K == 2 else _pareto_filter_nd(C, tol)
    keep = np.flatnonzero(mask)
    return keep[_merge_close(C[keep], tol)]


def _subset_dp(Ws: np.ndarray, tol: float,
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
    (:func:`_frontier_rows`), so every Pareto vector x has a returned y with ``y ≥ x − n·tol``
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
        keep = _frontier_rows(C, tol)
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


# --------------------------------------------------------------------------------------------
# Exact and approximate frontiers
# --------------------------------------------------------------------------------------------
def _check_problem(problem: Any) -> None:
    from bipartite.population import FiniteProblem

    if not isinstance(problem, FiniteProblem):
        raise TypeError(f"The 'problem' parameter must be a FiniteProblem, got "
                        f"{type(problem).__name__}.")
    pi = problem.pi
    bad = np.flatnonzero((pi <= 0) | (pi >= 1))
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"The 'problem' has label {k} with prior pi={pi[k]:g}: AUC_{k} is "
                         "undefined, so its Pareto frontier is too.")


def _auc_milp(problem: Any, backend: str, time_limit: float | None,
              tol: float = DEFAULT_TOL) -> _WeakOrderMILP:
    return _WeakOrderMILP([problem.pair_weights(k) for k in range(problem.K)],
                          backend=backend, time_limit=time_limit, tol=tol)


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
    return [cands[i] for i in _greedy_unique(V[:, :dims], order, tol)]


def _exact_points(milp: _WeakOrderMILP, K: int, tol: float) -> list[tuple[np.ndarray, np.ndarray]]:
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


def _approx_points(problem: Any, milp: _WeakOrderMILP, eps: float,
                   tol: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """ε-approximate K = 2 frontier by the MILP, seeded with the supported points (see
    :func:`exact_frontier`). Returns (values, scores) pairs."""
    SV, SS = supported_frontier(problem, tol=tol, return_scores=True)
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
    problem: Any,
    *,
    eps: float | None = None,
    tol: float | None = None,
    time_limit: float | None = None,
    return_scores: bool = False,
    method: str = "auto",
    backend: str | None = None,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    r"""All Pareto-optimal per-label AUC vectors of a finite problem (THEORY §6, LA25 §3).

    The achievable set is ``{(AUC_1(f), ..., AUC_K(f)) : f a weak order of the n points}`` (ties
    ½, self-pairs included). Two exact algorithms compute its Pareto frontier:

    **Subset dynamic programme** (``method="dp"``; :func:`_subset_dp`). A weak order is a
    sequence of blocks of tied points; the AUC vector splits over the blocks, and the part a block
    adds depends only on the block and on the set of points below it. So the Pareto set of the
    prefixes that place a set U of points is the Pareto filter of ``F(U \ B) + g(B, rest)`` over
    the non-empty blocks ``B ⊆ U``, and dominated prefixes can be pruned exactly (the rest of the
    order adds the same vector to each). Cost ``O(3^n · |frontier|)``, memory
    ``O(2^n · |frontier|)``: milliseconds at n = 6 and about a second at n = 10 (K = 2), where the
    MILP needs minutes. Resolution ``tol`` (default 1e-12): vectors within ``tol`` in max-norm are
    merged, so every Pareto point x has a returned y with ``y ≥ x − n·tol``.

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

    ``method="auto"`` (default) uses the DP for ``n ≤ DP_MAX_N`` (12) and the MILP above, or
    whenever a MILP ``backend`` is named.

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
    time_limit : float, optional — wall seconds; :class:`TimeoutError` when exceeded.
    return_scores : bool — also return one score vector per frontier point.
    method : "auto" (default), "dp" or "milp".
    backend : "highspy" or "cvxpy", optional — the MILP's solver interface (default
        "highspy"); naming one selects the MILP (an error with ``method="dp"``).

    Returns
    -------
    points : ndarray of shape (m, K), sorted lexicographically (AUC_1 first), exact population
        AUCs of the returned orders (:meth:`FiniteProblem.auc`).
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
    if backend is not None:
        check_option(backend, "backend", _BACKENDS)
        if method == "dp":
            raise ValueError(f"The 'backend' parameter ({backend!r}) selects the MILP; it cannot "
                             "be combined with method='dp'.")
        method = "milp"
    backend = "highspy" if backend is None else backend
    if method == "auto":
        method = "dp" if problem.n <= DP_MAX_N else "milp"
    if tol is None:
        if method == "dp":
            tol = DEFAULT_TOL_DP
        else:
            tol = DEFAULT_TOL if problem.K <= 2 else DEFAULT_TOL_MULTI
    if not (isinstance(tol, (int, float)) and tol > 0):
        raise ValueError(f"The 'tol' parameter must be a positive number, got {tol!r}.")
    if eps is not None:
        if not (isinstance(eps, (int, float)) and np.isfinite(eps) and eps > 0):
            raise ValueError(f"The 'eps' parameter must be a positive number, got {eps!r}.")
        if method == "milp" and problem.K != 2:
            raise ValueError(f"The ε-approximate mode ('eps') of method='milp' is implemented "
                             f"for K = 2 labels, got K = {problem.K}; use method='dp' (n <= "
                             f"{DP_MAX_N} is fast) or eps=None.")
    if method == "dp":
        Ws = np.stack([problem.pair_weights(k) for k in range(problem.K)])
        _, S = _subset_dp(Ws, float(tol), time_limit)
    else:
        milp = _auc_milp(problem, backend, time_limit, tol)
        if problem.n == 1:
            S = np.zeros((1, 1))
        elif eps is None:
            S = np.array([milp.scores(z) for _, z in _exact_points(milp, problem.K, tol)])
        else:
            S = np.array([s for _, s in _approx_points(problem, milp, float(eps), tol)])
    S = S.reshape(len(S), problem.n)
    V = np.array([problem.auc(s) for s in S]).reshape(len(S), problem.K)
    keep = _dedupe_sorted(V, tol)
    V, S = V[keep], S[keep]
    if eps is not None and method == "dp":
        keep = _eps_cover(V, float(eps))
        V, S = V[keep], S[keep]
    return (V, S) if return_scores else V


def is_pareto_optimal(problem: Any, scores: Any, *, tol: float = DEFAULT_TOL,
                      method: str = "auto", backend: str = "highspy") -> bool:
    """Whether a scorer's AUC vector is Pareto-optimal on a finite problem (THEORY §6).

    * ``method="dp"``: computes the exact frontier (:func:`exact_frontier`, subset DP) and
      checks that no frontier point x has ``x ≥ a − tol`` everywhere and ``x > a + tol``
      somewhere, with ``a`` the scorer's AUC vector.
    * ``method="milp"``: a certificate by one MILP solve, ``max Σ_k AUC_k`` (coefficients scaled
      per label) over weak orders subject to ``AUC_k ≥ a_k`` for every k (thresholds relaxed by
      ``tol/10`` for the solver). The scorer is Pareto-optimal iff the optimum's summed AUCs
      exceed ``Σ_k a_k`` by at most ``tol``.

    Either way: no weak order improves one label without losing on another (up to ``tol``).
    ``method="auto"`` (default) uses the DP for ``n ≤ DP_MAX_N`` and the MILP above; the DP does
    not depend on a solver's tolerances (see ``_MIP_TOL`` for why that matters).

    >>> from bipartite.population import FiniteProblem
    >>> from bipartite.bayes import loss_aggregation
    >>> P = FiniteProblem.random(4, 2, seed=0)
    >>> is_pareto_optimal(P, loss_aggregation(P.eta, P.pi)), is_pareto_optimal(P, np.zeros(4))
    (True, False)
    """
    _check_problem(problem)
    method = check_option(method, "method", _METHODS)
    check_option(backend, "backend", _BACKENDS)
    a = problem.auc(problem._check_scores(scores))
    if problem.n == 1:
        return True
    if method == "auto":
        method = "dp" if problem.n <= DP_MAX_N else "milp"
    if method == "dp":
        F = exact_frontier(problem, method="dp")
        better = np.all(F >= a - tol, axis=1) & np.any(F > a + tol, axis=1)
        return not bool(np.any(better))
    milp = _auc_milp(problem, backend, None, tol)
    obj = (milp.coef / milp.scale[:, None]).sum(axis=0)
    z = milp.solve(obj, a - tol / 10.0, np.full(problem.K, np.inf))
    if z is None:  # only a tolerance artefact: the scorer's own order is feasible
        return True
    return bool(milp.values(z).sum() <= a.sum() + tol)


# --------------------------------------------------------------------------------------------
# Supported points and weight sweeps
# --------------------------------------------------------------------------------------------
def _sweep_breakpoints(u: np.ndarray, v: np.ndarray, rtol: float = 1e-12) -> np.ndarray:
    """The λ in (0, 1) at which two points tie under f_λ = (1 − λ) u + λ v, sorted, merged
    within ``rtol``: ``λ_ij = du / (du − dv)`` with ``du = u_i − u_j``, ``dv = v_i − v_j``."""
    iu, ju = np.triu_indices(len(u), 1)
    du, dv = u[iu] - u[ju], v[iu] - v[ju]
    den = du - dv
    ok = den != 0
    lam = du[ok] / den[ok]
    lam = np.sort(lam[(lam > 0) & (lam < 1)])
    if lam.size == 0:
        return lam
    keep = np.ones(lam.size, dtype=bool)
    keep[1:] = np.diff(lam) > rtol
    return lam[keep]


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
        if res.status == 0:
            out.append(int(i))
        elif res.status != 2:  # 2 = infeasible: not supported
            raise RuntimeError(f"linprog failed on a supported-point test: {res.message}")
    return np.array(out, dtype=np.int64)


def supported_frontier(problem: Any, *, tol: float = DEFAULT_TOL,
                       return_scores: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Supported Pareto points: the convex-hull vertices reached by loss aggregation (THEORY
    §4, §6; LA25 §3), K = 2.

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

    **K ≥ 3.** The weight space is a simplex cut by tie hyperplanes; instead of enumerating that
    arrangement, the vertices are read off the exact frontier (:func:`exact_frontier`, so sizes
    where it is affordable: the DP up to n = 12): a Pareto point v is a vertex reached by positive
    weights iff the linear programme ``a ≥ 1, a·(v − u) ≥ 1`` for every other frontier point u is
    feasible (scale a up to turn any strictly positive separating weight into one with these
    margins; a positive weighting is maximised on the frontier). Only vertices of the convex hull
    of the frontier (Qhull) are tested. For K = 2 both routes give the same points (tested).

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
    from bipartite.bayes import effective_weights, loss_aggregation

    _check_problem(problem)
    if problem.K < 2:
        raise ValueError(f"supported_frontier needs K >= 2 labels, got K = {problem.K}.")
    if problem.K > 2:
        F, FS = exact_frontier(problem, return_scores=True)
        keep = _supported_rows(F)
        V, S = F[keep], FS[keep]
        return (V, S) if return_scores else V
    eta, pi = problem.eta, problem.pi
    alpha = effective_weights(pi)
    u, v = eta[:, 0] * alpha[0], eta[:, 1] * alpha[1]
    bps = np.concatenate([[0.0], _sweep_breakpoints(u, v), [1.0]])
    mids = (bps[:-1] + bps[1:]) / 2.0
    S = np.array([loss_aggregation(eta, pi, np.array([1.0 - lam, lam])) for lam in mids])
    V = np.array([problem.auc(s) for s in S])
    keep = _dedupe_sorted(V, tol)
    V, S = V[keep], S[keep]
    return (V, S) if return_scores else V


def _simplex_lattice(K: int, divisions: int) -> np.ndarray:
    pts = [c for c in itertools.product(range(divisions + 1), repeat=K) if sum(c) == divisions]
    return np.array(pts, dtype=np.float64)[::-1] / divisions


def weight_sweep(
    eta: Any = None,
    pi: Any = None,
    Y: Any = None,
    *,
    n_weights: int = 101,
    weights: Any = None,
    problem: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-label AUCs of the loss-aggregation scorer along a path of mixing weights (THEORY §4,
    §6): the empirical trace of the frontier that linear scalarisation reaches.

    For each weight vector ``a`` the scorer is ``f_a = Σ_k α_k η_k``,
    ``α_k = a_k / (π_k (1 − π_k))`` (:func:`bipartite.bayes.loss_aggregation`); its AUCs are
    the empirical per-label AUCs on labels ``Y`` (:func:`bipartite.metrics.multilabel_auc`, ties
    ½), or, with ``problem`` given, the exact population AUCs of that FiniteProblem (``eta`` and
    ``pi`` then default to the problem's). Weights on the boundary of the simplex tie points
    with equal η_k on the remaining labels (such points are usually not Pareto-optimal).

    Parameters
    ----------
    eta : array-like (n, K) — class probabilities (or any per-label scores in [0, 1]).
    pi : array-like (K,) — priors used in the effective weights.
    Y : array-like (n, K) of {0, 1}, optional — labels for empirical AUCs.
    n_weights : int — K = 2: ``a = (1 − t, t)`` for t in ``linspace(0, 1, n_weights)``;
        K ≥ 3: the simplex lattice with ``n_weights − 1`` divisions.
    weights : array-like (m, K), optional — explicit weight path (overrides ``n_weights``).
    problem : FiniteProblem, optional — exact population AUCs.

    Returns
    -------
    weights : (m, K), aucs : (m, K)

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.random(5, 2, seed=0)
    >>> a, A = weight_sweep(problem=P, n_weights=3)
    >>> a.tolist()
    [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]
    """
    from bipartite.bayes import loss_aggregation
    from bipartite.metrics import multilabel_auc

    if problem is not None:
        _check_problem(problem)
        eta = problem.eta if eta is None else eta
        pi = problem.pi if pi is None else pi
        if Y is not None:
            raise ValueError("Give either labels 'Y' (empirical AUCs) or 'problem' (population "
                             "AUCs), not both.")
    elif Y is None:
        raise ValueError("weight_sweep needs labels 'Y' or a FiniteProblem 'problem'.")
    if eta is None or pi is None:
        raise ValueError("weight_sweep needs 'eta' and 'pi' (or a 'problem').")
    E = check_probabilities(eta, "eta", ndim=2)
    K = E.shape[1]
    if weights is None:
        if not isinstance(n_weights, (int, np.integer)) or n_weights < 2:
            raise ValueError(f"The 'n_weights' parameter must be an integer >= 2, got "
                             f"{n_weights!r}.")
        if K == 1:
            A = np.ones((1, 1))
        elif K == 2:
            t = np.linspace(0.0, 1.0, int(n_weights))
            A = np.stack([1.0 - t, t], axis=1)
        else:
            A = _simplex_lattice(K, int(n_weights) - 1)
    else:
        A = check_array(weights, "weights", ndim=2)
        if A.shape[1] != K:
            raise ValueError(f"The 'weights' parameter must have {K} columns, got {A.shape[1]}.")
    out = np.empty((len(A), K))
    for r, a in enumerate(A):
        f = loss_aggregation(E, pi, a)
        out[r] = problem.auc(f) if problem is not None else multilabel_auc(Y, f)
    return A, out
