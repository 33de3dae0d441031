"""The certificate of the max-min MILP's restriction (docs/theory.md §13.1): the weighted-sum
dual bound for K = 2 by bisection, the loss budget's slack, and the check that the restricted
solve was exact.

Internal to :mod:`bipartite.pareto.maxmin` (inputs are the caller's, already validated).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from bipartite.pareto.arrangement import effective_scores

if TYPE_CHECKING:
    from bipartite.population import FiniteProblem

#: Bisection steps of :func:`_line_min` at most (the bracket halves each time: 2^-60 of [0, 1] is
#: below the float resolution of s, and the loop stops earlier when s stops moving).
_BISECT_STEPS = 80
#: Golden-section steps of :func:`dual_nested` for K = 3 at most (0.618^75 of [0, 1] is below
#: the float resolution of x).
_GOLDEN_STEPS = 75
#: The second stage keeps ``AUC_k ≥ c'_k t* − STAGE2_RELAX`` (objective units): far above the
#: solver's row tolerance (``_SOLVER_TOL`` in rows scaled to [−1, 1]), far below any AUC gap the
#: criterion resolves.
STAGE2_RELAX = 1e-12
#: Relative rounding allowance on the bound and the values (sums of n² float products, ~1e-16
#: relative each): added to the loss budget.
ROUND_RTOL = 1e-13


class _Evaluator:
    """``UB(λ) = λ·AUC(sort of f_λ)`` at the λ asked for, remembering the best bound met and the
    order met whose ``min_k AUC_k / c'_k`` is largest (the incumbent's seed)."""

    def __init__(self, problem: FiniteProblem, cn: np.ndarray):
        self.problem, self.cn = problem, cn
        self.E = effective_scores(problem)
        self.lam, self.ub = None, np.inf
        self.g_best, self.t_best = None, -np.inf
        self.calls = 0

    def __call__(self, lam: np.ndarray) -> np.ndarray:
        g = self.E @ lam
        A = self.problem.auc(g)
        self.calls += 1
        ub = float(lam @ A)
        if ub < self.ub:
            self.lam, self.ub = lam, ub
        t = float(np.min(A / self.cn))
        if t > self.t_best:
            self.g_best, self.t_best = g, t
        return A


def _line_min(ev: _Evaluator, lam0: np.ndarray, d: np.ndarray, length: float) -> float:
    """``min_{0 ≤ y ≤ length} UB(lam0 + y d)`` by bisection on the sign of the slope ``d·AUC``
    of the sort at the midpoint (UB is convex and piecewise linear along the line, its slope
    non-decreasing). Returns the smallest UB met on the line."""
    lo, hi = 0.0, float(length)
    best = min(float((lam0 + y * d) @ ev(lam0 + y * d)) for y in (lo, hi))
    for _ in range(_BISECT_STEPS):
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        lam = lam0 + mid * d
        A = ev(lam)
        best = min(best, float(lam @ A))
        slope = float(d @ A)
        if slope < 0:
            lo = mid
        elif slope > 0:
            hi = mid
        else:
            break
    return best


def dual_nested(problem: FiniteProblem, cn: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """The weights λ ≥ 0, ``λ·c' = 1``, that minimise the weighted-sum bound ``UB(λ) = max_z
    λ·value(z) = λ·AUC(sort of f_λ)`` (docs/theory.md §13.1), for K = 2 and 3. UB is convex and
    piecewise linear in λ. K = 2: ``λ = (s / c'_1, (1 − s) / c'_2)``, bisection on s ∈ [0, 1]
    by the sign of the slope ``AUC_1/c'_1 − AUC_2/c'_2`` of the sort of ``f_λ`` (non-decreasing
    in s), down to float resolution. K = 3: ``λ = (x / c'_1, y / c'_2, (1 − x − y) / c'_3)``;
    ``φ(x) = min_y UB`` (the same bisection along y) is convex in x (a partial minimum of a
    convex function) and is minimised by golden-section search. Any λ gives a valid bound, so
    the result is the smallest UB met; one sort and one AUC per evaluation, O(n log n) time and
    O(n) memory (no n × n array, unlike Kelley's cutting planes, whose LP stalled at its own
    tolerance ~1e-7, far above the 1e-10 budgets that matter). Returns λ, UB(λ) and the scores
    of the order met with the largest ``min_k AUC_k / c'_k``."""
    K = len(cn)
    ev = _Evaluator(problem, cn)
    if K == 2:
        _line_min(ev, np.array([0.0, 1.0 / cn[1]]), np.array([1.0 / cn[0], -1.0 / cn[1]]), 1.0)
    elif K == 3:
        d = np.array([0.0, 1.0 / cn[1], -1.0 / cn[2]])

        def phi(x: float) -> float:
            return _line_min(ev, np.array([x / cn[0], 0.0, (1.0 - x) / cn[2]]), d, 1.0 - x)

        a, b = 0.0, 1.0
        r = (np.sqrt(5.0) - 1.0) / 2.0
        x1, x2 = b - r * (b - a), a + r * (b - a)
        f1, f2 = phi(x1), phi(x2)
        for _ in range(_GOLDEN_STEPS):
            if f1 <= f2:
                b, x2, f2 = x2, x1, f1
                x1 = b - r * (b - a)
                f1 = phi(x1)
            else:
                a, x1, f1 = x1, x2, f2
                x2 = a + r * (b - a)
                f2 = phi(x2)
            if b - a <= 1e-15:
                break
    else:
        raise ValueError(f"dual_nested handles K = 2 and 3, got K = {K}.")
    return ev.lam, ev.ub, ev.g_best


def weighted_bound(lam: np.ndarray, const: np.ndarray, coef: np.ndarray) -> float:
    """``UB(λ) = λ·const + ½ Σ_e |Σ_k λ_k coef_ke|`` ≥ ``λ·value(z)`` for every weak order z
    (docs/theory.md §13.1): every ordered pair at its better side."""
    return float(lam @ const + 0.5 * np.abs(lam @ coef).sum())


def budget_slack(lam: np.ndarray, row_tol: np.ndarray, ub: float) -> float:
    """What the loss budget adds to ``UB − t_best`` so that every order the second stage may
    return lies in the restricted model: that stage admits ``value_k ≥ c'_k t* − STAGE2_RELAX``
    up to the solver's row tolerance (``row_tol``, objective units:
    :meth:`WeakOrderMILP.row_tolerance`), so such an order has ``λ·value ≥ t* − Σ_k λ_k
    (STAGE2_RELAX + row_tol_k)``; plus the rounding of the bound and the values."""
    return float(lam @ (STAGE2_RELAX + row_tol)) * (1.0 + 1e-6) + ROUND_RTOL * (abs(ub) + 1.0)


@dataclass(frozen=True)
class Certificate:
    """Why the restricted solve of :func:`~bipartite.pareto.maxmin._max_min_milp` is exact
    (docs/theory.md §13.1).

    Attributes
    ----------
    lam : ndarray (K,) — the weights λ ≥ 0, ``λ·c' = 1``.
    ub : float — ``UB(λ)``, recomputed from the pair coefficients.
    t_best : float — the value ``min_k value_k / c'_k`` of the best order found.
    theta : float — the loss budget of the restricted model M(θ).
    slack : float — :func:`budget_slack`.
    dual_t : float — the restricted MILP's proven upper bound on t over M(θ) (the solver's dual
        bound; ``t_best`` when the model had no free binary).
    n_free : int — free binaries of M(θ).
    """

    lam: np.ndarray
    ub: float
    t_best: float
    theta: float
    slack: float
    dual_t: float
    n_free: int


def check_certificate(cert: Certificate, fixed: np.ndarray, const: np.ndarray, coef: np.ndarray,
                      tol: float) -> None:
    """Raise :class:`RuntimeError` unless ``cert`` proves that ``t_best`` is the max-min value
    up to ``tol`` (docs/theory.md §13.1). ``fixed`` are the fixings the restricted model M(θ)
    was built from (NaN: free; what the model propagates from them follows from them), ``const``
    and ``coef`` the pair coefficients (:meth:`WeakOrderMILP.pair_coefficients`). Checked:

    1. ``λ ≥ 0`` and ``cert.ub ≥ UB(λ)`` recomputed from the coefficients (:func:`weighted_bound`);
    2. every fixing costs more than θ to break, ``a = λ @ coef``: ``fixed_e = 1`` (i ≥ j) is
       broken only by reversing the pair, which costs ``2 a_e``, so ``2 a_e > θ``;
       ``fixed_e = 0`` (j strictly above i) is broken by a tie or a reversal, which costs at least
       ``−a_e``, so ``−a_e > θ``. Hence every order of loss ≤ θ lies in M(θ);
    3. ``θ ≥ UB(λ) − t_best + slack``: an order with value ≥ t_best − slack has loss
       ``UB − λ·value ≤ θ``, so it lies in M(θ);
    4. the solver's bound over M(θ), ``dual_t``, is at most ``t_best + tol``.

    So no weak order has value above ``t_best + tol``."""
    theta = cert.theta
    lam = np.asarray(cert.lam, dtype=np.float64)
    ub = weighted_bound(lam, const, coef)
    if not (np.all(lam >= 0) and cert.ub >= ub - ROUND_RTOL * (abs(ub) + 1.0)):
        raise RuntimeError(f"max_min_point: certificate check failed: the bound {cert.ub!r} is "
                           f"below UB(λ) = {ub!r} recomputed from the pair coefficients.")
    a = lam @ coef
    if np.any((fixed == 1.0) & ~(2.0 * a > theta)) or np.any((fixed == 0.0) & ~(-a > theta)):
        raise RuntimeError("max_min_point: certificate check failed: a fixed pair costs at most "
                           "the loss budget to break, so the restricted model may miss an "
                           "optimum.")
    if not theta >= cert.ub - cert.t_best + cert.slack:
        raise RuntimeError(f"max_min_point: certificate check failed: the loss budget "
                           f"{theta!r} is below UB − t_best + slack = "
                           f"{cert.ub - cert.t_best + cert.slack!r}.")
    if not cert.dual_t <= cert.t_best + tol:
        raise RuntimeError(f"max_min_point: certificate check failed: the restricted MILP's "
                           f"bound {cert.dual_t!r} exceeds the best value {cert.t_best!r}.")
