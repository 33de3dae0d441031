"""Which objective's Bayes scorer is the more balanced, K = 2: loss aggregation against any label
aggregation (docs/theory.md §12).

Loss aggregation with mixing weights ``a`` (default 1) maximises ``Σ_k a_k AUC_k``; its Bayes
scorer ``u`` (docs/theory.md §4) is one point of the Pareto frontier. A label aggregation's Bayes
scorer (docs/theory.md §5) gives another AUC vector; ``d = AUC(label) − AUC(loss)``. Then
(docs/theory.md §12.6):

* for **every** scorer, ``Σ_k a_k d_k ≤ 0``: a gain on one label costs at least as much (in
  ``a``-units) on the other, so label aggregation has the higher Min AUC only if it raises the
  label that ``u`` under-serves, and does not push the other below it;
* a **weighted sum** ``Ȳ = w₁Y₁ + w₂Y₂`` with linear costs is loss aggregation with
  ``a_k = w_k π_k(1 − π_k)``, so it moves toward the label ``t`` with the larger
  ``w_k π_k(1 − π_k) / a_k``, and ``0 ≤ D ≤ −d_o ≤ r D`` with ``D = (a_t/a_o) d_t`` and
  ``r = (w_t v_t / a_t)/(w_o v_o / a_o)`` (§12.7; :func:`weighted_sum_tilt`);
* **AND / OR** (Bayes scorer ``P(Y = (1,1) | x)``, ``1 − P(Y = (0,0) | x)``): with
  conditionally independent labels the scorer is ``h(η)`` with exchange rate
  ``ρ = ∂₂h / ∂₁h`` equal to ``η₁/η₂`` (AND) or ``(1 − η₁)/(1 − η₂)`` (OR); when ``ρ`` lies on one
  side of loss aggregation's rate ``α₂/α₁`` at every support point, every pair that the two
  scorers order differently moves toward the same label (§12.8; :func:`exchange_rates`);
* **lexicographic** aggregation with linear costs on its level index is the weighted sum with
  weights ``2^{K−1−rank}`` (:func:`lexicographic_weights`); with other costs there is no closed
  form, and the comparison is evaluated exactly (§12.9).

:func:`aggregation_tilt` gives the label an aggregation moves toward (proved, or the typical-point
rule where no proof applies); :func:`balance_condition` evaluates every quantity of the comparison
on a :class:`~bipartite.population.FiniteProblem`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_array,
    check_option,
    check_probabilities,
    check_problem_aucs_defined,
    check_tolerance,
    warn_undefined,
)
from bipartite.pareto.balance_k import (
    compare_aucs,
    equal_to_rounding,
    equivalent_loss_weights,
    loss_weights,
    typical_point_weights,
)

if TYPE_CHECKING:
    from bipartite.population import FiniteProblem

__all__ = ["Tilt", "aggregation_tilt", "balance_condition", "exchange_rates",
           "lexicographic_weights", "weighted_sum_tilt"]

from bipartite.labels import AGGREGATIONS, check_weights_used

#: The aggregations with an exchange rate under conditional independence (docs/theory.md §12.8):
#: the entries of :data:`bipartite.labels.AGGREGATIONS` that carry a ``rate``.
RATE_AGGREGATES = tuple(name for name, g in AGGREGATIONS.items() if g.rate is not None)


@dataclass(frozen=True)
class Tilt:
    """Which label a label aggregation moves toward, relative to loss aggregation
    (docs/theory.md §12.6–§12.9). Result of :func:`weighted_sum_tilt` and
    :func:`aggregation_tilt`.

    Attributes
    ----------
    label : int or None — 0 or 1, the label whose AUC it raises (weakly); −1 when the two
        objectives order the points alike; None when no rule applies.
    ratio : float — ``r ≥ 1`` of §12.7 for a weighted sum (``inf`` when the other label's
        weight is 0), NaN otherwise.
    proven : bool — whether a theorem (§12.7 for weighted sums, §12.8 for AND / OR with
        conditionally independent labels) guarantees the direction; otherwise ``label`` is the
        typical-point rule of §12.8, a heuristic.
    rule : str — ``"weighted_sum"``, ``"exchange_rate"``, ``"typical_point"`` or ``"none"``.
    """

    label: int | None
    ratio: float
    proven: bool
    rule: str


def _loss_rate(pi: np.ndarray, a: ArrayLike | None) -> tuple[np.ndarray, float]:
    """``(a, α₂/α₁)``: loss aggregation's mixing weights and its exchange rate (K = 2)."""
    from bipartite.bayes import effective_weights

    a_arr = loss_weights(pi, a)
    alpha = effective_weights(pi, a)
    return a_arr, float(alpha[1] / alpha[0])


