"""The orders that loss aggregation reaches, and the best balance among them (docs/theory.md
§13, §6.2).

The loss-aggregation scorer ``f_a = Σ_k a_k η_k / (π_k (1 − π_k))`` (docs/theory.md §4) changes
its order only where two points tie, so finitely many orders arise as ``a`` ranges over the
simplex, one per face of the arrangement of the pairs' tie hyperplanes. This module holds the
routines over those orders (ties ½, self-pairs included):

* :func:`reachable_orders` — every such order, with a weighting that induces it;
* :func:`max_min_supported` — the best ``min_k AUC_k / c_k`` among them;
* :func:`balanced_weights` — for K = 2, the closed form of the best weighting along the path
  ``a = (1 − λ, λ)``, as an exact interval of λ.

The max-min point over **all** weak orders, and the gap between the two, are in
:mod:`bipartite.pareto.maxmin` (which re-exports these names).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_array,
    check_option,
    check_problem_aucs_defined,
    first_index,
)
from bipartite.pareto.arrangement import (
    LineFaces,
    arrangement_faces,
    best_faces,
    concrete_weights,
    effective_scores,
    lex_scores,
)
from bipartite.pareto.dp import problem_order_values

if TYPE_CHECKING:
    from bipartite.population import FiniteProblem

__all__ = ["BalancedWeights", "SupportedMaxMin", "balanced_weights", "max_min_supported",
           "reachable_orders"]


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------
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
def check_maxmin_problem(problem: FiniteProblem) -> None:
    """Every prior strictly inside (0, 1): the max-min routines' problem check."""
    check_problem_aucs_defined(problem, "the max-min AUC")


def criterion_weights(weights: ArrayLike, K: int) -> np.ndarray:
    """The criterion weights c of ``min_k AUC_k / c_k``: None -> ones; else K finite numbers
    > 0 (shared by :func:`max_min_supported` and :func:`~bipartite.pareto.max_min_point`)."""
    if weights is None:
        return np.ones(K)
    c = check_array(weights, "weights", ndim=1)
    if c.shape != (K,):
        raise ValueError(f"The 'weights' parameter (the criterion weights c) must have shape "
                         f"({K},), got {c.shape}.")
    if np.any(c <= 0):
        i = first_index(c <= 0)
        raise ValueError(f"The 'weights' parameter (the criterion weights c) must be positive, "
                         f"got {c[i]:g} at index {i}.")
    return c



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
    check_maxmin_problem(problem)
    E = effective_scores(problem)
    best: dict[tuple, tuple[list[np.ndarray], int]] = {}
    for lv, dim in arrangement_faces(E):
        r = tuple(lex_scores(E, lv).astype(np.int64))
        if r not in best or dim > best[r][1]:
            best[r] = (lv, dim)
    keys = sorted(best)
    S = np.array(keys, dtype=np.float64).reshape(len(keys), problem.n)
    A = np.array([concrete_weights(E, best[r][0]) for r in keys]).reshape(len(keys), problem.K)
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
    check_maxmin_problem(problem)
    if problem.K != 2:
        raise ValueError(f"balanced_weights is the K = 2 closed form; the 'problem' has "
                         f"K = {problem.K} labels (use max_min_supported).")
    c = criterion_weights(weights, 2)
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
    check_maxmin_problem(problem)
    c = criterion_weights(weights, problem.K)
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
        faces = arrangement_faces(E)
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
        a = concrete_weights(E, levels[best])
    return SupportedMaxMin(float(m[best]), V[best], S[best], a, c, bool(dims[best] < problem.K - 1),
                           interval)
