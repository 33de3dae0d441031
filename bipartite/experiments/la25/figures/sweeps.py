"""LA25 sweeps: the figures and key-number tables of each study (from its tidy results only),
the theory figures, and the sweeps' part of ``summary.md`` (:func:`sweep_summary_lines`).
"""


from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bipartite.plots import new_figure, save_figures
from bipartite.studies.report import figure_links, markdown_table, mean_and_se, write_table

if TYPE_CHECKING:
    import pandas as pd

# --------------------------------------------------------------------------------------------
# LA25: figures and key-number tables of each study (from its tidy results only)
# --------------------------------------------------------------------------------------------

_KIND_STYLE = {
    "loss_aggregation": {"marker": "*", "color": "C3", "label": "loss aggregation (a = 1)"},
    "label_aggregation": {"marker": "D", "color": "C2", "label": "label aggregation (sum)"},
}


def _solved_summaries(df):
    summary = df[df["kind"] == "summary"]
    if "timed_out" in summary:
        summary = summary[~summary["timed_out"].astype(bool)]
    return summary


def frontier_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    from bipartite.plots import plot_frontier

    paths: list[Path] = []
    summary = _solved_summaries(df)
    if summary.empty:
        return paths
    # (a) One example: the task with the most unsupported points at the n closest to 6 (larger
    # frontiers have thousands of points and draw as a solid line).
    ns = np.sort(summary["n"].unique())
    top_n = ns[np.argmin(np.abs(ns - 6))]
    cand = summary[summary["n"] == top_n].sort_values(["n_unsupported", "task"],
                                                      ascending=[False, True])
    task = cand["task"].iloc[0]
    sub = df[df["task"] == task]
    ex, sup = sub[sub["kind"] == "exact"], sub[sub["kind"] == "supported"]
    fig, ax = new_figure(figsize=(5.2, 4.4))
    unsup = ex[~ex["supported"].astype(bool)]
    row = cand.iloc[0]
    points = {style["label"]: sub.loc[sub["kind"] == kind, ["auc_1", "auc_2"]].to_numpy()[0]
              for kind, style in _KIND_STYLE.items() if (sub["kind"] == kind).any()}
    plot_frontier(exact=ex[["auc_1", "auc_2"]].to_numpy(),
                  supported=sup[["auc_1", "auc_2"]].to_numpy(), label_points=points, ax=ax,
                  labels=("AUC$_1$", "AUC$_2$"),
                  title=f"Exact vs supported frontier (n = {top_n}, π = ({row['pi_1']:.2f}, "
                        f"{row['pi_2']:.2f}))")
    ax.scatter(unsup["auc_1"], unsup["auc_2"], s=10, color="C1", zorder=3,
               label=f"unsupported Pareto points ({len(unsup)} of {len(ex)})")
    ax.legend(fontsize=7, loc="lower left")
    ax.title.set_fontsize(9)
    paths += save_figures(fig, fig_dir, "la25_frontier_example")
    # (b) How much of the frontier is unsupported, by n.
    s = summary.assign(frac_unsupported=summary["n_unsupported"] / summary["n_exact"],
                       any_unsupported=(summary["n_unsupported"] > 0).astype(float),
                       rel_hv_gap=summary["hv_gap"] / summary["hv_exact"])
    fig, axes = new_figure(1, 2, figsize=(9.0, 3.6), layout="constrained")
    for det, sub_s in s.groupby("deterministic") if "deterministic" in s else [(False, s)]:
        lab = "deterministic labels" if det else "random conditionals"
        for ax, col, ylabel in [(axes[0], "frac_unsupported", "share of Pareto points unsupported"),
                                (axes[0], "any_unsupported", None),
                                (axes[1], "n_exact", "number of points")]:
            st = mean_and_se(sub_s, ["n"], col)
            style = "--" if col == "any_unsupported" else "-"
            name = {"frac_unsupported": "share unsupported", "any_unsupported":
                    "P(some point unsupported)", "n_exact": "Pareto points"}[col]
            ax.errorbar(st["n"], st["mean"], yerr=st["se"], fmt="o" + style, capsize=2, ms=4,
                        label=f"{name}, {lab}")
            if ylabel:
                ax.set_ylabel(ylabel)
        st = mean_and_se(sub_s, ["n"], "n_supported")
        axes[1].errorbar(st["n"], st["mean"], yerr=st["se"], fmt="s:", capsize=2, ms=4,
                         label=f"supported points, {lab}")
    from matplotlib.ticker import MaxNLocator, NullFormatter, ScalarFormatter

    for ax in axes:
        ax.set_xlabel("support size n")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[1].set_yscale("log")
    axes[1].yaxis.set_major_formatter(ScalarFormatter())
    axes[1].yaxis.set_minor_formatter(NullFormatter())
    fig.suptitle("Unsupported Pareto points are the rule (random finite problems, K = 2)",
                 fontsize=9)
    paths += save_figures(fig, fig_dir, "la25_frontier_unsupported")
    return paths