def _check_two(pi: ArrayLike) -> np.ndarray:
    p = check_probabilities(pi, "pi", ndim=1)
    if p.shape != (2,):
        raise ValueError(f"The 'pi' parameter must have two labels (K = 2, docs/theory.md §12), "
                         f"got shape {p.shape}.")
    return p


def weighted_sum_tilt(pi: ArrayLike, w: ArrayLike, *, a: ArrayLike | None = None) -> Tilt:
    """The label that label aggregation by ``Ȳ = w₁Y₁ + w₂Y₂`` (linear costs) moves toward,
    relative to loss aggregation with mixing weights ``a`` (docs/theory.md §12.7).

    Label aggregation is loss aggregation with ``b_k = w_k π_k(1 − π_k)`` (§5.3). It raises (weakly)
    the AUC of the label ``t`` with the larger ``b_k / a_k`` and lowers the other's, and
    ``0 ≤ D ≤ −d_o ≤ r D`` with ``D = (a_t/a_o) d_t`` and ``r = (b_t/a_t)/(b_o/a_o)``. ``w₂/w₁ = v₁/v₂``
    (with ``a = 1``) is loss aggregation itself (``label = −1``, ``r = 1``).

    Parameters
    ----------
    pi : array-like of shape (2,), priors strictly inside (0, 1)
    w : array-like of shape (2,), non-negative sum weights, not both 0
    a : array-like of shape (2,), optional, positive mixing weights of loss aggregation (default 1)

    >>> weighted_sum_tilt([0.5, 0.1], [1.0, 1.0])
    Tilt(label=0, ratio=2.777..., proven=True, rule='weighted_sum')
    >>> weighted_sum_tilt([0.5, 0.1], [1.0, 4.0]).label
    1
    """
    p = _check_two(pi)
    a_arr, _ = _loss_rate(p, a)
    g = equivalent_loss_weights(p, w) / a_arr
    if equal_to_rounding(g[0], g[1], g.max()):  # the same objective
        return Tilt(-1, 1.0, True, "weighted_sum")
    t = int(np.argmax(g))
    ratio = float("inf") if g[1 - t] == 0 else float(g[t] / g[1 - t])
    return Tilt(t, ratio, True, "weighted_sum")


def exchange_rates(eta: ArrayLike, aggregate: str = "sum", *, w: ArrayLike | None = None
                   ) -> np.ndarray:
    """Exchange rate ``ρ(x) = ∂₂h / ∂₁h`` of an aggregation's Bayes scorer ``h(η₁, η₂)`` with
    conditionally independent labels (docs/theory.md §12.8): what one unit of ``η₂`` is worth in
    units of ``η₁``.

    ``"sum"``: ``w₂/w₁`` (constant); ``"product"`` (AND, ``h = η₁η₂``): ``η₁/η₂``; ``"or"``
    (``h = 1 − (1 − η₁)(1 − η₂)``): ``(1 − η₁)/(1 − η₂)``. Loss aggregation's rate is ``α₂/α₁``
    (docs/theory.md §4). A rate ``x/0`` with ``x > 0`` is ``inf``; ``0/0`` is undefined: NaN, with
    an :class:`~bipartite.UndefinedMetricWarning`.

    Parameters
    ----------
    eta : array-like of shape (n, 2)
    aggregate : str — an entry of :data:`bipartite.labels.AGGREGATIONS` with a ``rate``
        (``RATE_AGGREGATES``: ``"sum"``, ``"product"``, ``"or"``)
    w : array-like of shape (2,), optional — the weights of ``"sum"`` (default 1)

    >>> exchange_rates([[0.6, 0.2], [0.3, 0.3]], "product").round(3).tolist()
    [3.0, 1.0]
    >>> exchange_rates([[0.6, 0.2], [0.3, 0.3]], "or").round(3).tolist()
    [0.5, 1.0]
    """
    E = check_probabilities(eta, "eta", ndim=2)
    if E.shape[1] != 2:
        raise ValueError(f"The 'eta' parameter must have two columns (K = 2, docs/theory.md "
                         f"§12), got shape {E.shape}.")
    check_option(aggregate, "aggregate", RATE_AGGREGATES)
    check_weights_used(aggregate, w)
    num, den = AGGREGATIONS[aggregate].rate(E, w)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = num / den
    if np.isnan(rho).any():
        warn_undefined(f"The exchange rate of aggregate={aggregate!r} is undefined (0/0) at "
                       f"{int(np.isnan(rho).sum())} point(s) (docs/theory.md §12.8).")
    return rho


