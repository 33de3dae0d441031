"""LA25 §7 tables and figures, from the tidy results of the §7 studies only (docs/theory.md §12).

* :func:`paper_layout` — LA25 §7's table: a row per objective (each label alone, label
  aggregation, loss aggregation) and learner, per-label AUCs, Diff AUC and Min AUC as mean ±
  standard error over the splits, beside the paper's own row (:data:`PAPER_TABLES`);
* :func:`verdict_table` — label minus loss aggregation, paired by split: ΔMin (> 0: label
  aggregation more balanced) and ΔDiff (< 0: label aggregation more balanced); the whole
  aggregation family against loss aggregation is :mod:`bipartite.experiments.la25.figures.family`;
* :func:`synthetic_table` — the synthetic sweep: Diff and Min AUC of both aggregations per
  dependence regime and skew;
* :func:`balance_table`, :func:`harder_table`, :func:`balance_figures` — the K = 2 balance
  check (study ``la25.section7_balance``, docs/theory.md §12);
* :func:`gap_table`, :func:`plugin_threshold`, :func:`gap_figures` — learners vs Bayes at a
  skewed prior (study ``la25.section7_gap``);
* figures: Diff and Min AUC against skew (one panel per regime), the per-label AUC plane with the
  frontier and every objective's point (synthetic), and the learners' weight sweep (real data).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bipartite.plots import new_figure, save_figures
from bipartite.studies.report import (
    format_mean_se,
    markdown_table,
    mean_and_se,
    paired_contrast,
    standard_error,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["GAP_ROUTES", "LEARNER_COLOURS", "LEARNER_NAMES", "OBJECTIVE_MARKERS", "OBJECTIVE_NAMES",
           "PAPER_TABLES", "balance_figures", "balance_table", "gap_figures", "gap_table",
           "harder_table", "learner_colour", "learner_gap_table", "paper_layout",
           "paper_layout_markdown", "plot_section7_data", "plot_synthetic_plane",
           "plot_synthetic_skew", "plugin_threshold", "section7_data_figures",
           "synthetic_figures", "synthetic_table", "verdict_table"]

#: The routes of the study.
GAP_ROUTES = ("xgb-plugin", "xgb-pairwise", "mlp-plugin", "mlp-pairwise", "population-logistic",
              "population-exponential")

#: Row names of the paper's table.
OBJECTIVE_NAMES = {"label_1": "AUC({1}) only", "label_2": "AUC({2}) only",
                   "label_aggregation": "label aggregation (sum, linear costs)",
                   "loss_aggregation": "loss aggregation (a = 1)",
                   "max_min": "max-min AUC (pairwise, group DRO)",
                   "max_min_plugin": "max-min AUC (plug-in)"}
#: LA25 §7 as reported (secondary summary; reference, not ground truth), in the package's label
#: order: Bank Marketing (mortgage, personal loan); MSLR-WEB30K (relevant, click) — the paper
#: lists click first.
#: Each entry is (AUC label 1, AUC label 2, Diff AUC, Min AUC) as reported.
PAPER_TABLES = {
    "bank_marketing": {"label_1": (0.637, 0.523, 0.113, 0.523),
                       "label_2": (0.550, 0.573, 0.023, 0.550),
                       "label_aggregation": (0.616, 0.562, 0.054, 0.562),
                       "loss_aggregation": (0.626, 0.555, 0.071, 0.555)},
    "letor": {"label_1": (0.67, 0.70, 0.03, 0.67), "label_2": (0.61, 0.74, 0.13, 0.61),
              "label_aggregation": (0.68, 0.73, 0.05, 0.68),
              "loss_aggregation": (0.67, 0.73, 0.06, 0.67)},
}
#: Display name of each learner in the LA25 §7 tables and figures.
LEARNER_NAMES = {"linear": "linear, logistic", "linear_hinge": "linear, hinge", "mlp": "MLP",
                 "xgb": "XGBoost", "xgb_plugin": "XGBoost plug-in", "bayes": "Bayes"}
_LEARNER_ORDER = ("bayes", "linear", "linear_hinge", "mlp", "xgb")


def _order(values, order) -> list:
    return sorted(values, key=lambda v: order.index(v) if v in order else len(order))


def paper_layout(df: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard error over splits of ``auc_1, auc_2, diff, min`` (and ``gauc_*`` when
    present) per dataset, learner and objective of the paper's table."""
    import pandas as pd

    rows = df[df["objective"].isin(list(OBJECTIVE_NAMES))]
    cols = [c for c in ("auc_1", "auc_2", "diff", "min", "gauc_1", "gauc_2", "win_12")
            if c in rows and rows[c].notna().any()]
    out = []
    for (dataset, learner, objective), sub in rows.groupby(["dataset", "learner", "objective"]):
        rec = {"dataset": dataset, "learner": learner, "objective": objective}
        for c in cols:
            x = sub[c].dropna().to_numpy()
            rec[c] = float(x.mean()) if len(x) else np.nan
            rec[f"{c}_se"] = standard_error(x)
        rec["splits"] = int(sub["split"].nunique()) if "split" in sub else len(sub)
        rec["label_1"], rec["label_2"] = sub["label_1"].iloc[0], sub["label_2"].iloc[0]
        out.append(rec)
    table = pd.DataFrame(out)
    if table.empty:
        return table
    key = (table["learner"].map(lambda v: _LEARNER_ORDER.index(v) if v in _LEARNER_ORDER else 9)
           * 10 + table["objective"].map(list(OBJECTIVE_NAMES).index))
    return table.assign(_k=key).sort_values(["dataset", "_k"]).drop(columns="_k") \
        .reset_index(drop=True)


