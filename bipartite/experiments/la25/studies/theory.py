"""Which objective is more balanced, K = 2: the exact check of docs/theory.md §12.

For two labels, write ``v_k = π_k(1 − π_k)``, ``b`` for the more balanced label (larger v) and
``s`` for the more skewed one. Loss aggregation (a = 1) maximises AUC_b + AUC_s; label aggregation
by sum with linear costs is loss aggregation with a = v (docs/theory.md §5.3), so it maximises
v_b AUC_b + v_s AUC_s. Comparing the two maximisers gives (docs/theory.md §12)::

    0 ≤ AUC_b(label) − AUC_b(loss) ≤ AUC_s(loss) − AUC_s(label) ≤ (v_b / v_s)(AUC_b(label) − AUC_b(loss))

so label aggregation can be the more balanced one (higher Min AUC, lower Diff AUC) only when loss
aggregation serves the balanced label worse than the skewed one. :func:`balance_comparison`
computes every quantity of that statement on a finite problem (through
:func:`bipartite.pareto.balance_condition`, which holds the condition for every aggregation,
docs/theory.md §12.6–§12.9); the study ``la25.section7_balance``
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


def balance_comparison(problem: FiniteProblem, *, tol: float = 1e-12) -> dict:
    """Per-label AUCs of the two Bayes scorers on a K = 2 finite problem and the quantities of the
    §12 comparison (docs/theory.md §12), in the balanced / skewed terms of §12.2–§12.3.

    The comparison itself is :func:`bipartite.pareto.balance_condition` (label aggregation by sum,
    linear costs, against loss aggregation with a = 1); this adds each label's optimum and names
    the labels by their skew.

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
    from bipartite.pareto import balance_condition

    pi = problem.pi
    c = balance_condition(problem, "sum", tol=tol)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        best = np.array([problem.auc(problem.eta[:, k])[k] for k in range(2)])
    row = {"pi_1": float(pi[0]), "pi_2": float(pi[1]),
           **{k: c[k] for k in ("loss_1", "loss_2", "label_1", "label_2")},
           "best_1": float(best[0]), "best_2": float(best[1]),
           **{k: c[k] for k in ("min_loss", "min_label", "diff_loss", "diff_label", "min_winner",
                                "diff_winner")}}
    b = c["tilt"]  # with w = a = 1, label aggregation moves toward the larger π(1 − π)
    if b == -1:
        return {**row, "balanced": -1, "case": "equal_skew", "harder": "equal", "d_b": 0.0,
                "d_s": 0.0, "inequalities_hold": True}
    s = 1 - b
    m = c["underserved"]
    case = ("equal_auc" if m == -1 else "balanced_underserved" if m == b
            else "skewed_underserved")
    harder = ("equal" if abs(best[b] - best[s]) <= tol
              else "balanced" if best[b] < best[s] else "skewed")
    return {**row, "balanced": b, "case": case, "harder": harder, "d_b": c[f"d_{b + 1}"],
            "d_s": c[f"d_{s + 1}"], "inequalities_hold": c["chain_holds"]}


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
