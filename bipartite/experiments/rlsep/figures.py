"""RLSEP figures and key-number tables, from the tidy results of ``rlsep.label_ranking`` only.

The results hold one task per (network seed, loss) with rows of three kinds (see
:func:`bipartite.experiments.rlsep.studies.rlsep_label_ranking`): ``"metrics"`` (ranked ``R_*``
and unranked ``U_*`` metrics), ``"by_num_relevant"`` (ranked accuracy by number of relevant
labels, cf. RLSEP Fig. 5) and ``"calibration"`` (mean centred score by importance decile,
cf. RLSEP Fig. 3). The losses of one replicate share the network seed (paired seeds), so
comparisons are paired by ``replicate``. docs/theory.md §11 (RLSEP).

Decision rules (stated before running; see ``papers/rlsep/claims_label_ranking.toml``):

* **beats** — RLSEP minus baseline, paired over seeds: positive in every seed and, with at least
  3 seeds, one-sided paired t-test ``p < 0.01`` (the paper's significance level);
* **tie** — ``|mean paired difference| <= TIE_TOL`` (2 percentage points) on an unranked metric.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bipartite.plots import new_figure, save_figures

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BASELINES",
    "LOSSES",
    "LOSS_NAMES",
    "RANKED",
    "TIE_TOL",
    "UNRANKED",
    "accuracy_by_num_relevant_table",
    "comparison_table",
    "key_numbers",
    "label_ranking_figures",
    "label_ranking_table",
    "runs_table",
]

#: Training losses compared (RLSEP Tab. 1 plus per-label BCE), as ``LabelRankingMLP(loss=...)``.
LOSSES = ("ce", "bce", "lsep", "rlsep")
#: Their names in tables and figures.
LOSS_NAMES = {"ce": "CE", "bce": "BCE", "lsep": "LSEP", "rlsep": "RLSEP"}
#: The baselines RLSEP is compared with.
BASELINES = ("CE", "BCE", "LSEP")
RANKED = ("precision", "recall", "f1", "accuracy", "exact_match", "map")
UNRANKED = ("precision", "recall", "f1", "accuracy", "exact_match")
#: Tolerance (absolute, on metrics in [0, 1]) under which a mean paired difference is a tie.
TIE_TOL = 0.02

_ORDER = [LOSS_NAMES[k] for k in LOSSES]


def _metric_columns() -> list[str]:
    return [f"R_{m}" for m in RANKED] + [f"U_{m}" for m in UNRANKED]


def _kind(df, kind: str):
    """The rows of one kind, with ``loss`` = the display name, in the order of :data:`LOSSES`."""
    sub = df[df["kind"] == kind].copy()
    sub["loss"] = sub["loss"].map(LOSS_NAMES)
    sub["_order"] = sub["loss"].map(_ORDER.index)
    return sub.sort_values(["_order", "replicate"], kind="stable").drop(columns="_order")


def runs_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (network seed, loss): ``R_*`` ranked metrics, ``U_*`` unranked metrics."""
    sub = _kind(df, "metrics")
    return sub[["replicate", "seed", "loss", *_metric_columns()]].reset_index(drop=True)


def label_ranking_table(df: pd.DataFrame) -> pd.DataFrame:
    """Mean over network seeds of every metric per loss, with standard errors ``*_se``
    (cf. RLSEP Tab. 1)."""
    sub = _kind(df, "metrics")
    cols = _metric_columns()
    g = sub.groupby("loss", sort=False)
    table = g[cols].mean().reset_index()
    n = g["replicate"].nunique().to_numpy()
    se = g[cols].std(ddof=1).reset_index()
    for c in cols:
        table[f"{c}_se"] = se[c].to_numpy() / np.sqrt(n)
    return table