def paper_layout_markdown(table: pd.DataFrame, dataset: str, *, paper_name: str | None = None) -> str:
    """The paper's table in Markdown for one dataset: the paper's rows (if any) first, then each
    learner's rows, ``mean ± s.e.``."""
    import pandas as pd

    sub = table[table["dataset"] == dataset]
    if sub.empty:
        return ""
    n1, n2 = sub["label_1"].iloc[0], sub["label_2"].iloc[0]
    rows = [[f"*LA25 ({paper_name or dataset}), reported*",
             OBJECTIVE_NAMES[objective].format(None, n1, n2), f"{a1:g}", f"{a2:g}", f"{diff:g}",
             f"{mn:g}", "–"]
            for objective, (a1, a2, diff, mn) in PAPER_TABLES.get(dataset, {}).items()]
    rows += [[LEARNER_NAMES.get(r.learner, r.learner),
              OBJECTIVE_NAMES[r.objective].format(None, n1, n2),
              format_mean_se(r.auc_1, r.auc_1_se), format_mean_se(r.auc_2, r.auc_2_se),
              format_mean_se(r.diff, r.diff_se), format_mean_se(r.min, r.min_se), str(r.splits)]
             for r in sub.itertuples(index=False)]
    header = ["learner", "objective", f"AUC {n1}", f"AUC {n2}", "Diff AUC", "Min AUC", "splits"]
    return markdown_table(pd.DataFrame(rows, columns=header))


def verdict_table(df: pd.DataFrame) -> pd.DataFrame:
    """Label minus loss aggregation per dataset and learner, paired by split (or replicate):
    ``d_min`` (> 0: label aggregation has the higher Min AUC) and ``d_diff`` (< 0: the lower Diff
    AUC), their standard errors, and in how many splits label aggregation wins each. Each is a
    paired contrast of its one home, :func:`bipartite.studies.report.paired_contrast` (the
    claims registry grades its effects with it too)."""
    import pandas as pd

    unit = "split" if "split" in df else "replicate"
    out = []
    for (dataset, learner), sub in df.groupby(["dataset", "learner"]):
        if not {"label_aggregation", "loss_aggregation"} <= set(sub["objective"]):
            continue
        m, d = (paired_contrast(sub, col, "label_aggregation", "loss_aggregation",
                                direction=direction, pair_by=unit)
                for col, direction in (("min", "higher"), ("diff", "lower")))
        out.append({"dataset": dataset, "learner": learner, "d_min": m.effect,
                    "d_min_se": m.se, "label_higher_min": f"{m.agree}/{m.units}",
                    "d_diff": d.effect, "d_diff_se": d.se,
                    "label_lower_diff": f"{d.agree}/{d.units}"})
    return pd.DataFrame(out)


