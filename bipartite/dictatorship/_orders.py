"""The orders that the Bayes scorers induce under deterministic labels (docs/theory.md §4, §5, §7;
LA25 Fig. 1): :func:`label_vector_order` over the ``2**K`` label vectors, and the one-shot label
and point-order tables of a finite problem (:func:`dictatorship_tables`, ``bipartite
dictatorship``). Scores equal to a relative ``RTOL`` (1e-12) are tied, in
both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import check_array, check_nonnegative, check_option, check_problem
from bipartite.bayes import effective_weights, label_aggregation_scores, loss_aggregation
from bipartite.dictatorship._theory import (
    RTOL,
    dictator,
    dictator_threshold,
    effective_weight_shares,
)
from bipartite.labels import AGGREGATES, label_vectors

if TYPE_CHECKING:
    import pandas as pd

    from bipartite.population import FiniteProblem

__all__ = ["ORDER_KINDS", "label_vector_order", "dictatorship_tables"]

#: The kinds of :func:`label_vector_order`: loss aggregation and every tabled ψ
#: (:data:`bipartite.labels.AGGREGATIONS`).
ORDER_KINDS = ("loss", *AGGREGATES)


def label_vector_order(
    kind: str | Callable[[np.ndarray], float],
    *,
    pi: ArrayLike | None = None,
    a: ArrayLike | None = None,
    K: int | None = None,
    w: ArrayLike | None = None,
) -> list[list[tuple[int, ...]]]:
    """The weak order that a Bayes scorer induces on the label vectors, deterministic labels
    (docs/theory.md §7; LA25 Fig. 1 a–d).

    With η_k(x) = y_k, evaluate the Bayes-optimal scorer on each of the ``2**K`` label vectors
    and group equal scores into tiers:

    * ``"loss"`` — loss aggregation, ``f* = Σ_k α_k y_k`` with ``α = effective_weights(pi, a)``
      (:func:`bipartite.bayes.effective_weights`);
    * a ψ of :data:`bipartite.labels.AGGREGATIONS` (or a callable ψ) — label aggregation with linear costs,
      ``f* = E[ψ(Y) | x] = ψ(y)`` (:func:`bipartite.bayes.label_aggregation_scores`; ``w``
      for a weighted sum). For the binary aggregates any positive costs give the same scorer.

    Scores equal to a relative 1e-12 are tied.

    Parameters
    ----------
    kind : "loss", a name of :data:`bipartite.labels.AGGREGATIONS` (:data:`ORDER_KINDS`) or callable
    pi : array-like (K,), required for ``"loss"``
    a : array-like (K,), optional mixing weights for ``"loss"``
    K : int, optional — number of labels (default ``len(pi)``, or 2)
    weights : array-like (K,), optional weights of ``"sum"``

    Returns
    -------
    list of tiers from the **lowest-ranked to the highest-ranked**; each tier a list of label
    vectors (tuples) with equal scores, in ``itertools.product`` order.

    >>> label_vector_order("loss", pi=[0.1, 0.5])  # α_1 > α_2 (LA25 Fig. 1a)
    [[(0, 0)], [(0, 1)], [(1, 0)], [(1, 1)]]
    >>> label_vector_order("sum")  # Fig. 1c
    [[(0, 0)], [(0, 1), (1, 0)], [(1, 1)]]
    >>> label_vector_order("product")  # Fig. 1d
    [[(0, 0), (0, 1), (1, 0)], [(1, 1)]]
    """
    if not callable(kind):
        check_option(kind, "kind", ORDER_KINDS)
    if K is None:
        K = len(np.atleast_1d(check_array(pi, "pi", allow_empty=True))) if pi is not None else 2
        if K < 1:
            raise ValueError("The 'pi' parameter must have at least one label, got an empty array.")
    if not isinstance(K, (int, np.integer)) or K < 1:
        raise ValueError(f"The 'K' parameter must be a positive integer, got {K!r}.")
    V = label_vectors(int(K))
    if kind == "loss":
        if pi is None:
            raise ValueError("The 'pi' parameter is required for kind='loss'.")
        alpha = effective_weights(pi, a)
        if len(alpha) != K:
            raise ValueError(f"The 'pi' parameter must have K={K} entries, got {len(alpha)}.")
        f = V @ alpha
    else:
        if a is not None:
            raise ValueError(f"The 'a' parameter is only used with kind='loss', got kind={kind!r}.")
        if w is not None:
            check_nonnegative(check_array(w, "w", ndim=1), "w")
        onehot = np.eye(len(V))  # deterministic labels: P(Y = v_m | x_m) = 1
        f = label_aggregation_scores(
            V.astype(np.float64), onehot, aggregate=kind, w=w, costs="linear"
        )
    return _tiers(f, [tuple(int(x) for x in v) for v in V])


def _tie_levels(f: np.ndarray) -> np.ndarray:
    """Tie level of each score, 0 for the lowest: walking up the sorted scores, a new level starts
    where a score exceeds the first of the current level by more than ``RTOL`` times
    ``max(1, max |f|)``. The one tie rule of the tiers and of the tables' ranks."""
    order = np.argsort(f, kind="stable")
    scale = max(1.0, float(np.max(np.abs(f))))
    levels = np.empty(len(f), dtype=np.int64)
    level, first = -1, None
    for m in order:
        if first is None or f[m] - first > RTOL * scale:
            level += 1
            first = f[m]
        levels[m] = level
    return levels


