"""Sweeps of the loss-aggregation weights (docs/theory.md §4, §6.2): the simplex grid, the
per-label AUCs along a path of weights, the exact K = 2 path of supported vertices, and the few
orders that seed the subset DP's bound.

The loss-aggregation scorer is ``f_a = E a`` with ``E_ik = η_ik / (π_k (1 − π_k))``
(:func:`~bipartite.pareto.arrangement.effective_scores`). :func:`weight_sweep` samples it on a
grid; :func:`path_vertices` finds every order along ``a = (1 − λ, λ)`` from the exact
breakpoints (:func:`sweep_breakpoints`), the K = 2 route of
:func:`~bipartite.pareto.supported_frontier`.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_array,
    check_binary,
    check_probabilities,
    check_problem_aucs_defined,
)
from bipartite.pareto.arrangement import effective_scores
from bipartite.pareto.dominance import unique_rows
from bipartite.pareto.dp import problem_order_values
from bipartite.pareto.milp import DEFAULT_TOL

if TYPE_CHECKING:
    from bipartite.population import FiniteProblem

__all__ = ["SIMPLEX_GRID_MAX_POINTS", "simplex_grid", "weight_sweep"]


#: Default limit on the number of points of :func:`simplex_grid` (raise it with ``max_points``).
SIMPLEX_GRID_MAX_POINTS = 1_000_000


def simplex_grid(K: int, resolution: int, *, max_points: int = SIMPLEX_GRID_MAX_POINTS
                 ) -> np.ndarray:
    """All weight vectors ``w ≥ 0`` with ``Σ_k w_k = 1`` and every ``w_k`` a multiple of
    ``1 / resolution`` (the one simplex grid of the package: weight sweeps, fusion exponents).

    There are ``C(resolution + K - 1, K - 1)`` points, in lexicographic order of the integer
    compositions. The count is checked against
    ``max_points`` before anything is allocated.

    >>> simplex_grid(2, 2).tolist()
    [[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]]
    >>> len(simplex_grid(3, 10))
    66
    """
    for name, value, low in (("K", K, 1), ("resolution", resolution, 1), ("max_points", max_points, 1)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise ValueError(f"The '{name}' parameter must be an integer >= {low}, got {value!r}.")
    K, resolution = int(K), int(resolution)
    count = math.comb(resolution + K - 1, K - 1)
    if count > max_points:
        raise ValueError(f"simplex_grid(K={K}, resolution={resolution}) has {count} points, more "
                         f"than the limit max_points={max_points}; lower 'resolution' or 'K', "
                         f"or raise 'max_points'.")
    if K == 1:
        return np.ones((1, 1))
    # stars and bars: K - 1 bar positions among resolution + K - 1 slots, in lexicographic order
    bars = np.array(list(itertools.combinations(range(resolution + K - 1), K - 1)),
                    dtype=np.int64).reshape(count, K - 1)
    edges = np.hstack([np.full((count, 1), -1), bars, np.full((count, 1), resolution + K - 1)])
    return (np.diff(edges, axis=1) - 1).astype(np.float64) / resolution


def weight_sweep(
    eta: ArrayLike | None = None,
    pi: ArrayLike | None = None,
    Y: ArrayLike | None = None,
    *,
    n_weights: int = 101,
    a: ArrayLike | None = None,
    problem: FiniteProblem | None = None,
    max_points: int = SIMPLEX_GRID_MAX_POINTS,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-label AUCs of the loss-aggregation scorer along a path of mixing weights (docs/theory.md §4,
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
    a : array-like (m, K), optional — an explicit path of mixing weights (overrides ``n_weights``).
    problem : FiniteProblem, optional — exact population AUCs.
    max_points : int — size limit on the simplex lattice (K ≥ 3), checked before allocating
        (default ``SIMPLEX_GRID_MAX_POINTS = 10**6``); raise it deliberately.

    Returns
    -------
    a : (m, K) mixing weights, aucs : (m, K)

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.random(5, 2, seed=0)
    >>> a, A = weight_sweep(problem=P, n_weights=3)
    >>> a.tolist()
    [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]
    """
    from bipartite.bayes import loss_aggregation
    from bipartite.metrics import multilabel_auc

    if problem is not None:
        check_problem_aucs_defined(problem, "its Pareto frontier")
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
    pi_arr = check_probabilities(pi, "pi", ndim=1)
    if pi_arr.shape != (K,):
        raise ValueError(f"The 'pi' parameter must have one prior per label of 'eta' ({K}), got "
                         f"shape {pi_arr.shape}.")
    if problem is None:
        Y_arr = check_binary(Y, "Y", ndim=2)
        if Y_arr.shape != E.shape:
            raise ValueError(f"The 'Y' parameter must have the shape of 'eta' {E.shape}, got "
                             f"{Y_arr.shape}.")
    if a is None:
        if not isinstance(n_weights, (int, np.integer)) or n_weights < 2:
            raise ValueError(f"The 'n_weights' parameter must be an integer >= 2, got "
                             f"{n_weights!r}.")
        if K == 1:
            A = np.ones((1, 1))
        elif K == 2:
            if n_weights > max_points:
                raise ValueError(f"The 'n_weights' parameter ({n_weights}) is more than the limit "
                                 f"max_points={max_points}; lower it or raise 'max_points'.")
            t = np.linspace(0.0, 1.0, int(n_weights))
            A = np.stack([1.0 - t, t], axis=1)
        else:
            count = math.comb(int(n_weights) - 2 + K, K - 1)
            if count > max_points:
                raise ValueError(f"weight_sweep with K={K} labels and n_weights={n_weights} needs "
                                 f"{count} weight vectors, more than the limit "
                                 f"max_points={max_points}; lower 'n_weights', pass an explicit "
                                 f"path 'a', or raise 'max_points'.")
            A = simplex_grid(K, int(n_weights) - 1, max_points=max_points)[::-1]
    else:
        A = check_array(a, "a", ndim=2)
        if A.shape[1] != K:
            raise ValueError(f"The 'a' parameter must have {K} columns, got {A.shape[1]}.")
    F = np.array([loss_aggregation(E, pi_arr, a) for a in A]).reshape(len(A), len(E))
    if problem is not None:
        return A, problem_order_values(problem, F)
    return A, np.array([multilabel_auc(Y_arr, f) for f in F]).reshape(len(A), K)


