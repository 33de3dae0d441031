"""The max-min (egalitarian) AUC point and the best balance that loss aggregation can reach
(docs/theory.md §13, §6.6).

On a finite problem (docs/theory.md §1.3; ties count ½, self-pairs included) this module computes

* :func:`max_min_point` — a weak order maximising ``min_k AUC_k / c_k`` over **all** weak orders,
  made Pareto-optimal by a second stage (subset DP for n ≤ 8, one MILP beyond: the measured
  crossover);
* :func:`max_min_supported` — the best ``min_k AUC_k / c_k`` over the scorers that a
  loss-aggregation weighting produces, ``f_a = Σ_k a_k η_k / (π_k (1 − π_k))`` with ``a`` on the
  simplex, ties at breakpoints included;
* :func:`max_min_gap` — the difference: the price of insisting on a weighted-sum objective;
* :func:`balanced_weights` — for K = 2, the closed form of the best weighting ``a*`` along the
  one-parameter path ``a = (1 − λ, λ)``, as an exact interval of λ.

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

from bipartite._utils.validation import (
    check_array,
    check_option,
    check_problem_aucs_defined,
    check_time_limit,
)
from bipartite.pareto.arrangement import (
    GEOM_TOL,
    SCORE_RTOL,
    LineFaces,
    best_faces,
    effective_scores,
    lex_scores,
    tie_normals,
)
from bipartite.pareto.dp import (
    DEFAULT_TOL_DP,
    dp_limit,
    pair_weight_stack,
    problem_order_values,
    subset_dp,
)
from bipartite.pareto.frontier import seed_values
from bipartite.pareto.milp import DEFAULT_TOL, auc_milp

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
    """

    value: float
    auc: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    method: str


@dataclass(frozen=True)
class SupportedMaxMin:
    """Result of :func:`max_min_supported`.

    Attributes
    ----------
    value : float — the best ``min_k AUC_k / c_k`` over loss-aggregation scorers ``f_a``.
    auc : ndarray (K,) — the AUC vector of the maximising scorer.
    scores : ndarray (n,) — its scores (ranks of ``f_a``; tied points share a score).
    a : ndarray (K,) — a maximising mixing weighting on the simplex (``Σ_k a_k = 1``);
        ``f_a = Σ_k a_k η_k / (π_k (1 − π_k))`` induces exactly ``scores``' order.
    weights : ndarray (K,) — the criterion weights ``c``.
    tie : bool — whether the maximiser needs ``a`` on a tie hyperplane (a breakpoint for
        K = 2): its order ties points that every nearby generic weighting separates. When a
        generic weighting is as good, it is preferred and ``tie`` is False.
    interval : tuple or None — K = 2 only: every ``λ = a_2`` (with ``a = (1 − λ, λ)``) whose
        scorer attains ``value``, as ``(lo, hi, lo_closed, hi_closed)``.
    """

    value: float
    auc: np.ndarray
    scores: np.ndarray
    a: np.ndarray
    weights: np.ndarray
    tie: bool
    interval: tuple[float, float, bool, bool] | None


@dataclass(frozen=True)
class BalancedWeights:
    """Result of :func:`balanced_weights` (K = 2).

    Attributes
    ----------
    interval : ``(lo, hi, lo_closed, hi_closed)`` — the set of ``λ`` (``a = (1 − λ, λ)``) whose
        loss-aggregation scorer maximises ``min(AUC_1 / c_1, AUC_2 / c_2)`` on the path; a single
        breakpoint is ``(λ*, λ*, True, True)``.
    a : ndarray (2,) — a representative ``a* = (1 − λ, λ)``: the midpoint of the interval.
    auc : ndarray (2,) — the AUCs of the scorers ``f_λ`` for ``λ`` in the interval (from the
        closed form, not from a sort).
    value : float — ``min_k auc_k / c_k``.
    crossing : bool — True when the two curves ``AUC_k(f_λ)/c_k`` cross inside (0, 1) (the
        maximiser is where they cross); False when one label is the bottleneck along the whole
        path and the maximiser is an end (then it is also the max-min point of all weak orders,
        docs/theory.md §13).
    breakpoints : ndarray — the sorted breakpoints ``λ_ij`` in (0, 1).
    """

    interval: tuple[float, float, bool, bool]
    a: np.ndarray
    auc: np.ndarray
    value: float
    crossing: bool
    breakpoints: np.ndarray


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------
def _check_finite_problem(problem: FiniteProblem) -> None:
    check_problem_aucs_defined(problem, "the max-min AUC")