def _paired(wide, a: str, b: str) -> dict[str, Any]:
    """Paired (over seeds) difference ``a - b``: mean, SE, min, max, one-sided p."""
    from scipy import stats

    diff = (wide[a] - wide[b]).to_numpy()
    n = len(diff)
    se = float(diff.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    if n >= 3 and np.ptp(diff) > 0:
        p = float(stats.ttest_1samp(diff, 0.0, alternative="greater").pvalue)
    elif n >= 3:
        p = 0.0 if diff[0] > 0 else 1.0
    else:
        p = float("nan")
    return {"mean_diff": float(diff.mean()), "se": se, "min_diff": float(diff.min()),
            "max_diff": float(diff.max()), "p_greater": p, "n_seeds": n}


def comparison_table(df: pd.DataFrame) -> pd.DataFrame:
    """RLSEP minus each baseline on every metric, paired over seeds, with the verdict
    (``beats`` / ``tie`` / ``worse`` / ``differs``, rules in the module docstring)."""
    import pandas as pd

    sub = _kind(df, "metrics")
    out = []
    for baseline in BASELINES:
        for kind, metrics in (("R", RANKED), ("U", UNRANKED)):
            for m in metrics:
                wide = sub.pivot_table(index="replicate", columns="loss", values=f"{kind}_{m}")
                st = _paired(wide, "RLSEP", baseline)
                beats = st["min_diff"] > 0 and (st["n_seeds"] < 3 or st["p_greater"] < 0.01)
                tie = abs(st["mean_diff"]) <= TIE_TOL
                verdict = "beats" if beats else "tie" if tie else (
                    "worse" if st["max_diff"] < 0 else "differs")
                out.append({"baseline": baseline, "kind": kind, "metric": m, **st,
                            "verdict": verdict})
    return pd.DataFrame(out)


def accuracy_by_num_relevant_table(df: pd.DataFrame) -> pd.DataFrame:
    """Mean ranked accuracy on the test instances with a given number of relevant labels
    (cf. RLSEP Fig. 5)."""
    sub = _kind(df, "by_num_relevant")
    sub["n_relevant"] = sub["n_relevant"].astype(int)
    return (sub.groupby(["loss", "n_relevant"], sort=False)["ranked_accuracy"].mean()
            .reset_index())


def key_numbers(df: pd.DataFrame) -> dict[str, Any]:
    """The headline numbers: mean metric per loss (``"RLSEP_R_accuracy"``), every verdict
    (``"verdict_R_accuracy_vs_LSEP"``), ranked accuracy by number of relevant labels
    (``"LSEP_R_accuracy_m6"``), ``"ranked_beats_all"``, ``"unranked_ties_all"``,
    ``"unranked_ties_except_exact_match"`` and ``"n_seeds"``."""
    table = label_ranking_table(df)
    comp = comparison_table(df)
    out: dict[str, Any] = {"n_seeds": int(df["replicate"].nunique())}
    for _, row in table.iterrows():
        for c in _metric_columns():
            out[f"{row['loss']}_{c}"] = float(row[c])
    verdict = {f"{r.kind}_{r.metric}_vs_{r.baseline}": r.verdict
               for r in comp.itertuples(index=False)}
    out.update({f"verdict_{k}": v for k, v in verdict.items()})
    for r in accuracy_by_num_relevant_table(df).itertuples(index=False):
        out[f"{r.loss}_R_accuracy_m{r.n_relevant}"] = float(r.ranked_accuracy)
    out["ranked_beats_all"] = all(verdict[f"R_{m}_vs_{b}"] == "beats"
                                  for m in RANKED for b in BASELINES)
    out["unranked_ties_all"] = all(verdict[f"U_{m}_vs_{b}"] == "tie"
                                   for m in UNRANKED for b in BASELINES)
    out["unranked_ties_except_exact_match"] = all(
        verdict[f"U_{m}_vs_{b}"] == "tie" for m in UNRANKED if m != "exact_match"
        for b in BASELINES)
    return out


def label_ranking_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    """``rlsep_metrics`` (mean metrics per loss, cf. Tab. 1) and ``rlsep_rank_structure``
    (ranked accuracy by number of relevant labels, cf. Fig. 5; calibration, cf. Fig. 3)."""
    paths: list[Path] = []
    table = label_ranking_table(df)
    n_seeds = int(df["replicate"].nunique())
    fig, axes = new_figure(1, 2, figsize=(11, 3.6))
    for ax, kind, metrics in ((axes[0], "R", RANKED), (axes[1], "U", UNRANKED)):
        x = np.arange(len(metrics))
        width = 0.8 / len(LOSSES)
        for i, name in enumerate(_ORDER):
            row = table[table["loss"] == name]
            if row.empty:
                continue
            row = row.iloc[0]
            ax.bar(x + (i - (len(LOSSES) - 1) / 2) * width,
                   [row[f"{kind}_{m}"] for m in metrics], width,
                   yerr=[row[f"{kind}_{m}_se"] for m in metrics], label=name)
        ax.set_xticks(x, [m.replace("exact_match", "0-1") for m in metrics])
        ax.set_ylim(0, 1.05)
        ax.set_title("ranked metrics (R)" if kind == "R" else "unranked metrics (U)")
    axes[0].legend(loc="lower left", fontsize=8)
    fig.suptitle(f"Synthetic ranked labels: mean over {n_seeds} network seeds, "
                 "bars = standard error")
    paths += save_figures(fig, fig_dir, "rlsep_metrics")

    fig, axes = new_figure(1, 2, figsize=(10, 3.6))
    g = accuracy_by_num_relevant_table(df)
    for name in _ORDER:
        sub = g[g["loss"] == name]
        axes[0].plot(sub["n_relevant"], sub["ranked_accuracy"], marker="o", label=name)
    axes[0].set_xticks(sorted(g["n_relevant"].unique()))
    axes[0].set_xlabel("number of relevant labels")
    axes[0].set_ylabel("ranked accuracy")
    axes[0].set_title("cf. RLSEP Fig. 5")
    axes[0].legend(fontsize=8)
    calib = _kind(df, "calibration")
    c = calib.groupby(["loss", "decile"], sort=False)[["importance", "score"]].mean()
    c = c.reset_index().sort_values(["loss", "decile"], kind="stable")
    for name in _ORDER:
        sub = c[c["loss"] == name]
        axes[1].plot(sub["importance"], sub["score"], marker=".", label=name)
    axes[1].set_xlabel("true importance (decile mean), relevant labels")
    axes[1].set_ylabel("score minus instance mean")
    axes[1].set_title("calibration, cf. RLSEP Fig. 3")
    paths += save_figures(fig, fig_dir, "rlsep_rank_structure")
    return paths
