"""The max-min (egalitarian) AUC point and the best balance that loss aggregation can reach
(docs/theory.md §13, §6.6).

On a finite problem (docs/theory.md §1.3; ties count ½, self-pairs included) this module computes

* :func:`max_min_point` — a weak order maximising ``min_k AUC_k / c_k`` over **all** weak orders,
  made Pareto-optimal by a second stage (subset DP for n ≤ 8, one MILP beyond: the measured
  crossover);
* :func:`max_min_gap` — its difference from :func:`max_min_supported` (the best
  ``min_k AUC_k / c_k`` over the scorers that a loss-aggregation weighting produces): the price
  of insisting on a weighted-sum objective.

The routines over the loss-aggregation orders (:func:`max_min_supported`,
:func:`balanced_weights`, :func:`reachable_orders` and their results) live in
:mod:`bipartite.pareto.supported` and are re-exported here.

Two kinds of weights appear, and they are not the same thing: ``weights`` (``c > 0``) rescales the
*criterion* ``min_k AUC_k / c_k`` (default ``c = 1``), while ``a`` are the *mixing weights* of loss
aggregation (docs/theory.md §4) that :func:`max_min_supported` searches over.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import check_option, check_time_limit
from bipartite.pareto.arrangement import effective_scores
from bipartite.pareto.dp import DEFAULT_TOL_DP, dp_limit, pair_weight_stack, subset_dp
from bipartite.pareto.maxmin_cert import (
    STAGE2_RELAX,
    Certificate,
    budget_slack,
    check_certificate,
    dual_nested,
    weighted_bound,
)
from bipartite.pareto.milp import DEFAULT_TOL, auc_milp, solver_outcome
from bipartite.pareto.supported import (
    BalancedWeights,
    SupportedMaxMin,
    balanced_weights,
    check_maxmin_problem,
    criterion_weights,
    max_min_supported,
    reachable_orders,
)
from bipartite.pareto.sweep import seed_values

if TYPE_CHECKING:
    from bipartite.population import FiniteProblem

__all__ = ["MAXMIN_DP_MAX_N", "BalancedWeights", "MaxMinPoint", "SupportedMaxMin", "balanced_weights",
           "max_min_gap", "max_min_point", "max_min_supported", "reachable_orders"]

_METHODS = ("auto", "dp", "milp")
#: ``max_min_point(method="auto")`` uses the subset DP up to this many points (by K, 3 for
#: K ≥ 3) and the MILP beyond: the crossover measured by ``benchmarks/bench_maxmin.py --part
#: crossover`` (see :func:`max_min_point`).
MAXMIN_DP_MAX_N = {1: 8, 2: 8, 3: 8}


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MaxMinPoint:
    """Result of :func:`max_min_point`.

    Attributes
    ----------
    value : float — ``min_k AUC_k / c_k`` of the returned order (the max-min value).
    auc : ndarray (K,) — its per-label AUCs (ties ½, self-pairs included).
    scores : ndarray (n,) — integer-valued scores of the order (tied points share a score).
    weights : ndarray (K,) — the criterion weights ``c`` used (ones by default).
    method : str — ``"dp"`` or ``"milp"``: the route that computed it.
    certificate : Certificate or None — for ``"milp"``, the checked proof that the restricted
        solve was exact (weights λ, bound UB(λ), best value, loss budget θ, slack, the solver's
        bound, free binaries; docs/theory.md §13.1); None for ``"dp"`` (exact by enumeration).
    """

    value: float
    auc: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    method: str
    certificate: Certificate | None = None




# --------------------------------------------------------------------------------------------
# max_min_point: all weak orders
# --------------------------------------------------------------------------------------------
def max_min_point(problem: FiniteProblem, *, weights: ArrayLike | None = None, method: str = "auto",
                  time_limit: float | None = None) -> MaxMinPoint:
    r"""A weak order maximising ``min_k AUC_k / c_k`` over all weak orders, Pareto-optimal
    (docs/theory.md §13, §6.6).

    ``weights`` are the criterion weights ``c > 0`` (default ``c = 1``: the plain max-min AUC);
    they are not the mixing weights ``a`` of loss aggregation. Scaling c by a constant changes
    the value, not the maximiser.

    **A max-min point can be taken Pareto-optimal.** The achievable set A (the AUC vectors of
    all weak orders, ties ½) is finite, so the maximum t* of ``m(x) = min_k x_k / c_k`` is
    attained. ``m`` is non-decreasing in every coordinate, so any x' that dominates a maximiser
    x has ``m(x') ≥ m(x) = t*``: it is a maximiser too. Among the maximisers, one with the
    largest ``Σ_k x_k`` is therefore dominated by nothing in A: it is Pareto-optimal, and both
    routes return such a point.

    * ``method="dp"``: the exact frontier by the subset DP (:func:`subset_dp`, docs/theory.md
      §6.3), cut to the region that can hold a maximiser (every ``AUC_k ≥ c_k t0``, with t0 the
      best value of a few known orders: ``_max_min_dp``), which holds a maximiser by the
      argument above; the frontier points within ``1e-9`` of the best ``m`` are the
      maximisers, and the one with the largest ``Σ_k AUC_k`` is returned. Exact, solver-free;
      up to ``dp_limit(K)`` points (16 for K = 2, 12 for K ≥ 3; 0.3-3 CPU s at n = 14, K = 2).
    * ``method="milp"``: the MILP on the weak-order model (docs/theory.md §6.4), ``max t``
      subject to ``AUC_k ≥ c_k t`` for all k (:meth:`WeakOrderMILP.max_min`), then a second
      stage ``max Σ_k AUC_k`` subject to ``AUC_k ≥ c_k t* − 1e-12``, so the point is
      Pareto-optimal; both on a **certified restriction** of the model: the weighted-sum bound
      ``UB(λ)``, minimised over the loss-aggregation weights (bisection for K = 2, golden
      section over bisection for K = 3, Kelley's cutting planes otherwise), gives every order a
      loss budget, the pairs that no order within budget may tie or reverse are fixed, and the
      restricted model is enlarged until the best order found proves that every optimum lies
      inside it (see ``_max_min_milp``). The proof is checked in code
      (:func:`~bipartite.pareto.maxmin_cert.check_certificate`: the fixings, the budget, the
      solver's dual bound) and returned as ``certificate``. The restricted model is built from
      the transitivity rows through a free pair that the fixings leave violable, in chunks
      (docs/theory.md §13.1): ``FiniteProblem.random(n, K, 0)`` takes about 3.5 CPU s at
      (300, 2), 31 at (1000, 2) (0.6 GiB peak) and 107 at (300, 3) (docs/theory.md §13.5).
      Exact up to the solver's tolerances (integrality 1e-7, thresholds re-checked on the
      rounded order, the certificate's 1e-9); the tests check it against the full model, the DP
      and enumeration.
    * ``method="auto"`` (default): the DP for ``n ≤ 8`` (``MAXMIN_DP_MAX_N``; K = 1 follows
      K = 2, unmeasured), the MILP beyond. The crossover was measured with both methods side by
      side in one run on ``FiniteProblem.random(n, K, seed)``, seeds 0-2 (same value on every
      problem), by ``python benchmarks/bench_maxmin.py --part crossover --time-limit 30``
      (2 shared cores, load average 8.4-8.9); total CPU seconds over the three seeds,
      DP / MILP:

      ====  ===========  ===========  ===========  ===========  ===========  ===========
      K     n = 4        n = 6        n = 8        n = 9        n = 10       n = 12
      ====  ===========  ===========  ===========  ===========  ===========  ===========
      2     0.009/0.056  0.014/0.051  0.028/0.043  0.078/0.052  0.138/0.485  0.611/0.095
      3     0.031/0.080  0.065/0.134  0.424/0.599  0.614/0.233  1.50/0.816   5.59/0.161
      ====  ===========  ===========  ===========  ===========  ===========  ===========

      (K = 3, n = 12: seeds 0, 1.) The DP wins in total up to n = 8 for both K (and at n = 10,
      K = 2, on one slow MILP solve); the MILP from n = 9 on, by more and more (K = 2, n = 14:
      4.37 / 0.30 CPU s). The per-problem times scatter by 10× either way, so the rule is a
      total, not a guarantee per problem.

    Parameters
    ----------
    problem : FiniteProblem — every prior strictly inside (0, 1).
    weights : array-like (K,) of positive numbers, optional — the criterion weights c.
    method : "auto", "dp" or "milp".
    time_limit : float > 0, optional — wall seconds for the whole computation;
        :class:`TimeoutError` when exceeded.

    Returns
    -------
    MaxMinPoint — ``value``, ``auc`` (K,), ``scores`` (n,), ``weights``, ``method``.

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.random(6, 2, seed=36)
    >>> r = max_min_point(P)
    >>> round(r.value, 4), r.auc.round(4).tolist(), r.method
    (0.5714, [0.5714, 0.5727], 'dp')
    """
    check_maxmin_problem(problem)
    c = criterion_weights(weights, problem.K)
    method = check_option(method, "method", _METHODS)
    time_limit = check_time_limit(time_limit)
    if method == "auto":
        method = "dp" if problem.n <= MAXMIN_DP_MAX_N[min(problem.K, 3)] else "milp"
    if method == "dp" and problem.n > dp_limit(problem.K):
        raise ValueError(f"The 'method' parameter is 'dp', but the subset DP is limited to "
                         f"n <= {dp_limit(problem.K)} points for K = {problem.K} and the problem "
                         f"has n = {problem.n}; use method='milp' or 'auto'.")
    cert = None
    if problem.n == 1:
        scores = np.zeros(1)
    elif method == "dp":
        scores = _max_min_dp(problem, c, time_limit)
    else:
        scores, cert = _max_min_milp(problem, c, time_limit)
    auc = problem.auc(scores)
    return MaxMinPoint(float(np.min(auc / c)), auc, scores, c, method, cert)


def _max_min_dp(problem: FiniteProblem, c: np.ndarray, time_limit: float | None) -> np.ndarray:
    """The subset DP (docs/theory.md §6.3) restricted to the region that can hold a maximiser.

    With t0 the best ``min_k AUC_k / c_k`` of a few known orders (:func:`seed_values`), a
    maximiser has every ``AUC_k ≥ c_k t0``. The rows ``e_k`` (2 in every label but k, where
    ``c_k (t0 − 2·DEFAULT_TOL)``) passed as the DP's ``lower`` drop exactly the prefixes whose
    best completion has ``AUC_k ≤ c_k (t0 − 2·DEFAULT_TOL)`` for some k (AUCs are at most 1, so
    2 beats any completion there): none of them completes to a point within DEFAULT_TOL of the
    max-min value. The region ``{x ≥ c (t0 − 2·DEFAULT_TOL)}`` is an up-set, so what the DP
    returns is the exact frontier inside it, which holds every maximiser."""
    seed = seed_values(problem)
    K = problem.K
    lower = None
    if seed is not None and len(seed):
        t0 = float(np.max(np.min(seed / c, axis=1)))
        lower = np.full((K, K), 2.0)
        lower[np.arange(K), np.arange(K)] = c * (t0 - 2.0 * DEFAULT_TOL)
        lower = np.vstack([seed, lower])
    F, S = subset_dp(pair_weight_stack(problem), DEFAULT_TOL_DP, time_limit, lower=lower)
    m = np.min(F / c, axis=1)
    best = np.flatnonzero(m >= m.max() - DEFAULT_TOL)
    return S[best[np.argmax(F[best].sum(axis=1))]]


#: The certified restriction (:func:`_max_min_milp`) first frees about this many pairs per point.
_START_FREE_PER_POINT = 2
#: Cutting-plane iterations of :func:`_hull_dual` at most.
_DUAL_ITERS = 200
#: Factor by which θ grows at most per round of :func:`_max_min_milp`.
_THETA_GROWTH = 4.0
#: How far the restricted MILP's proven bound on t may exceed the best value found
#: (:func:`check_certificate`): the solver's optimality tolerance on the bracketed column τ.
_CERT_TOL = 1e-9


def _hull_dual(problem: FiniteProblem, Ws: np.ndarray, coef: np.ndarray, const: np.ndarray,
               cn: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Weights ``λ ≥ 0`` with ``λ·c = 1`` that (nearly) minimise the weighted-sum bound
    ``UB(λ)`` (:func:`weighted_bound`) ``≥ max_z λ·value(z) ≥ t*`` (docs/theory.md §13.1) for
    K = 1 and K ≥ 4 (:func:`dual_nested` does K = 2, 3 exactly): Kelley's cutting planes,
    ``min u`` s.t. ``u ≥ λ·x`` for the AUC vectors x of the orders met so far, each new order
    the sort of ``f_λ = Σ_k λ_k η_k / (π_k (1 − π_k))`` (it attains ``UB(λ)``: the pair weights
    have difference form). Any λ gives a valid bound. Returns every
    λ met (rows, the best first), their ``UB`` and the scores of every order met (lower-bound
    candidates)."""
    from scipy.optimize import linprog

    from bipartite.pareto.dp import order_values

    K = len(cn)
    E = effective_scores(problem)

    def ub(lam: np.ndarray) -> float:
        return weighted_bound(lam, const, coef)

    S = [E[:, k] for k in range(K)] + [E @ (1.0 / cn) / K]
    X = list(order_values(Ws, np.array(S)))
    lams = list(np.eye(K) / cn)
    ubs = [ub(lam) for lam in lams]
    best_ub = min(ubs)
    for _ in range(_DUAL_ITERS):
        A = np.array(X)
        res = linprog(np.r_[np.zeros(K), 1.0], A_ub=np.c_[A, -np.ones(len(A))],
                      b_ub=np.zeros(len(A)), A_eq=np.r_[cn, 0.0][None], b_eq=[1.0],
                      bounds=[(0.0, None)] * K + [(None, None)], method="highs")
        if not solver_outcome(res.status, "linprog"):   # (bounded and feasible: never)
            break
        lam, u = np.maximum(res.x[:K], 0.0), float(res.x[K])
        lam = lam / (lam @ cn)
        b = ub(lam)
        lams.append(lam)
        ubs.append(b)
        best_ub = min(best_ub, b)
        if best_ub - u <= 1e-13 * (1.0 + abs(u)):
            break
        S.append(E @ lam)
        X.append(order_values(Ws, S[-1][None])[0])
    order = np.argsort(ubs, kind="stable")
    return np.array(lams)[order], np.array(ubs)[order], S


def _max_min_milp(problem: FiniteProblem, c: np.ndarray, time_limit: float | None
                  ) -> tuple[np.ndarray, Certificate]:
    """The max-min MILP on a certified restriction of the weak-order model (docs/theory.md §13.1).

    Weights λ ≥ 0 with λ·c' = 1 (``c' = c / max c``; :func:`dual_nested` for K = 2, 3,
    :func:`_hull_dual` otherwise) give, for every order with binaries z (completeness holds),
    ``λ·value(z) = UB − loss(z)`` where ``UB = λ·const + Σ_{i<j} |a_ij|``, ``a = Σ_k λ_k coef_k``,
    and ``loss(z) = Σ_{i<j} |a_ij| · (0 if the pair follows the sign of a_ij, 1 if tied, 2 if
    reversed) ≥ 0``. An order with ``min_k value_k/c'_k ≥ t`` has ``λ·value ≥ t``, so ``loss ≤
    B(t) = UB − t``: it ties no pair with ``|a_ij| > B(t)`` and reverses none with ``2|a_ij| >
    B(t)``. The restricted model M(θ) fixes those binaries for ``B = θ`` (:class:`WeakOrderMILP`
    with ``fixed``); its rows are the full model's with the fixings substituted, so M(θ) holds
    exactly the weak orders with every such pair in sign order, a superset of the orders of loss
    ≤ θ. Loop: solve the max-min programme on M(θ), keep the best order found (value ``t_best``,
    a lower bound on ``t*``); if ``θ ≥ B(t_best)`` + slack (:func:`budget_slack`), every optimal
    order has loss ≤ θ, so it lies in M(θ) and the solve was exact: stop; else θ ← B(t_best) +
    slack and repeat (θ only grows; the full model is the limit). The stop is checked by
    :func:`check_certificate` (the fixings, the budget, and the solver's dual bound over M(θ)).
    The second stage (``max Σ_k value_k`` at ``value_k ≥ c'_k t* − STAGE2_RELAX``) runs on the
    same M(θ), which the slack makes contain every order it admits.
    """
    from bipartite.pareto.dp import pair_weight_stack, problem_order_values
    from bipartite.pareto.milp import WeakOrderMILP

    deadline = None if time_limit is None else time.monotonic() + time_limit
    Ws = pair_weight_stack(problem)
    I, J, const, coef = WeakOrderMILP.pair_coefficients(list(Ws))
    del Ws
    cn = c / c.max()
    if problem.K in (2, 3):
        lam, _, g0 = dual_nested(problem, cn)
        S = [g0]
    else:
        lams, _, S = _hull_dual(problem, pair_weight_stack(problem), coef, const, cn)
        lam = lams[0]
    ub = weighted_bound(lam, const, coef)
    a = lam @ coef                               # a_e, with a_(j,i) = −a_(i,j)
    S = np.array(S)
    t_all = np.min(problem_order_values(problem, S) / cn, axis=1)      # candidate orders
    best = int(np.argmax(t_all))
    z_best = (S[best][I] >= S[best][J]).astype(np.float64)
    t_best = float(np.min((const + coef @ z_best) / cn))
    del S
    g = effective_scores(problem) @ lam
    z_sort = (g[I] >= g[J]).astype(np.float64)   # the sort of f_λ: loss 0
    slack = budget_slack(lam, WeakOrderMILP.row_tolerance(coef), ub)
    pos = np.abs(a[a > 0])
    k0 = min(_START_FREE_PER_POINT * problem.n, len(pos)) - 1
    theta = float(np.partition(pos, k0)[k0]) if k0 >= 0 else 0.0
    theta = min(theta, ub - t_best + slack)
    while True:
        fixed = np.full(len(a), np.nan)
        fixed[a > theta / 2.0] = 1.0             # reversing the pair would cost 2 a_e > θ
        fixed[a < -theta] = 0.0                  # tying or reversing it costs ≥ |a_e| > θ
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            raise TimeoutError("max_min_point ran out of its 'time_limit'.")
        milp = auc_milp(problem, "highspy", left, fixed=fixed)
        # the best known order that M(θ) holds (the sort of f_λ has loss 0: always held)
        held = [z for z in (z_best, z_sort) if np.all(np.isnan(milp.fixed) | (z == milp.fixed))]
        if not held:  # the sort of f_λ has loss 0 < θ: it always agrees with the fixings
            raise RuntimeError("max_min_point: the sort of the weighted-sum scorer violates the "
                               "restricted model's fixings (pair weights without difference "
                               "form?).")
        z0 = max(held, key=lambda z: float(np.min(milp.values(z) / cn)))
        t0 = float(np.min(milp.values(z0) / cn))
        res = milp.max_min(cn, lower=t0 - 1e-12 * (1.0 + abs(t0)), upper=ub + slack, start=z0)
        if res is not None and res[1] > t_best:
            z_best, t_best = res
        budget = ub - t_best + slack
        if theta >= budget:
            break
        # grow geometrically: a larger model finds better orders, which shrink the budget
        theta = min(budget, _THETA_GROWTH * theta)
    cert = Certificate(lam, ub, t_best, theta, slack, float(milp.last_bound), len(milp.free))
    check_certificate(cert, fixed, const, coef, _CERT_TOL)
    # second stage: max Σ_k AUC_k among the max-min orders, so that the point is Pareto-optimal
    obj = milp.coef.sum(axis=0)
    obj = obj / max(np.abs(obj).max(), 1e-300)
    z2 = milp.solve(obj, cn * t_best - STAGE2_RELAX, np.full(problem.K, np.inf), start=z_best)
    return milp.scores(z_best if z2 is None else z2), cert


def max_min_gap(problem: FiniteProblem, *, weights: ArrayLike | None = None, method: str = "auto",
                time_limit: float | None = None) -> float:
    """The price of insisting on a weighted-sum objective (docs/theory.md §13):
    ``max_min_point(...).value − max_min_supported(...).value`` (in units of
    ``min_k AUC_k / c_k``), ≥ 0. It is 0 iff some loss-aggregation scorer ``f_a`` reaches the
    max-min value, i.e. iff a max-min point is reachable; in exact arithmetic it is never
    negative, and a solver's rounding (``method="milp"``, ~1e-10) is clipped at 0.

    >>> from bipartite.population import FiniteProblem
    >>> round(max_min_gap(FiniteProblem.random(6, 2, seed=36)), 4)
    0.0289
    """
    top = max_min_point(problem, weights=weights, method=method, time_limit=time_limit)
    sup = max_min_supported(problem, weights=weights)
    return max(top.value - sup.value, 0.0)
