"""
Your scores to a report
=======================

You have a ranker and a table of its scores with several binary labels per row (relevance and
click, say) and query ids. How well does it serve each label, with what uncertainty, and does one
label dictate the order? :py:func:`bipartite.diagnostics.diagnose` answers from the table alone
(the command line ``bipartite report scores.csv --score ... --label ... --qid ...`` does the
same):

* the per-label AUC and gAUC (query-level AUC) with confidence intervals (a bootstrap over
  queries, since the rows of a query are not independent);
* the cross-pair win rates ``W_{k>j}``: among the pairs where only label k or only label j is
  positive, how often the k-positive is ranked first (½ is even-handed, docs/theory.md §7.5);
* the priors, the effective weights ``α_k = 1/(π_k(1 − π_k))`` that loss aggregation would give
  and the label that would dictate (theory, a property of the priors alone), beside the label
  each of *your* scorers favours (observed, from its win rates);
* paired comparisons of any number of scorers, with Holm-adjusted p-values.

The report says which gAUC it computes: ``gauc_weighting="pairs"`` (the default, pair-weighted:
the share of all within-query pairs ranked right) or ``"uniform"`` (query-averaged: the mean of
the per-query AUCs, as torchmetrics' gAUC); the two differ when queries differ in size. It reads
pandas, polars and pyarrow tables, CSV/Parquet files and standard input (``bipartite report -``);
yes/no labels with ``positive_label="yes"`` (``--positive-label yes``); rows with missing values
are an error unless ``dropna=True`` (``--dropna``). In a notebook the report object displays
itself as the formatted report.

The scores here are simulated, so that the example needs no data.
"""

# %%
# A table of scores
# -----------------
# 150 queries of 20 items. Two labels from :py:func:`~bipartite.data.make_synthetic` with exact
# class probabilities ``η``: ``rel`` (π = 0.3) and a rarer ``click`` (π = 0.1). Two scorers:
# ``relevance_model`` sees only ``η_rel`` (plus noise), ``blend`` is the Bayes scorer of loss
# aggregation ``Σ_k α_k η_k`` (plus noise), which leans towards the rare label.
import numpy as np
import pandas as pd

from bipartite.bayes import loss_aggregation
from bipartite.data import make_synthetic

rng = np.random.default_rng(0)
d = make_synthetic(3000, priors=(0.3, 0.1), beta=6.0, rho=0.3, seed=0)
blend = loss_aggregation(d.eta, d.pi)
table = pd.DataFrame({
    "query": np.repeat(np.arange(150), 20),
    "relevance_model": d.eta[:, 0] + 0.1 * rng.normal(size=3000),
    "blend": blend / blend.std() + 0.3 * rng.normal(size=3000),
    "rel": d.Y[:, 0],
    "click": d.Y[:, 1],
})
print(table.head())

# %%
# The report
# ----------
# ``diagnose`` is used when the installed version has it; otherwise the example computes the
# main numbers by hand with :py:func:`~bipartite.metrics.multilabel_auc`,
# :py:func:`~bipartite.metrics.group_auc` and :py:func:`bipartite.dictatorship.report`.
try:
    from bipartite.diagnostics import diagnose
except ImportError:  # an older bipartite without bipartite.diagnostics
    diagnose = None

if diagnose is not None:
    report = diagnose(table, scores=["relevance_model", "blend"], labels=["rel", "click"],
                      qid="query", n_boot=200, seed=0)
    print(report.to_markdown(max_rows=5))
else:
    from bipartite.dictatorship import report as dictatorship_report
    from bipartite.metrics import group_auc, multilabel_auc

    Y = table[["rel", "click"]].to_numpy()
    for name in ["relevance_model", "blend"]:
        s = table[name].to_numpy()
        gauc = [group_auc(Y[:, k], s, table["query"]) for k in range(2)]
        print(f"{name}: AUC {multilabel_auc(Y, s).round(3)}, gAUC {np.round(gauc, 3)}")
        print(dictatorship_report(Y, s, label_names=["rel", "click"]))

# %%
# The tables
# ----------
# Everything in the report is also a pandas DataFrame in ``report.tables``, with a ``note``
# column that explains every undefined value; here the cross-pair win rates.
if diagnose is not None:
    cols = ["scorer", "label_k", "label_j", "win_rate", "ci_low", "ci_high", "n_k_only", "n_j_only"]
    report.tables["win_rates"][cols].round(3)

# %%
# The figure
# ----------
# Per-label AUC (filled) and gAUC (open) with their intervals, the cross-pair win rates, and the
# distribution of the per-query AUCs. ``report.save("out/")`` writes the Markdown, the JSON, one
# CSV per table and this figure.
if diagnose is not None:
    fig = report.figure()