def lexicographic_weights(order: ArrayLike) -> np.ndarray:
    """Sum weights of lexicographic aggregation: label ``order[0]`` first, then ``order[1]``, …
    (docs/theory.md §12.9).

    ``w[order[r]] = 2^{K−1−r}``, so ``Σ_k w_k Y_k`` is the rank of the label vector in the
    lexicographic order (a higher label first), every vector on its own level. With linear
    costs lexicographic aggregation *is* this weighted sum (closed form, :func:`weighted_sum_tilt`);
    with other costs pass the weights with ``aggregate="sum"`` and the costs
    (:func:`bipartite.bayes.label_aggregation`).

    >>> lexicographic_weights([1, 0]).tolist()
    [1.0, 2.0]
    """
    o = check_array(order, "order", ndim=1)
    K = len(o)
    if K == 0 or K > 52 or sorted(o.tolist()) != list(range(K)):
        raise ValueError(f"The 'order' parameter must be a permutation of 0..K-1 (K <= 52), got "
                         f"{o.tolist()}.")
    w = np.empty(K)
    w[o.astype(int)] = 2.0 ** np.arange(K - 1, -1, -1)
    return w


def _is_independent(problem: FiniteProblem, atol: float = 1e-9) -> bool:
    from bipartite.population import independent_joint

    return bool(np.allclose(problem.label_probs, independent_joint(problem.eta), atol=atol,
                            rtol=0.0))


def aggregation_tilt(problem: FiniteProblem, aggregate: str | Callable = "sum", *,
                     w: ArrayLike | None = None, costs: str | ArrayLike = "linear",
                     a: ArrayLike | None = None) -> Tilt:
    """The label an aggregation's Bayes scorer moves toward, relative to loss aggregation with
    mixing weights ``a``, on a K = 2 problem (docs/theory.md §12.6–§12.9).

    * ``"sum"`` with linear costs (weighted sums, lexicographic): :func:`weighted_sum_tilt`,
      proven for any joint;
    * ``"product"`` / ``"or"`` (any positive costs): with conditionally independent labels and
      the exchange rate (:func:`exchange_rates`) at least loss aggregation's ``α₂/α₁`` at every
      support point, toward label 2 (index 1); at most, toward label 1; proven (§12.8).
      Otherwise the typical-point rule, the rates compared at ``η = π``: AND moves toward the
      rarer label, OR toward the more common one (``proven=False``);
    * anything else (sum with non-linear costs, a callable): ``Tilt(None, nan, False, "none")``.

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.5, 0.5], [[0.9, 0.2], [0.4, 0.1]])
    >>> aggregation_tilt(P, "product")
    Tilt(label=1, ratio=nan, proven=True, rule='exchange_rate')
    """
    check_problem_aucs_defined(problem, "the tilt of an aggregation")
    if problem.K != 2:
        raise ValueError(f"The 'problem' must have K = 2 labels (docs/theory.md §12), got "
                         f"K = {problem.K}.")
    pi = problem.pi
    a_arr, rate = _loss_rate(pi, a)
    linear = _check_costs(costs)
    if callable(aggregate) or (aggregate == "sum" and not linear):
        return Tilt(None, float("nan"), False, "none")
    check_option(aggregate, "aggregate", RATE_AGGREGATES)
    if aggregate == "sum":
        return weighted_sum_tilt(pi, np.ones(2) if w is None else w, a=a_arr)
    check_weights_used(aggregate, w)
    if _is_independent(problem):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rho = exchange_rates(problem.eta, aggregate)
        if not np.isnan(rho).any():
            up, down = bool(np.all(rho >= rate)), bool(np.all(rho <= rate))
            if up or down:
                return Tilt(-1 if up and down else int(up), float("nan"), True, "exchange_rate")
    typical = exchange_rates(pi[None, :], aggregate)[0]
    label = -1 if typical == rate else int(typical > rate)
    return Tilt(label, float("nan"), False, "typical_point")


