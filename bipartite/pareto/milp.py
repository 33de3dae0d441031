"""The weak-order mixed-integer linear program (docs/theory.md §6).
"""


from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_option,
)

if TYPE_CHECKING:
    from bipartite.population import FiniteProblem

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
#: re-solved (see ``WeakOrderMILP._solve_highspy``). The integrality tolerance
#: (``mip_feasibility_tolerance``) is 1e-7: at 1e-9 HiGHS 1.15 returned "optimal" answers whose
#: root dual bound was wrong (1 node, gap 0, a better feasible order exists: max AUC_1 s.t.
#: AUC_2 ≥ 0.5734188… on ``FiniteProblem.random(10, 2, seed=2)``), and the ε-constraint sweep
#: lost Pareto points on ``random(8, 2, seed=3)`` and ``random(9, 2, seed=5)``; at 1e-7 all
#: agree with the subset DP (``tests/test_pareto.py::test_dp_and_milp_agree_beyond_enumeration``).
_SOLVER_TOL = 1e-9
_MIP_TOL = 1e-7
#: The fallback integrality tolerance, used once when :data:`_MAX_NO_GOOD_CUTS` re-solves at
#: ``_MIP_TOL`` all round outside the thresholds.
_TIGHT_MIP_TOL = 1e-9
_MAX_NO_GOOD_CUTS = 100
_CVXPY_MIP_TOL = 1e-9
MILP_BACKENDS = ("highspy", "cvxpy")

__all__ = ["DEFAULT_TOL", "DEFAULT_TOL_MULTI", "MILP_BACKENDS", "WeakOrderMILP", "auc_milp", "milp_size", "optimal_ranking"]


# --------------------------------------------------------------------------------------------
# A quiet HiGHS: no banner on stdout (`bipartite frontier --format json` must parse)
# --------------------------------------------------------------------------------------------
def _quiet_highs(highspy):
    """A HiGHS instance that never writes to stdout.

    HiGHS prints its banner ("Running HiGHS x.y.z ...", once per process) at the first call of an
    instance whose ``output_flag`` is on, and ``output_flag`` is on by default. highspy ≥ 1.10's
    Python ``Highs()`` makes such a call inside its constructor (``enableCallbacks``), before any
    option can be set. So the C++ class (``highspy.Highs``' base, the one whose methods the model
    uses) is built directly and ``output_flag`` (with ``log_to_console``) switched off as its
    first call — the solver-level switch, which keeps every later log line off the console too.
    Older highspy whose ``Highs`` has no such base: the same options, set first."""
    base = next((c for c in type.mro(highspy.Highs)[1:] if c.__name__ == "_Highs"), highspy.Highs)
    h = base()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("log_to_console", False)
    return h


