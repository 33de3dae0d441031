"""
The Pareto frontier of a small problem
======================================

On a finite-support problem every scorer is, for ranking purposes, a weak order of the support
points, so the set of achievable per-label AUC vectors is finite and its Pareto frontier can be
computed exactly (docs/theory.md §6). This example computes it for a random problem with
``n = 6`` points and ``K = 2`` labels, then compares it with

* the **supported** points: the convex-hull vertices, the only Pareto points that loss
  aggregation ``max a_1 AUC_1 + a_2 AUC_2`` can reach, whatever the weights;
* the **weight sweep**: the Bayes scorers of loss aggregation along a path of weights;
* the Bayes scorers of **label aggregation** by sum (``Y_1 + Y_2``) and by product (``Y_1 Y_2``).
"""

# %%
# A random problem
# ----------------
# :py:meth:`~bipartite.population.FiniteProblem.random` draws point masses and, for every point,
# an arbitrary conditional joint of the two labels. ``eta`` holds ``P(Y_k = 1 | x_i)`` and
# ``pi`` the priors.
import numpy as np

from bipartite.bayes import label_aggregation, loss_aggregation
from bipartite.pareto import exact_frontier, supported_frontier, weight_sweep
from bipartite.plots import plot_frontier
from bipartite.population import FiniteProblem

problem = FiniteProblem.random(6, 2, seed=7)
print(problem)
print("priors:", problem.pi.round(3))

# %%
# Exact and supported frontiers
# -----------------------------
# :py:func:`~bipartite.pareto.exact_frontier` uses a dynamic programme over subsets of points
# (milliseconds at this size); :py:func:`~bipartite.pareto.supported_frontier` reads the hull
# vertices off the exact breakpoints of the weight sweep.
exact = exact_frontier(problem)
supported = supported_frontier(problem)
print(f"{len(exact)} Pareto-optimal AUC vectors, {len(supported)} of them supported")

# A Pareto point that is not a hull vertex is *unsupported*: no weighting of the AUCs finds it.
# Unsupported points can be the more balanced ones (docs/theory.md §13): compare the best
# worst-label AUC over all Pareto points with the best over the supported ones.
on_hull = (np.abs(exact[:, None, :] - supported[None, :, :]).max(axis=2) < 1e-9).any(axis=1)
print(f"{np.count_nonzero(~on_hull)} Pareto points are unsupported")
print(f"best min-AUC: {exact.min(axis=1).max():.4f} over all Pareto points, "
      f"{supported.min(axis=1).max():.4f} over the supported ones")

# %%
# Loss aggregation versus label aggregation
# -----------------------------------------
# The Bayes scorer of loss aggregation with equal weights is
# ``η_1 / (π_1 (1 − π_1)) + η_2 / (π_2 (1 − π_2))``
# (:py:func:`~bipartite.bayes.loss_aggregation`); label aggregation by a sum ranks by
# ``E[Y_1 + Y_2 | x]``, by a product by ``P(Y_1 = Y_2 = 1 | x)``
# (:py:func:`~bipartite.bayes.label_aggregation`). ``problem.auc`` gives the exact population
# AUCs of any scorer (ties count ½).
points = {
    "loss aggregation, a = (1, 1)": problem.auc(loss_aggregation(problem.eta, problem.pi)),
    "label aggregation, sum": problem.auc(label_aggregation(problem, aggregate="sum")),
    "label aggregation, product": problem.auc(label_aggregation(problem, aggregate="product")),
}


def dominated(x, frontier, tol=1e-12):
    """Whether some frontier point is at least as good on every label and better on one."""
    return bool(((frontier >= x - tol).all(axis=1) & (frontier > x + tol).any(axis=1)).any())


for name, aucs in points.items():
    verdict = "dominated" if dominated(aucs, exact) else "Pareto-optimal"
    print(f"{name:28s} AUC = {aucs.round(4)}  {verdict}")

# %%
# The figure
# ----------
# :py:func:`~bipartite.plots.plot_frontier` draws the exact points (circles), the supported
# vertices (squares joined by the hull), the weight sweep (dots) and the label-aggregation scorers.
# The Bayes scorers of loss aggregation lie on the hull by construction; the product scorer of
# label aggregation is dominated here: another order of the six points is better on both labels.
_, sweep = weight_sweep(problem=problem, n_weights=201)
fig = plot_frontier(exact=exact, supported=supported, sweep=sweep, label_points=points,
                    title="n = 6, K = 2: exact and supported frontiers")
