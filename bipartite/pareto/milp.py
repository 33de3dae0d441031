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
from bipartite.pareto import maxmin_rows as _rows

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

__all__ = ["DEFAULT_TOL", "DEFAULT_TOL_MULTI", "MILP_BACKENDS", "WeakOrderMILP", "auc_milp", "milp_size",
           "optimal_ranking"]


# --------------------------------------------------------------------------------------------
# Solver statuses: one reading for every HiGHS interface of the package
# --------------------------------------------------------------------------------------------
#: What each interface's status means, as (optimal, infeasible, out of time): highspy's
#: ``HighsModelStatus`` member names, cvxpy's ``Problem.status``, scipy's ``linprog`` codes.
_STATUSES: dict[str, tuple[frozenset, frozenset, frozenset]] = {
    "highspy": (frozenset({"kOptimal"}), frozenset({"kInfeasible", "kUnboundedOrInfeasible"}),
                frozenset({"kTimeLimit"})),
    "cvxpy": (frozenset({"optimal"}), frozenset({"infeasible", "infeasible_inaccurate"}),
              frozenset({"user_limit"})),
    "linprog": (frozenset({0}), frozenset({2}), frozenset()),
}


def solver_outcome(status: object, interface: str) -> bool:
    """The package's reading of a HiGHS status (the one home of it): ``True`` for an optimum,
    ``False`` for an infeasible programme; :class:`TimeoutError` when the solve ran out of its
    ``time_limit``; :class:`RuntimeError` for anything else (unbounded, numerical trouble), which
    none of the package's programmes should produce. ``interface`` is "highspy" (give the
    ``HighsModelStatus`` member's ``name``), "cvxpy" (``Problem.status``) or "linprog"
    (``OptimizeResult.status``).

    >>> solver_outcome("kOptimal", "highspy"), solver_outcome(2, "linprog")
    (True, False)
    """
    optimal, infeasible, out_of_time = _STATUSES[interface]
    if status in optimal:
        return True
    if status in infeasible:
        return False
    if status in out_of_time:
        raise TimeoutError("The weak-order MILP ran out of its 'time_limit'.")
    raise RuntimeError(f"HiGHS ({interface}) returned status {status!r}.")


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
    fixed : (n(n−1),) array, optional (highspy only) — a **restricted model**: ``fixed[e]`` is
        the value (0 or 1) that the binary of ordered pair ``e = (I[e], J[e])`` is fixed to, NaN
        for a free binary. Only the free binaries are solver columns; every completeness and
        transitivity row is rewritten with the fixed values substituted, a row that no binary
        assignment can violate is dropped, and a row left with one free binary fixes it
        (repeated to a fixed point, so the restricted model has exactly the weak orders of the
        full model that agree with ``fixed``). ``ValueError`` if the fixings admit no weak order.
        Solutions, values and scores are always full-length.

    Values are handled in objective units; the rows and costs passed to the solver are divided by
    ``max |coefficient|`` of each objective (coefficients in [−1, 1]).
    """

    @staticmethod
    def pair_coefficients(Ws: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                        np.ndarray]:
        """The objectives of the weak-order MILP as linear functions of the binaries (docs/theory.md
        §6): ``Σ_ij W_ij S_ij = const + Σ_e coef_e z_e`` over the ordered pairs ``e = (I[e], J[e])``,
        ``I ≠ J``, with ``const = Σ W / 2`` and ``coef_e = (W_IJ − W_JI) / 2``. Returns
        ``(I, J, const (R,), coef (R, n(n−1)))``."""
        n = Ws[0].shape[0]
        I, J = np.nonzero(~np.eye(n, dtype=bool))
        const = np.array([W.sum() / 2.0 for W in Ws])
        coef = np.array([(W[I, J] - W[J, I]) / 2.0 for W in Ws]).reshape(len(Ws), len(I))
        return I, J, const, coef

    @staticmethod
    def row_tolerance(coef: np.ndarray) -> np.ndarray:
        """(R,) how far, in objective units, a solution that passes the threshold re-check may
        fall short of an objective row's bound: the solver's feasibility tolerance on rows
        divided by ``max |coef_r|`` (the scaling of every objective row), times that scale."""
        scale = np.abs(coef).max(axis=1, initial=0.0)
        return _SOLVER_TOL * np.where(scale > 0, scale, 1.0)

    def __init__(self, weights: list[np.ndarray], *, backend: str = "highspy",
                 time_limit: float | None = None, tol: float = DEFAULT_TOL,
                 fixed: np.ndarray | None = None):
        Ws = [np.asarray(W, dtype=np.float64) for W in weights]
        n = Ws[0].shape[0]
        self.n, self.R = n, len(Ws)
        I, J, self.const, self.coef = self.pair_coefficients(Ws)
        self.I, self.J = I, J
        self.m = len(I)
        idx = np.full((n, n), -1, dtype=np.int64)
        idx[I, J] = np.arange(self.m)
        scale = np.abs(self.coef).max(axis=1, initial=0.0)
        self.scale = np.where(scale > 0, scale, 1.0)
        # completeness rows (i < j): z_ij + z_ji >= 1
        iu, ju = np.triu_indices(n, 1)
        comp_cols = np.stack([idx[iu, ju], idx[ju, iu]], axis=1)
        self.backend = check_option(backend, "backend", MILP_BACKENDS)
        fx = None
        if fixed is not None:
            if self.backend != "highspy":
                raise ValueError(f"A restricted WeakOrderMILP ('fixed' given) needs "
                                 f"backend='highspy', got {self.backend!r}.")
            fx = np.asarray(fixed, dtype=np.float64)
            if fx.shape != (self.m,) or np.any(~np.isnan(fx) & (fx != 0.0) & (fx != 1.0)):
                raise ValueError(f"The 'fixed' parameter must hold {self.m} values in "
                                 f"{{0, 1, NaN}} (one per ordered pair), got shape {fx.shape}.")
            _rows.check_fixed_transitive(idx, fx)
        # transitivity rows, every ordered triple of distinct points: z_ij + z_jk - z_ik <= 1;
        # a restricted model needs only the triples with a free binary (_rows.free_triples)
        tri = _ordered_triples(n) if fx is None else _rows.free_triples(idx, np.isnan(fx), fx)
        trans_cols = np.stack(
            [idx[tri[:, 0], tri[:, 1]], idx[tri[:, 1], tri[:, 2]], idx[tri[:, 0], tri[:, 2]]],
            axis=1,
        )
        if fx is not None:  # only the rows that the fixings leave violable (_rows.violable)
            comp_cols = comp_cols[_rows.violable(np.c_[comp_cols, np.full(len(comp_cols), -1)],
                                                 _rows.COMP_VALS, 1.0, np.inf, fx)]
        self.deadline = None if time_limit is None else time.monotonic() + float(time_limit)
        self.n_solves = 0
        self.last_bound = np.inf
        if fx is None:
            self.fixed = np.full(self.m, np.nan)
            self.free = np.arange(self.m)
            self.n_rows = len(comp_cols) + len(trans_cols) + self.R
            rows = None
        else:
            rows, self.fixed = _rows.restrict_rows(comp_cols, trans_cols, fx)
            self.free = np.flatnonzero(np.isnan(self.fixed))
            self.n_rows = len(rows[2]) + self.R
        # objective values of the fixed binaries: value_r(z) = base_r + coef_r[free] · z[free]
        self._zfix = np.nan_to_num(self.fixed, nan=0.0)
        self.base = self.const + self.coef @ self._zfix
        if self.backend == "highspy":
            self._build_highspy(comp_cols, trans_cols, rows)
        else:
            self._build_cvxpy(comp_cols, trans_cols)

    # ---- construction -------------------------------------------------------------------------
    def _build_highspy(self, comp_cols: np.ndarray, trans_cols: np.ndarray,
                       rows: tuple[np.ndarray, ...] | None = None) -> None:
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
        m = len(self.free)
        # Row-wise matrix, built with arrays: completeness rows, transitivity rows, then one row
        # per objective (its nonzero coefficients on the solver columns, scaled).
        cf = self.coef[:, self.free]
        nzs = [np.flatnonzero(cf[r]) for r in range(self.R)]
        obj_val = [cf[r, nz] / self.scale[r] for r, nz in enumerate(nzs)]
        if rows is None:
            index = np.concatenate([comp_cols.ravel(), trans_cols.ravel(), *nzs])
            value = np.concatenate([np.ones(comp_cols.size),
                                    np.tile([1.0, 1.0, -1.0], len(trans_cols)), *obj_val])
            lengths = np.concatenate([np.full(len(comp_cols), 2), np.full(len(trans_cols), 3),
                                      [len(nz) for nz in nzs]]).astype(np.int64)
            self._obj_row0 = len(comp_cols) + len(trans_cols)
            lower = np.full(len(lengths), -inf)
            upper = np.full(len(lengths), inf)
            lower[:len(comp_cols)] = 1.0
            upper[len(comp_cols):self._obj_row0] = 1.0
        else:  # the restricted rows: column numbers into self.free, bounds already shifted
            r_index, r_value, r_len, r_lo, r_up = rows
            index = np.concatenate([r_index, *nzs])
            value = np.concatenate([r_value, *obj_val])
            lengths = np.concatenate([r_len, [len(nz) for nz in nzs]]).astype(np.int64)
            self._obj_row0 = len(r_len)
            lower = np.concatenate([np.where(np.isfinite(r_lo), r_lo, -inf), np.full(self.R, -inf)])
            upper = np.concatenate([np.where(np.isfinite(r_up), r_up, inf), np.full(self.R, inf)])
        starts = np.concatenate([[0], np.cumsum(lengths)])
        n_rows = len(lengths)
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
        """(number of variables, number of constraints) given to the solver (fewer for a
        restricted model)."""
        return len(self.free), self.n_rows

    def _full(self, zf: np.ndarray) -> np.ndarray:
        """The full binary vector (every ordered pair) of a solution on the solver columns."""
        z = self._zfix.copy()
        z[self.free] = zf
        return z

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
        lo = (np.asarray(lower, dtype=np.float64) - self.base) / self.scale
        up = (np.asarray(upper, dtype=np.float64) - self.base) / self.scale
        left = self._remaining()
        self.n_solves += 1
        if self.backend == "highspy":
            return self._solve_highspy(objective, lo, up, start, left)
        return self._solve_cvxpy(objective, lo, up, left)

    def _solve_highspy(self, objective, lo, up, start, left) -> np.ndarray | None:
        hp, h = self._hp, self._h
        inf = hp.kHighsInf
        free = self.free
        nv = len(free)
        if nv == 0:  # every binary fixed: one candidate order
            ok = np.all(lo <= _SOLVER_TOL) and np.all(up >= -_SOLVER_TOL)
            return self._zfix.copy() if ok else None
        cols = np.arange(nv, dtype=np.int32)
        h.changeColsCost(nv, cols, np.asarray(objective, float)[free])
        rows = np.arange(self._obj_row0, self._obj_row0 + self.R, dtype=np.int32)
        h.changeRowsBounds(self.R, rows, np.where(np.isfinite(lo), lo, -inf),
                           np.where(np.isfinite(up), up, inf))
        h.setOptionValue("time_limit", float(left) if left is not None else inf)
        if start is not None:
            sol = hp.HighsSolution()
            sol.col_value = np.asarray(start, dtype=np.float64)[free]
            h.setSolution(sol)
        cf = self.coef[:, free]
        cut_rows: list[int] = []
        tight = False
        try:
            while True:
                h.run()
                if not solver_outcome(h.getModelStatus().name, "highspy"):
                    return None
                z = np.round(np.asarray(h.getSolution().col_value))
                # Safeguard: HiGHS accepts near-integer z (integrality tolerance); the rounded z
                # must satisfy the thresholds exactly (up to _SOLVER_TOL). If it does not, cut
                # off this one binary vector (a "no-good" cut, removed again below) and re-solve.
                act = cf @ z / self.scale
                if np.all(act >= lo - _SOLVER_TOL) and np.all(act <= up + _SOLVER_TOL):
                    return self._full(z)
                if len(cut_rows) >= _MAX_NO_GOOD_CUTS:
                    if tight:
                        raise RuntimeError("HiGHS kept returning solutions that violate the "
                                           "thresholds after rounding.")
                    # Every optimum at integrality 1e-7 rounds outside the thresholds (HiGHS
                    # 1.16 on FiniteProblem.random(8, 2, seed=1, deterministic=True)): drop the
                    # cuts and re-solve once at _TIGHT_MIP_TOL (only as a fallback; see _MIP_TOL).
                    h.deleteRows(len(cut_rows), np.array(cut_rows, dtype=np.int32))
                    cut_rows, tight = [], True
                    h.setOptionValue("mip_feasibility_tolerance", _TIGHT_MIP_TOL)
                    continue
                ones = np.flatnonzero(z > 0.5)
                coef = np.where(z > 0.5, -1.0, 1.0)
                cut_rows.append(h.getNumRow())
                h.addRow(1.0 - len(ones), inf, nv, cols, coef)
        finally:
            if cut_rows:
                h.deleteRows(len(cut_rows), np.array(cut_rows, dtype=np.int32))
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
        if not solver_outcome(self._prob.status, "cvxpy"):
            return None
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

        One continuous column and one row per objective, ``coef_r · z − weights_r t ≥
        −const_r`` (divided by the objective's scale, like the objective rows), are added for this
        solve and removed afterwards, so the model is left as it was. With ``upper`` given the
        column is ``τ = (t − lower) / (upper − lower) ∈ [0, 1]``, so the solver's optimality
        tolerances act on the bracket's scale (a narrow bracket resolves t finely), else
        ``t ∈ [lower, ∞)``. ``start`` (a binary z) warm-starts the solve. Returns the rounded
        binary z and its exact value ``min_r value_r(z) / weights_r`` (not the solver's t), or
        None if no z has ``t ≥ lower``. ``self.last_bound`` is then the solver's proven upper
        bound on t over the model (its MIP dual bound; ``lower`` when infeasible), the
        certificate's third part (docs/theory.md §13.1).
        """
        if self.backend != "highspy":
            raise ValueError(f"WeakOrderMILP.max_min needs backend='highspy', got "
                             f"{self.backend!r}.")
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (self.R,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise ValueError(f"The 'weights' parameter must hold {self.R} finite positive "
                             f"numbers, got {w.tolist()!r}.")
        lower = float(lower)
        span = 1.0 if upper is None else float(upper) - lower
        if not span > 0:
            raise ValueError(f"The 'upper' parameter must exceed 'lower' ({lower!r}), got "
                             f"{upper!r}.")
        if len(self.free) == 0:  # every binary fixed: one candidate order
            t = float(np.min(self.values(self._zfix) / w))
            self.last_bound = t
            return None if t < lower else (self._zfix.copy(), t)
        hp, h = self._hp, self._h
        inf = hp.kHighsInf
        left = self._remaining()
        self.n_solves += 1
        free = self.free
        m = len(free)
        cf = self.coef[:, free]
        row0 = h.getNumRow()
        h.changeColsCost(m, np.arange(m, dtype=np.int32), np.zeros(m))
        # free the objective rows (a previous solve's thresholds stay set otherwise)
        h.changeRowsBounds(self.R, np.arange(self._obj_row0, self._obj_row0 + self.R,
                                             dtype=np.int32), np.full(self.R, -inf),
                           np.full(self.R, inf))
        h.addCol(1.0, 0.0 if upper is not None else lower, 1.0 if upper is not None else inf, 0,
                 np.zeros(0, dtype=np.int32), np.zeros(0))
        shift = 0.0 if upper is None else lower
        try:
            for r in range(self.R):
                nz = np.flatnonzero(cf[r])
                idx = np.append(nz, m).astype(np.int32)
                val = np.append(cf[r, nz], -w[r] * span) / self.scale[r]
                h.addRow((w[r] * shift - self.base[r]) / self.scale[r], inf, len(idx), idx, val)
            h.setOptionValue("time_limit", float(left) if left is not None else inf)
            if start is not None:
                z0 = np.asarray(start, dtype=np.float64)
                sol = hp.HighsSolution()
                sol.col_value = np.append(z0[free], (np.min(self.values(z0) / w) - shift) / span)
                h.setSolution(sol)
            h.run()
            if not solver_outcome(h.getModelStatus().name, "highspy"):
                self.last_bound = lower   # no z with t ≥ lower
                return None
            # the solver's proven bound on t over this model (its dual bound, in τ units)
            self.last_bound = shift + span * float(h.getInfo().mip_dual_bound)
            z = self._full(np.round(np.asarray(h.getSolution().col_value)[:m]))
        finally:
            h.deleteRows(self.R, np.arange(row0, row0 + self.R, dtype=np.int32))
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
              tol: float = DEFAULT_TOL, *, fixed: np.ndarray | None = None) -> WeakOrderMILP:
    """The weak-order MILP of the per-label AUCs of a finite problem (``fixed``: a restricted
    model, see :class:`WeakOrderMILP`)."""
    from bipartite._utils.validation import check_problem, check_tolerance

    check_problem(problem)
    check_tolerance(tol, "tol")
    return WeakOrderMILP([problem.pair_weights(k) for k in range(problem.K)],
                          backend=backend, time_limit=time_limit, tol=tol, fixed=fixed)


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
