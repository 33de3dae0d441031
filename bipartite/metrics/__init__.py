"""Exact ranking metrics for one or several binary labels (docs/theory.md §2, §3).

Every AUC in the package — empirical, weighted, multi-label, multipartite, per-group, and the exact
population AUC of :class:`bipartite.population.FiniteProblem` — is the tie-group formula of
docs/theory.md §2.2, computed by one of two private kernels that share it (``bipartite/metrics/_kernels.py``;
the ordinal one in ``_multipartite.py``):

* **Coded sort** (unweighted: :func:`auc`, :func:`multilabel_auc` with few labels,
  :func:`multipartite_auc` with up to 64 levels). The scores become int64 keys that order like
  them (the bit pattern of a double, scaled by a power of two so that low bits are free), the
  labels ride in those low bits (up to ``MAX_BITS`` binary labels, or ⌈log2 L⌉ bits of an
  ordinal level), and one ``np.sort`` of the keys — far faster than ``np.argsort`` — replaces
  the argsort and every gather. Counts are exact integers: the sum of the positives' positions
  gives the pairs counted won, and the tie groups that mix codes correct their pairs to ½
  (``_coded_binary_aucs``); tie-heavy keys are summed by runs of equal keys
  (``_run_position_sums``). Used whenever the non-zero scores span few enough binades (for one
  label nearly always; otherwise the sort-order kernel). Integer and boolean labels are
  validated by one bitwise OR and used as codes without a float copy (``_binary_labels``,
  ``_ordinal_levels``); the NaN/inf check of the scores rides in the exponent pass.
* **Sort order** (sample weights, population masses, many labels or levels, and the fallback):
  an ascending order from one ``np.sort`` of int64 keys that carry the row index in their low
  bits, with the rare runs that the index bits hide re-sorted (``sort_order``, exact, about 2×
  faster than ``np.argsort``). Then, for K labels, the rank route: midranks once and one pass
  over the labels (``_rank_aucs``, linear in K); for one weighted label and for population
  masses, per-tie-group sums of the weights (``ranked_sums``, ``_weighted_label_sums``).
* **Ordinal levels** (:func:`multipartite_auc`, :func:`weighted_multipartite_auc`):
  ``AUC_MP = ½ + ½ A / Z`` with ``A`` the cost-weighted pairs ranked with their levels minus
  those ranked against them. Costs of difference form (linear, gain) reduce to per-level sums
  of the tie-group ranks, O(n) after the sort whatever L is; uniform costs to an inversion
  count of the levels in score order, O(n log L); any other matrix to running per-level sums,
  O(n L) in chunks.

**Per query** (``bipartite/metrics/_sorted_rows.py``): one ``np.sort`` of packed uint64 keys
(query code, a monotone bucket of the score, a carried label or grade, the row index) orders the
rows by (query, score); distinct scores that share a bucket are re-sorted exactly. The sorted keys
are then walked in blocks with the open tie group and each query's running sums carried across
blocks, so :func:`group_auc`, :func:`average_precision`, :func:`ndcg_at_k` and
:func:`grouped_stats` need no array of the input's size besides the keys. With few distinct
scores, the first three take no sort at all: exact ranks of the scores from small hash tables,
then one ``np.bincount`` of (query, score level, label or grade) cells (the table route). The
grouped-AUC engine :class:`QuerySegments` (``_grouped.py``: placements, bootstrap replicates,
per-query multipartite AUC; the diagnostics and the learners use it) takes its order from the
same sort and the per-group formulas from the same module.

Weights are scaled by a power of two first (exact): sums and products of weights cannot under- or
overflow, so every metric is invariant to rescaling the weights. **Ties count ½** everywhere: a
pair with equal scores contributes half a win. With fractional (population) weights a point's
pairing with itself is a tie, so self-pairs are included, as docs/theory.md §2 requires.

Undefined values (a label with only one class, an ordinal label with one level) return NaN with an
:class:`~bipartite.UndefinedMetricWarning`.
"""

from bipartite.metrics._auc import auc, diff_auc, min_auc, multilabel_auc, weighted_auc
from bipartite.metrics._grouped import (
    GAUC_WEIGHTINGS as GAUC_WEIGHTINGS,  # not in __all__: shared with bipartite.diagnostics
)
from bipartite.metrics._grouped import GroupedStats, QueryRows, QuerySegments
from bipartite.metrics._grouped import (
    needs_query_scales as needs_query_scales,  # not in __all__: shared with bipartite.diagnostics
)
from bipartite.metrics._grouped import (
    query_exponents as query_exponents,  # not in __all__: shared with bipartite.diagnostics
)
from bipartite.metrics._grouped import (
    query_major as query_major,  # not in __all__: shared with bipartite.diagnostics
)
from bipartite.metrics._grouped import (
    query_scaled as query_scaled,  # not in __all__: shared with bipartite.diagnostics
)
from bipartite.metrics._multipartite import multipartite_auc, weighted_multipartite_auc
from bipartite.metrics._partial import partial_auc
from bipartite.metrics._per_query import average_precision, group_auc, grouped_stats, ndcg_at_k
from bipartite.metrics._sorted_rows import (
    auc_terms as auc_terms,  # not in __all__: shared with bipartite.diagnostics
)
from bipartite.metrics._sorted_rows import (
    carried_cumsum as carried_cumsum,  # not in __all__: shared with bipartite.diagnostics
)
from bipartite.metrics._sorted_rows import (
    segment_below as segment_below,  # not in __all__: shared with bipartite.diagnostics
)
from bipartite.metrics._sorted_rows import (
    tie_placements as tie_placements,  # not in __all__: shared with bipartite.diagnostics
)
from bipartite.ranked_metrics import (
    ranked_accuracy,
    ranked_exact_match,
    ranked_f1,
    ranked_map,
    ranked_precision,
    ranked_recall,
    ranked_scores,
    unranked_scores,
)

__all__ = [
    # ranked (label-ranking) metrics of RLSEP §5.3, implemented in bipartite.ranked_metrics
    "ranked_scores",
    "ranked_precision",
    "ranked_recall",
    "ranked_f1",
    "ranked_accuracy",
    "ranked_exact_match",
    "ranked_map",
    "unranked_scores",
    "auc",
    "multilabel_auc",
    "multipartite_auc",
    "partial_auc",
    "group_auc",
    "grouped_stats",
    "GroupedStats",
    "QueryRows",
    "QuerySegments",
    "average_precision",
    "ndcg_at_k",
    "diff_auc",
    "min_auc",
    "weighted_auc",
    "weighted_multipartite_auc",
]

# Public here, defined in the private modules: their home is this module (the documentation,
# the fuzz registry and pickles name them ``bipartite.metrics.X``).
for _name in __all__:
    if globals()[_name].__module__.startswith(__name__ + "._"):
        globals()[_name].__module__ = __name__
del _name