def synthetic_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per regime and π₂: Diff and Min AUC of the Bayes scorers of both aggregations, the best
    Min AUC a weighting reaches (``max_min``), which label loss aggregation under-serves
    (``loss_underserves``), the label correlation, and each learner's Diff/Min (means over
    replicates)."""
    import pandas as pd

    out = []
    for (regime, pi2), sub in df.groupby(["regime", "pi2"], sort=False):
        m = sub.groupby(["learner", "objective"])[["auc_1", "auc_2", "diff", "min"]].mean()
        rec = {"regime": regime, "pi2": pi2, "corr": float(sub["corr"].mean())}
        for obj, short in (("loss_aggregation", "loss"), ("label_aggregation", "label")):
            b = m.loc[("bayes", obj)]
            rec.update({f"{short}_auc_1": b["auc_1"], f"{short}_auc_2": b["auc_2"],
                        f"{short}_diff": b["diff"], f"{short}_min": b["min"]})
        rec["max_min"] = float(m.loc[("bayes", "max_min"), "min"])
        gap = rec["loss_auc_2"] - rec["loss_auc_1"]
        rec["loss_underserves"] = ("none" if abs(gap) < 1e-9 or pi2 == 0.5
                                   else "balanced label 1" if gap > 0 else "skewed label 2")
        rec["label_more_balanced"] = bool(rec["label_min"] > rec["loss_min"] + 1e-9)
        for learner in _order([lr for lr in sub["learner"].unique() if lr != "bayes"],
                              _LEARNER_ORDER):
            for obj, short in (("loss_aggregation", "loss"), ("label_aggregation", "label")):
                if (learner, obj) in m.index:
                    rec[f"{learner}_{short}_diff"] = m.loc[(learner, obj), "diff"]
                    rec[f"{learner}_{short}_min"] = m.loc[(learner, obj), "min"]
        out.append(rec)
    return pd.DataFrame(out)


def learner_gap_table(df: pd.DataFrame) -> pd.DataFrame:
    """Synthetic sweep: each learner's gap to the Bayes scorer of its objective (same task),
    mean over replicates, per regime and π₂."""
    import pandas as pd

    bayes = df[df["learner"] == "bayes"].set_index(["task", "objective"])
    rows = df[~df["learner"].isin(["bayes"]) & df["objective"].isin(
        ["label_aggregation", "loss_aggregation"])]
    if rows.empty:
        return pd.DataFrame()
    rec = []
    for r in rows.itertuples(index=False):
        b = bayes.loc[(r.task, r.objective)]
        rec.append({"regime": r.regime, "pi2": r.pi2, "learner": r.learner,
                    "objective": r.objective, "gap_auc_1": r.auc_1 - b["auc_1"],
                    "gap_auc_2": r.auc_2 - b["auc_2"], "gap_min": r.min - b["min"],
                    "gap_diff": r.diff - b["diff"], "gap_win_12": r.win_12 - b["win_12"]})
    return pd.DataFrame(rec).groupby(["regime", "pi2", "learner", "objective"], sort=False) \
        .mean().reset_index()


# --------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------

#: One colour per learner, the same in every §7 figure (the Bayes scorer black); a figure tells
#: objectives apart by marker (:data:`OBJECTIVE_MARKERS`) and line style, never by colour.
LEARNER_COLOURS = {"bayes": "black", "linear": "C0", "linear_hinge": "C9", "mlp": "C1",
                   "xgb": "C2", "xgb_plugin": "0.5"}
#: Marker and legend name of each objective in the §7 figures.
OBJECTIVE_MARKERS = {"loss_aggregation": ("*", "loss aggregation (a = 1)"),
                     "label_aggregation": ("D", "label aggregation (sum)"),
                     "label_1": ("<", "label 1 only"), "label_2": ("^", "label 2 only"),
                     "max_min": ("P", "max-min (pairwise)"),
                     "max_min_plugin": ("X", "max-min (plug-in)"),
                     "max_min_supported": ("s", "max-min of the weightings")}
#: Line style of the two LA25 objectives in the Diff / Min AUC panels.
_OBJ_LINE = {"label_aggregation": "-", "loss_aggregation": "--"}


def _ms(marker: str, size: float) -> float:
    """Marker size (points; squared for a scatter's area): a star drawn 1.5 × larger, so that
    it reads as large as the other markers."""
    return size * 1.5 if marker == "*" else size


def learner_colour(learner: str) -> str:
    """The colour of ``learner`` in every §7 figure (:data:`LEARNER_COLOURS`; grey if unknown)."""
    return LEARNER_COLOURS.get(learner, "0.3")


def _learner_name(learner: str) -> str:
    return LEARNER_NAMES.get(learner, learner)


def _panels(n: int, width: float = 3.6, height: float = 3.0, **kw: object) -> tuple:
    ncols = min(3, n)
    nrows = -(-n // ncols)
    fig, axes = new_figure(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False,
                           layout="constrained", **kw)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    return fig, axes.ravel()


def _key(fig, learners: list[str], objectives: list[str], *, lines: bool = False,
         extra: list | None = None) -> None:
    """One figure legend under the panels: a colour per learner, then a marker (and, with
    ``lines``, a line style) per objective, then ``extra`` handles."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=learner_colour(lr), marker="o", ms=5, lw=2 if lines else 0,
                      label=_learner_name(lr)) for lr in learners]
    handles += [Line2D([], [], color="0.3", marker=OBJECTIVE_MARKERS[o][0],
                       ms=_ms(OBJECTIVE_MARKERS[o][0], 6),
                       ls=_OBJ_LINE.get(o, "-") if lines else "none",
                       label=OBJECTIVE_MARKERS[o][1]) for o in objectives]
    handles += list(extra or [])
    fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 4),
               fontsize=7, frameon=False)


