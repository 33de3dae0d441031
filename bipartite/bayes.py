"""Bayes-optimal scorers for loss aggregation and label aggregation (docs/theory.md §4, §5).

* Loss aggregation — maximise ``Σ_k a_k AUC_k(f)``: ``f* = Σ_k α_k η_k`` with effective weights
  ``α_k = a_k / (π_k (1 − π_k))`` (LA25 Prop 5.2).
* Label aggregation — aggregate ``Ȳ = ψ(Y)`` and maximise AUC_MP with costs ``c``:
  linear costs give ``f* = E[Ȳ | x]`` (LA25 Prop 5.4; for a weighted sum, ``Σ_k w_k η_k``, free of
  the priors); a binary ``Ȳ`` (product/AND, or/OR) gives ``f* = P(Ȳ = 1 | x)``; other costs are
  pairwise in general (docs/theory.md §3): a scorer exists iff the strict Bayes preference is acyclic.

Any strictly increasing transform of these scorers is equally optimal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_array,
    check_nonnegative,
    check_probabilities,
    check_problem,
    check_row_distributions,
    check_tolerance,
    warn_undefined,
)
from bipartite.labels import (
    aggregate_labels,
    find_cycle,
    get_aggregation,
    pairwise_preference,
    preference_scores,
)
from bipartite.population import label_vectors

if TYPE_CHECKING:
    from bipartite.population import FiniteProblem

__all__ = [
    "OBJECTIVES",
    "NotRepresentableError",
    "effective_weights",
    "loss_aggregation",
    "label_aggregation",
    "label_aggregation_scores",
    "anticorrelation_identity",
]


#: The two objectives of multi-label bipartite ranking (docs/theory.md §4, §5): the option list of
#: every function and estimator that takes ``objective``.
OBJECTIVES = ("loss_aggregation", "label_aggregation")


class NotRepresentableError(ValueError):
    """The Bayes pairwise preference is cyclic, so no scorer attains it (docs/theory.md §3).

    Attributes
    ----------
    cycle : list[int]
        Support indices ``i_0 ≻ i_1 ≻ ... ≻ i_m ≻ i_0`` of the strict Bayes preference.
    """

    def __init__(self, cycle: list[int]):
        self.cycle = list(cycle)
        chain = " > ".join(f"x{i}" for i in [*self.cycle, self.cycle[0]])
        super().__init__(
            "The Bayes-optimal pairwise preference for these costs is intransitive, so no scorer "
            f"induces it (cycle: {chain}). Use bipartite.pareto.optimal_ranking for the best "
            "weak order."
        )


_CONSTANT_AGGREGATE = "The aggregated label is constant: every scorer is optimal."
#: Largest mixing weight used as given by :func:`effective_weights`; outside, ``a`` is rescaled.
_A_RANGE = (2.0**-32, 2.0**32)


def effective_weights(pi: ArrayLike, a: ArrayLike | None = None) -> np.ndarray:
    """Effective weights ``α_k = a_k / (π_k (1 − π_k))`` of loss aggregation (docs/theory.md §4).

    Parameters
    ----------
    pi : array-like of shape (K,), priors strictly inside (0, 1)
    a : array-like of shape (K,), optional, non-negative mixing weights (default 1). α is
        defined up to a positive factor, and every use of it (the loss-aggregation scorer,
        weight shares, dictator thresholds) is invariant to that factor: when the largest entry
        of ``a`` lies outside [2**-32, 2**32], ``a`` is divided by it first, so that α is finite
        and normal for any ``a`` (``a = [5e-324, 0]`` gives the α of ``a = [1, 0]``, not
        subnormal values that round into ties; ``a = [1e308, 1e308]`` no infinities). Inside that
        range α is exactly ``a / (π (1 − π))``.

    >>> effective_weights([0.5, 0.1]).round(4).tolist()
    [4.0, 11.1111]
    """
    p = check_probabilities(pi, "pi", ndim=1)
    degenerate = np.flatnonzero((p <= 0) | (p >= 1))
    if degenerate.size:
        k = int(degenerate[0])
        raise ValueError(
            f"The 'pi' parameter must lie strictly inside (0, 1) for every label; label {k} has "
            f"pi={p[k]:g}, so AUC_{k} is undefined (the label has a single class)."
        )
    if a is None:
        w = np.ones_like(p)
    else:
        w = check_array(a, "a", ndim=1)
        if w.shape != p.shape:
            raise ValueError(f"The 'a' parameter must have one entry per label of 'pi' "
                             f"(shape {p.shape}), got shape {w.shape}.")
        check_nonnegative(w, "a")
        top = w.max()
        if top > 0 and not _A_RANGE[0] <= top <= _A_RANGE[1]:
            w = w / top  # α is defined up to a factor: a normal, finite α for any a
    return w / (p * (1.0 - p))


def loss_aggregation(eta: ArrayLike, pi: ArrayLike, a: ArrayLike | None = None) -> np.ndarray:
    """Bayes-optimal scorer of loss aggregation ``max Σ_k a_k AUC_k`` (docs/theory.md §4, LA25 Prop 5.2).

    ``f*(x) = Σ_k α_k η_k(x)`` with ``α = effective_weights(pi, a)``.

    Parameters
    ----------
    eta : array-like of shape (n, K), class-probability functions at the points
    pi : array-like of shape (K,), the population priors (not the sample mean of ``eta`` unless
        the points are the population)
    a : array-like of shape (K,), optional mixing weights

    Returns
    -------
    ndarray of shape (n,)

    >>> loss_aggregation([[0.9, 0.0], [0.0, 0.5]], pi=[0.5, 0.1]).round(3).tolist()
    [3.6, 5.556]
    """
    E = check_probabilities(eta, "eta", ndim=2)
    alpha = effective_weights(pi, a)
    if E.shape[1] != len(alpha):
        raise ValueError(f"The 'eta' parameter has {E.shape[1]} labels but 'pi' has {len(alpha)}.")
    return E @ alpha


def label_aggregation_scores(
    eta: ArrayLike | None = None,
    joint: ArrayLike | None = None,
    *,
    aggregate: str | Callable[[np.ndarray], float] = "sum",
    w: ArrayLike | None = None,
    costs: str | ArrayLike = "linear",
) -> np.ndarray:
    """Closed-form Bayes scorer of label aggregation on arrays (docs/theory.md §5).

    * ``costs="linear"``: ``f* = E[Ȳ | x]`` — ``c + Σ_k b_k η_k`` for a ψ affine in Y, such as
      the weighted sum (needs only ``eta``; :attr:`bipartite.labels.Aggregation.affine`),
      ``joint @ ψ(V)`` otherwise (LA25 Prop 5.4).
    * ``Ȳ`` binary (``"product"``, ``"or"``, or a callable with two values): ``f* = P(Ȳ = top | x)``
      for any positive costs (needs ``joint``).

    Parameters
    ----------
    eta : array-like (n, K), optional
    joint : array-like (n, 2**K), optional — ``P(Y = v_m | x)`` in ``itertools.product`` order

    Raises
    ------
    ValueError
        If no closed form exists for these costs (use :func:`label_aggregation` on a
        :class:`~bipartite.population.FiniteProblem`), or the needed input is missing.

    >>> label_aggregation_scores([[0.9, 0.1], [0.3, 0.6]]).round(2).tolist()
    [1.0, 0.9]
    >>> label_aggregation_scores(joint=[[0.1, 0.2, 0.3, 0.4]], aggregate="product").tolist()
    [0.4]
    """
    if eta is None and joint is None:
        raise ValueError("label_aggregation_scores needs 'eta' or 'joint'.")
    J = None if joint is None else check_row_distributions(joint, "joint")
    E = None if eta is None else check_probabilities(eta, "eta", ndim=2)
    K = E.shape[1] if E is not None else int(round(np.log2(J.shape[1])))
    if J is not None and 2**K != J.shape[1]:
        raise ValueError(
            f"The 'joint' parameter must have 2**K = {2**K} columns, got {J.shape[1]}."
        )
    if J is not None and E is not None and len(J) != len(E):
        raise ValueError(f"The 'eta' and 'joint' parameters must have one row per point each, "
                         f"got {len(E)} and {len(J)} rows.")
    linear = isinstance(costs, str) and costs == "linear"
    psi = get_aggregation(aggregate, K) if linear and E is not None else None
    if psi is not None and psi.affine is not None:
        # ψ(Y) = c + Σ b_k Y_k: E[ψ(Y) | x] = c + Σ b_k η_k needs only the marginals; for a
        # tabled ψ no 2**K label vectors either, so any K (CAL500 has K = 174).
        c, b = psi.affine(K, w)
        if not np.any(b != 0):
            raise ValueError(_CONSTANT_AGGREGATE)
        return E @ b + c
    V = label_vectors(K)
    psi = aggregate_labels(V, aggregate, w)
    levels = np.unique(psi)
    if len(levels) < 2:
        raise ValueError(_CONSTANT_AGGREGATE)
    if J is None:
        raise ValueError(
            f"The closed form for aggregate={aggregate!r} needs the joint label probabilities "
            "('joint'); only marginals were given."
        )
    if linear:
        return J @ psi
    if len(levels) == 2:
        return J @ (psi == levels[1]).astype(np.float64)
    raise ValueError(
        f"No closed-form Bayes scorer for costs={costs!r} with {len(levels)} levels "
        "(docs/theory.md §3); use bipartite.bayes.label_aggregation(problem, ...)."
    )


def label_aggregation(
    problem: FiniteProblem,
    *,
    aggregate: str | Callable[[np.ndarray], float] = "sum",
    w: ArrayLike | None = None,
    costs: str | ArrayLike = "linear",
    atol: float = 1e-12,
) -> np.ndarray:
    """Bayes-optimal scorer of label aggregation on a finite problem (docs/theory.md §3, §5).

    Uses the closed form where one exists (:func:`label_aggregation_scores`). Otherwise computes
    the Bayes pairwise preference Δ (:func:`bipartite.labels.pairwise_preference`) and returns a
    scorer inducing it when its strict part is acyclic.

    Warns with :class:`~bipartite.UndefinedMetricWarning` when the aggregated label is almost
    surely constant (e.g. perfectly anti-correlated labels summed): every scorer is then optimal.

    Raises
    ------
    NotRepresentableError
        When the strict preference has a cycle; ``.cycle`` holds it. The best weak order is then
        computed by :func:`bipartite.pareto.optimal_ranking`.

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.5, 0.5], [[0.9, 0.1], [0.3, 0.6]])
    >>> label_aggregation(P).round(2).tolist()
    [1.0, 0.9]
    """
    check_problem(problem)
    atol = check_tolerance(atol, "atol")
    levels, q = problem.level_probs(aggregate=aggregate, w=w)
    if np.count_nonzero(problem.mass @ q > 1e-15) < 2:
        warn_undefined(
            "The aggregated label is almost surely constant on this problem: every scorer is "
            "optimal and AUC_MP is undefined (docs/theory.md §5)."
        )
    try:
        return label_aggregation_scores(
            problem.eta, problem.label_probs, aggregate=aggregate, w=w, costs=costs
        )
    except ValueError as exc:
        if "No closed-form" not in str(exc):
            raise
    delta = pairwise_preference(problem, aggregate=aggregate, w=w, costs=costs)
    scores = preference_scores(delta, atol=atol)
    if scores is None:
        raise NotRepresentableError(find_cycle(delta, atol=atol))
    return scores


def anticorrelation_identity(joint: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Both sides of the K = 2 identity ``η_1 + η_2 = 1 + P(Y=(1,1)|x) − P(Y=(0,0)|x)`` (docs/theory.md §5).

    Returns ``(lhs, rhs)``; they are equal for every joint. With perfectly anti-correlated labels
    (``Y_2 = 1 − Y_1``: mass only on (0,1) and (1,0)) both equal 1 everywhere, so the summed label
    is constant and AUC_MP is undefined.

    >>> lhs, rhs = anticorrelation_identity([[0.0, 0.3, 0.7, 0.0]])
    >>> lhs.tolist(), rhs.tolist()
    ([1.0], [1.0])
    """
    J = check_row_distributions(joint, "joint")
    if J.shape[1] != 4:
        raise ValueError(
            f"The identity is for K = 2: 'joint' must have 4 columns, got {J.shape[1]}."
        )
    eta = J @ label_vectors(2)
    return eta.sum(axis=1), 1.0 + J[:, 3] - J[:, 0]
