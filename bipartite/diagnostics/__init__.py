"""Diagnose your own scores: per-label AUCs with uncertainty, query-level AUCs, label dictatorship
and paired comparisons of scorers (docs/theory.md §2, §4, §7).

:func:`diagnose` reads a table of scores, binary labels, optional query ids and row weights (a
DataFrame, a mapping of columns, or a CSV/Parquet file, :func:`load_scores`) and reports, per
scorer: the **per-label AUC** (pooled over rows, ties ½) with its interval; the **gAUC** of every
label (:func:`bipartite.metrics.group_auc`) with its interval and the **per-query × per-label**
AUCs; the **cross-pair win rates** ``W_{k>j}`` (docs/theory.md §7.5: who wins the (k only) vs
(j only) pairs, ½ even-handed) with intervals and the near-tie rate; **Diff** and **Min AUC**
with intervals. For the labels: the priors π̂_k, the effective weights ``α_k = 1/(π_k(1−π_k))``
of loss aggregation with ``a = 1``, their shares and the dictator it would produce
(:func:`bipartite.dictatorship.dictator`). For each pair of scorers: the paired AUC (and gAUC)
difference per label, with its interval and test. **To choose a scorer**: each scorer's Min,
Diff and Macro AUC (``tables["scorers"]``), the paired difference of Min AUC of every pair, each
minimum over that scorer's own labels, with an interval (``tables["paired_min"]``), and a
recommendation that states the evidence and says when it is within noise
(``Diagnostics.recommendation``). A degenerate interval (an AUC of 0 or 1, a class with one row)
carries a note. With ``max_fpr`` the per-label table gains the partial AUC up to that false
positive rate, McClish-standardised (``pauc``, :func:`bipartite.metrics.partial_auc`; in memory
only). ``Diagnostics.to_html()`` is a self-contained page with five figures inline;
``Diagnostics.save`` (``bipartite report --out``) writes it beside the JSON, the Markdown, the
figures and the tables.

**Intervals** (docs/theory.md §2.6; their measured coverage: docs/coverage.md). By default
(``n_boot=0``) they are analytic: DeLong's variance (:func:`delong_auc_variance`) for the AUCs,
win rates and paired differences, clustered by query when query ids are given (the rows of a
query are not independent; without them every row is), and the delta method for the gAUC and for
Min and Diff AUC (with a stated rule at ties). With ``n_boot > 0`` a seeded bootstrap over the
queries (or rows) gives them instead, from per-unit placement sums (O(queries) per replicate).
``interval`` says how an estimate and its standard error, or the replicates, become an
interval: ``"wald"`` (``est ± z·se``), ``"t"`` (``est ± t_{G−1}·se``, G the queries), and with
the bootstrap ``"percentile"`` and ``"bca"``; ``"auto"`` is the method measured closest to
nominal in simulation for the chosen ``n_boot``. With few queries every method covers less than
its nominal level: below the number of queries from which the chosen method measured at least
93% coverage, :func:`diagnose` warns and the report carries the warning.

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
replicate comes from its one sort per scorer): ``_score_table`` reads the table, ``_placement_sums``
holds the per-unit placement sums (variances, bootstrap replicates, jackknife), ``_inference``
DeLong's public entry points, the delta method for Min and Diff AUC and the paired test,
``_intervals`` the interval methods and their measured coverage, ``_pairs`` the statistics of all
label pairs at once, ``_dictator`` the theory-against-observed table, ``_diagnose`` the named steps
of :func:`diagnose`, ``_context`` what they share (the checked table, the estimates, the one place
intervals are made), ``_outputs`` one function per table, ``_choice`` the choice of a scorer,
``_report`` the result (:class:`Diagnostics`), ``_render`` its Markdown and HTML, ``_figures`` its
figures.

**Out of core.** :func:`placement_stats` computes the report's sufficient statistics exactly on
data larger than memory, on dask (a Parquet folder or a dask DataFrame; a local cluster or a
running scheduler): per scorer, label and cross pair, the per-query sums of DeLong's placements
(global and within the query) and their second moments; :meth:`PlacementStats.summary` gives the
AUCs, W_{k>j}, DeLong variances (unclustered and query-clustered) and gAUCs
(``_dask_passes``, its result ``_dask_stats``; docs/out_of_core.md). :func:`diagnose` given
such data (:func:`is_out_of_core`: a Parquet folder, glob or list of files, a dask DataFrame)
or a ``scheduler`` builds the whole report from those sums, the same tables by the same steps (``_dask_report``; with query ids;
near-tie rates not computed).
"""

from __future__ import annotations

from bipartite.diagnostics._dask_passes import placement_stats
from bipartite.diagnostics._dask_report import is_out_of_core
from bipartite.diagnostics._dask_stats import PlacementStats
from bipartite.diagnostics._diagnose import (
    MAX_BOOT_BYTES,
    MAX_FPR_OUT_OF_CORE,
    MAX_N_BOOT,
    diagnose,
)
from bipartite.diagnostics._inference import delong_auc_variance, delong_paired_test
from bipartite.diagnostics._report import Diagnostics
from bipartite.diagnostics._score_table import load_scores

__all__ = ["Diagnostics", "MAX_BOOT_BYTES", "MAX_FPR_OUT_OF_CORE", "MAX_N_BOOT", "PlacementStats", "diagnose", "load_scores", "delong_auc_variance", "delong_paired_test", "is_out_of_core", "placement_stats"]

for _obj in (Diagnostics, diagnose, load_scores, delong_auc_variance, delong_paired_test,
             PlacementStats, placement_stats, is_out_of_core):
    _obj.__module__ = __name__  # documented, pickled and registered under bipartite.diagnostics
del _obj