_STDOUT_LOCK = threading.Lock()


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Send the process's file descriptor 1 to 2 meanwhile: for solvers reached through a
    third-party interface that builds HiGHS with its banner on before passing any option
    (cvxpy's ``Highs()``); their console output lands on stderr, never in the caller's stdout."""
    with _STDOUT_LOCK:
        try:
            out = sys.stdout.fileno() if sys.stdout is not None else 1
        except (AttributeError, ValueError, OSError):  # stdout replaced by a Python object
            out = 1
        with contextlib.suppress(AttributeError, ValueError, OSError):  # closed or no stdout
            sys.stdout.flush()
        saved = os.dup(out)
        try:
            os.dup2(2, out)
            yield
        finally:
            os.dup2(saved, out)
            os.close(saved)


# --------------------------------------------------------------------------------------------
# The weak-order MILP (one builder)
# --------------------------------------------------------------------------------------------
class WeakOrderMILP:
    """The weak-order MILP of docs/theory.md §6 for one or several pairwise objectives.

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
        tri = _ordered_triples(n)
        trans_cols = np.stack(
            [idx[tri[:, 0], tri[:, 1]], idx[tri[:, 1], tri[:, 2]], idx[tri[:, 0], tri[:, 2]]],
            axis=1,
        )
        self.n_rows = len(comp_cols) + len(trans_cols) + self.R
        self.backend = check_option(backend, "backend", MILP_BACKENDS)
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
        h = _quiet_highs(highspy)
        inf = highspy.kHighsInf
        for name, value in [
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
        # Row-wise matrix, built with arrays: completeness rows, transitivity rows, then one row
        # per objective (its nonzero coefficients, scaled).
        nzs = [np.flatnonzero(self.coef[r]) for r in range(self.R)]
        index = np.concatenate([comp_cols.ravel(), trans_cols.ravel(), *nzs])
        value = np.concatenate([np.ones(comp_cols.size),
                                np.tile([1.0, 1.0, -1.0], len(trans_cols)),
                                *[self.coef[r, nz] / self.scale[r] for r, nz in enumerate(nzs)]])
        lengths = np.concatenate([np.full(len(comp_cols), 2), np.full(len(trans_cols), 3),
                                  [len(nz) for nz in nzs]]).astype(np.int64)
        starts = np.concatenate([[0], np.cumsum(lengths)])
        n_rows = len(lengths)
        self._obj_row0 = len(comp_cols) + len(trans_cols)
        lower = np.full(n_rows, -inf)
        upper = np.full(n_rows, inf)
        lower[:len(comp_cols)] = 1.0
        upper[len(comp_cols):self._obj_row0] = 1.0
        lp = highspy.HighsLp()
        lp.num_col_ = m
        lp.num_row_ = n_rows
        lp.col_cost_ = np.zeros(m)
        lp.col_lower_ = np.zeros(m)
        lp.col_upper_ = np.ones(m)
        lp.row_lower_ = lower
        lp.row_upper_ = upper
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = starts.astype(np.int32)
        lp.a_matrix_.index_ = index.astype(np.int32)
        lp.a_matrix_.value_ = value.astype(np.float64)
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
        n_cuts, tight = 0, False
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
                if n_cuts >= _MAX_NO_GOOD_CUTS:
                    if tight:
                        raise RuntimeError("HiGHS kept returning solutions that violate the "
                                           "thresholds after rounding.")
                    # Every optimum at integrality 1e-7 rounds outside the thresholds (HiGHS
                    # 1.16 on FiniteProblem.random(8, 2, seed=1, deterministic=True)): drop the
                    # cuts and re-solve once at _TIGHT_MIP_TOL (only as a fallback; see _MIP_TOL).
                    first = h.getNumRow() - n_cuts
                    h.deleteRows(n_cuts, np.arange(first, first + n_cuts, dtype=np.int32))
                    n_cuts, tight = 0, True
                    h.setOptionValue("mip_feasibility_tolerance", _TIGHT_MIP_TOL)
                    continue
                ones = np.flatnonzero(z > 0.5)
                coef = np.where(z > 0.5, -1.0, 1.0)
                h.addRow(1.0 - len(ones), inf, self.m, np.arange(self.m, dtype=np.int32), coef)
                n_cuts += 1
        finally:
            if n_cuts:
                first = h.getNumRow() - n_cuts
                h.deleteRows(n_cuts, np.arange(first, first + n_cuts, dtype=np.int32))
            if tight:
                h.setOptionValue("mip_feasibility_tolerance", _MIP_TOL)

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
        with _stdout_to_stderr():  # cvxpy builds Highs() before it passes any option
            self._prob.solve(solver=cp.HIGHS, warm_start=True, verbose=False, **opts)
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

    def max_min(self, weights: np.ndarray, *, lower: float = 0.0, upper: float | None = None,
                start: np.ndarray | None = None) -> tuple[np.ndarray, float] | None:
        """Maximise ``t`` subject to ``value_r(z) ≥ weights_r · t`` for every objective r (the
        max-min programme of docs/theory.md §13; highspy backend only).

        One continuous column ``t ∈ [lower, upper]`` and one row per objective,
        ``coef_r · z − weights_r t ≥ −const_r`` (divided by the objective's scale, like the
        objective rows), are added for this solve and removed afterwards, so the model is left
        as it was. ``start`` (a binary z) warm-starts the solve. Returns the rounded binary z and
        its exact value ``min_r value_r(z) / weights_r`` (not the solver's t), or None if no z
        has ``t ≥ lower``.
        """
        if self.backend != "highspy":
            raise ValueError(f"WeakOrderMILP.max_min needs backend='highspy', got "
                             f"{self.backend!r}.")
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (self.R,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise ValueError(f"The 'weights' parameter must hold {self.R} finite positive "
                             f"numbers, got {w.tolist()!r}.")
        hp, h = self._hp, self._h
        inf = hp.kHighsInf
        left = self._remaining()
        self.n_solves += 1
        m = self.m
        row0 = h.getNumRow()
        h.changeColsCost(m, np.arange(m, dtype=np.int32), np.zeros(m))
        h.addCol(1.0, float(lower), inf if upper is None else float(upper), 0,
                 np.zeros(0, dtype=np.int32), np.zeros(0))
        try:
            for r in range(self.R):
                nz = np.flatnonzero(self.coef[r])
                idx = np.append(nz, m).astype(np.int32)
                val = np.append(self.coef[r, nz], -w[r]) / self.scale[r]
                h.addRow(-self.const[r] / self.scale[r], inf, len(idx), idx, val)
            h.setOptionValue("time_limit", float(left) if left is not None else inf)
            if start is not None:
                z0 = np.asarray(start, dtype=np.float64)
                sol = hp.HighsSolution()
                sol.col_value = np.append(z0, np.min(self.values(z0) / w))
                h.setSolution(sol)
            h.run()
            status = h.getModelStatus()
            if status in (hp.HighsModelStatus.kInfeasible,
                          hp.HighsModelStatus.kUnboundedOrInfeasible):
                return None
            if status == hp.HighsModelStatus.kTimeLimit:
                raise TimeoutError("The weak-order MILP ran out of its 'time_limit'.")
            if status != hp.HighsModelStatus.kOptimal:
                raise RuntimeError(f"HiGHS returned status {h.modelStatusToString(status)}.")
            z = np.round(np.asarray(h.getSolution().col_value)[:m])
        finally:
            n_new = h.getNumRow() - row0
            if n_new:
                h.deleteRows(n_new, np.arange(row0, row0 + n_new, dtype=np.int32))
            h.deleteCols(1, np.array([m], dtype=np.int32))
        return z, float(np.min(self.values(z) / w))


def _ordered_triples(n: int) -> np.ndarray:
    """Every ordered triple of distinct indices in lexicographic order (the order of
    ``itertools.permutations(range(n), 3)``), shape (n(n−1)(n−2), 3), without a Python loop."""
    i, j, k = (a.ravel() for a in np.meshgrid(*(np.arange(n),) * 3, indexing="ij"))
    keep = (i != j) & (j != k) & (i != k)
    return np.stack([i[keep], j[keep], k[keep]], axis=1).astype(np.int64)


def milp_size(n: int, K: int = 2) -> tuple[int, int]:
    """Size of the weak-order MILP of docs/theory.md §6 for ``n`` points and ``K`` objective rows:
    ``(n(n−1) binaries, n(n−1)/2 + n(n−1)(n−2) + K constraints)``.

    >>> milp_size(10, 2)
    (90, 767)
    """
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"The 'n' parameter must be a positive integer, got {n!r}.")
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 1:
        raise ValueError(f"The 'K' parameter must be a positive integer, got {K!r}.")
    return n * (n - 1), n * (n - 1) // 2 + n * (n - 1) * (n - 2) + int(K)


def auc_milp(problem: FiniteProblem, backend: str, time_limit: float | None,
              tol: float = DEFAULT_TOL) -> WeakOrderMILP:
    from bipartite._utils.validation import check_problem, check_tolerance

    check_problem(problem)
    check_tolerance(tol, "tol")
    return WeakOrderMILP([problem.pair_weights(k) for k in range(problem.K)],
                          backend=backend, time_limit=time_limit, tol=tol)


def optimal_ranking(
    problem: FiniteProblem,
    *,
    aggregate: str | Callable[[np.ndarray], float] = "sum",
    w: ArrayLike | None = None,
    costs: str | ArrayLike = "linear",
    time_limit: float | None = None,
) -> np.ndarray:
    """Best weak order for the multipartite AUC, for any costs (docs/theory.md §3 (iii), §6).

    ``AUC_MP(f) = Σ_ij M_ij S_ij`` with ``M_ij = p_i p_j Σ_{a>b} C_ab q_a(x_i) q_b(x_j) / Z``
    (``Z`` the same sum over all i, j, so a constant scorer scores ½) and ``S_ij`` the win matrix
    (ties ½, self-pairs included). The maximum over all weak orders is found by the
    linear-ordering MILP of docs/theory.md §6 (binary "i at least as high as j", completeness,
    transitivity), the same builder as :func:`bipartite.pareto.exact_frontier`. It is optimal also
    when the Bayes preference Δ is intransitive (:func:`find_cycle`), where no scorer attains
    every pair's preferred order.

    Parameters
    ----------
    problem : FiniteProblem
    aggregate, w : see :func:`aggregate_labels`
    costs : see :func:`cost_matrix`
    time_limit : float, optional — seconds for HiGHS (:class:`TimeoutError` when exceeded)

    Returns
    -------
    ndarray of shape (n,) — integer-valued scores of an optimal weak order (tied points share a
    score). If the aggregated label is almost surely constant, AUC_MP is undefined and every
    order is optimal: zeros are returned with an :class:`~bipartite.UndefinedMetricWarning`.

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.5, 0.3, 0.2], [[0.9, 0.2], [0.3, 0.3], [0.1, 0.8]])
    >>> optimal_ranking(P, costs="uniform").tolist()
    [2.0, 0.0, 1.0]
    """
    from bipartite._utils.validation import check_problem, check_time_limit, warn_undefined

    check_problem(problem)
    check_time_limit(time_limit)
    factors = problem.multipartite_pair_factors(aggregate=aggregate, w=w, costs=costs)
    if factors is None:
        warn_undefined("AUC_MP is undefined (the aggregated label is almost surely constant): "
                       "every order is optimal.")
        return np.zeros(problem.n)
    if problem.n == 1:
        return np.zeros(1)
    X, Y = factors
    milp = WeakOrderMILP([X @ Y.T], time_limit=time_limit)
    z = milp.lexmax((0,), np.array([-np.inf]))
    return milp.scores(z)