def balance_condition(problem: FiniteProblem, aggregate: str | Callable = "sum", *,
                      w: ArrayLike | None = None, costs: str | ArrayLike = "linear",
                      a: ArrayLike | None = None, tol: float = 1e-12) -> dict:
    """Every quantity of the §12 comparison between loss aggregation (weights ``a``) and one label
    aggregation, on a finite problem with any ``K ≥ 2`` labels (docs/theory.md §12.6–§12.14).

    The label-aggregation scorer is :func:`bipartite.bayes.label_aggregation` (``aggregate``,
    ``w``, ``costs``); where its Bayes preference is cyclic, the best weak order
    (:func:`bipartite.pareto.optimal_ranking`). The loss-aggregation scorer is
    :func:`bipartite.bayes.loss_aggregation`; when the two objectives coincide (a weighted sum
    with linear costs whose equivalent weights ``b`` are proportional to ``a``) it is the label
    scorer itself, so rounding cannot split its ties. The comparison of the two AUC vectors is
    :func:`bipartite.pareto.balance_from_aucs`, with ``b`` =
    :func:`~bipartite.pareto.equivalent_loss_weights` for a weighted sum (or lexicographic
    weights) with linear costs, and the typical-point tilt for AND / OR.

    Returns a dict: every key of :func:`bipartite.pareto.balance_from_aucs` (any ``K``:
    ``loss_aucs``, ``label_aucs``, ``d``, ``worst_loss``, ``worst_label``, ``min_*``,
    ``spread_*``, ``tilt_weights``, ``can_win``, ``can_win_spread``, ``sufficient``, ...), and
    for ``K = 2`` also: ``loss_1, loss_2, label_1, label_2`` (the AUCs); ``d_1, d_2``
    (label − loss); ``underserved`` (the label with the lower loss AUC, −1 if equal to ``tol``);
    ``gap`` (``|loss_1 − loss_2|``); ``tilt, tilt_ratio, tilt_proven, tilt_rule``
    (:func:`aggregation_tilt`); ``moved_toward`` (the label with ``d_k > tol``; −1 if neither
    moves, ``None`` if both lose); ``chain_holds`` (``Σ a_k d_k ≤ tol`` always, plus
    ``0 ≤ D ≤ −d_o`` with ``D = (a_t/a_o) d_t`` for a proven tilt and ``−d_o ≤ r D`` for a weighted
    sum, all to ``tol``); ``no_overshoot`` (``−d_o < gap`` with ``o`` the label that is not
    under-served); ``diff_loss, diff_label, diff_winner`` (the spread, named as in LA25 §7).

    ``can_win`` is False when a proven condition rules a strictly higher Min AUC out. For
    ``K ≥ 3`` it is §12.12's (premises (P1), (P2)); for ``K = 2`` it is §12.6–§12.8's tilt
    verdict (False when the tilt is away from the under-served label, nothing is under-served,
    or the objectives coincide; None when no tilt rule applies), which equals §12.12's for
    weighted sums and is proven only with ``tilt_proven`` (AND / OR without a proof: the
    typical-point heuristic). ``necessary`` is §12.12's verdict for every ``K``.

    >>> from bipartite.population import FiniteProblem
    >>> r = balance_condition(FiniteProblem.random(6, 2, seed=1), "product")
    >>> r["chain_holds"], r["min_winner"] in ("label", "loss", "tie")
    (True, True)
    >>> r = balance_condition(FiniteProblem.random(6, 3, seed=1), "sum")
    >>> len(r["loss_aucs"]), r["premises_hold"], r["min_winner"] in ("label", "loss", "tie")
    (3, True, True)
    """
    from bipartite.bayes import NotRepresentableError, label_aggregation, loss_aggregation
    from bipartite.pareto.milp import optimal_ranking

    tol = check_tolerance(tol, "tol")
    check_problem_aucs_defined(problem, "the balance condition")
    if problem.K < 2:
        raise ValueError(f"The 'problem' must have K >= 2 labels (docs/theory.md §12), got "
                         f"K = {problem.K}.")
    pi = problem.pi
    linear = _check_costs(costs)
    a_arr = loss_weights(pi, a)
    b = typical = None
    if not callable(aggregate):
        check_option(aggregate, "aggregate", RATE_AGGREGATES)
        if aggregate == "sum" and linear:
            b = equivalent_loss_weights(pi, w)
        elif aggregate != "sum":
            check_weights_used(aggregate, w)
            typical = aggregate
    tilt = aggregation_tilt(problem, aggregate, w=w, costs=costs, a=a) if problem.K == 2 else None
    r = None if b is None else b / a_arr   # label aggregation's loss weights per unit of a
    same = r is not None and bool(np.all(equal_to_rounding(r, r.max(), r.max())))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            scores = label_aggregation(problem, aggregate=aggregate, w=w, costs=costs)
        except NotRepresentableError:
            scores = optimal_ranking(problem, aggregate=aggregate, w=w, costs=costs)
        A = problem.auc(scores)
        L = A if same else problem.auc(loss_aggregation(problem.eta, pi, a_arr))
    # AUCs can exceed 1 by a rounding ulp; the checks refuse that.
    L, A = np.clip(L, 0.0, 1.0), np.clip(A, 0.0, 1.0)
    row = compare_aucs(L, A, a_arr, b, None if typical is None else
                       typical_point_weights(pi, typical), tol)  # = balance_from_aucs
    row["necessary"] = row["can_win"]
    if tilt is not None:
        row.update(_two_label_fields(L, A, a_arr, tilt, tol))
        row.update(diff_loss=row["spread_loss"], diff_label=row["spread_label"],
                   diff_winner=row["spread_winner"])
    return row


