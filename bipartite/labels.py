"""Multipartite costs, label aggregation maps and the Bayes pairwise preference (docs/theory.md §3, §5).

* :func:`cost_matrix` — the cost families of docs/theory.md §3 over sorted ordinal levels.
* :data:`AGGREGATIONS` — the table of the named aggregation maps ψ of docs/theory.md §5.1, each
  with its properties; :func:`get_aggregation` — an entry, or a callable ψ's properties from its values.
* :func:`aggregate_labels` — the aggregated label ``Ȳ = ψ(Y)`` (a tabled ψ or a callable).
* :func:`label_vectors` — the ``2**K`` label vectors, the domain of ψ.
* :func:`pairwise_preference` — the Bayes pairwise preference Δ(x_i, x_j) of docs/theory.md §3.
* :func:`is_transitive`, :func:`find_cycle`, :func:`preference_scores` — whether Δ is induced by a
  scorer, a witness cycle when it is not, and a scorer when it is.
* :func:`optimal_ranking` — the best weak order for any costs, by a linear-ordering MILP (docs/theory.md §6).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    ProblemLike,
    check_array,
    check_binary,
    check_nonnegative,
    check_option,
    check_positive,
    check_problem,
    check_tolerance,
)

__all__ = [
    "COST_FAMILIES",
    "AGGREGATIONS",
    "AGGREGATES",
    "Aggregation",
    "get_aggregation",
    "MAX_LABELS",
    "check_n_labels",
    "label_vectors",
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


#: The default limit on the number of labels K wherever the ``2**K`` label vectors are enumerated
#: (joints, finite problems, label-vector orders): 2**20 ≈ 10⁶ vectors. Raise it with the
#: ``max_labels`` argument of :func:`label_vectors`, :func:`~bipartite.population.independent_joint`,
#: :func:`~bipartite.population.gaussian_copula_joint` and
#: :class:`~bipartite.population.FiniteProblem`'s constructors.
MAX_LABELS = 20


def check_n_labels(K: int, name: str = "K", *, max_labels: int = MAX_LABELS) -> int:
    """A number of labels ``1 <= K <= max_labels``, checked before anything of size ``2**K`` is
    allocated; the error names the argument, the size and the limit."""
    if isinstance(K, bool) or not isinstance(K, int | np.integer) or K < 1:
        raise ValueError(f"The '{name}' parameter must be a positive integer, got {K!r}.")
    max_labels = check_positive(max_labels, "max_labels", integer=True)
    if K > max_labels:
        raise ValueError(f"'{name}' = {int(K)} labels means 2**{int(K)} label vectors, past the "
                         f"limit max_labels = {max_labels} (bipartite.labels.MAX_LABELS); "
                         f"pass a larger 'max_labels' deliberately.")
    return int(K)


def label_vectors(K: int, *, max_labels: int = MAX_LABELS) -> np.ndarray:
    """The ``2**K`` label vectors in ``itertools.product([0, 1], repeat=K)`` order (docs/theory.md §1).

    ``K`` is checked against ``max_labels`` (:data:`MAX_LABELS`) before allocating.

    >>> label_vectors(2).tolist()
    [[0, 0], [0, 1], [1, 0], [1, 1]]
    """
    K = check_n_labels(K, max_labels=max_labels)
    return ((np.arange(2**K, dtype=np.int64)[:, None] >> np.arange(K - 1, -1, -1)) & 1)


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


Aggregate = str | Callable[[np.ndarray], float]


@dataclass(frozen=True)
class Aggregation:
    """One aggregation map ``ψ: {0,1}^K → ℝ`` of label aggregation and what the package derives
    from it (docs/theory.md §5.1). The named ones are the entries of :data:`AGGREGATIONS`; a
    callable ψ gets the same properties from its values (:func:`get_aggregation`).

    Attributes
    ----------
    name : str
        Its name (the key in :data:`AGGREGATIONS`; a callable's ``__name__``).
    map : callable ``(Y, w) -> ndarray``
        ``Ȳ`` (n,) of a checked 0/1 float64 label matrix ``Y`` (n, K) and the label weights ``w``
        (None unless :attr:`weighted`).
    binary : bool
        ``Ȳ`` takes two values for every K (else it has levels): the Bayes scorer is
        ``P(Ȳ = top | x)`` for any positive costs (docs/theory.md §5.2).
    affine : callable ``(K, w) -> (c, b)``, or None
        ``ψ(Y) = c + Σ_k b_k Y_k``: with linear costs the Bayes scorer ``c + Σ_k b_k η_k`` needs
        only the marginals η. None when ψ is not affine in Y: the closed form then needs the
        joint ``P(Y = v | x)`` (:attr:`needs_joint`).
    weighted : bool
        It takes the label weights ``w`` (``aggregate_labels(..., w=...)``).
    tilt : {"weighted_sum", "exchange_rate", "none"}
        The rule of :func:`bipartite.pareto.aggregation_tilt` (K = 2, docs/theory.md §12.7–§12.8):
        a weighted sum with linear costs is loss aggregation with ``a_k = w_k π_k(1 − π_k)``; AND
        and OR move by their exchange rate; ``"none"``: no rule.
    rate : callable ``(eta, w) -> (num, den)``, or None
        The exchange rate ``ρ = ∂₂h / ∂₁h = num / den`` of its Bayes scorer ``h(η₁, η₂)`` with
        conditionally independent labels, at the rows of ``eta`` (n, 2) (docs/theory.md §12.8;
        :func:`bipartite.pareto.exchange_rates`).

    The costs are not a property of ψ: every function that takes ``aggregate`` defaults to
    ``costs="linear"`` (docs/theory.md §3.1) whatever the map, and a binary ψ has one Bayes scorer
    for any positive costs.

    >>> AGGREGATIONS["or"].binary, AGGREGATIONS["or"].needs_joint
    (True, True)
    >>> AGGREGATIONS["sum"].affine(2, None)
    (0.0, array([1., 1.]))
    """

    name: str
    map: Callable[[np.ndarray, np.ndarray | None], np.ndarray]
    binary: bool
    affine: Callable[[int, ArrayLike | None], tuple[float, np.ndarray]] | None
    weighted: bool = False
    tilt: str = "none"
    rate: Callable[[np.ndarray, ArrayLike | None], tuple[np.ndarray, np.ndarray]] | None = None

    @property
    def needs_joint(self) -> bool:
        """Whether its Bayes scorer needs the conditional joint ``P(Y = v | x)`` and not only the
        marginals η: ψ is not affine in Y (docs/theory.md §5.2)."""
        return self.affine is None


def _sum_rate(eta: np.ndarray, w: ArrayLike | None) -> tuple[np.ndarray, np.ndarray]:
    wv = sum_weights(w, 2)
    if not np.any(wv > 0):
        raise ValueError(f"The 'w' parameter must have a positive entry, got {wv.tolist()}.")
    return np.full(len(eta), wv[1]), np.full(len(eta), wv[0])


#: The named aggregation maps ψ of label aggregation (docs/theory.md §5.1), one
#: :class:`Aggregation` each: ``"sum"`` (``Σ_k w_k Y_k``, ``w ≥ 0`` default 1), ``"product"``
#: (AND) and ``"or"``. Every option check, learner, Bayes scorer and tilt rule reads this table;
#: adding an aggregation is one entry here plus its line in the test that iterates the table
#: (docs/theory.md §5.1, "Adding an aggregation").
AGGREGATIONS: dict[str, Aggregation] = {
    "sum": Aggregation(
        "sum", map=lambda Y, w: Y @ sum_weights(w, Y.shape[1]), binary=False,
        affine=lambda K, w: (0.0, sum_weights(w, K)), weighted=True, tilt="weighted_sum",
        rate=_sum_rate),
    "product": Aggregation(
        "product", map=lambda Y, w: np.prod(Y, axis=1), binary=True, affine=None,
        tilt="exchange_rate", rate=lambda E, w: (E[:, 0], E[:, 1])),
    "or": Aggregation(
        "or", map=lambda Y, w: np.max(Y, axis=1), binary=True, affine=None,
        tilt="exchange_rate", rate=lambda E, w: (1.0 - E[:, 0], 1.0 - E[:, 1])),
}

#: The names of the tabled aggregation maps (the keys of :data:`AGGREGATIONS`).
AGGREGATES = tuple(AGGREGATIONS)


def check_weights_used(aggregate: Aggregate, w: ArrayLike | None) -> None:
    """Refuse sum weights ``w`` for an aggregation that takes none (a callable, or a tabled
    entry that is not ``weighted``): the one home of that error."""
    if w is None or (not callable(aggregate) and AGGREGATIONS[aggregate].weighted):
        return
    names = " or ".join(repr(n) for n, g in AGGREGATIONS.items() if g.weighted)
    raise ValueError(f"The 'w' parameter is only used with aggregate={names}, got "
                     f"aggregate={getattr(aggregate, '__name__', aggregate)!r}.")


def _callable_values(aggregate: Callable[[np.ndarray], float], Y: np.ndarray) -> np.ndarray:
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


def get_aggregation(aggregate: Aggregate, K: int | None = None) -> Aggregation:
    """The :class:`Aggregation` of ``aggregate``: the entry of :data:`AGGREGATIONS` for a name;
    for a callable ψ, its properties computed from its values on the ``2**K`` label vectors
    (:func:`label_vectors`; ``K`` required): binary when it takes two values, affine when
    ``ψ(v) = ψ(0) + Σ_k (ψ(e_k) − ψ(0)) v_k`` on every vector (to a relative 1e-12), no tilt
    rule (docs/theory.md §5.1).

    >>> get_aggregation(lambda v: float(v[0] or v[1]), K=2).binary
    True
    >>> get_aggregation(lambda v: 2.0 * v[0] - v[1] + 1.0, K=2).affine(2, None)
    (1.0, array([ 2., -1.]))
    """
    if not callable(aggregate):
        return AGGREGATIONS[check_option(aggregate, "aggregate", AGGREGATES)]
    if K is None:
        raise ValueError("The properties of a callable 'aggregate' come from its values on the "
                         "2**K label vectors: pass the number of labels K.")
    V = label_vectors(K).astype(np.float64)
    values = _callable_values(aggregate, V)
    c, b = values[0], values[2 ** np.arange(K - 1, -1, -1)] - values[0]  # ψ(0), ψ(e_k) − ψ(0)
    scale = max(1.0, float(np.max(np.abs(values))))
    affine = np.max(np.abs(c + V @ b - values)) <= 1e-12 * scale * max(K, 1)
    name = getattr(aggregate, "__name__", "callable")
    return Aggregation(name, map=lambda Y, w: _callable_values(aggregate, Y),
                       binary=len(np.unique(values)) == 2,
                       affine=(lambda K_, w: (float(c), b.copy())) if affine else None)


def aggregate_labels(
    Y: ArrayLike,
    aggregate: Aggregate = "sum",
    w: ArrayLike | None = None,
) -> np.ndarray:
    """The aggregated ordinal label ``Ȳ = ψ(Y_1, ..., Y_K)`` (docs/theory.md §5.1).

    Parameters
    ----------
    Y : array-like of shape (n, K)
        Binary label matrix (or label vectors).
    aggregate : str or callable
        A name of :data:`AGGREGATIONS` — ``"sum"``: ``Σ_k w_k Y_k`` (``w`` defaults to 1);
        ``"product"``: AND of the labels; ``"or"``: max of the labels — or a callable that
        receives one label vector (K,) and returns a number.
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
    if callable(aggregate):
        check_weights_used(aggregate, w)
        return _callable_values(aggregate, Y)
    psi = get_aggregation(aggregate)
    check_weights_used(aggregate, w)
    return psi.map(Y, w)


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
