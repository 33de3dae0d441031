"""Multipartite costs, label aggregation maps and the Bayes pairwise preference (docs/theory.md §3, §5).

* :func:`cost_matrix` — the cost families of docs/theory.md §3 over sorted ordinal levels.
* :func:`aggregate_labels` — the aggregation map ψ of docs/theory.md §5 (weighted sum, product, or, callable).
* :func:`pairwise_preference` — the Bayes pairwise preference Δ(x_i, x_j) of docs/theory.md §3.
* :func:`is_transitive`, :func:`find_cycle`, :func:`preference_scores` — whether Δ is induced by a
  scorer, a witness cycle when it is not, and a scorer when it is.
* :func:`optimal_ranking` — the best weak order for any costs, by a linear-ordering MILP (docs/theory.md §6).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    ProblemLike,
    check_array,
    check_binary,
    check_nonnegative,
    check_option,
    check_problem,
    check_tolerance,
)

__all__ = [
    "COST_FAMILIES",
    "AGGREGATES",
    "cost_matrix",
    "cost_potential",
    "aggregate_labels",
    "sum_weights",
    "pairwise_preference",
    "is_transitive",
    "find_cycle",
    "preference_scores",
]

COST_FAMILIES = ("uniform", "linear", "squared", "gain")
AGGREGATES = ("sum", "product", "or")


def _cost_overflow(costs: str, lv: np.ndarray) -> None:
    raise ValueError(
        f"The {costs!r} costs overflow float64 for the 'levels' {lv.tolist()[:8]}"
        f"{' ...' if len(lv) > 8 else ''} (2**y is finite only for y < 1024); rescale the "
        f"levels or pass a cost matrix.")


def cost_potential(levels: ArrayLike, costs: str | ArrayLike) -> np.ndarray | None:
    """The function g of a difference family, ``c(y, y') = g(y) − g(y')`` (docs/theory.md §3.4),
    at the sorted ``levels``: ``y`` for ``"linear"``, ``2^y`` for ``"gain"``; None for the other
    families and for matrices (:func:`cost_matrix` is the same costs, ``g_a − g_b`` below the
    diagonal).

    >>> cost_potential([0, 1, 3], "gain").tolist()
    [1.0, 2.0, 8.0]
    """
    if isinstance(costs, str):
        check_option(costs, "costs", COST_FAMILIES)
    elif not hasattr(costs, "__len__") or isinstance(costs, bytes | dict):
        raise TypeError(f"The 'costs' parameter must be one of {list(COST_FAMILIES)} or an "
                        f"(L, L) array, got {type(costs).__name__}.")
    if not isinstance(costs, str) or costs not in ("linear", "gain"):
        return None
    lv = check_array(levels, "levels", ndim=1)
    if costs == "linear":
        return lv.copy()
    with np.errstate(over="ignore"):
        g = np.exp2(lv)
    if not np.all(np.isfinite(g)):
        _cost_overflow(costs, lv)
    return g


def cost_matrix(levels: ArrayLike, costs: str | ArrayLike = "linear") -> np.ndarray:
    """Cost matrix over sorted ordinal levels (docs/theory.md §3).

    ``C[a, b] = c(y_a, y_b)`` for ``a > b`` (a higher level above a lower one) and 0 otherwise, for
    the families ``"uniform"`` (c = 1), ``"linear"`` (c = y - y'), ``"squared"`` (c = (y - y')²)
    and ``"gain"`` (c = 2^y - 2^{y'}, DCG-style). A user matrix of shape (L, L) is accepted as
    given on and below the diagonal's lower part: only entries ``a > b`` are used, and they must be
    finite and non-negative.

    Parameters
    ----------
    levels : array-like of shape (L,)
        Strictly increasing level values ``y_1 < ... < y_L``.
    costs : {"uniform", "linear", "squared", "gain"} or array-like of shape (L, L)

    Returns
    -------
    ndarray of shape (L, L), strictly lower triangular.

    >>> cost_matrix([0, 1, 2], "linear")
    array([[0., 0., 0.],
           [1., 0., 0.],
           [2., 1., 0.]])
    >>> float(cost_matrix([0, 1, 3], "gain")[2, 0])
    7.0
    """
    lv = check_array(levels, "levels", ndim=1)
    if np.any(np.diff(lv) <= 0):
        raise ValueError(f"The 'levels' parameter must be strictly increasing, got {lv.tolist()}.")
    L = len(lv)
    lower = np.tril(np.ones((L, L), dtype=bool), k=-1)
    if isinstance(costs, str):
        check_option(costs, "costs", COST_FAMILIES)
        g = cost_potential(lv, costs)
        if g is not None:  # linear, gain
            with np.errstate(over="ignore", invalid="ignore"):
                full = g[:, None] - g[None, :]
        elif costs == "uniform":
            full = np.ones((L, L))
        else:  # squared
            full = (lv[:, None] - lv[None, :]) ** 2
        out = np.where(lower, full, 0.0)
        if not np.all(np.isfinite(out)):
            _cost_overflow(costs, lv)
        return out
    C = check_array(costs, "costs", ndim=2)
    if C.shape != (L, L):
        raise ValueError(
            f"The 'costs' matrix must have shape ({L}, {L}) to match the {L} sorted levels "
            f"{lv.tolist()}, got shape {C.shape}."
        )
    check_nonnegative(np.where(lower, C, 0.0), "costs")
    return np.where(lower, C, 0.0)


def aggregate_labels(
    Y: ArrayLike,
    aggregate: str | Callable[[np.ndarray], float] = "sum",
    w: ArrayLike | None = None,
) -> np.ndarray:
    """The aggregated ordinal label ``Ȳ = ψ(Y_1, ..., Y_K)`` (docs/theory.md §5).

    Parameters
    ----------
    Y : array-like of shape (n, K)
        Binary label matrix (or label vectors).
    aggregate : {"sum", "product", "or"} or callable
        ``"sum"``: ``Σ_k w_k Y_k`` (``w`` defaults to 1); ``"product"``: AND of the labels;
        ``"or"``: max of the labels; a callable receives one label vector (K,) and returns a number.
    w : array-like of shape (K,), optional
        Non-negative weights of the sum. Only for ``aggregate="sum"``.

    Returns
    -------
    ndarray of shape (n,)

    >>> aggregate_labels([[0, 1], [1, 1]], "sum", w=[2.0, 1.0]).tolist()
    [1.0, 3.0]
    >>> aggregate_labels([[0, 1], [1, 1]], "product").tolist()
    [0.0, 1.0]
    """
    Y = check_binary(Y, "Y", ndim=2).astype(np.float64)
    K = Y.shape[1]
    if callable(aggregate):
        if w is not None:
            raise ValueError("The 'w' parameter is only used with aggregate='sum'.")
        out = np.empty(len(Y))
        for i, row in enumerate(Y):
            value = aggregate(row)
            if isinstance(value, bool) or not isinstance(value, int | float | np.integer
                                                         | np.floating):
                raise TypeError(f"The 'aggregate' callable must return a real number, got "
                                f"{value!r} for the label vector {row.astype(int).tolist()}.")
            out[i] = float(value)
        if not np.all(np.isfinite(out)):
            raise ValueError("The 'aggregate' callable must return finite numbers.")
        return out
    check_option(aggregate, "aggregate", AGGREGATES)
    if aggregate == "sum":
        w = sum_weights(w, K)
        return Y @ w
    if w is not None:
        raise ValueError(
            f"The 'w' parameter is only used with aggregate='sum', got aggregate={aggregate!r}."
        )
    if aggregate == "product":
        return np.prod(Y, axis=1)
    return np.max(Y, axis=1)


def sum_weights(w: ArrayLike | None, K: int) -> np.ndarray:
    """The checked weights ``w`` of ``aggregate="sum"`` for K labels (ones when ``None``).

    >>> sum_weights(None, 3).tolist()
    [1.0, 1.0, 1.0]
    """
    if w is None:
        return np.ones(K)
    w = check_array(w, "w", ndim=1)
    if w.shape != (K,):
        raise ValueError(f"The 'w' parameter must have shape ({K},), got shape {w.shape}.")
    return check_nonnegative(w, "w")


def pairwise_preference(
    problem: ProblemLike,
    *,
    aggregate: str | Callable[[np.ndarray], float] = "sum",
    w: ArrayLike | None = None,
    costs: str | ArrayLike = "linear",
) -> np.ndarray:
    """Bayes pairwise preference of multipartite ranking on a finite problem (docs/theory.md §3).

    ``Δ[i, j] = Σ_{y>y'} c(y, y') [q_y(x_i) q_{y'}(x_j) − q_{y'}(x_i) q_y(x_j)]`` where ``q`` is the
    conditional distribution of the aggregated label ``Ȳ``. Ranking ``x_i`` above ``x_j`` is better
    for AUC_MP exactly when ``Δ[i, j] > 0``. Δ is antisymmetric.

    Parameters
    ----------
    problem : FiniteProblem
    aggregate, w : see :func:`aggregate_labels`
    costs : see :func:`cost_matrix`

    Returns
    -------
    ndarray of shape (n, n)

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.5, 0.5], [[0.9, 0.2], [0.3, 0.3]])
    >>> D = pairwise_preference(P, costs="linear")
    >>> round(float(D[0, 1]), 6)  # linear costs: E[Ȳ|x_0] - E[Ȳ|x_1] = 1.1 - 0.6
    0.5
    """
    check_problem(problem)
    levels, q = problem.level_probs(aggregate=aggregate, w=w)
    C = cost_matrix(levels, costs)
    # Δ = q C q^T − (q C q^T)^T : the first term sums c(y,y') q_y(x_i) q_{y'}(x_j) over y > y'.
    A = q @ C @ q.T
    return A - A.T


def _strict_preference(delta: ArrayLike, atol: float) -> np.ndarray:
    atol = check_tolerance(atol, "atol")
    D = check_array(delta, "delta", ndim=2)
    if D.shape[0] != D.shape[1]:
        raise ValueError(f"The 'delta' parameter must be a square matrix, got shape {D.shape}.")
    return D > atol


def find_cycle(delta: ArrayLike, *, atol: float = 1e-12) -> list[int] | None:
    """A cycle of the strict Bayes preference, or ``None`` if it has none (docs/theory.md §3).

    ``i ≻ j ⇔ Δ[i, j] > atol``. Returns ``[i_0, i_1, ..., i_m]`` with ``i_0 ≻ i_1 ≻ ... ≻ i_m ≻ i_0``
    (intransitive "dice"), found by depth-first search.

    >>> find_cycle(np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]]))
    [0, 1, 2]
    """
    P = _strict_preference(delta, atol)
    n = P.shape[0]
    color = np.zeros(n, dtype=np.int8)  # 0 new, 1 on stack, 2 done
    for root in range(n):
        if color[root]:
            continue
        stack = [(root, iter(np.flatnonzero(P[root])))]
        path = [root]
        color[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                color[node] = 2
                stack.pop()
                path.pop()
            elif color[nxt] == 1:
                return [int(v) for v in path[path.index(int(nxt)) :]]
            elif color[nxt] == 0:
                color[nxt] = 1
                path.append(int(nxt))
                stack.append((int(nxt), iter(np.flatnonzero(P[nxt]))))
    return None


def is_transitive(delta: ArrayLike, *, atol: float = 1e-12) -> bool:
    """Whether the Bayes preference is induced by a scorer (docs/theory.md §3).

    Pairs with ``|Δ| ≤ atol`` are indifferent: either order (or a tie) is optimal for them. So an
    optimal scorer exists iff the strict preference ``i ≻ j ⇔ Δ[i, j] > atol`` has no cycle; then
    its transitive closure is a strict partial order and any scorer that extends it attains every
    pair's preferred order. This is the sense of "transitive" used throughout the package.

    >>> is_transitive(np.array([[0, 1, 1], [-1, 0, 1], [-1, -1, 0]]))
    True
    >>> is_transitive(np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]]))
    False
    """
    return find_cycle(delta, atol=atol) is None


def preference_scores(delta: ArrayLike, *, atol: float = 1e-12) -> np.ndarray | None:
    """Scores inducing the Bayes preference Δ, or ``None`` if it has a cycle (docs/theory.md §3).

    The score of a point is the length of the longest strict-preference chain below it, so
    ``Δ[i, j] > atol ⇒ score_i > score_j``; indifferent points are tied when no chain separates
    them.

    >>> preference_scores(np.array([[0, 1, 1], [-1, 0, 0], [-1, 0, 0]])).tolist()
    [1.0, 0.0, 0.0]
    """
    if find_cycle(delta, atol=atol) is not None:
        return None
    P = _strict_preference(delta, atol)
    h = np.zeros(P.shape[0])
    for _ in range(P.shape[0]):
        new = np.max(np.where(P, h[None, :] + 1.0, 0.0), axis=1, initial=0.0)
        if np.array_equal(new, h):
            break
        h = new
    return h
