"""LR2PPO figures and key-number tables, from the tidy results of ``lr2ppo.mq2008`` only.

The results hold one task per (seed, annotation fraction); the fractions of one replicate share
the seed (paired seeds: the same stage-1 model, nested annotation sets), so gains over stage 1 are
paired by ``replicate``. Rows of kind ``"final"`` give the test NDCG@k of each method (stage 1 at
fraction 0, stage 3 and its ablations, the pair fine-tune control) and the reward-model accuracy;
rows of kind ``"curve"`` give test NDCG@10 along the PPO iterations (column ``step``) at the
curve fraction. See :func:`bipartite.experiments.lr2ppo.studies.lr2ppo_mq2008` and
docs/theory.md §11 (LR2PPO).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bipartite.plots import new_figure, save_figures

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CONTROL",
    "CURVE_FRACTION",
    "DELTA_ZERO",
    "KS",
    "ORIGINAL_RATIO",
    "STAGE1",
    "STAGE3",
    "annotation_table",
    "gains_table",
    "key_numbers",
    "mq2008_figures",
    "runs_table",
]

KS = (1, 3, 5, 10)
#: Annotation fraction of the training curves and ablations (the paper's default, App. C.3).
CURVE_FRACTION = 0.1
#: Method names (the ``method`` column).
STAGE1 = "stage 1"
STAGE3 = "LR2PPO (stage 3)"
ORIGINAL_RATIO = "stage 3, original PPO ratio"
DELTA_ZERO = "stage 3, delta = 0"
CONTROL = "stage 1 + pair fine-tune (control)"

_NDCG = [f"ndcg@{k}" for k in KS]


def _final(df):
    return df[df["kind"] == "final"]


def runs_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (seed, method, annotation fraction): test NDCG@k on MQ2008 S5 and the
    reward-model accuracy on S5's partial-order pairs."""
    return _final(df)[["replicate", "seed", "method", "fraction", *_NDCG,
                       "rm_accuracy"]].reset_index(drop=True)


def annotation_table(df: pd.DataFrame) -> pd.DataFrame:
    """Mean over seeds per (method, fraction) (cf. LR2PPO Tab. 3); ``*_se``: standard error."""
    sub = _final(df)
    g = sub.groupby(["method", "fraction"], sort=False)
    table = g[[*_NDCG, "rm_accuracy"]].mean().reset_index()
    n = g["replicate"].nunique().to_numpy()
    se = g[_NDCG].std(ddof=1).reset_index()
    for c in _NDCG:
        table[f"{c}_se"] = (se[c] / np.sqrt(n)).fillna(0.0).to_numpy()
    return table


def gains_table(df: pd.DataFrame) -> pd.DataFrame:
    """NDCG gain of every method over stage 1, paired by seed: mean and minimum over seeds."""
    import pandas as pd

    sub = _final(df)
    s1 = sub[sub["method"] == STAGE1].set_index("replicate")[_NDCG]
    gains = []
    for (method, frac), part in sub[sub["method"] != STAGE1].groupby(["method", "fraction"],
                                                                     sort=False):
        reps = [r for r in part["replicate"] if r in s1.index]
        d = part.set_index("replicate").loc[reps, _NDCG] - s1.loc[reps].to_numpy()
        gains.append({"method": method, "fraction": frac,
                      **{f"gain_{c}": float(d[c].mean()) for c in _NDCG},
                      **{f"min_gain_{c}": float(d[c].min()) for c in _NDCG},
                      "n_seeds": len(d)})
    return pd.DataFrame(gains)


def key_numbers(df: pd.DataFrame) -> dict[str, Any]:
    """The headline numbers: mean NDCG@k and reward-model accuracy per (method, fraction)
    (``"LR2PPO (stage 3)|f0.1|ndcg@10"``, ``"stage 1|f0|ndcg@10"``), the paired gains of stage 3
    over stage 1 (``"gain_ndcg@10_f0.1"``), ``"stage3_improves_all"`` (every k, fraction and
    seed), ``"stage3_improves_ndcg10_all_fractions"`` and ``"n_seeds"``."""
    table, gains = annotation_table(df), gains_table(df)
    out: dict[str, Any] = {"n_seeds": int(df["replicate"].nunique())}
    for _, row in table.iterrows():
        tag = f"{row['method']}|f{row['fraction']:g}"
        for c in _NDCG:
            out[f"{tag}|{c}"] = float(row[c])
        if np.isfinite(row["rm_accuracy"]):
            out[f"{tag}|rm_accuracy"] = float(row["rm_accuracy"])
    main = gains[gains["method"] == STAGE3] if len(gains) else gains
    for _, row in main.iterrows():
        for c in _NDCG:
            out[f"gain_{c}_f{row['fraction']:g}"] = float(row[f"gain_{c}"])
    out["stage3_improves_all"] = bool(
        len(main) and (main[[f"min_gain_{c}" for c in _NDCG]].to_numpy() > 0).all())
    out["stage3_improves_ndcg10_all_fractions"] = bool(
        len(main) and (main["min_gain_ndcg@10"] > 0).all())
    return out


def mq2008_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    """``lr2ppo_ndcg_vs_annotation`` (NDCG@k against the annotated fraction, cf. Tab. 3) and
    ``lr2ppo_training_curves`` (test NDCG@10 along PPO, mean over seeds, cf. Fig. 3)."""
    paths: list[Path] = []
    table = annotation_table(df)
    n_seeds = int(df["replicate"].nunique())
    fig, axes = new_figure(1, len(KS), figsize=(3.2 * len(KS), 3.2), sharex=True)
    base = table[table["method"] == STAGE1]
    for ax, k in zip(axes, KS, strict=True):
        col = f"ndcg@{k}"
        if not base.empty:
            ax.axhline(base[col].iloc[0], color="gray", ls="--", label=STAGE1)
        for method, marker in ((STAGE3, "o"), (CONTROL, "s")):
            sub = table[table["method"] == method].sort_values("fraction")
            ax.errorbar(sub["fraction"], sub[col], yerr=sub[f"{col}_se"], marker=marker,
                        label=method, capsize=2)
        ax.set_title(f"NDCG@{k}")
        ax.set_xlabel("annotated fraction of target pairs")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"MQ2008 (source S1, target S2-S4, test S5), {n_seeds} seed(s): "
                 "cf. LR2PPO Tab. 3", y=1.04)
    paths += save_figures(fig, fig_dir, "lr2ppo_ndcg_vs_annotation")

    curves = df[df["kind"] == "curve"]
    fig, ax = new_figure(figsize=(5.5, 3.6))
    for method, sub in curves.groupby("method", sort=False):
        g = sub.groupby("step")["ndcg@10"]
        mean, sd = g.mean(), g.std(ddof=1).fillna(0.0)
        ax.plot(mean.index, mean.to_numpy(), marker=".", label=method)
        if n_seeds > 1:
            ax.fill_between(mean.index, (mean - sd).to_numpy(), (mean + sd).to_numpy(),
                            alpha=0.15)
    ax.set_xlabel("PPO iteration")
    ax.set_ylabel("test NDCG@10")
    frac = float(curves["fraction"].iloc[0]) if len(curves) else CURVE_FRACTION
    ax.set_title(f"stage-3 curves, {frac:g} annotated, mean over {n_seeds} seed(s); cf. Fig. 3",
                 fontsize=9)
    ax.legend(fontsize=7)
    paths += save_figures(fig, fig_dir, "lr2ppo_training_curves")
    return paths
