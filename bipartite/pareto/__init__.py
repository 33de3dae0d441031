"""Pareto optimality of per-label AUCs on finite-support problems (docs/theory.md §6, LA25 §3).

On a :class:`~bipartite.population.FiniteProblem` with ``n`` points the achievable set is the
finite set of AUC vectors ``(AUC_1, ..., AUC_K)`` of all weak orders of the points (ties count ½,
self-pairs included, docs/theory.md §2). This module computes

* :func:`exact_frontier` — every Pareto-optimal AUC vector, by a dynamic programme over subsets
  of points (n ≤ 12 by default: ~1 s at n = 10) or an ε-constraint recursion over a weak-order
  mixed-integer linear program (MILP), or an ε-approximate subset of it (the MILP sweep is
  seeded with the supported vertices, which are computed by sorting);
* :func:`supported_frontier` — the supported points (vertices of the convex hull that a sweep of
  the loss-aggregation weights reaches), from the exact breakpoints of the sweep (K = 2);
* :func:`is_pareto_optimal` — a MILP certificate for one scorer;
* :func:`pareto_filter`, :func:`dominates`, :func:`hypervolume` — point-set utilities;
* :func:`max_min_point`, :func:`max_min_supported`, :func:`max_min_gap`,
  :func:`balanced_weights`, :func:`reachable_orders` — the max-min (egalitarian) AUC point over
  all weak orders and over the loss-aggregation scorers (docs/theory.md §13);
* :func:`balance_condition`, :func:`aggregation_tilt`, :func:`weighted_sum_tilt`,
  :func:`exchange_rates`, :func:`lexicographic_weights` — which objective's Bayes scorer is the
  more balanced, loss aggregation or a label aggregation (docs/theory.md §12); for any K,
  :func:`balance_from_aucs` compares two given AUC vectors (K up to hundreds, no finite
  problem needed), with :func:`equivalent_loss_weights` (a weighted sum as loss aggregation) and
  :func:`typical_point_weights` (AND / OR linearised at η = π, a heuristic) (§12.11–§12.14);
* :func:`weight_sweep` — per-label AUCs along a path of loss-aggregation weights (samples or
  exact populations).

**The weak-order MILP** (docs/theory.md §6; one private builder, :class:`WeakOrderMILP`, also serves
:func:`bipartite.pareto.optimal_ranking`). Binary ``z_ij`` ("i ranked at least as high as j") for
every ordered pair ``i ≠ j``; completeness ``z_ij + z_ji ≥ 1``; transitivity
``z_ij + z_jk − z_ik ≤ 1`` for every ordered triple; ``S_ij = (z_ij + 1 − z_ji)/2``, ``S_ii = ½``.
Any objective ``Σ_ij W_ij S_ij`` is then ``Σ W / 2 + Σ_{i≠j} (W_ij − W_ji)/2 · z_ij``: linear.
The program has ``n(n−1)`` binaries and ``n(n−1)/2 + n(n−1)(n−2)`` constraints plus one row per
objective (the ε-constraint thresholds).

It is solved with HiGHS through ``highspy`` directly: the model is built once and every
ε-constraint solve only changes row bounds and the objective, and the lexicographic second solve is
warm-started with the first solve's solution (``Highs.setSolution``). cvxpy's HiGHS interface
(cvxpy 1.9) re-builds and re-passes the whole model at every ``solve`` and its ``warm_start``
only hands HiGHS the *previous* solution, which the next ε-constraint solve makes infeasible; it is
available as ``backend="cvxpy"`` (same model, cvxpy ``Parameter`` thresholds) for cross-checks and
the benchmark.
"""

from bipartite.pareto.balance import (
    Tilt,
    aggregation_tilt,
    balance_condition,
    exchange_rates,
    lexicographic_weights,
    weighted_sum_tilt,
)
from bipartite.pareto.balance_k import (
    balance_from_aucs,
    equivalent_loss_weights,
    typical_point_weights,
)
from bipartite.pareto.dominance import dominates, hypervolume, pareto_filter
from bipartite.pareto.dp import DP_MAX_N, DP_MAX_N_K2, dp_limit, subset_dp
from bipartite.pareto.frontier import (
    exact_frontier,
    frontier_table,
    is_pareto_optimal,
    supported_frontier,
)
from bipartite.pareto.maxmin import MAXMIN_DP_MAX_N, MaxMinPoint, max_min_gap, max_min_point
from bipartite.pareto.milp import WeakOrderMILP, milp_size, optimal_ranking
from bipartite.pareto.supported import (
    BalancedWeights,
    SupportedMaxMin,
    balanced_weights,
    max_min_supported,
    reachable_orders,
)
from bipartite.pareto.sweep import simplex_grid, weight_sweep

__all__ = [
    "Tilt",
    "aggregation_tilt",
    "balance_condition",
    "balance_from_aucs",
    "equivalent_loss_weights",
    "typical_point_weights",
    "exchange_rates",
    "lexicographic_weights",
    "weighted_sum_tilt",
    "BalancedWeights",
    "DP_MAX_N",
    "DP_MAX_N_K2",
    "dp_limit",
    "MAXMIN_DP_MAX_N",
    "MaxMinPoint",
    "SupportedMaxMin",
    "WeakOrderMILP",
    "balanced_weights",
    "dominates",
    "exact_frontier",
    "frontier_table",
    "hypervolume",
    "is_pareto_optimal",
    "max_min_gap",
    "max_min_point",
    "max_min_supported",
    "milp_size",
    "optimal_ranking",
    "pareto_filter",
    "reachable_orders",
    "simplex_grid",
    "subset_dp",
    "supported_frontier",
    "weight_sweep",
]