def _skew_axis(ax, ticks) -> None:
    """Log-scaled π₂ axis with a plain label at every π₂ of the sweep and no minor labels."""
    from matplotlib.ticker import NullFormatter, NullLocator

    ax.set_xscale("log")
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks], fontsize=7)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())


def _synthetic_learners(df: pd.DataFrame) -> list[str]:
    return _order([lr for lr in df["learner"].unique() if lr != "bayes"], _LEARNER_ORDER)


def plot_synthetic_skew(df: pd.DataFrame, col: str = "min") -> Figure:
    """Diff (``col="diff"``) or Min AUC (``col="min"``) of both LA25 objectives against π₂, one
    panel per dependence regime: a colour per learner (the Bayes scorer black, a line over π₂;
    the learners at the π₂ they were trained at, mean ± s.e. over replicates, side by side), a
    line style and marker per objective; on the Min AUC panels, the best Min AUC any weighting
    reaches (grey). Returns the figure (:func:`synthetic_figures` saves it)."""
    from matplotlib.lines import Line2D

    if col not in ("diff", "min"):
        raise ValueError(f"The 'col' parameter must be 'diff' or 'min', got {col!r}.")
    regimes = list(dict.fromkeys(df["regime"]))
    learners = _synthetic_learners(df)
    objectives = ["loss_aggregation", "label_aggregation"]
    fig, axes = _panels(len(regimes), sharey=True)
    for ax, regime in zip(axes, regimes, strict=False):
        sub = df[df["regime"] == regime]
        for i, learner in enumerate(["bayes", *learners]):
            for j, obj in enumerate(objectives):
                part = sub[(sub["learner"] == learner) & (sub["objective"] == obj)]
                if part.empty:
                    continue
                st = mean_and_se(part, ["pi2"], col)
                x = st["pi2"].to_numpy(dtype=float)
                if learner != "bayes":  # side by side at the learners' π₂, label then loss
                    x = x * 1.07 ** (2 * (i - 1) + j - (2 * len(learners) - 1) / 2)
                ax.errorbar(x, st["mean"], yerr=st["se"], color=learner_colour(learner),
                            ls=_OBJ_LINE[obj] if learner == "bayes" else "none",
                            marker=OBJECTIVE_MARKERS[obj][0],
                            ms=_ms(OBJECTIVE_MARKERS[obj][0], 4 if learner == "bayes" else 5),
                            lw=1.2, capsize=1.5, gid=f"{learner}:{obj}")
        if col == "min":
            st = mean_and_se(sub[(sub["learner"] == "bayes") & (sub["objective"] == "max_min")],
                             ["pi2"], "min")
            ax.plot(st["pi2"], st["mean"], color="0.6", lw=2.5, alpha=0.6, zorder=0,
                    marker="_", ms=12, mew=2.5, gid="bayes:max_min")
        _skew_axis(ax, sorted(sub["pi2"].unique()))
        ax.set_title(regime.replace("_", " "), fontsize=9)
        ax.set_xlabel("prior π₂ of label 2 (π₁ = ½)", fontsize=8)
        ax.grid(alpha=0.3)
    extra = ([Line2D([], [], color="0.6", lw=2.5, alpha=0.6, marker="_", ms=12, mew=2.5,
                     label="best Min AUC of any weighting (Bayes)")] if col == "min" else [])
    _key(fig, ["bayes", *learners], objectives, lines=True, extra=extra)
    title = ("Diff AUC = |AUC₁ − AUC₂| (lower = more balanced)" if col == "diff"
             else "Min AUC = min(AUC₁, AUC₂) (higher = more balanced)")
    fig.suptitle(f"LA25 §7, synthetic: {title}", fontsize=9)
    return fig