def sweep_breakpoints(u: np.ndarray, v: np.ndarray, rtol: float = 1e-12) -> np.ndarray:
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



def path_vertices(problem: FiniteProblem, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """K = 2: the supported vertices, one per open interval between consecutive breakpoints of
    ``a = (1 − λ, λ)`` (:func:`sweep_breakpoints`; the order of ``f_λ`` at the interval's
    midpoint, :func:`bipartite.bayes.loss_aggregation`), de-duplicated within ``tol``; returns
    the AUC vectors (m, 2) and the scores (m, n). See
    :func:`~bipartite.pareto.supported_frontier` for why these are exactly the vertices. The
    problem is validated by the callers."""
    from bipartite.bayes import loss_aggregation

    E = effective_scores(problem)
    bps = np.concatenate([[0.0], sweep_breakpoints(E[:, 0], E[:, 1]), [1.0]])
    mids = (bps[:-1] + bps[1:]) / 2.0
    S = np.array([loss_aggregation(problem.eta, problem.pi, np.array([1.0 - lam, lam]))
                  for lam in mids])
    V = problem_order_values(problem, S)
    keep = unique_rows(V, tol)
    return V[keep], S[keep]


#: Divisions of the weight simplex whose loss-aggregation orders seed the subset DP's bound
#: for K ≥ 3 (``C(SEED_GRID + K − 1, K − 1)`` orders: 45 for K = 3, 165 for K = 4) ...
_SEED_GRID = 8
#: ... at most this many orders: for larger K the grid is coarsened until it fits (K = 12 at 8
#: divisions would be 75 582 orders, whose sorts and dominance tests cost minutes at n = 2).
_SEED_MAX_ORDERS = 200


def seed_values(problem: FiniteProblem) -> np.ndarray | None:
    """AUC vectors of a few achievable orders, the subset DP's ``lower`` (a prefix whose best
    completion one of them beats is dropped, :func:`subset_dp`): the supported vertices for
    K = 2 (:func:`path_vertices`, exact breakpoints), the loss-aggregation orders
    (docs/theory.md §4.2) on a grid of mixing weights for K ≥ 3; none for K = 1. Shared by
    :func:`exact_frontier` and :func:`~bipartite.pareto.max_min_point` (not in ``__all__``: the
    problem is validated by those callers)."""
    if problem.K == 1:
        return None
    if problem.K == 2:
        return path_vertices(problem, DEFAULT_TOL)[0]
    K = problem.K
    res = _SEED_GRID
    while res > 1 and math.comb(res + K - 1, K - 1) > _SEED_MAX_ORDERS:
        res -= 1
    S = simplex_grid(K, res) @ effective_scores(problem).T     # f_a for every grid row a
    # one sort per distinct order (n = 2 has at most 3 orders, whatever K)
    ranks = (S[:, :, None] > S[:, None, :]).sum(axis=2)   # ties share a rank
    S = S[np.unique(ranks, axis=0, return_index=True)[1]]
    return problem_order_values(problem, S)