def _check_weights(weights: ArrayLike, K: int) -> np.ndarray:
    """The criterion weights c: None -> ones; else K finite numbers > 0."""
    if weights is None:
        return np.ones(K)
    c = check_array(weights, "weights", ndim=1)
    if c.shape != (K,):
        raise ValueError(f"The 'weights' parameter (the criterion weights c) must have shape "
                         f"({K},), got {c.shape}.")
    if np.any(c <= 0):
        i = int(np.flatnonzero(c <= 0)[0])
        raise ValueError(f"The 'weights' parameter (the criterion weights c) must be positive, "
                         f"got {c[i]:g} at index {i}.")
    return c


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
      stage ``max Σ_k AUC_k`` subject to ``AUC_k ≥ c_k t* − 1e-10``, so the point is
      Pareto-optimal; both on a **certified restriction** of the model: weighted-sum bounds
      (Kelley's cutting planes on the loss-aggregation weights) give every order a loss budget,
      the pairs that no order within budget may tie or reverse are fixed, and the restricted
      model is enlarged until the best order found proves that every optimum lies inside it
      (see ``_max_min_milp``). A few hundred of the n(n−1) binaries stay free at n = 100, and
      the restricted model is built from the transitivity rows through a free pair only
      (docs/theory.md §13.1): ``FiniteProblem.random(300, 2, seed=0)`` takes 9 CPU s.
      Exact up to the solver's tolerances (integrality 1e-7, thresholds re-checked on the
      rounded order); the tests check it against the full model, the DP and enumeration.
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
    _check_finite_problem(problem)
    c = _check_weights(weights, problem.K)
    method = check_option(method, "method", _METHODS)
    time_limit = check_time_limit(time_limit)
    if method == "auto":
        method = "dp" if problem.n <= MAXMIN_DP_MAX_N[min(problem.K, 3)] else "milp"
    if method == "dp" and problem.n > dp_limit(problem.K):
        raise ValueError(f"The 'method' parameter is 'dp', but the subset DP is limited to "
                         f"n <= {dp_limit(problem.K)} points for K = {problem.K} and the problem "
                         f"has n = {problem.n}; use method='milp' or 'auto'.")
    if problem.n == 1:
        scores = np.zeros(1)
    elif method == "dp":
        scores = _max_min_dp(problem, c, time_limit)
    else:
        scores = _max_min_milp(problem, c, time_limit)
    auc = problem.auc(scores)
    return MaxMinPoint(float(np.min(auc / c)), auc, scores, c, method)


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
#: Slack (objective units) added to the loss budget: covers the second stage's thresholds
#: (relaxed by DEFAULT_TOL / 10 per label) and float rounding of the sums.
_BUDGET_SLACK = DEFAULT_TOL