def plot_synthetic_plane(df: pd.DataFrame) -> Figure:
    """The per-label AUC plane at the most skewed π₂, one panel per dependence regime: the
    frontier of the Bayes weight sweep (grey) and every objective's point (marker) of every
    learner (colour; mean over replicates, the Bayes scorer large). Returns the figure."""
    from matplotlib.lines import Line2D

    regimes = list(dict.fromkeys(df["regime"]))
    learners = _synthetic_learners(df)
    pmin = float(df["pi2"].min())
    fig, axes = _panels(len(regimes), 3.8, 3.6)
    shown: list[str] = []
    for ax, regime in zip(axes, regimes, strict=False):
        sub = df[(df["regime"] == regime) & (df["pi2"] == pmin)]
        front = (sub[sub["objective"] == "frontier"].groupby("t")[["auc_1", "auc_2"]].mean()
                 if "t" in sub else sub.iloc[0:0][["auc_1", "auc_2"]])
        ax.plot(front["auc_1"], front["auc_2"], "-", color="0.6", lw=1, gid="frontier")
        for learner in ["bayes", *learners]:
            for obj, (marker, _) in OBJECTIVE_MARKERS.items():
                pt = sub[(sub["learner"] == learner) & (sub["objective"] == obj)]
                if pt.empty:
                    continue
                shown += [obj] if obj not in shown else []
                ax.scatter(pt["auc_1"].mean(), pt["auc_2"].mean(), marker=marker,
                           color=learner_colour(learner),
                           s=_ms(marker, 9 if learner == "bayes" else 6.5) ** 2,
                           alpha=0.9, edgecolors="white", linewidths=0.4, zorder=3,
                           gid=f"{learner}:{obj}")
        if not front.empty:
            lo = float(min(front["auc_1"].min(), front["auc_2"].min()))
            ax.plot([lo, 1], [lo, 1], ":", color="k", lw=0.6)
        ax.set_title(f"{regime.replace('_', ' ')} (π₂ = {pmin:g})", fontsize=9)
        ax.set_xlabel("AUC₁ (balanced label)", fontsize=8)
        ax.set_ylabel("AUC₂ (skewed label)", fontsize=8)
        ax.grid(alpha=0.3)
    _key(fig, ["bayes", *learners], [o for o in OBJECTIVE_MARKERS if o in shown],
         extra=[Line2D([], [], color="0.6", lw=1, label="frontier (Bayes weight sweep)"),
                Line2D([], [], color="k", ls=":", lw=0.6, label="AUC₁ = AUC₂")])
    fig.suptitle("LA25 §7, synthetic: per-label AUCs of every objective (large: Bayes)",
                 fontsize=9)
    return fig


def synthetic_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    """``la25_section7_diff``, ``la25_section7_min`` (:func:`plot_synthetic_skew`) and
    ``la25_section7_plane`` (:func:`plot_synthetic_plane`)."""
    paths: list[Path] = []
    for col in ("diff", "min"):
        paths += save_figures(plot_synthetic_skew(df, col), fig_dir, f"la25_section7_{col}")
    return paths + save_figures(plot_synthetic_plane(df), fig_dir, "la25_section7_plane")


def _dataset_name(sub: pd.DataFrame, dataset: str) -> str:
    if dataset == "bank_marketing":
        return "UCI Bank Marketing"
    return str(sub["data"].iloc[0]).split(" (")[0] if "data" in sub else dataset