def _check_costs(costs: str | ArrayLike) -> bool:
    """Whether ``costs`` is ``"linear"`` (after checking it by name)."""
    if isinstance(costs, str):
        from bipartite.labels import COST_FAMILIES
        check_option(costs, "costs", COST_FAMILIES)
        return costs == "linear"
    check_array(costs, "costs", ndim=2)
    return False


def _two_label_fields(L: np.ndarray, A: np.ndarray, a_arr: np.ndarray, tilt: Tilt,
                      tol: float) -> dict:
    """The K = 2 quantities of §12.6–§12.8 (chain, overshoot, tilt verdict)."""
    d = A - L
    m = -1 if abs(L[0] - L[1]) <= tol else int(np.argmin(L))
    row = {"loss_1": float(L[0]), "loss_2": float(L[1]), "label_1": float(A[0]),
           "label_2": float(A[1]), "d_1": float(d[0]), "d_2": float(d[1]), "underserved": m,
           "gap": float(abs(L[0] - L[1])), "tilt": tilt.label, "tilt_ratio": tilt.ratio,
           "tilt_proven": tilt.proven, "tilt_rule": tilt.rule}
    up = np.flatnonzero(d > tol)
    row["moved_toward"] = (int(up[0]) if up.size else -1 if np.all(d >= -tol) else None)
    t = tilt.label
    row["can_win"] = None if t is None else bool(t >= 0 and m >= 0 and t == m)
    holds = bool(a_arr @ d <= tol)
    if tilt.proven and t is not None and t >= 0:
        o = 1 - t
        D = a_arr[t] / a_arr[o] * d[t]
        holds &= bool(d[t] >= -tol and D <= -d[o] + tol)
        if tilt.rule == "weighted_sum" and np.isfinite(tilt.ratio):
            holds &= bool(-d[o] <= tilt.ratio * D + tol)
    elif tilt.proven and t == -1:
        holds &= bool(np.all(np.abs(d) <= tol))
    row["chain_holds"] = holds
    row["no_overshoot"] = bool(m >= 0 and -d[1 - m] < row["gap"] - tol)
    return row
