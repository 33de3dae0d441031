"""The aggregation family of LA25 §7 (issue 24): the objectives fitted beside LA25's four rows
when a §7 study runs with ``family=True``
(:mod:`bipartite.experiments.la25.studies.section7`), as learner keyword arguments. A module of
its own, importing only :func:`bipartite.pareto.balance.lexicographic_weights` (the one home of
the lexicographic weights), so that the studies and their tables
(:mod:`bipartite.experiments.la25.figures.family`) both read it.
"""

from __future__ import annotations

import math

from bipartite.pareto.balance import lexicographic_weights

__all__ = ["FAMILY_OBJECTIVES", "FAMILY_RATIOS", "family_weights"]

#: The grid of the aggregation family (issue 24): the ratios w₂/w₁ of label aggregation by a
#: weighted sum and a₂/a₁ of loss aggregation. Ratio 1 is the rows ``label_aggregation`` and
#: ``loss_aggregation`` of :data:`~bipartite.experiments.la25.studies.section7.OBJECTIVES`.
FAMILY_RATIOS = (0.25, 0.5, 1.0, 2.0, 4.0)


def family_weights(ratio: float) -> list[float]:
    """Two weights with ``w₂/w₁ = ratio``, summing to 2 as the ones of the ratio-1 rows do (so the
    pair weights, and the learners' step sizes, stay on one scale across the grid).

    >>> family_weights(4.0), family_weights(1.0)
    ([0.4, 1.6], [1.0, 1.0])
    """
    ratio = float(ratio)
    if not (math.isfinite(ratio) and ratio > 0):
        raise ValueError(f"The 'ratio' parameter must be a positive finite number, got {ratio!r}.")
    return [2.0 / (1.0 + ratio), 2.0 * ratio / (1.0 + ratio)]


#: The aggregation family beside the rows of :data:`OBJECTIVES` (issue 24; fitted when a §7
#: study runs with ``family=True``), as learner keyword arguments:
#:
#: * ``label_sum_<r>``: label aggregation by the weighted sum Ȳ = w₁Y₁ + w₂Y₂, w₂/w₁ = r
#:   (:func:`family_weights`), linear costs; Bayes scorer w₁η₁ + w₂η₂ (docs/theory.md §5.2);
#: * ``label_or`` / ``label_and``: label aggregation by OR (max) / AND (product), a binary Ȳ;
#:   Bayes scorer P(Ȳ = 1 | x), a cell of the joint (``1 − Q(0,0 | x)``, ``Q(1,1 | x)``);
#: * ``label_lex_12`` / ``label_lex_21``: lexicographic aggregation, label 1 (resp. 2) first: the
#:   four label vectors as ordinal levels in lexicographic order, Ȳ = 2Y₁ + Y₂ (resp. Y₁ + 2Y₂),
#:   with **uniform** costs, so only the order of the levels counts. (With linear costs the
#:   same Ȳ is the weighted sum w₂/w₁ = ½ (resp. 2), already on the grid.) Four levels with
#:   uniform costs have no closed-form Bayes scorer in general (docs/theory.md §3.5, §5.2): the
#:   synthetic study has no Bayes row for them, only learners;
#: * ``loss_a_<r>``: loss aggregation with a₂/a₁ = r (:func:`family_weights`).
FAMILY_OBJECTIVES: dict[str, dict] = {
    **{f"label_sum_{r:g}": {"objective": "label_aggregation", "w": family_weights(r)}
       for r in FAMILY_RATIOS if r != 1.0},
    "label_or": {"objective": "label_aggregation", "aggregate": "or"},
    "label_and": {"objective": "label_aggregation", "aggregate": "product"},
    "label_lex_12": {"objective": "label_aggregation", "w": lexicographic_weights([0, 1]).tolist(),
                     "costs": "uniform"},
    "label_lex_21": {"objective": "label_aggregation", "w": lexicographic_weights([1, 0]).tolist(),
                     "costs": "uniform"},
    **{f"loss_a_{r:g}": {"objective": "loss_aggregation", "a": family_weights(r)}
       for r in FAMILY_RATIOS if r != 1.0},
}