def frontier_table(df: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    everything = df[df["kind"] == "summary"]
    summary = _solved_summaries(df).copy()
    summary["any_unsupported"] = summary["n_unsupported"] > 0
    summary["rel_hv_gap"] = summary["hv_gap"] / summary["hv_exact"]
    by = ["n", "deterministic"] if "deterministic" in summary else ["n"]
    table = summary.groupby(by).agg(
        problems=("task", "count"), pareto_points=("n_exact", "mean"),
        supported_points=("n_supported", "mean"),
        share_with_unsupported=("any_unsupported", "mean"),
        relative_hypervolume_gap=("rel_hv_gap", "mean")).reset_index()
    bayes = df[df["kind"].isin(list(_KIND_STYLE))]
    opt = bayes.groupby("kind")["pareto_optimal"].mean()
    for kind in _KIND_STYLE:
        table[f"{kind}_pareto_optimal"] = float(opt.get(kind, np.nan))
    timed = (everything.groupby(by)["timed_out"].sum() if "timed_out" in everything
             else pd.Series(dtype=float))
    table["timed_out"] = [int(timed.get(tuple(k) if len(by) > 1 else k[0], 0))
                          for k in table[by].itertuples(index=False, name=None)]
    return table


def consistency_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    fig, axes = new_figure(1, 2, figsize=(9.5, 3.8), layout="constrained")
    sur = df[df["method"] == "surrogate"].assign(
        positive=lambda d: d["positive_regret"].astype(float))
    groups = list(sur.groupby(["objective", "surrogate"]))
    width = 0.8 / max(1, len(groups))
    for i, ((objective, surrogate), sub) in enumerate(groups):
        st = mean_and_se(sub, ["K"], "positive")
        axes[0].bar(st["K"] + (i - (len(groups) - 1) / 2) * width, st["mean"], width,
                    yerr=st["se"], capsize=2,
                    label=f"{objective.replace('_', ' ')}, {surrogate}")
    axes[0].set_xlabel("number of labels K")
    axes[0].set_ylabel("share of problems with regret > 1e-6")
    axes[0].set_title("Pairwise surrogate minimiser (population)", fontsize=9)
    axes[0].set_xticks(sorted(sur["K"].unique()))
    axes[0].legend(fontsize=7)
    plug = df[df["method"] == "plugin_sampled"]
    # The sampled plug-in does not depend on the surrogate (same problem and samples in each
    # surrogate's task): keep one surrogate so that no problem is counted twice.
    plug = plug[plug["surrogate"] == sorted(plug["surrogate"].unique())[0]] if len(plug) else plug
    for (objective, K), sub in plug.groupby(["objective", "K"]):
        st = mean_and_se(sub, ["n_samples"], "regret")
        axes[1].errorbar(st["n_samples"], st["mean"], yerr=st["se"], marker="o", ms=3,
                         capsize=2, label=f"{objective.replace('_', ' ')}, K = {K}")
    axes[1].set_xscale("log")
    axes[1].set_yscale("symlog", linthresh=1e-4)
    axes[1].set_ylim(bottom=0.0)
    axes[1].set_xlabel("sample size")
    axes[1].set_ylabel("AUC regret of the plug-in scorer")
    axes[1].set_title("Plug-in (saturated model) is consistent", fontsize=9)
    axes[1].legend(fontsize=7)
    for ax in axes:
        ax.grid(alpha=0.3)
    return save_figures(fig, fig_dir, "la25_consistency")


def consistency_table(df: pd.DataFrame) -> pd.DataFrame:
    sur = df[df["method"] == "surrogate"]
    table = sur.groupby(["objective", "surrogate", "K"]).agg(
        problems=("task", "count"), share_positive_regret=("positive_regret", "mean"),
        mean_regret=("regret", "mean"), max_regret=("regret", "max")).reset_index()
    plug = df[df["method"] == "plugin"].groupby(["objective", "K"])["regret"].max()
    table["plugin_population_max_regret"] = [
        float(plug.get((o, k), np.nan)) for o, k in zip(table["objective"], table["K"],
                                                         strict=True)]
    return table



_SCORER_LABEL = {
    ("bayes", "loss_aggregation"): "Bayes, loss aggregation (a = 1)",
    ("bayes", "label_aggregation"): "Bayes, label aggregation (sum)",
    ("bayes", "label_1_only"): "η₁ only",
    ("bayes", "label_2_only"): "η₂ only",
}


def _scorer_name(scorer: str, objective: str) -> str:
    if (scorer, objective) in _SCORER_LABEL:
        return _SCORER_LABEL[(scorer, objective)]
    return f"{scorer.upper()}, {objective.replace('_', ' ')}"


def skew_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    from bipartite.plots import plot_auc_vs_skew

    df = df[~df["objective"].isin(["label_1_only", "label_2_only"])]
    fig, axes = new_figure(1, 2, figsize=(11.0, 4.2), layout="constrained")
    results, skews = {}, None
    for (scorer, objective), sub in df.groupby(["scorer", "objective"], sort=False):
        means = sub.groupby("pi2")[["auc_1", "auc_2"]].mean()
        skews = means.index.to_numpy()
        results[_scorer_name(scorer, objective)] = means.to_numpy()
    plot_auc_vs_skew(skews, results, label_names=["label 1 (π = ½)", "label 2"],
                     xlabel="prior π₂ of label 2", ax=axes[0],
                     title="Per-label population AUC as label 2 gets rarer")
    # plot_auc_vs_skew draws its two legends (colour = scorer, line style = label); a further
    # ax.legend() call would replace the second with an empty one
    for (scorer, objective), sub in df.groupby(["scorer", "objective"], sort=False):
        st = mean_and_se(sub, ["pi2"], "win_12")
        axes[1].errorbar(st["pi2"], st["mean"], yerr=st["se"], marker="o", ms=3, capsize=2,
                         label=_scorer_name(scorer, objective))
    axes[1].axhline(0.5, color="k", lw=0.8)
    axes[1].set_xlabel("prior π₂ of label 2")
    axes[1].set_ylabel("cross-pair win rate W₁>₂ (½ = even-handed)")
    axes[1].set_title("Who wins the (1,0)-vs-(0,1) pairs", fontsize=9)
    axes[1].grid(alpha=0.3)
    axes[1].legend(fontsize=6)
    return save_figures(fig, fig_dir, "la25_skew")


def _diff_min(df):
    """Per row: LA25 §7's Diff AUC and Min AUC (:func:`bipartite.metrics.diff_auc`,
    :func:`bipartite.metrics.min_auc`; an AUC a rounding ulp above 1 is clipped)."""
    from bipartite.metrics import diff_auc, min_auc

    A = np.clip(df[["auc_1", "auc_2"]].to_numpy(dtype=float), 0.0, 1.0)
    return [diff_auc(a) for a in A], [min_auc(a) for a in A]


def _gaps_to_bayes(df):
    """Per learner row: its AUCs and W₁>₂ minus those of the Bayes scorer of the same objective
    in the same task (NaN for the Bayes rows)."""
    bayes = df[df["scorer"] == "bayes"].set_index(["task", "objective"])
    out = {c: np.full(len(df), np.nan) for c in ("gap_auc_1", "gap_auc_2", "gap_win_12")}
    for i, (task, scorer, objective) in enumerate(zip(df["task"], df["scorer"], df["objective"],
                                                      strict=True)):
        if scorer != "bayes" and (task, objective) in bayes.index:
            ref = bayes.loc[(task, objective)]
            for c in ("auc_1", "auc_2", "win_12"):
                out[f"gap_{c}"][i] = df[c].iloc[i] - ref[c]
    return out


def skew_table(df: pd.DataFrame) -> pd.DataFrame:
    """Mean per skew and scorer of the per-label AUCs, W₁>₂ and the effective-weight share; then
    (columns added for LA25 §7) the mean Diff and Min AUC and each learner's gap to the Bayes
    scorer of its objective (same test sample)."""
    diff, mn = _diff_min(df)
    df = df.assign(scorer_name=[_scorer_name(s, o) for s, o in zip(df["scorer"], df["objective"],
                                                                     strict=True)],
                   diff=diff, min=mn, **_gaps_to_bayes(df))
    table = df.groupby(["pi2", "scorer_name"], sort=True).agg(
        auc_1=("auc_1", "mean"), auc_2=("auc_2", "mean"), win_12=("win_12", "mean"),
        alpha_share_2=("alpha_share_2", "mean"), replicates=("task", "nunique"),
        diff=("diff", "mean"), min=("min", "mean"), gap_auc_1=("gap_auc_1", "mean"),
        gap_auc_2=("gap_auc_2", "mean"), gap_win_12=("gap_win_12", "mean")).reset_index()
    return table.rename(columns={"scorer_name": "scorer"})


_CORR_NAMES = {"loss_aggregation": "loss aggregation (a = 1)", "label_sum": "label: sum",
               "label_product": "label: product (AND)", "label_or": "label: or"}


def correlation_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    fig, axes = new_figure(1, 3, figsize=(12.0, 3.8), layout="constrained")
    for scorer, sub in df.groupby("scorer", sort=False):
        for ax, col in zip(axes, ["auc_1", "auc_2", "mp_auc"], strict=True):
            st = mean_and_se(sub, ["c"], col)
            ax.errorbar(st["c"], st["mean"], yerr=st["se"], marker="o", ms=3, capsize=2,
                        label=_CORR_NAMES.get(scorer, scorer))
    titles = ["AUC of label 1 (π₁ fixed)", "AUC of label 2",
              "multipartite AUC of Y₁ + Y₂ (linear costs)"]
    for ax, title in zip(axes, titles, strict=True):
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
    fig.supxlabel("c:  −1 = anti-correlated (Y₂ = 1 − Y₁),  0 = independent rare label 2,  "
                  "1 = identical (Y₂ = Y₁)", fontsize=9)
    axes[2].annotate("undefined at c = −1\n(Y₁ + Y₂ ≡ 1)", xy=(-1, 0.5), fontsize=7)
    axes[0].legend(fontsize=7)
    return save_figures(fig, fig_dir, "la25_correlation")


def correlation_table(df: pd.DataFrame) -> pd.DataFrame:
    table = df.groupby(["c", "scorer"], sort=True).agg(
        corr=("corr", "mean"), pi_2=("pi_2", "mean"), auc_1=("auc_1", "mean"),
        auc_2=("auc_2", "mean"), win_12=("win_12", "mean"),
        mp_auc=("mp_auc", "mean")).reset_index()
    return table


def weights_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    cases = sorted(df.groupby(["pi2", "beta"]).groups)
    ncols = min(2, len(cases))
    nrows = -(-len(cases) // ncols)
    fig, axes = new_figure(nrows, ncols, figsize=(5.4 * ncols, 3.9 * nrows), squeeze=False,
                             layout="constrained")
    for ax in axes.ravel()[len(cases):]:
        ax.set_visible(False)
    for ax, (pi2, beta) in zip(axes.ravel(), cases, strict=False):
        sub = df[(df["pi2"] == pi2) & (df["beta"] == beta)]
        for agg, style in [("loss", "-"), ("label", "--")]:
            part = sub[sub["aggregation"] == agg]
            for k, color in [(1, "C0"), (2, "C1")]:
                st = mean_and_se(part, ["ratio"], f"auc_{k}")
                name = "loss agg. a = (1, r)" if agg == "loss" else "label agg. w = (1, r)"
                ax.plot(st["ratio"], st["mean"], style, color=color,
                        label=f"{name}: AUC$_{k}$")
        ax.axvline(sub["balanced_ratio"].mean(), color="C3", lw=0.8, ls=":",
                   label="r* = π₂(1−π₂)/(π₁(1−π₁))")
        ax.axvline(1.0, color="0.5", lw=0.6)
        ax.set_xscale("log")
        ax.set_xlabel("weight ratio r (label 2 : label 1)")
        ax.set_ylabel("population AUC")
        ax.set_title(f"π = (½, {pi2:g}), β = {beta:g}", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    fig.suptitle("Loss aggregation is even-handed only at r ≈ r* (the priors enter its "
                 "weights); label aggregation's scorer ignores the priors", fontsize=9)
    return save_figures(fig, fig_dir, "la25_weights")


def weights_table(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (pi2, beta), sub in df.groupby(["pi2", "beta"]):
        means = sub.groupby(["aggregation", "ratio"])[["auc_1", "auc_2", "win_12"]].mean()
        balanced = float(sub["balanced_ratio"].mean())
        ratios = np.array(sorted(sub["ratio"].unique()))
        near = float(ratios[np.argmin(np.abs(np.log(ratios) - math.log(balanced)))])
        for agg in ("loss", "label"):
            for r in sorted({1.0, near}):
                if (agg, r) in means.index:
                    m = means.loc[(agg, r)]
                    rows.append({"pi2": pi2, "beta": beta, "aggregation": agg, "ratio": r,
                                 "balanced_ratio": balanced, "auc_1": m["auc_1"],
                                 "auc_2": m["auc_2"], "win_12": m["win_12"]})
    import pandas as pd

    return pd.DataFrame(rows)


def learning_curve_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    fig, ax = new_figure(figsize=(5.8, 4.0), layout="constrained")
    for (learner, method), sub in df.groupby(["learner", "method"]):
        st = mean_and_se(sub, ["n_train"], "regret")
        ax.errorbar(st["n_train"], st["mean"], yerr=st["se"], marker="o", ms=3, capsize=2,
                    label=f"{learner.upper()} {method}")
    from matplotlib.ticker import NullLocator

    ax.set_xscale("log")
    ax.set_yscale("log")
    sizes = sorted(df["n_train"].unique())
    ax.set_xticks(sizes, [str(int(v)) for v in sizes])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("training samples n")
    ax.set_ylabel("AUC regret vs the Bayes scorer (exact)")
    objective = str(df["objective"].iloc[0]) if "objective" in df else "loss_aggregation"
    pi2 = float(df["pi2"].iloc[0]) if "pi2" in df else 0.1
    ax.set_title(f"Learners approach Bayes ({objective.replace('_', ' ')}, π = (½, {pi2:g}))",
                 fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    return save_figures(fig, fig_dir, "la25_learning_curve")


def learning_curve_table(df: pd.DataFrame) -> pd.DataFrame:
    return df.groupby(["learner", "method", "n_train"]).agg(
        regret=("regret", "mean"), regret_se=("regret", "sem"), auc_1=("auc_1", "mean"),
        auc_2=("auc_2", "mean"), replicates=("task", "count")).reset_index()


def real_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    combos = list(df.groupby(["dataset", "learner"]).groups)
    fig, axes = new_figure(1, len(combos), figsize=(5.2 * len(combos), 4.2), squeeze=False,
                             layout="constrained")
    for ax, (dataset, learner) in zip(axes[0], combos, strict=True):
        sub = df[(df["dataset"] == dataset) & (df["learner"] == learner)]
        for kind, style, name in [("loss_sweep", "o-", "loss agg. sweep a = (1−t, t)"),
                                  ("label_sweep", "s--", "label agg. sweep w = (1−t, t)")]:
            m = sub[sub["kind"] == kind].groupby("t")[["auc_1", "auc_2"]].mean()
            ax.plot(m["auc_1"], m["auc_2"], style, ms=3, label=name)
            mid = m.iloc[[len(m) // 2]]
            ax.plot(mid["auc_1"], mid["auc_2"], style[0], ms=9, mfc="none", color="k")
        direct = sub[sub["kind"] == "direct"].groupby("objective")[["auc_1", "auc_2"]].mean()
        for objective, marker in [("loss_aggregation", "*"), ("label_aggregation", "D")]:
            if objective in direct.index:
                pt = direct.loc[objective]
                ax.scatter(pt["auc_1"], pt["auc_2"], s=80, marker=marker, edgecolors="k",
                           zorder=4, label=f"{learner.upper()} pairwise, "
                                           f"{objective.replace('_', ' ')}")
        ax.set_xlabel(f"test AUC, {sub['label_1'].iloc[0]} (π = {sub['pi_1'].mean():.3f})")
        ax.set_ylabel(f"test AUC, {sub['label_2'].iloc[0]} (π = {sub['pi_2'].mean():.3f})")
        ax.set_title(f"{dataset}: per-label trade-off (circled: equal weights)", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    return save_figures(fig, fig_dir, "la25_real")


def real_table(df: pd.DataFrame) -> pd.DataFrame:
    sub = df[(df["kind"] == "direct") | (df["t"] == 0.5)].copy()
    sub["scorer"] = np.where(sub["kind"] == "direct", "pairwise " + sub["objective"].astype(str),
                             "plug-in " + sub["kind"].str.replace("_sweep", "") + " (t = ½)")
    cols = [c for c in ["auc_1", "auc_2", "gauc_1", "gauc_2", "win_12"] if c in sub]
    return sub.groupby(["dataset", "learner", "scorer"])[cols].mean().reset_index()


def theory_figures(fig_dir: Path) -> list[Path]:
    """Figures that need no simulation: LA25 Fig. 1 (partial orders over label vectors,
    :func:`bipartite.plots.plot_partial_orders`) and the effective-weight share of a label as its
    prior varies, with the dictator region (:func:`bipartite.dictatorship.dictator_threshold`)."""
    from bipartite.dictatorship import dictator_threshold, effective_weight_shares
    from bipartite.plots import default_partial_orders, plot_partial_orders

    paths = save_figures(plot_partial_orders(default_partial_orders()), fig_dir,
                        "la25_fig1_partial_orders")
    grid = np.linspace(0.005, 0.995, 397)
    fig, ax = new_figure(figsize=(5.4, 3.6))
    for K, style in [(2, "-"), (3, "--"), (5, ":")]:
        share = [effective_weight_shares(np.r_[np.full(K - 1, 0.5), p])[-1] for p in grid]
        ax.plot(grid, share, style, color="C0", label=f"K = {K} (other priors ½)")
        thr = dictator_threshold(np.r_[np.full(K - 1, 0.5), 0.5], K - 1)
        if thr is not None and thr[0] < thr[1]:
            ax.plot(thr, [0.5, 0.5], "o", color="C3", ms=4)
    ax.axhline(0.5, color="C3", lw=0.8, label="share ½: dictator above (deterministic labels)")
    ax.set_xlabel("prior π of the last label (a = 1)")
    ax.set_ylabel("its share of the effective weights α")
    ax.set_title("Loss aggregation: skew, not importance, sets the weight", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return paths + save_figures(fig, fig_dir, "la25_effective_weight_share")



# --------------------------------------------------------------------------------------------
# The sweeps' part of summary.md
# --------------------------------------------------------------------------------------------

#: Title and caption of each sweep's section of ``summary.md`` (folder name -> (title, caption)).
SWEEP_TEXT: dict[str, tuple[str, str]] = {
    "skew": (
        "Per-label AUC and dictatorship vs label skew (docs/theory.md §4, §7)",
        "Synthetic data (x uniform on [−1, 1]², η_k logistic in one coordinate each, β = 8), label 1 "
        "with π₁ = ½, label 2 with prior π₂. Population AUCs and the cross-pair win rate "
        "W₁>₂ (share of (1,0)-vs-(0,1) pairs won by the label-1 instance; ½ = even-handed) on a test "
        "sample with its exact conditional labels, for the Bayes scorers and for learners trained "
        "with each objective's pairwise loss. Loss aggregation hands the rare label the ranking "
        "(W₁>₂ → 0, `alpha_share_2` → 1); label aggregation by sum keeps label 1's AUC."),
    "frontier": (
        "Exact vs supported Pareto frontier (docs/theory.md §6)",
        "Random finite problems (K = 2, `FiniteProblem.random`). The exact frontier over all weak "
        "orders (subset DP) against the points a sweep of loss-aggregation weights reaches (supported "
        "points). `share_with_unsupported`: share of problems with at least one unsupported Pareto "
        "point; `relative_hypervolume_gap`: hypervolume the supported points miss, relative to the "
        "exact frontier; then the share of problems where the Bayes scorers' AUC vectors are "
        "certified Pareto-optimal (MILP); `timed_out`: problems whose exact frontier exceeded the "
        "time limit (left out of the other columns)."),
    "correlation": (
        "Label correlation: anti-correlated to identical "
        "(docs/theory.md §5)",
        "Label 1 synthetic with π₁ = ½; label 2 slides from Y₂ = 1 − Y₁ (c = −1) through an "
        "independent label with prior 0.1 (c = 0) to Y₂ = Y₁ (c = 1); `corr` is the label "
        "correlation. At c = −1 every scorer has AUC₂ = 1 − AUC₁ and the summed label is constant "
        "(AUC_MP undefined, NaN); at c = 1 all aggregations coincide; in between loss aggregation "
        "favours the rarer label 2 and product/or aggregation trade differently."),
    "weights": (
        "Weight sensitivity: label weights w vs loss weights a "
        "(docs/theory.md §4, §5)",
        "Bayes scorers with weight ratio r on label 2: loss aggregation a = (1, r) and label "
        "aggregation w = (1, r), at r = 1 and at the ratio nearest r* = π₂(1−π₂)/(π₁(1−π₁)), where "
        "loss aggregation equals label aggregation with w = 1."),
    "learning_curve": (
        "Learners vs Bayes as n grows (docs/theory.md §9, §10)",
        "Exact AUC regret (loss aggregation, a = 1, π = (½, 0.1)) of the learners on a test "
        "population with exact conditional labels, by training-set size. Pairwise surrogates are "
        "not rank-consistent for loss aggregation (docs/theory.md §9), the plug-in route is."),
    "consistency": (
        "Surrogate consistency (docs/theory.md §9)",
        "Random finite problems (n = 8). Exact population minimiser of the pairwise surrogate risk "
        "weighted by the objective's pair weights: share of problems where its ranking has positive "
        "AUC regret (> 1e-6). For K = 1 the surrogates are consistent (regret 0); for K ≥ 2 they "
        "are not. The plug-in scorer has regret 0 on the population."),
    "real": (
        "Real data: per-label trade-offs (LA25 §7)",
        "Banking (labels: personal loan, mortgage > 0) and/or LETOR (labels: relevant, click; "
        "MQ2008 has no click features, so clicks are simulated by a position-based model, see "
        "`bipartite.data.load_letor`). Test AUCs (and per-query gAUC for LETOR) of the plug-in "
        "scorers at equal weights and of learners trained with each pairwise objective."),
}



def sweep_summary_lines(results: Mapping[str, pd.DataFrame], table_dir: str | os.PathLike,
                        fig_dir: str | os.PathLike) -> list[str]:
    """The sweeps' sections of ``summary.md``, in the order of :data:`SWEEP_TEXT`: for each sweep
    in ``results`` (folder name -> tidy results), its key-number table (written as
    ``la25_<name>`` through :func:`bipartite.studies.report.write_table`), title, caption and
    figures; then the names of the sweeps absent from ``results``."""
    tables = {"skew": skew_table, "frontier": frontier_table, "correlation": correlation_table,
              "weights": weights_table, "learning_curve": learning_curve_table,
              "consistency": consistency_table, "real": real_table}
    lines: list[str] = []
    for name, (title, caption) in SWEEP_TEXT.items():
        if name not in results:
            continue
        table = tables[name](results[name])
        write_table(table, table_dir, f"la25_{name}", note=f"{title}. {caption}")
        lines += [f"## {title}", "", caption, "", markdown_table(table), ""]
        lines += figure_links(fig_dir, f"la25_{name}")
        lines.append("")
    missing = [n for n in SWEEP_TEXT if n not in results]
    if missing:
        lines += ["Studies not in this folder: " + ", ".join(missing) + ".", ""]
    return lines