def _tiers(f: np.ndarray, items: list) -> list[list]:
    """Group items into tiers of equal scores (:func:`_tie_levels`), lowest tier first."""
    levels = _tie_levels(f)
    tiers: list[list] = [[] for _ in range(int(levels.max()) + 1)]
    for m in np.argsort(f, kind="stable"):
        tiers[levels[m]].append(items[m])
    return [sorted(t) for t in tiers]


# --------------------------------------------------------------------------------------------
# One-shot tables for the CLI (`bipartite frontier`, `bipartite dictatorship`)
# --------------------------------------------------------------------------------------------


def _dense_rank_desc(scores: np.ndarray) -> np.ndarray:
    """Rank 1 = highest score; scores of one tie level (:func:`_tie_levels`) share a rank."""
    levels = _tie_levels(np.asarray(scores, dtype=np.float64))
    return levels.max() - levels + 1


def dictatorship_tables(problem: FiniteProblem, *, a: ArrayLike | None = None
                        ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Label table and point-order table of a finite problem (docs/theory.md §4, §5, §7).

    Returns ``(labels, orders)``: ``labels`` has per label k the prior π_k, the mixing weight
    a_k, the effective weight α_k (:func:`bipartite.bayes.effective_weights`), its share
    (:func:`bipartite.dictatorship.effective_weight_shares`), whether it is the dictator for
    deterministic labels (:func:`bipartite.dictatorship.dictator`) and the priors below / above
    which it would dictate (:func:`bipartite.dictatorship.dictator_threshold`); ``orders`` has
    per point its mass, η, and its score and rank (1 = top, ties share a rank) under loss
    aggregation (:func:`bipartite.bayes.loss_aggregation`) and label aggregation by sum and by
    product (:func:`bipartite.bayes.label_aggregation_scores`).

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.25] * 4, [[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> labels, orders = dictatorship_tables(P, a=[1.0, 3.0])
    >>> labels["dictator"].tolist(), orders["rank_loss"].tolist(), orders["rank_sum"].tolist()
    ([False, True], [4, 2, 3, 1], [3, 2, 2, 1])
    """
    check_problem(problem)
    import pandas as pd

    pi = problem.pi
    K = problem.K
    alpha = effective_weights(pi, a)  # the one check of 'a': K non-negative finite entries
    a_vec = np.ones(K) if a is None else check_array(a, "a", ndim=1)
    shares = effective_weight_shares(pi, a_vec)
    dic = dictator(pi, a_vec)
    rows = []
    for k in range(K):
        thr = dictator_threshold(pi, k, a=a_vec) if K >= 2 else None
        rows.append({"label": k + 1, "pi": pi[k], "a": a_vec[k], "alpha": alpha[k],
                     "alpha_share": shares[k], "dictator": dic == k,
                     "dictates_below_pi": np.nan if thr is None else thr[0],
                     "dictates_above_pi": np.nan if thr is None else thr[1]})
    labels = pd.DataFrame(rows)
    loss = loss_aggregation(problem.eta, pi, a_vec)
    total = label_aggregation_scores(problem.eta, problem.label_probs, aggregate="sum")
    orders = {"point": np.arange(1, problem.n + 1), "mass": problem.mass}
    for k in range(K):
        orders[f"eta_{k + 1}"] = problem.eta[:, k]
    orders.update({"score_loss": loss, "rank_loss": _dense_rank_desc(loss),
                   "score_sum": total, "rank_sum": _dense_rank_desc(total)})
    if K >= 2:
        prod = label_aggregation_scores(problem.eta, problem.label_probs, aggregate="product")
        orders.update({"score_product": prod, "rank_product": _dense_rank_desc(prod)})
    return labels, pd.DataFrame(orders)
