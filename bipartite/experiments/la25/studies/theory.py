"""Which objective is more balanced, K = 2: the exact check of docs/theory.md §12.

For two labels, write ``v_k = π_k(1 − π_k)``, ``b`` for the more balanced label (larger v) and
``s`` for the more skewed one. Loss aggregation (a = 1) maximises AUC_b + AUC_s; label aggregation
by sum with linear costs is loss aggregation with a = v (docs/theory.md §5.3), so it maximises
v_b AUC_b + v_s AUC_s. Comparing the two maximisers gives (docs/theory.md §12)::

    0 ≤ AUC_b(label) − AUC_b(loss) ≤ AUC_s(loss) − AUC_s(label) ≤ (v_b / v_s)(AUC_b(label) − AUC_b(loss))

so label aggregation can be the more balanced one (higher Min AUC, lower Diff AUC) only when loss
aggregation serves the balanced label worse than the skewed one. :func:`balance_comparison`
computes every quantity of that statement on a finite problem; the study ``la25.section7_balance``
counts, over random problems (:meth:`bipartite.population.FiniteProblem.random`), how often each
objective wins and checks that the inequalities never fail.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from bipartite.experiments.la25.figures.section7 import balance_figures
from bipartite.studies.config import register_study

if TYPE_CHECKING:

    from bipartite.population import FiniteProblem

__all__ = ["balance_comparison", "la25_section7_balance"]


def _winner(label: float, loss: float, *, higher_is_better: bool, tol: float) -> str:
    if abs(label - loss) <= tol:
        return "tie"
    return "label" if (label > loss) == higher_is_better else "loss"


def balance_comparison(problem: FiniteProblem, *, tol: float = 1e-12) -> dict:
    """Per-label AUCs of the two Bayes scorers on a K = 2 finite problem and the quantities of the
    §12 comparison (docs/theory.md §12).

    Returns a dict with ``pi_1, pi_2``; ``balanced`` (index of the label with the larger
    π(1 − π), −1 if equal to ``tol``); ``loss_1, loss_2`` and ``label_1, label_2`` (AUCs of the
    loss-aggregation (a = 1) and label-aggregation (sum, linear costs) Bayes scorers);
    ``best_1, best_2`` (each label's optimum, AUC_k(η_k)); ``d_b = AUC_b(label) − AUC_b(loss)``,
    ``d_s``; ``case`` — ``"balanced_underserved"`` (loss aggregation gives the balanced label the
    lower AUC), ``"skewed_underserved"``, ``"equal_auc"`` or ``"equal_skew"``; ``min_winner`` and
    ``diff_winner`` (``"label"``, ``"loss"``, ``"tie"``); ``harder`` (``"balanced"``,
    ``"skewed"`` or ``"equal"``: the label with the lower optimum); and ``inequalities_hold``
    (the chain of the module docstring, to ``tol``).

    >>> from bipartite.population import FiniteProblem
    >>> r = balance_comparison(FiniteProblem.random(6, 2, seed=1))
    >>> r["inequalities_hold"], r["case"] in ("balanced_underserved", "skewed_underserved")
    (True, True)
    """
    from bipartite.bayes import label_aggregation_scores, loss_aggregation
    from bipartite.metrics import diff_auc, min_auc

    pi = problem.pi
    v = pi * (1.0 - pi)
    equal_skew = abs(v[0] - v[1]) <= tol * max(v.max(), 1e-300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        A = problem.auc(label_aggregation_scores(problem.eta))
        # Equal skew: a = 1 and a = v are proportional, so the two objectives are the same; the
        # loss scorer Σ η_k/v_k would only split label-aggregation ties by rounding ulps.
        L = A if equal_skew else problem.auc(loss_aggregation(problem.eta, pi))
        best = np.array([problem.auc(problem.eta[:, k])[k] for k in range(2)])
    # AUCs can exceed 1 by a rounding ulp (1.0000000000000002); diff_auc/min_auc refuse that.
    L, A = np.clip(L, 0.0, 1.0), np.clip(A, 0.0, 1.0)
    row = {"pi_1": float(pi[0]), "pi_2": float(pi[1]), "loss_1": float(L[0]),
           "loss_2": float(L[1]), "label_1": float(A[0]), "label_2": float(A[1]),
           "best_1": float(best[0]), "best_2": float(best[1]),
           "min_loss": min_auc(L), "min_label": min_auc(A), "diff_loss": diff_auc(L),
           "diff_label": diff_auc(A)}
    row["min_winner"] = _winner(row["min_label"], row["min_loss"], higher_is_better=True, tol=tol)
    row["diff_winner"] = _winner(row["diff_label"], row["diff_loss"], higher_is_better=False,
                                 tol=tol)
    if equal_skew:
        return {**row, "balanced": -1, "case": "equal_skew", "harder": "equal", "d_b": 0.0,
                "d_s": 0.0, "inequalities_hold": True}
    b = int(np.argmax(v))
    s = 1 - b
    d_b, d_s = float(A[b] - L[b]), float(A[s] - L[s])
    if abs(L[b] - L[s]) <= tol:
        case = "equal_auc"
    else:
        case = "balanced_underserved" if L[b] < L[s] else "skewed_underserved"
    harder = ("equal" if abs(best[b] - best[s]) <= tol
              else "balanced" if best[b] < best[s] else "skewed")
    holds = bool(d_b >= -tol and d_s <= -d_b + tol and v[s] * -d_s <= v[b] * d_b + tol)
    return {**row, "balanced": b, "case": case, "harder": harder, "d_b": d_b, "d_s": d_s,
            "inequalities_hold": holds}


@register_study("la25.section7_balance", figures=balance_figures)
def la25_section7_balance(*, seed: int, n: int = 6, deterministic: bool = False,
                          n_problems: int = 200, frontier: bool = False,
                          frontier_rows: int = 10) -> list[dict]:
    """Which Bayes scorer is more balanced on ``n_problems`` random K = 2 problems
    (docs/theory.md §12).

    Draws ``FiniteProblem.random(n, 2, deterministic=…)`` from ``numpy.random.default_rng(seed)``
    (redrawn while a prior is 0 or 1) and returns one ``kind="problem"`` row per problem
    (:func:`balance_comparison`, plus ``problem`` = its index). With ``frontier=True`` (n ≤ 10)
    the first ``frontier_rows`` problems also get their exact frontier
    (:func:`bipartite.pareto.exact_frontier`): its points (``kind="frontier"``, ``auc_1, auc_2``)
    for the figure, and ``max_min``, the best Min AUC over all rankings.

    >>> rows = la25_section7_balance(seed=0, n=4, n_problems=5)
    >>> len(rows), all(r["inequalities_hold"] for r in rows)
    (5, True)
    """
    from bipartite.pareto import exact_frontier
    from bipartite.population import FiniteProblem

    rng = np.random.default_rng(seed)
    rows: list[dict] = []
    i = 0
    while i < n_problems:
        problem = FiniteProblem.random(n, 2, seed=rng, deterministic=deterministic)
        if np.any((problem.pi < 1e-9) | (problem.pi > 1 - 1e-9)):
            continue
        row = {"kind": "problem", "problem": i, **balance_comparison(problem)}
        if frontier and i < frontier_rows:
            F = exact_frontier(problem)
            row["max_min"] = float(F.min(axis=1).max())
            rows += [{"kind": "frontier", "problem": i, "auc_1": float(p[0]),
                      "auc_2": float(p[1])} for p in F]
        rows.append(row)
        i += 1
    return rows