def _hull_dual(problem: FiniteProblem, Ws: np.ndarray, coef: np.ndarray, const: np.ndarray,
               cn: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Weights ``λ ≥ 0`` with ``λ·c = 1`` that (nearly) minimise the weighted-sum bound
    ``UB(λ) = λ·const + ½ Σ_e |Σ_k λ_k coef_ke| ≥ max_z λ·value(z) ≥ t*`` (docs/theory.md §13):
    Kelley's cutting planes, ``min u`` s.t. ``u ≥ λ·x`` for the AUC vectors x of the orders met
    so far, each new order the sort of ``f_λ = Σ_k λ_k η_k / (π_k (1 − π_k))`` (it attains
    ``UB(λ)``: the pair weights have difference form). Any λ gives a valid bound. Returns every
    λ met (rows, the best first), their ``UB`` and the scores of every order met (lower-bound
    candidates)."""
    from scipy.optimize import linprog

    from bipartite.pareto.dp import order_values

    K = len(cn)
    E = effective_scores(problem)

    def ub(lam: np.ndarray) -> float:
        return float(lam @ const + 0.5 * np.abs(lam @ coef).sum())

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
        if res.status != 0:
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


def _max_min_milp(problem: FiniteProblem, c: np.ndarray, time_limit: float | None) -> np.ndarray:
    """The max-min MILP on a certified restriction of the weak-order model (docs/theory.md §13).

    Weights λ ≥ 0 with λ·c' = 1 (``c' = c / max c``; :func:`_hull_dual`) give, for every order
    with binaries z (completeness holds), ``λ·value(z) = UB − loss(z)`` where ``UB = λ·const +
    Σ_{i<j} |a_ij|``, ``a = Σ_k λ_k coef_k``, and ``loss(z) = Σ_{i<j} |a_ij| · (0 if the pair
    follows the sign of a_ij, 1 if tied, 2 if reversed) ≥ 0``. An order with ``min_k value_k/c'_k
    ≥ t`` has ``λ·value ≥ t``, so ``loss ≤ B(t) = UB − t``: it ties no pair with ``|a_ij| >
    B(t)`` and reverses none with ``2|a_ij| > B(t)``. The restricted model M(θ) fixes those
    binaries for ``B = θ`` (:class:`WeakOrderMILP` with ``fixed``); its rows are the full
    model's with the fixings substituted, so M(θ) holds exactly the weak orders with every
    such pair in sign order, a superset of the orders of loss ≤ θ. Loop: solve the max-min
    programme on M(θ), keep the best order found (value ``t_best``, a lower bound on ``t*``);
    if ``θ ≥ B(t_best)`` + slack, every optimal order has loss ≤ θ, so it lies in M(θ) and the
    solve was exact: stop; else θ ← B(t_best) + slack and repeat (θ only grows; the full model
    is the limit). The second stage (``max Σ_k value_k`` at ``value_k ≥ c'_k t* − 1e-10``) runs
    on the same M(θ), which the slack makes contain every order it admits. Exactness is the
    full model's (tested against it, the DP and enumeration); the restriction frees a few
    hundred of the n(n−1) binaries at n = 100.
    """
    from bipartite.pareto.dp import pair_weight_stack
    from bipartite.pareto.milp import WeakOrderMILP

    deadline = None if time_limit is None else time.monotonic() + time_limit
    Ws = pair_weight_stack(problem)
    I, J, const, coef = WeakOrderMILP.pair_coefficients(list(Ws))
    cn = c / c.max()
    lams, ubs, S = _hull_dual(problem, Ws, coef, const, cn)
    lam, ub = lams[0], float(ubs[0])
    a = lam @ coef                               # a_e, with a_(j,i) = −a_(i,j)
    Z = (np.array(S)[:, I] >= np.array(S)[:, J]).astype(np.float64)   # candidate orders
    t_all = np.min((const + Z @ coef.T) / cn, axis=1)
    z_best, t_best = Z[int(np.argmax(t_all))], float(t_all.max())
    g = effective_scores(problem) @ lam
    z_sort = (g[I] >= g[J]).astype(np.float64)   # the sort of f_λ: loss 0
    slack = _BUDGET_SLACK * (1.0 + lam.sum()) + 1e-12 * (abs(ub) + 1.0)
    pos = np.abs(a[a > 0])
    k0 = min(_START_FREE_PER_POINT * problem.n, len(pos)) - 1
    theta = float(np.sort(pos)[k0]) if k0 >= 0 else 0.0
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
    # second stage: max Σ_k AUC_k among the max-min orders, so that the point is Pareto-optimal
    obj = milp.coef.sum(axis=0)
    obj = obj / max(np.abs(obj).max(), 1e-300)
    z2 = milp.solve(obj, cn * t_best - DEFAULT_TOL / 10.0, np.full(problem.K, np.inf),
                    start=z_best)
    return milp.scores(z_best if z2 is None else z2)


# --------------------------------------------------------------------------------------------
# Orders of the loss-aggregation scorers f_a (the weight-space arrangement)
# --------------------------------------------------------------------------------------------
def _inside(levels: list[np.ndarray]) -> bool:
    """Whether ``m + δ v_1 + δ² v_2 + …`` lies in the simplex for small δ > 0 (lexicographic
    non-negativity of every coordinate)."""
    L = np.array(levels)
    for k in range(L.shape[1]):
        big = np.flatnonzero(np.abs(L[:, k]) > GEOM_TOL)
        if big.size and L[big[0], k] < 0:
            return False
    return True


def _arrangement_faces(E: np.ndarray) -> list[tuple[list[np.ndarray], int]]:
    """One symbolic point ``[m, v_1, …]`` (see :func:`~bipartite.pareto.arrangement.lex_scores`) in the relative interior of
    every face of the arrangement of tie hyperplanes restricted to the simplex, with the face's
    dimension. Recursion over flats (intersections of hyperplanes, memoised by the set of
    hyperplanes that contain them): the faces of a flat G are the faces of every ``G ∩ h`` plus
    its cells, and every cell is entered from the relative interior of one of its facets by a
    step along G's normal of that facet's hyperplane (docs/theory.md §13)."""
    K = E.shape[1]
    H = tie_normals(E)
    memo: dict[frozenset, list[tuple[list[np.ndarray], int]]] = {}

    def faces(p0: np.ndarray, B: np.ndarray, cand: np.ndarray, key: frozenset):
        if key in memo:
            return memo[key]
        d = B.shape[1]
        if d == 0:
            out = [([p0], 0)] if np.all(p0 >= -GEOM_TOL) else []
            memo[key] = out
            return out
        out: list[tuple[list[np.ndarray], int]] = []
        seen: set[tuple] = set()
        for j in cand:
            g = B.T @ H[j]
            gn = float(np.linalg.norm(g))
            p1 = p0 - (H[j] @ p0) / gn**2 * (B @ g)
            Q = np.linalg.svd(g[None, :])[2][1:].T          # basis of g⊥ in R^d
            B1 = B @ Q
            rest = cand[cand != j]
            par = np.linalg.norm(H[rest] @ B1, axis=1) <= GEOM_TOL
            on = par & (np.abs(H[rest] @ p1) <= GEOM_TOL)
            sub = faces(p1, B1, rest[~par], key | {int(j)} | set(rest[on].tolist()))
            out.extend(sub)
            u = B @ g / gn                                   # step off h_j inside G
            for lv, dim in sub:
                if dim != d - 1:
                    continue
                for s in (1.0, -1.0):
                    lv2 = [*lv, s * u]
                    if not _inside(lv2):
                        continue
                    r = tuple(lex_scores(E, lv2).astype(np.int64))
                    if r not in seen:
                        seen.add(r)
                        out.append((lv2, d))
        memo[key] = out
        return out

    p0 = np.full(K, 1.0 / K)
    B = np.linalg.svd(np.ones((1, K)))[2][1:].T              # basis of 1⊥: Σ_k a_k = 1
    return faces(p0, B, np.arange(len(H)), frozenset())


def _concrete_weights(E: np.ndarray, levels: list[np.ndarray]) -> np.ndarray:
    """A weighting on the simplex whose scorer induces the order of the symbolic point
    ``[m, v_1, …]``: from ``a = m``, step along each ``v_l`` by half the distance to the nearest
    tie hyperplane or simplex facet that does not pass through the current ``a`` (so each step
    enters the next face of the symbolic point and crosses nothing else)."""
    target = lex_scores(E, levels)
    a = np.array(levels[0], dtype=np.float64)
    iu, ju = np.triu_indices(len(E), 1)
    scale = float(np.abs(E).max()) or 1.0
    for v in levels[1:]:
        f, fv = E @ a, E @ v
        df, dv = f[iu] - f[ju], fv[iu] - fv[ju]
        off = np.abs(df) > SCORE_RTOL * scale
        with np.errstate(divide="ignore", invalid="ignore"):
            steps = np.concatenate([-df[off] / dv[off], -a[a > GEOM_TOL] / v[a > GEOM_TOL]])
        steps = steps[np.isfinite(steps) & (steps > 0)]
        eps = 0.5 * float(steps.min()) if steps.size else 1.0
        a = a + eps * v
    a = np.clip(a, 0.0, None)
    a = a / a.sum()
    if not np.array_equal(lex_scores(E, [a]), target):
        raise RuntimeError("could not find a weighting inducing the order of a face of the "
                           "weight arrangement (scores closer than the resolution).")
    return a


def reachable_orders(problem: FiniteProblem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every weak order induced by a loss-aggregation scorer
    ``f_a = Σ_k a_k η_k / (π_k (1 − π_k))`` with ``a`` on the closed simplex (docs/theory.md §13).

    ``f_a`` changes its order only where two points tie, on the hyperplanes
    ``{a : Σ_k a_k α_k (η_ik − η_jk) = 0}``. Each face of their arrangement on the simplex gives
    one order: the cells (dimension K − 1) the strict orders whose AUC vectors are the supported
    vertices (docs/theory.md §6.2), the lower faces the orders with ties (for K = 2: the
    breakpoints and the ends λ ∈ {0, 1}). All faces are enumerated (recursion over flats), so
    the cost grows like ``m^(K−1)`` for m ≤ n(n−1)/2 hyperplanes: instant for K = 2, about a
    second for K = 3 at n = 12.

    Returns
    -------
    a : (r, K) — for each order, a weighting on the simplex that induces it;
    scores : (r, n) — the orders (ranks; tied points share a score), distinct;
    dim : (r,) — the dimension of the face (K − 1: a generic weighting; less: ties).

    >>> from bipartite.population import FiniteProblem
    >>> a, S, dim = reachable_orders(FiniteProblem.random(3, 2, seed=0))
    >>> len(S), sorted(dim.tolist())   # 3 breakpoints, 4 intervals (the ends add no new order)
    (7, [0, 0, 0, 1, 1, 1, 1])
    """
    _check_finite_problem(problem)
    E = effective_scores(problem)
    best: dict[tuple, tuple[list[np.ndarray], int]] = {}
    for lv, dim in _arrangement_faces(E):
        r = tuple(lex_scores(E, lv).astype(np.int64))
        if r not in best or dim > best[r][1]:
            best[r] = (lv, dim)
    keys = sorted(best)
    S = np.array(keys, dtype=np.float64).reshape(len(keys), problem.n)
    A = np.array([_concrete_weights(E, best[r][0]) for r in keys]).reshape(len(keys), problem.K)
    return A, S, np.array([best[r][1] for r in keys], dtype=np.int64)


# --------------------------------------------------------------------------------------------
# K = 2: the path a = (1 − λ, λ)
# --------------------------------------------------------------------------------------------
def _breakpoint_groups(E: np.ndarray) -> tuple[np.ndarray, list[np.ndarray], np.ndarray,
                                               np.ndarray]:
    """Sorted breakpoints ``λ_ij = du / (du − dv)`` in (0, 1) (merged within 1e-12) and, for
    each, the pairs (i, j) that swap there; plus the pairs tied at λ = 0 and at λ = 1."""
    iu, ju = np.triu_indices(len(E), 1)
    du, dv = E[iu, 0] - E[ju, 0], E[iu, 1] - E[ju, 1]
    cross = (du * dv) < 0
    lam = du[cross] / (du[cross] - dv[cross])
    pairs = np.flatnonzero(cross)
    order = np.argsort(lam, kind="stable")
    lam, pairs = lam[order], pairs[order]
    groups: list[np.ndarray] = []
    bps: list[float] = []
    start = 0
    for i in range(1, len(lam) + 1):
        if i == len(lam) or lam[i] - lam[i - 1] > 1e-12:
            bps.append(float(lam[start]))
            groups.append(pairs[start:i])
            start = i
    end0 = np.flatnonzero((du == 0) & (dv != 0))
    end1 = np.flatnonzero((dv == 0) & (du != 0))
    return np.array(bps), groups, end0, end1


def balanced_weights(problem: FiniteProblem, *, weights: ArrayLike | None = None) -> BalancedWeights:
    r"""Closed form of the balanced loss-aggregation weighting for K = 2 (docs/theory.md §13).

    Along ``a = (1 − λ, λ)`` the scorer ``f_λ = (1 − λ) u + λ v``, ``u_i = η_i1/(π_1(1−π_1))``,
    ``v_i = η_i2/(π_2(1−π_2))``, changes its order only at the breakpoints
    ``λ_ij = (u_i − u_j)/((u_i − u_j) − (v_i − v_j))`` of the pairs with ``(u_i − u_j)(v_i − v_j)
    < 0``. Crossing ``λ_ij`` swaps the pair (the point with the larger u goes below), which
    changes ``AUC_k`` by the swap gain ``Δ_k(ij) = p_i p_j (η_lo,k − η_hi,k) / (π_k(1 − π_k))``
    (hi: the point above before the swap); the tied order *at* ``λ_ij`` gets half of it. So, with
    ``A_k(0⁺)`` the AUCs of the lexicographic order (u, then v),

        ``AUC_k(f_λ) = A_k(0⁺) + Σ_{λ_ij < λ} Δ_k(ij) + ½ Σ_{λ_ij = λ} Δ_k(ij)``,

    with ``Δ_1 < 0 < Δ_2`` at every breakpoint: ``AUC_1/c_1`` decreases and ``AUC_2/c_2``
    increases along the path, and ``min_k AUC_k/c_k`` is maximised where they cross — in the
    last interval before the crossing, at the crossing breakpoint (its tied order, the midpoint of
    its neighbours), or in the first interval after it, whichever has the largest min — or at an
    end when one label is the bottleneck on the whole path (``crossing=False``; that end is then
    the max-min point of all weak orders). The ends λ ∈ {0, 1} tie the points with equal u
    (resp. v) and never beat the adjacent interval. The result is piecewise constant in λ: the
    whole set of maximising λ is returned as an interval.

    No order is sorted here beyond the one lexicographic order (the AUCs come from the swap
    gains); :func:`max_min_supported` computes the same optimum by sorting every order.

    >>> from bipartite.population import FiniteProblem
    >>> b = balanced_weights(FiniteProblem.random(6, 2, seed=36))
    >>> round(b.value, 4), b.auc.round(4).tolist(), b.crossing
    (0.5424, [0.635, 0.5424], True)
    >>> [round(x, 4) for x in b.interval[:2]], b.interval[2:]
    ([0.5672, 0.6263], (False, False))
    """
    _check_finite_problem(problem)
    if problem.K != 2:
        raise ValueError(f"balanced_weights is the K = 2 closed form; the 'problem' has "
                         f"K = {problem.K} labels (use max_min_supported).")
    c = _check_weights(weights, 2)
    E = effective_scores(problem)
    eta, p = problem.eta, problem.mass
    var = problem.pi * (1.0 - problem.pi)
    bps, groups, end0, end1 = _breakpoint_groups(E)
    iu, ju = np.triu_indices(problem.n, 1)

    def gain(pairs: np.ndarray, hi_is_i: np.ndarray) -> np.ndarray:
        """Σ over pairs of the AUC change when the upper point goes below."""
        hi = np.where(hi_is_i, iu[pairs], ju[pairs])
        lo = np.where(hi_is_i, ju[pairs], iu[pairs])
        w = (p[hi] * p[lo])[:, None]
        return (w * (eta[lo] - eta[hi])).sum(axis=0) / var

    du, dv = E[iu, 0] - E[ju, 0], E[iu, 1] - E[ju, 1]
    A0 = problem.auc(lex_scores(E, [np.array([1.0, 0.0]), np.array([-1.0, 1.0])]))
    # cells in path order: {0}, (0, λ_1), {λ_1}, (λ_1, λ_2), ..., (λ_m, 1), {1}
    cells = [(0.0, 0.0), (0.0, bps[0] if len(bps) else 1.0)]
    auc = [A0 + 0.5 * gain(end0, dv[end0] > 0), A0]
    cur = A0.copy()
    for t, g in enumerate(groups):
        G = gain(g, du[g] > 0)
        cells.append((bps[t], bps[t]))
        auc.append(cur + 0.5 * G)
        cur = cur + G
        cells.append((bps[t], bps[t + 1] if t + 1 < len(bps) else 1.0))
        auc.append(cur)
    cells.append((1.0, 1.0))
    auc.append(cur + 0.5 * gain(end1, du[end1] > 0))
    V = np.array(auc)
    m = np.min(V / c, axis=1)
    best = int(np.argmax(m))
    lo_i = hi_i = best
    while lo_i > 0 and m[lo_i - 1] >= m[best] - 1e-12:
        lo_i -= 1
    while hi_i < len(m) - 1 and m[hi_i + 1] >= m[best] - 1e-12:
        hi_i += 1
    lo, hi = cells[lo_i][0], cells[hi_i][1]
    lo_closed = cells[lo_i][0] == cells[lo_i][1]
    hi_closed = cells[hi_i][0] == cells[hi_i][1]
    lam = 0.5 * (lo + hi)
    d = V[:, 0] / c[0] - V[:, 1] / c[1]
    crossing = bool(d[1] > 0 > d[-2])
    return BalancedWeights((float(lo), float(hi), bool(lo_closed), bool(hi_closed)),
                           np.array([1.0 - lam, lam]),
                           V[best], float(m[best]), crossing, bps)


# --------------------------------------------------------------------------------------------
# max_min_supported and the gap
# --------------------------------------------------------------------------------------------
def _path_cells(E: np.ndarray) -> tuple[list[list[np.ndarray]], list[tuple[float, float]]]:
    """K = 2: the symbolic points and λ-ranges of the path's cells, in order: {0}, (0, λ_1),
    {λ_1}, (λ_1, λ_2), ..., (λ_m, 1), {1}."""
    bps = _breakpoint_groups(E)[0]
    d = np.array([-1.0, 1.0])
    levels = [[np.array([1.0, 0.0])], [np.array([1.0, 0.0]), d]]
    cells = [(0.0, 0.0), (0.0, bps[0] if len(bps) else 1.0)]
    for t, lam in enumerate(bps):
        a = np.array([1.0 - lam, lam])
        levels += [[a], [a, d]]
        cells += [(lam, lam), (lam, bps[t + 1] if t + 1 < len(bps) else 1.0)]
    levels.append([np.array([0.0, 1.0])])
    cells.append((1.0, 1.0))
    return levels, cells


_SUPPORTED_METHODS = ("auto", "walk", "faces")


def max_min_supported(problem: FiniteProblem, *, weights: ArrayLike | None = None,
                      method: str = "auto") -> SupportedMaxMin:
    r"""The best ``min_k AUC_k / c_k`` over the loss-aggregation scorers (docs/theory.md §13).

    The candidates are the scorers ``f_a = Σ_k a_k η_k / (π_k (1 − π_k))`` for ``a`` on the
    closed simplex (docs/theory.md §4), each with **its own ties** (ties ½). ``f_a`` changes its
    order only on the tie hyperplanes of the pairs, so finitely many orders arise, one per face
    of their arrangement: the strict orders of the cells (the supported vertices of
    docs/theory.md §6.2) and the **tie orders** on the lower faces. Tie orders count — they are
    what a weighting that lands exactly on a breakpoint produces — and they matter: the tie order
    at a breakpoint is the midpoint of its two neighbouring vertices, whose min can beat both
    (min is concave). Other maximisers of ``Σ_k a_k AUC_k`` at such an ``a`` (the ties broken
    some other way) are not ``f_a`` and are not counted; they differ from the tie order only
    when several pairs tie at the same breakpoint (e.g. deterministic labels).

    * K = 2: the path ``a = (1 − λ, λ)``: every open interval between consecutive breakpoints,
      every breakpoint and both ends (``O(n²)`` orders, one sort each), exact at any n.
      ``interval`` gives every maximising λ (see also the closed form :func:`balanced_weights`).
    * K = 3 (``method="walk"``, the default): every face of the arrangement of the tie lines on
      the simplex by a walk along each line (:func:`~bipartite.pareto.arrangement.walk_faces`):
      the AUC vectors of all faces on a line are one cumulative sum of the crossings' jumps, so
      no order is sorted but the few best; ``O(n⁴ log n)`` vectorised, 0.1 CPU s at n = 30 and
      about 10 s at n = 100 (docs/theory.md §13.2).
    * K ≥ 3 (``method="faces"``, the default for K ≥ 4): every face of the arrangement of the
      tie hyperplanes (:func:`reachable_orders`), one sort per face; for each face a weighting
      that induces its order is built, so no linear programme is needed. Cost grows like
      ``(n²/2)^(K−1)`` sorts: about a second for K = 3 at n = 12, 25 s at n = 30.

    Both K = 3 routes meet the same faces and pick the same order (tested on many problems); the
    best face's AUCs are recomputed from its order.

    Among equally good orders a generic one (a cell, ``tie=False``) is preferred, then the
    largest ``Σ_k AUC_k``. The value is at most :func:`max_min_point`'s; the difference is
    :func:`max_min_gap`.

    Parameters
    ----------
    problem : FiniteProblem — every prior strictly inside (0, 1).
    weights : array-like (K,) of positive numbers, optional — the criterion weights c (not the
        mixing weights a, which are searched over).
    method : "auto", "walk" (K = 3 only) or "faces" (K ≥ 3) — the face enumeration above;
        ignored for K = 2 (the path).

    Returns
    -------
    SupportedMaxMin — ``value``, ``auc``, ``scores``, ``a``, ``weights``, ``tie``, ``interval``.

    >>> from bipartite.population import FiniteProblem
    >>> s = max_min_supported(FiniteProblem.random(6, 2, seed=36))
    >>> round(s.value, 4), s.a.round(3).tolist(), s.tie
    (0.5424, [0.403, 0.597], False)
    """
    _check_finite_problem(problem)
    c = _check_weights(weights, problem.K)
    method = check_option(method, "method", _SUPPORTED_METHODS)
    if method == "walk" and problem.K != 3:
        raise ValueError(f"The 'method' parameter is 'walk', the K = 3 arrangement walk, but the "
                         f"problem has K = {problem.K} labels; use method='faces' or 'auto'.")
    E = effective_scores(problem)
    if problem.K == 2:
        levels, cells = _path_cells(E)
        dims = [0 if lo == hi else 1 for lo, hi in cells]
    elif problem.K == 3 and method != "faces":
        def near_best(lf: LineFaces) -> np.ndarray:
            m = np.min(lf.V / c, axis=1)
            return m >= m.max() - 1e-12

        bf = best_faces(problem, near_best)
        levels = [list(lv) if np.any(lv[1]) else [lv[0]] for lv in bf.levels]
        dims, cells = list(bf.dim), None
    else:
        faces = _arrangement_faces(E)
        levels, dims, cells = [lv for lv, _ in faces], [d for _, d in faces], None
    S = np.array([lex_scores(E, lv) for lv in levels])
    V = problem_order_values(problem, S)
    m = np.min(V / c, axis=1)
    near = np.flatnonzero(m >= m.max() - 1e-12)
    dims_a = np.array(dims)
    best = near[np.lexsort((-V[near].sum(axis=1), -dims_a[near]))[0]]
    interval = None
    if cells is not None:
        lo_i, hi_i = int(near.min()), int(near.max())   # quasi-concave: a contiguous block
        lo, hi = cells[lo_i][0], cells[hi_i][1]
        interval = (float(lo), float(hi), bool(cells[lo_i][0] == cells[lo_i][1]),
                    bool(cells[hi_i][0] == cells[hi_i][1]))
        blo, bhi = cells[best]
        lam = 0.5 * (blo + bhi)
        a = np.array([1.0 - lam, lam])
    else:
        a = _concrete_weights(E, levels[best])
    return SupportedMaxMin(float(m[best]), V[best], S[best], a, c, bool(dims[best] < problem.K - 1),
                           interval)


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
