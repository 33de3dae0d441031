"""Diagnose your own scores: per-label AUCs with uncertainty, query-level AUCs, label dictatorship
and paired comparisons of scorers (docs/theory.md §2, §4, §7).

:func:`diagnose` reads a table of scores, binary labels, optional query ids and row weights (a
DataFrame, a mapping of columns, or a CSV/Parquet file, :func:`load_scores`) and reports, per
scorer: the **per-label AUC** (pooled over rows, ties ½) with the interval ``AUC ± z·se``
(clipped to [0, 1]) — ``se`` from DeLong (:func:`delong_auc_variance`) for pooled rows, from a
seeded **bootstrap over queries** when query ids are given (rows of a query are not
independent; the bootstrap variance is multiplied by ``G/(G − 1)``, its bias when resampling G
clusters; with few queries, say G < 30, the intervals still run narrow); the **gAUC** of every
label (:func:`bipartite.metrics.group_auc`) with its interval and the **per-query × per-label**
AUCs; the **cross-pair win rates** ``W_{k>j}`` (docs/theory.md §7.5: who wins the (k only) vs
(j only) pairs, ½ even-handed) with intervals and the near-tie rate; **Diff** and **Min AUC**
(percentile bootstrap intervals). For the labels: the priors π̂_k, the effective weights
``α_k = 1/(π_k(1−π_k))`` of loss aggregation with ``a = 1``, their shares and the dictator it
would produce (:func:`bipartite.dictatorship.dictator`). For each pair of scorers: the paired
AUC (and gAUC) difference per label, with DeLong's paired test (pooled rows) or the paired query
bootstrap.

**What the report says.** It states the gAUC definition in use (``gauc_weighting``:
pair-weighted by default, query-averaged with ``"uniform"``). The dictatorship section puts side
by side what loss aggregation with ``a = 1`` *would* favour (theory: the α shares, a property of
the priors alone) and what each of your scorers *does* favour (observed: its mean and minimum
``W_{k>j}`` over the other labels; ``tables["dictatorship"]``). Any number of scorers: every pair
is compared per label, and the p-values are also given Holm-adjusted (``p_holm``, one family per
metric). With many labels (K(K − 1)/2 pairs) the printed pair table keeps the pairs among the 3
most and 3 least skewed labels and then the most lopsided ones, up to ``max_pairs`` (30), and
says how many it left out; every pair stays in ``tables["win_rates"]``. All label pairs come
from one sort of each scorer, in blocks (CAL500, K = 174, 15 051 pairs: about 3 s for the whole
report). Input: a pandas, polars or pyarrow table, a mapping of columns, a CSV/TSV/Parquet file
or standard input (``"-"``); labels 0/1, or two values with ``positive_label``; ``dropna=True``
drops rows with a missing value (counted in ``meta["n_dropped"]``). In a notebook a
:class:`Diagnostics` displays itself as the report (``_repr_html_``, ``_repr_markdown_``).

Labels and scorers keep their column names everywhere. Undefined values (a label with one class,
an empty cross-pair set, a query without both classes) are NaN in the tables and ``null`` in the
JSON, always with a reason in the row's ``note``.

The package is a report layer over the grouped-AUC engine of :mod:`bipartite.metrics`
(:class:`~bipartite.metrics.QuerySegments`: every AUC, placement, per-query AUC and bootstrap
replicate comes from its one sort per scorer): ``_tables`` reads the table, ``_inference`` holds
DeLong, the bootstrap kernel and the interval helpers, ``_pairs`` the statistics of all label
pairs at once, ``_dictator`` the theory-against-observed table, ``_diagnose`` the named steps of
:func:`diagnose`, ``_report`` the result (:class:`Diagnostics`).

**Out of core.** :func:`placement_stats` computes the report's sufficient statistics exactly on
data larger than memory, on dask (a Parquet folder or a dask DataFrame; a local cluster or a
running scheduler): per scorer, label and cross pair, the per-query sums of DeLong's placements
(global and within the query) and their second moments; :meth:`PlacementStats.summary` gives the
AUCs, W_{k>j}, DeLong variances (unclustered and query-clustered) and gAUCs
(``_dask``; docs/out_of_core.md).
"""

from __future__ import annotations

from bipartite.diagnostics._dask import PlacementStats, placement_stats
from bipartite.diagnostics._diagnose import MAX_BOOT_BYTES, MAX_N_BOOT, diagnose
from bipartite.diagnostics._inference import delong_auc_variance, delong_paired_test
from bipartite.diagnostics._report import Diagnostics
from bipartite.diagnostics._tables import load_scores

__all__ = ["Diagnostics", "MAX_BOOT_BYTES", "MAX_N_BOOT", "PlacementStats", "diagnose", "load_scores", "delong_auc_variance", "delong_paired_test", "placement_stats"]

for _obj in (Diagnostics, diagnose, load_scores, delong_auc_variance, delong_paired_test,
             PlacementStats, placement_stats):
    _obj.__module__ = __name__  # documented, pickled and registered under bipartite.diagnostics
del _obj
