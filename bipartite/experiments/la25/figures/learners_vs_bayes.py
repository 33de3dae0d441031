"""The figure and key-number table of the study ``la25.learners_vs_bayes``
(:mod:`bipartite.experiments.la25.studies.learners_vs_bayes`), from its tidy results only.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bipartite.plots import new_figure, save_figures
from bipartite.studies.report import mean_and_se

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CAPTION", "CONTRAST_COLUMNS", "DATASETS", "OBJECTIVES", "ROUTES", "TITLE",
           "learners_vs_bayes_figures", "learners_vs_bayes_table"]


#: The two objectives.
OBJECTIVES = ("loss_aggregation", "label_aggregation")
#: The datasets of the study (parameter ``dataset``).
DATASETS = ("synthetic", "synthetic-det", "banking", "mq2008")


#: The learning routes (parameter ``routes``), in the order they are fitted.
ROUTES = ("mlp-pairwise", "mlp-plugin", "mlp-pointwise", "xgb-pairwise", "xgb-plugin")


#: Columns compared with the Bayes scorers (``gap_*``) and across objectives (``shift_*``).
CONTRAST_COLUMNS = ("auc_1", "auc_2", "crit_loss_agg", "crit_label_agg", "win_21")


#: Title and caption of the key-number table (for a summary page).
TITLE = "Learners vs the Bayes scorers: loss vs label aggregation on data (docs/theory.md §9)"


CAPTION = (
    "Held-out per-label AUCs, both criteria (`crit_loss_agg`: mean AUC, loss aggregation with "
    "a = 1; `crit_label_agg`: multipartite AUC of Y₁ + Y₂, linear costs) and the cross-pair win "
    "rate W₂>₁ (`win_21`, ½ = even-handed) of MLP and XGBoost trained with each objective by each "
    "route (pairwise, plug-in, pointwise), and on synthetic data of the Bayes scorers of the exact "
    "η; `gap_*`: learner minus the Bayes scorer of the same objective; `shift_win_21`: change of "
    "W₂>₁ from loss to label aggregation.")


#: Parameters that, when they vary in a results table, get a figure / table block each.
_SETTINGS = ("n_train", "n_test", "beta", "epochs", "n_estimators")


def _settings(df) -> list[str]:
    """The settings that take several values within one dataset (β differs between the two
    synthetic datasets by design: that alone does not split them)."""
    return [c for c in _SETTINGS
            if c in df and df.groupby("dataset")[c].nunique(dropna=True).max() > 1]


def _route_order(route: str) -> int:
    return -1 if route == "bayes" else (ROUTES.index(route) if route in ROUTES else len(ROUTES))


def _dataset_order(dataset: str) -> int:
    return DATASETS.index(dataset) if dataset in DATASETS else len(DATASETS)


def learners_vs_bayes_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    """One figure per dataset (and per value of a varying setting such as ``n_train``):
    ``la25_learners_vs_bayes_<dataset>[_<setting>=<value>]`` (PNG + PDF).

    Left: per-label AUCs (means over replicates), loss aggregation filled, label aggregation
    open, an arrow from one to the other per route; the Bayes scorers as stars. Right: the
    cross-pair win rate W_{2>1} per route and objective (mean ± s.e. over replicates).
    """
    paths: list[Path] = []
    if df.empty:
        return paths
    settings = _settings(df)
    keys = ["dataset", *settings]
    for key, part in df.groupby(keys, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        dataset = str(key[0])
        suffix = "".join(f"_{s}={v:g}" if isinstance(v, float) else f"_{s}={v}"
                         for s, v in zip(settings, key[1:], strict=True))
        paths += _dataset_figure(part, dataset, suffix, fig_dir)
    return paths


def _dataset_figure(part, dataset: str, suffix: str, fig_dir: Path) -> list[Path]:
    routes = sorted(part["route"].unique(), key=_route_order)
    colours = {r: f"C{i % 10}" for i, r in enumerate(sorted(routes))}
    means = part.groupby(["route", "objective"])[["auc_1", "auc_2"]].mean()
    fig, (ax1, ax2) = new_figure(1, 2, figsize=(11.0, 4.5), layout="constrained")
    for route in routes:
        c = colours[route]
        marker, size = ("*", 160) if route == "bayes" else ("o", 50)
        pts = {}
        for objective, face, name in [("loss_aggregation", c, "LA"),
                                      ("label_aggregation", "none", "label agg.")]:
            if (route, objective) in means.index:
                pts[objective] = means.loc[(route, objective)]
                ax1.scatter(pts[objective]["auc_1"], pts[objective]["auc_2"], color=c,
                            facecolors=face, marker=marker, s=size, label=f"{route} ({name})")
        if len(pts) == 2:
            la, lab = pts["loss_aggregation"], pts["label_aggregation"]
            ax1.annotate("", xy=(lab["auc_1"], lab["auc_2"]), xytext=(la["auc_1"], la["auc_2"]),
                         arrowprops=dict(arrowstyle="->", color=c, lw=1))
    ax1.set_xlabel("AUC label 1")
    ax1.set_ylabel("AUC label 2")
    ax1.set_title(f"{dataset}{suffix.replace('_', ' ')}: loss (filled) → label aggregation "
                  "(open)", fontsize=9)
    ax1.legend(fontsize=6, ncol=2)
    x = np.arange(len(routes))
    for offset, objective, name in [(-0.2, "loss_aggregation", "loss aggregation (a = 1)"),
                                    (0.2, "label_aggregation", "label aggregation (sum)")]:
        st = mean_and_se(part[part["objective"] == objective], ["route"], "win_21")
        st = st.set_index("route").reindex(routes)
        ax2.bar(x + offset, st["mean"], 0.4, yerr=st["se"].fillna(0.0), capsize=2, label=name)
    ax2.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax2.set_xticks(x, routes, rotation=30, ha="right", fontsize=8)
    ax2.set_ylabel("cross-pair win rate W$_{2>1}$")
    ax2.set_ylim(0, 1)
    ax2.legend(fontsize=7)
    return save_figures(fig, fig_dir, f"la25_learners_vs_bayes_{dataset}{suffix}")


def learners_vs_bayes_table(df: pd.DataFrame) -> pd.DataFrame:
    """Key numbers: per dataset (and varying setting), route and objective, the means over
    replicates of the held-out metrics and of the gaps to Bayes / shifts from loss to label
    aggregation, and the number of replicates."""
    import pandas as pd

    if df.empty:
        return pd.DataFrame()
    cols = ["auc_1", "auc_2", "gauc_1", "gauc_2", "crit_loss_agg", "crit_label_agg", "win_21",
            "near_tie_21", "gap_crit_loss_agg", "gap_crit_label_agg", "shift_auc_1",
            "shift_auc_2", "shift_win_21", "fit_s"]
    cols = [c for c in cols if c in df and df[c].notna().any()]
    by = ["dataset", *_settings(df), "route", "objective"]
    agg = {c: (c, "mean") for c in cols}
    if "task" in df:
        agg["replicates"] = ("task", "nunique")
    table = df.groupby(by, sort=False, dropna=False).agg(**agg).reset_index()
    keys = {"_d": table["dataset"].map(_dataset_order), "_r": table["route"].map(_route_order),
            "_o": table["objective"].map(lambda o: OBJECTIVES.index(o) if o in OBJECTIVES
                                         else len(OBJECTIVES))}
    order = table.assign(**keys).sort_values(["_d", *_settings(df), "_r", "_o"], kind="stable")
    return table.loc[order.index].reset_index(drop=True)
