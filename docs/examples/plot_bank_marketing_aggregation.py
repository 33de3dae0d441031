"""
Loss versus label aggregation on Bank Marketing
===============================================

LA25 §7 ranks the clients of a bank by two labels at once: *mortgage* (``housing == "yes"``,
π ≈ 0.56) and *personal loan* (``loan == "yes"``, π ≈ 0.16), from the UCI Bank Marketing data
(:py:func:`bipartite.data.load_bank_marketing`, client features only). This example compares, on a
held-out 30 %,

* **loss aggregation**: the plug-in Bayes scorer ``Σ_k α_k η̂_k`` with ``α_k = a_k / (π_k (1 − π_k))``
  (:py:func:`bipartite.bayes.loss_aggregation`), along a sweep of mixing weights ``a = (1 − t, t)``
  (:py:func:`bipartite.pareto.weight_sweep`);
* **label aggregation**: one model of the aggregated label ``Ȳ = ψ(Y)``: by a sum
  (``E[Y_1 + Y_2 | x] = η̂_1 + η̂_2``, linear costs) and by a product (``P(Y_1 = Y_2 = 1 | x)``,
  a model trained on ``Y_1 Y_2``).

The class probabilities ``η̂_k`` come from small gradient-boosted trees (scikit-learn). The data
file is not shipped with the package: the example looks for it in the data folder
(:py:func:`bipartite.data.data_dir`: ``$BIPARTITE_DATA``, else ``../shared/data``) and stops with
a message when it is absent.
"""

# %%
# Load the data (or say why not)
# ------------------------------
import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import train_test_split

from bipartite.bayes import loss_aggregation
from bipartite.data import data_dir, load_bank_marketing
from bipartite.dictatorship import effective_weight_shares
from bipartite.metrics import diff_auc, min_auc, multilabel_auc
from bipartite.pareto import weight_sweep
from bipartite.plots import plot_frontier

try:
    bank = load_bank_marketing()
except FileNotFoundError as exc:
    bank = None
    print(f"Skipping this example: no Bank Marketing file in the data folder {data_dir()}.\n"
          f"  ({exc})\n  Set BIPARTITE_DATA to a folder holding bank_marketing_full.csv or the "
          "UCI bank-full.csv to run it.")
else:
    print(f"{bank.X.shape[0]} clients, {bank.X.shape[1]} features; labels {bank.label_names}, "
          f"priors {bank.Y.mean(axis=0).round(3)}")

# %%
# Per-label models
# ----------------
# One classifier per label gives ``η̂_k``; one more, trained on the product label, gives the
# product aggregation. The training priors ``π̂`` set the effective weights of loss aggregation:
# the rarer personal loan gets the larger one (docs/theory.md §4.3).
if bank is not None:
    X_train, X_test, Y_train, Y_test = train_test_split(bank.X, bank.Y, test_size=0.3,
                                                        random_state=0)

    def fit_predict(y):
        model = HistGradientBoostingClassifier(max_iter=40, max_leaf_nodes=15, random_state=0)
        return model.fit(X_train, y).predict_proba(X_test)[:, 1]

    eta = np.column_stack([fit_predict(Y_train[:, k]) for k in range(2)])
    p_both = fit_predict(Y_train[:, 0] * Y_train[:, 1])
    pi = Y_train.mean(axis=0)
    print("effective-weight shares with a = (1, 1):", effective_weight_shares(pi).round(3))

# %%
# Per-label test AUCs
# -------------------
# Min AUC (the worse-served label) and Diff AUC (the gap between the labels) summarise the
# trade-off (:py:func:`~bipartite.metrics.min_auc`, :py:func:`~bipartite.metrics.diff_auc`).
if bank is not None:
    scorers = {
        "mortgage model only": eta[:, 0],
        "personal-loan model only": eta[:, 1],
        "loss aggregation, a = (1, 1)": loss_aggregation(eta, pi),
        "label aggregation, sum": eta.sum(axis=1),
        "label aggregation, product": p_both,
    }
    points = {}
    print(f"{'scorer':30s} {'AUC mortgage':>12s} {'AUC loan':>9s} {'Min':>6s} {'Diff':>6s}")
    for name, s in scorers.items():
        aucs = multilabel_auc(Y_test, s)
        points[name] = aucs
        print(f"{name:30s} {aucs[0]:12.3f} {aucs[1]:9.3f} {min_auc(aucs):6.3f} "
              f"{diff_auc(aucs):6.3f}")

# %%
# The trade-off
# -------------
# The dots trace loss aggregation over the mixing weights, on the test labels. Where the
# label-aggregation scorers fall inside that trace, some weighting of the per-label AUCs does at
# least as well on both labels.
if bank is not None:
    _, sweep = weight_sweep(eta=eta, pi=pi, Y=Y_test, n_weights=41)
    fig = plot_frontier(sweep=sweep, label_points=points, labels=("AUC mortgage", "AUC personal loan"),
                        title="Bank Marketing, test split")