def plot_section7_data(sub: pd.DataFrame) -> Figure:
    """One real dataset's per-label test-AUC plane, one panel per learner (shared axes): the
    learner's point for each objective (marker, in the learner's colour; mean ± s.e. over
    splits), and in every panel the same references: the XGBoost plug-in weight sweep and its loss
    and label aggregation points (grey, the trade-offs a weighting reaches) and, for Bank Marketing, the paper's reported points (open
    black). Returns the figure (:func:`section7_data_figures` saves it)."""
    from matplotlib.lines import Line2D

    dataset = str(sub["dataset"].iloc[0])
    learners = _order([lr for lr in sub["learner"].unique() if lr != "xgb_plugin"],
                      _LEARNER_ORDER)
    ncols = min(len(learners), 4) or 1
    fig, axes = new_figure(-(-max(len(learners), 1) // ncols), ncols, squeeze=False,
                           figsize=(3.3 * ncols, 3.4 * -(-max(len(learners), 1) // ncols) + 0.9),
                           sharex=True, sharey=True, layout="constrained")
    axes = axes.ravel()
    for ax in axes[len(learners):]:
        ax.set_visible(False)
    sweep = (sub[sub["objective"] == "sweep"].groupby("t")[["auc_1", "auc_2"]].mean()
             if "t" in sub else sub.iloc[0:0][["auc_1", "auc_2"]])
    paper = PAPER_TABLES.get(dataset, {}) if dataset == "bank_marketing" else {}
    shown: list[str] = []
    for ax, learner in zip(axes, learners, strict=False):
        if not sweep.empty:
            ax.plot(sweep["auc_1"], sweep["auc_2"], ".-", color="0.65", ms=2.5, lw=0.8,
                    zorder=1, gid="sweep")
        for obj, marker in (("plugin_label_aggregation", "D"), ("plugin_loss_aggregation", "*")):
            pt = sub[sub["objective"] == obj]
            if not pt.empty:
                ax.scatter(pt["auc_1"].mean(), pt["auc_2"].mean(), marker=marker,
                           s=_ms(marker, 6) ** 2, color="0.5", zorder=2, gid=f"xgb_plugin:{obj}")
        for obj, (a1, a2, _, _) in paper.items():
            ax.scatter(a1, a2, marker=OBJECTIVE_MARKERS[obj][0],
                       s=_ms(OBJECTIVE_MARKERS[obj][0], 7.5) ** 2, facecolors="none",
                       edgecolors="k", linewidths=0.8, zorder=4, gid=f"paper:{obj}")
        for obj, (marker, _) in OBJECTIVE_MARKERS.items():
            pt = sub[(sub["learner"] == learner) & (sub["objective"] == obj)]
            if pt.empty:
                continue
            shown += [obj] if obj not in shown else []
            ax.errorbar(pt["auc_1"].mean(), pt["auc_2"].mean(),
                        xerr=pt["auc_1"].sem() if len(pt) > 1 else 0.0,
                        yerr=pt["auc_2"].sem() if len(pt) > 1 else 0.0, marker=marker,
                        ms=_ms(marker, 7),
                        color=learner_colour(learner), mec="white", mew=0.4, capsize=1.5,
                        ls="none", zorder=3, gid=f"{learner}:{obj}")
        ax.set_title(_learner_name(learner), fontsize=9, color=learner_colour(learner))
        ax.grid(alpha=0.3)
    n1, n2 = sub["label_1"].iloc[0], sub["label_2"].iloc[0]
    for i, ax in enumerate(axes[:len(learners)]):
        ax.set_xlabel(f"test AUC, {n1} (π ≈ {sub['pi_1'].mean():.3f})", fontsize=8)
        if i % ncols == 0:
            ax.set_ylabel(f"test AUC, {n2} (π ≈ {sub['pi_2'].mean():.3f})", fontsize=8)
    extra = []
    if not sweep.empty:
        extra.append(Line2D([], [], color="0.65", marker=".", lw=0.8,
                            label="XGBoost plug-in, weight sweep a = (1 − t, t)"))
    for obj, marker in (("plugin_loss_aggregation", "*"), ("plugin_label_aggregation", "D")):
        if (sub["objective"] == obj).any():
            extra.append(Line2D([], [], color="0.5", marker=marker, ms=_ms(marker, 6), ls="none",
                                label=f"XGBoost plug-in, {obj[7:].replace('_', ' ')}"))
    if paper:
        extra.append(Line2D([], [], color="k", marker="o", mfc="none", ls="none",
                            label="LA25 reported (marker: objective)"))
    _key(fig, [], shown, extra=extra)
    fig.suptitle(f"LA25 §7 on {_dataset_name(sub, dataset)}: each objective's point, one panel "
                 "per learner (mean ± s.e. over splits)", fontsize=9)
    return fig


def section7_data_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    """``la25_section7_<dataset>`` for each dataset (:func:`plot_section7_data`)."""
    paths: list[Path] = []
    for dataset, sub in df.groupby("dataset"):
        paths += save_figures(plot_section7_data(sub), fig_dir, f"la25_section7_{dataset}")
    return paths


def balance_table(df: pd.DataFrame) -> pd.DataFrame:
    """Frequencies per (n, deterministic) and case: share of problems where label aggregation has
    the higher Min AUC / lower Diff AUC, where loss aggregation has, ties, and the number of
    problems where the §12 inequalities fail (0 expected)."""
    import pandas as pd

    p = df[df["kind"] == "problem"]
    by = [c for c in ("n", "deterministic") if c in p]
    out = []
    groups = list(p.groupby(by, sort=True)) if by else [((), p)]
    for key, sub in groups:
        key = key if isinstance(key, tuple) else (key,)
        for case, part in [("all", sub), *sorted(sub.groupby("case"))]:
            out.append({**dict(zip(by, key, strict=True)), "case": case, "problems": len(part),
                        "label_higher_min": float((part["min_winner"] == "label").mean()),
                        "loss_higher_min": float((part["min_winner"] == "loss").mean()),
                        "tie_min": float((part["min_winner"] == "tie").mean()),
                        "label_lower_diff": float((part["diff_winner"] == "label").mean()),
                        "loss_lower_diff": float((part["diff_winner"] == "loss").mean()),
                        "inequality_failures": int((~part["inequalities_hold"].astype(bool))
                                                   .sum())})
    return pd.DataFrame(out)


def harder_table(df: pd.DataFrame) -> pd.DataFrame:
    """Share of problems where label aggregation has the higher Min AUC, by which label has the
    lower single-label optimum (``harder``): a data-level proxy for the §12 condition."""
    p = df[(df["kind"] == "problem") & (df["case"] != "equal_skew")]
    by = ["deterministic", "harder"] if "deterministic" in p else ["harder"]
    return (p.assign(label_higher_min=(p["min_winner"] == "label").astype(float),
                     balanced_underserved=(p["case"] == "balanced_underserved").astype(float))
            .groupby(by).agg(problems=("problem", "count"),
                             balanced_underserved=("balanced_underserved", "mean"),
                             label_higher_min=("label_higher_min", "mean"))
            .reset_index())


def balance_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    """(a) Min AUC gain of label over loss aggregation against the loss-aggregation AUC gap
    AUC_s − AUC_b: label aggregation wins only right of 0 (the balanced label under-served);
    (b) two exact frontiers with both Bayes points, one where each objective wins."""
    p = df[df["kind"] == "problem"]
    p = p[p["case"] != "equal_skew"]
    if p.empty:
        return []
    fig, axes = new_figure(1, 3, figsize=(13.5, 4.0), layout="constrained")
    gap = np.where(p["balanced"] == 0, p["loss_2"] - p["loss_1"], p["loss_1"] - p["loss_2"])
    gain = p["min_label"] - p["min_loss"]
    colours = np.where(gain > 1e-12, "C2", np.where(gain < -1e-12, "C3", "0.5"))
    axes[0].scatter(gap, gain, s=6, c=colours)
    axes[0].axvline(0, color="k", lw=0.6)
    axes[0].axhline(0, color="k", lw=0.6)
    axes[0].set_xlabel("AUC_skewed − AUC_balanced under loss aggregation (a = 1)")
    axes[0].set_ylabel("Min AUC: label − loss aggregation")
    axes[0].set_title("Label aggregation wins (green) only right of 0", fontsize=9)
    axes[0].grid(alpha=0.3)
    front = df[df["kind"] == "frontier"]
    has = p[p["problem"].isin(front["problem"].unique())]
    if "task" in has and "task" in front:
        has = has.assign(key=list(zip(has["task"], has["problem"], strict=True)))
    for ax, winner in zip(axes[1:], ["label", "loss"], strict=True):
        cand = has[has["min_winner"] == winner]
        nice = cand[cand[["loss_1", "loss_2", "label_1", "label_2"]].min(axis=1) > 0.55]
        if "deterministic" in nice:
            nice = nice[~nice["deterministic"].astype(bool)]
        cand = nice if not nice.empty else cand
        if cand.empty:
            ax.set_visible(False)
            continue
        r = cand.iloc[0]
        pts = front[front["problem"] == r["problem"]]
        if "task" in front:
            pts = pts[pts["task"] == r["task"]]
        pts = pts.sort_values("auc_1")
        ax.plot(pts["auc_1"], pts["auc_2"], ".-", color="0.6", ms=4, lw=0.6,
                label="exact frontier (all weak orders)")
        ax.scatter(r["loss_1"], r["loss_2"], marker="*", s=140, color="C3", zorder=3,
                   label="Bayes, loss aggregation (a = 1)")
        ax.scatter(r["label_1"], r["label_2"], marker="D", s=50, color="C2", zorder=3,
                   label="Bayes, label aggregation (sum)")
        lo = min(pts["auc_1"].min(), pts["auc_2"].min())
        ax.plot([lo, 1], [lo, 1], ":", color="k", lw=0.6, label="AUC₁ = AUC₂")
        ax.set_xlabel(f"AUC₁ (π₁ = {r['pi_1']:.2f})")
        ax.set_ylabel(f"AUC₂ (π₂ = {r['pi_2']:.2f})")
        ax.set_title(f"{winner} aggregation has the higher Min AUC", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    return save_figures(fig, fig_dir, "la25_section7_balance")


def gap_table(df: pd.DataFrame) -> pd.DataFrame:
    """Mean (and s.e. of ``max_abs_gap``) per route and training size; population routes last."""
    cols = ["gap_auc_1", "gap_auc_2", "gap_win_12", "max_abs_gap", "regret", "win_12",
            "bayes_win_12"]
    table = df.groupby(["objective", "route", "n_train"], sort=True)[cols].mean().reset_index()
    se = df.groupby(["objective", "route", "n_train"])["max_abs_gap"].sem().to_numpy()
    table.insert(table.columns.get_loc("max_abs_gap") + 1, "max_abs_gap_se", np.nan_to_num(se))
    table["replicates"] = df.groupby(["objective", "route", "n_train"]).size().to_numpy()
    order = {r: i for i, r in enumerate(GAP_ROUTES)}
    table = table.assign(_o=table["route"].map(order)).sort_values(["objective", "_o", "n_train"])
    return table.drop(columns="_o").reset_index(drop=True)


def plugin_threshold(table: pd.DataFrame, tol: float = 0.01) -> dict:
    """Per objective and learner, the smallest ``n_train`` where the plug-in route's mean
    ``max_abs_gap`` is below ``tol`` (None if none is), and the pairwise route's gap there."""
    out = {}
    for (objective, route), sub in table.groupby(["objective", "route"]):
        if not route.endswith("plugin"):
            continue
        ok = sub[sub["max_abs_gap"] < tol]
        n = None if ok.empty else int(ok["n_train"].min())
        pair = table[(table["objective"] == objective)
                     & (table["route"] == route.replace("plugin", "pairwise"))]
        at = pair[pair["n_train"] == n] if n is not None else pair.iloc[0:0]
        out[(objective, route.split("-")[0])] = {
            "n_train": n, "pairwise_gap": None if at.empty else float(at["max_abs_gap"].iloc[0]),
            "pairwise_gap_win_12": None if at.empty else float(at["gap_win_12"].iloc[0])}
    return out


def gap_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    """Gap to Bayes (largest ``|ΔAUC|`` and ΔW₁>₂) against the training size, per route: a colour
    per learner (:data:`LEARNER_COLOURS`), solid with filled circles for the plug-in route and
    dashed with open squares for the pairwise route; the population minimisers as dotted horizontal lines (n = ∞)."""
    from matplotlib.ticker import NullFormatter, NullLocator

    paths: list[Path] = []
    for objective, part in df.groupby("objective"):
        fig, axes = new_figure(1, 2, figsize=(10.0, 3.8), layout="constrained")
        pops = sorted(r for r in part["route"].unique() if r.startswith("population"))
        for route, sub in sorted(part.groupby("route")):
            learner, _, method = route.partition("-")
            for ax, col in zip(axes, ["max_abs_gap", "gap_win_12"], strict=True):
                st = mean_and_se(sub, ["n_train"], col)
                if learner == "population":
                    ax.axhline(st["mean"].iloc[0], ls=":", color="0.2",
                               lw=0.8 + pops.index(route), label=f"{route} (n = ∞)")
                else:
                    pairwise = method == "pairwise"
                    ax.errorbar(st["n_train"], st["mean"], yerr=st["se"],
                                marker="s" if pairwise else "o", ms=4, mfc="white" if pairwise
                                else None, capsize=2, color=learner_colour(learner),
                                ls="--" if pairwise else "-", label=route)
        axes[0].axhline(0.01, color="k", lw=0.6, ls="--", label="0.01")
        axes[0].set_ylabel("largest |AUC_k(learner) − AUC_k(Bayes)|")
        axes[1].axhline(0.0, color="k", lw=0.6)
        axes[1].set_ylabel("W₁>₂(learner) − W₁>₂(Bayes)")
        sizes = sorted(n for n in part["n_train"].unique() if n > 0)
        for ax in axes:
            ax.set_xscale("log")
            ax.set_xticks(sizes, [f"{n:,}" for n in sizes])
            ax.xaxis.set_minor_locator(NullLocator())
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("training samples n")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=6)
        pi2 = f"{part['pi2'].iloc[0]:g}" if "pi2" in part else "0.02"
        fig.suptitle(f"Gap to the Bayes scorer ({objective.replace('_', ' ')}, π = (½, {pi2})): "
                     "plug-in = estimation error, population minimiser = surrogate "
                     "inconsistency", fontsize=8)
        paths += save_figures(fig, fig_dir, f"la25_section7_gap_{objective}")
    return paths
