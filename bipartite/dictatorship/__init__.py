"""Label dictatorship: diagnostics in theory and on data (docs/theory.md §7; LA25 §6, Prop 6.1, Fig. 1).

With deterministic labels (η_k ∈ {0, 1}) loss aggregation ranks by ``Σ_k α_k y_k`` with the
effective weights ``α_k = a_k / (π_k (1 − π_k))`` of docs/theory.md §4. Label ``k`` is a **dictator** when
every instance with ``y_k = 1`` is ranked strictly above every instance with ``y_k = 0``, whatever
the other labels say; this happens if ``α_k > Σ_{j≠k} α_j``, and only if when every label
combination has positive mass (LA25 Prop 6.1).

* Theory: :func:`effective_weights` (re-exported from :mod:`bipartite.bayes`, the one
  implementation), :func:`effective_weight_shares`, :func:`dictator`, :func:`dictator_threshold`,
  :func:`label_vector_order` (the partial orders of LA25 Fig. 1 for any K).
* Data: :func:`cross_pair_win_rate` (``W_{k>j}``), :func:`near_tie_rate` (one pair);
  :func:`cross_pair_win_rates`, :func:`near_tie_rates` (all ``K (K − 1)`` ordered pairs, validated
  once, one sort: O(n K²) time, O(n K) memory; K = 174 on CAL500 in milliseconds);
  :func:`report`.
* Population: :func:`population_win_rate` on a :class:`~bipartite.population.FiniteProblem`.

The parts live in private rooms that this module only re-exports: ``_theory`` (effective-weight
shares, the dictator, its threshold), ``_orders`` (the Fig. 1 orders and the CLI's tables),
``_win_rates`` (the win and near-tie rates, one all-pairs kernel) and ``_report``.

**Ties** count ½ in every win rate, as in the AUC (docs/theory.md §2); on a finite population a point's
pairing with itself is a tie (self-pairs included).
"""

from __future__ import annotations

from bipartite.bayes import effective_weights
from bipartite.dictatorship._orders import ORDER_KINDS, label_vector_order
from bipartite.dictatorship._orders import dictatorship_tables as dictatorship_tables
from bipartite.dictatorship._report import DictatorshipReport, report
from bipartite.dictatorship._report import dictatorship_index as dictatorship_index
from bipartite.dictatorship._theory import dictator, dictator_threshold, effective_weight_shares
from bipartite.dictatorship._win_rates import (
    cross_pair_win_rate,
    cross_pair_win_rates,
    near_tie_rate,
    near_tie_rates,
    population_win_rate,
)
from bipartite.dictatorship._win_rates import pair_rates_checked as pair_rates_checked

__all__ = [
    "effective_weights",
    "effective_weight_shares",
    "dictator",
    "dictator_threshold",
    "cross_pair_win_rate",
    "near_tie_rate",
    "cross_pair_win_rates",
    "near_tie_rates",
    "DictatorshipReport",
    "report",
    "population_win_rate",
    "label_vector_order",
    "ORDER_KINDS",
]

for _obj in (effective_weight_shares, dictator, dictator_threshold, cross_pair_win_rate,
             near_tie_rate, cross_pair_win_rates, near_tie_rates, DictatorshipReport, report,
             population_win_rate, label_vector_order, dictatorship_tables, pair_rates_checked,
             dictatorship_index):
    _obj.__module__ = __name__  # documented, pickled and registered under bipartite.dictatorship
del _obj
