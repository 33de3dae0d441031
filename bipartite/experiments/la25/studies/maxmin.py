"""Balanced ranking in the LA25 §7 protocol: the max-min AUC objective beside loss and label
aggregation (docs/theory.md §13; issue 13).

The §7 studies (:mod:`bipartite.experiments.la25.studies.section7`) take ``max_min=True`` and
then fit, with the same learners, seeds, splits and test rows, the two max-min rows of
:data:`~bipartite.experiments.la25.studies.section7.MAX_MIN_OBJECTIVES` (pairwise group DRO and
plug-in). This module holds what that needs:

* :func:`max_min_bracket` and :func:`max_min_gap_columns` — on synthetic data, the max-min
  value of the test population (a finite problem of 20 000 points with exact conditional
  labels) bracketed between the best weighting's Min AUC and a weak-duality bound, both exact,
  and every scorer's gap to it; the bracket holds both :func:`bipartite.pareto.max_min_point`'s
  and :func:`bipartite.pareto.max_min_supported`'s value, which cannot be run at that size;
* the study ``la25.maxmin_frequency`` — how often the max-min point of
  ``FiniteProblem.random(n, K, seed)`` is unsupported, and the gap (docs/theory.md §13.4).

Tables, figures and the ``summary.md`` section: :mod:`bipartite.experiments.la25.figures.maxmin`.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from bipartite.studies.config import register_study
from bipartite.studies.constraints import Range

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from bipartite.population import FiniteProblem

__all__ = ["la25_maxmin_frequency", "max_min_bracket", "max_min_gap_columns"]


# --------------------------------------------------------------------------------------------
# Synthetic: the supported optimum on the test population and exact gaps on sub-problems
# --------------------------------------------------------------------------------------------

def max_min_bracket(problem: FiniteProblem, t: ArrayLike, *, rounds: int = 3, n_grid: int = 101) -> dict[str, Any]:
    """The max-min value of a K = 2 finite problem bracketed from the loss-aggregation path, with
    a certificate, at any n (docs/theory.md §13.2–13.3).

    Along ``a = (1 − λ, λ)`` the scorer ``f_λ`` (:func:`bipartite.bayes.loss_aggregation` with
    the problem's own priors ``problem.pi``, which normalise its AUCs) maximises ``(1 − λ) AUC₁ + λ AUC₂`` over **all** weak orders, so for every λ

    ``min_k AUC_k(f_λ) ≤ t_sup ≤ t* ≤ D(λ) = (1 − λ) AUC₁(f_λ) + λ AUC₂(f_λ)``

    (the right inequality is weak duality: ``min_k x_k ≤ (1 − λ)x₁ + λx₂ ≤ D(λ)`` for every
    achievable x). Starting from the weights ``(1 − t, t)`` for ``t`` in ``t``, ``rounds`` times a grid of ``n_grid`` values between the
    neighbours of the best λ so far is evaluated (the min along the path is quasi-concave, so the
    bracket holds its maximiser). Returns ``lam`` and ``a`` (the best weighting found),
    ``lower`` (its Min AUC: a lower bound on both ``t_sup = max_min_supported(problem).value`` and
    ``t* = max_min_point(problem).value``), ``upper`` (the smallest ``D(λ)`` evaluated: an upper
    bound on both) and ``evaluated``. The width ``upper − lower`` bounds the max-min gap; on a
    test population of n equal masses it is of the order of one pair's swap gain, ``~1/n²``,
    while :func:`bipartite.pareto.max_min_point` is limited to n ≈ 40."""
    from bipartite.pareto import weight_sweep

    pi = problem.pi
    lam = np.unique(np.concatenate([np.asarray(t, dtype=float), [0.0, 1.0]]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, aucs = weight_sweep(pi=pi, problem=problem, a=np.column_stack([1 - lam, lam]))
    for _ in range(rounds):
        vals = aucs.min(axis=1)
        top = lam[vals >= vals.max() - 1e-15]   # the maximisers so far (an interval's points)
        below, above = lam[lam < top.min()], lam[lam > top.max()]
        lo = below.max() if len(below) else 0.0
        hi = above.min() if len(above) else 1.0
        grid = np.linspace(lo, hi, n_grid)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, new = weight_sweep(pi=pi, problem=problem, a=np.column_stack([1 - grid, grid]))
        lam, aucs = np.concatenate([lam, grid]), np.vstack([aucs, new])
    vals = aucs.min(axis=1)
    b = int(np.argmax(vals))
    dual = (1.0 - lam) * aucs[:, 0] + lam * aucs[:, 1]
    return {"lam": float(lam[b]), "a": np.array([1.0 - lam[b], lam[b]]),
            "lower": float(vals[b]), "upper": float(dual.min()), "evaluated": len(lam)}


def max_min_gap_columns(rows: list[dict], bracket: dict[str, Any]) -> None:
    """Add to every row with a scorer (not the ``frontier`` or grid ``max_min`` rows) its gap to
    the max-min point of the test population, in place: ``t_star_lo, t_star_hi`` (the bracket of
    :func:`max_min_bracket`, which holds both the exact max-min value over all weak orders and
    the best weighting's), ``gap_lo = t_star_lo − min`` and ``gap_hi = t_star_hi − min``: the
    scorer's Min AUC is below the max-min point by a gap in ``[gap_lo, gap_hi]``."""
    lo, hi = bracket["lower"], bracket["upper"]
    for r in rows:
        if r["learner"] == "bayes" and r["objective"] in ("frontier", "max_min"):
            continue
        r.update({"t_star_lo": lo, "t_star_hi": hi, "gap_lo": lo - r["min"],
                  "gap_hi": hi - r["min"]})


# --------------------------------------------------------------------------------------------
# How often the max-min point is unsupported
# --------------------------------------------------------------------------------------------

@register_study("la25.maxmin_frequency",
                constraints={"n": Range(1, integer=True), "K": Range(1, integer=True),
                             "first_seed": Range(0, integer=True),
                             "n_problems": Range(1, integer=True)})
def la25_maxmin_frequency(*, seed: int, n: int, K: int = 2, first_seed: int = 0,
                          n_problems: int = 25) -> list[dict]:
    """The max-min point against the best loss-aggregation weighting on
    ``FiniteProblem.random(n, K, s)`` for ``s = first_seed, …, first_seed + n_problems − 1``
    (docs/theory.md §13.4; the problem seeds are fixed, so the runner's ``seed`` is unused and
    the rows equal ``python benchmarks/bench_maxmin.py --part freq``'s).

    One row per problem: ``problem_seed``, ``t_star`` (:func:`bipartite.pareto.max_min_point`,
    exact), ``t_sup`` (:func:`bipartite.pareto.max_min_supported`), ``gap``, ``unsupported``
    (gap > 1e-9), ``tie`` (the best weighting is a tie order), ``auc_1, auc_2`` of the max-min
    point, ``sup_auc_1, sup_auc_2`` of the best weighting.

    >>> r = la25_maxmin_frequency(seed=0, n=6, first_seed=36, n_problems=1)[0]
    >>> round(r["gap"], 4), r["unsupported"]
    (0.0289, True)
    """
    from bipartite.pareto import max_min_point, max_min_supported
    from bipartite.population import FiniteProblem

    rows = []
    for s in range(int(first_seed), int(first_seed) + int(n_problems)):
        P = FiniteProblem.random(int(n), int(K), seed=s)
        top, sup = max_min_point(P), max_min_supported(P)
        gap = max(top.value - sup.value, 0.0)
        rows.append({"problem_seed": s, "t_star": top.value, "t_sup": sup.value, "gap": gap,
                     "unsupported": bool(gap > 1e-9), "tie": bool(sup.tie),
                     **{f"auc_{k + 1}": float(top.auc[k]) for k in range(int(K))},
                     **{f"sup_auc_{k + 1}": float(sup.auc[k]) for k in range(int(K))}})
    return rows


# --------------------------------------------------------------------------------------------
# The pinned problem and its frontier figure
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# summary.md
# --------------------------------------------------------------------------------------------

