"""The exact population minimiser of the pairwise surrogate risk (docs/theory.md §9.1).

Its home is :mod:`bipartite.consistency` (issue 21); the §7 gap study that uses it is
:mod:`bipartite.experiments.la25.studies.gap`, its tables and figures
:mod:`bipartite.experiments.la25.figures.section7`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from bipartite.population import FiniteProblem

__all__ = ["pairwise_population_minimizer"]


def pairwise_population_minimizer(problem: FiniteProblem, *, surrogate: str = "logistic",
                                  objective: str = "loss_aggregation", gtol: float = 1e-9
                                  ) -> np.ndarray:
    """Exact minimiser of the pairwise surrogate risk ``Σ_{i≠j} W_ij φ(f_i − f_j)`` on a finite
    problem (docs/theory.md §9.1), by L-BFGS with the analytic gradient, for supports too large
    for :func:`bipartite.consistency.surrogate_minimizer` (cvxpy): O(n²) memory and time per
    step. ``W`` is :func:`bipartite.consistency.objective_pair_weights` (``objective`` with its
    default weights), rescaled to sum to n (a scale does not move the minimiser); φ is
    ``softplus(−d)`` (logistic) or ``exp(−d)`` (exponential). The minimiser exists when every
    ``W_ij > 0`` (η strictly inside (0, 1)); the scores are centred to sum 0.

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.5, 0.5], [[0.8], [0.3]])
    >>> f = pairwise_population_minimizer(P, surrogate="exponential")
    >>> bool(f[0] > f[1]), round(float(f[0] - f[1]), 6)  # ½ log of the odds ratio
    (True, 1.116796)
    """
    from scipy import optimize

    from bipartite.consistency import objective_pair_weights, smooth_pair_loss

    if surrogate not in ("logistic", "exponential"):
        raise ValueError(f"The 'surrogate' parameter must be 'logistic' or 'exponential', got "
                         f"{surrogate!r}.")
    W = objective_pair_weights(problem, objective=objective)
    np.fill_diagonal(W, 0.0)
    W *= len(W) / W.sum()

    def risk(f):
        phi, dphi = smooth_pair_loss(surrogate, f[:, None] - f[None, :], order=1)
        G = -W * dphi  # G_ij = −W_ij φ'(f_i − f_j) ≥ 0
        return float((W * phi).sum()), G.sum(axis=0) - G.sum(axis=1)

    res = optimize.minimize(risk, np.zeros(len(W)), jac=True, method="L-BFGS-B",
                            options={"maxiter": 20000, "gtol": gtol, "ftol": 1e-16,
                                     "maxcor": 30})
    return res.x - res.x.mean()
