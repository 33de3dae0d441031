"""HAP-VR training figures and key-number tables, from the tidy results of ``hapvr.synthetic`` and
``hapvr.mq2008`` only (docs/theory.md §8, §11).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bipartite.plots import new_figure, save_figures

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

__all__ = ["LOSSES", "METRICS", "VANISH_THRESHOLD", "gradient_figure", "key_numbers",
           "learning_curves_figure", "runs_table", "training_figures", "training_table"]

#: Loss settings compared: HAP-VR's video-level QuadLinear-AP setting (δ = 0.05, ρ = 0.1, Table 6),
#: Smooth-AP with its usual τ = 0.01 (docs/theory.md §8 default), and the pairwise logistic loss.
LOSSES: dict[str, dict[str, Any]] = {
    "QuadLinear-AP": {"loss": "quadlinear_ap", "delta": 0.05, "rho": 0.1},
    "Smooth-AP": {"loss": "smooth_ap", "tau": 0.01},
    "pairwise logistic": {"loss": "pairwise_logistic"},
}
#: Threshold of the vanishing-gradient diagnostic (:func:`bipartite.contrib.ap_training.vanishing_shares`).
VANISH_THRESHOLD = 1e-2
#: Test metrics of :func:`bipartite.contrib.ap_training.ranking_report`.
METRICS = ("map", "ndcg@10", "gauc", "auc")
_DIAGNOSTICS = ("misranked", "vanish_surrogate", "vanish_full")


def _kind(df, kind: str):
    return df[df["kind"] == kind] if "kind" in df else df.iloc[:0]


def _concat(dfs):
    import pandas as pd

    parts = [d for d in dfs if d is not None and not d.empty]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _first_run(df):
    """The rows of the first run of each loss: first replicate, first split (task order)."""
    if df.empty:
        return df
    rep = df["replicate"].min()
    sub = df[df["replicate"] == rep]
    return sub[sub["split"] == sub["split"].iloc[0]]


# ----------------------------------------------------------------------------------------------
# Tables
# ----------------------------------------------------------------------------------------------


def runs_table(*dfs: pd.DataFrame | None) -> pd.DataFrame:
    """One row per (dataset, split, replicate, loss): test metrics after the fixed budget."""
    final = _kind(_concat(dfs), "final")
    cols = ["dataset", "split", "replicate", "seed", "loss", *METRICS]
    return final[cols].reset_index(drop=True) if not final.empty else final


def training_table(*dfs: pd.DataFrame | None) -> pd.DataFrame:
    """Mean over runs (seeds and MQ2008 folds) of the test metrics per (dataset, loss), their
    standard errors ``*_se``, and the shares of the gradient diagnostic averaged over training
    (``*_avg``: the mean over runs of each run's mean over its recorded steps)."""
    df = _concat(dfs)
    final = _kind(df, "final")
    g = final.groupby(["dataset", "loss"], sort=False)
    table = g[list(METRICS)].mean().reset_index()
    se = g[list(METRICS)].std().reset_index()
    n = g.size().to_numpy()
    for m in METRICS:
        table[f"{m}_se"] = se[m].to_numpy() / np.sqrt(np.maximum(n, 1))
    table.insert(2, "n_runs", n)
    curve = _kind(df, "curve")
    keys = ["dataset", "loss"]
    if not curve.empty:
        per_run = curve.groupby([*keys, "task"], sort=False)[list(_DIAGNOSTICS)].mean()
        avg = per_run.groupby(level=keys, sort=False).mean()
        for key in _DIAGNOSTICS:
            table[f"{key}_avg"] = [float(avg.loc[(d, lo), key]) if (d, lo) in avg.index
                                   else np.nan
                                   for d, lo in zip(table["dataset"], table["loss"], strict=True)]
    return table


def key_numbers(*dfs: pd.DataFrame | None) -> dict[str, Any]:
    """The headline numbers: ``<dataset>_<loss>_<metric>`` (means over runs, metrics and the
    averaged vanishing shares) and, per dataset, how many runs QuadLinear-AP beats Smooth-AP and
    the pairwise logistic loss in MAP (``<dataset>_quadlinear_beats_*_runs``, ``<dataset>_n_runs``)."""
    res: dict[str, Any] = {}
    table = training_table(*dfs)
    for _, row in table.iterrows():
        for m in (*METRICS, "vanish_surrogate_avg", "vanish_full_avg"):
            if m in row:
                res[f"{row['dataset']}_{row['loss']}_{m}"] = float(row[m])
    final = _kind(_concat(dfs), "final")
    if final.empty:
        return res
    wins = final.pivot_table(index=["dataset", "split", "replicate"], columns="loss",
                             values="map")
    for dataset in wins.index.get_level_values(0).unique():
        w = wins.loc[dataset]
        res[f"{dataset}_quadlinear_beats_smoothap_runs"] = int(
            (w["QuadLinear-AP"] > w["Smooth-AP"]).sum())
        res[f"{dataset}_quadlinear_beats_pairwise_runs"] = int(
            (w["QuadLinear-AP"] > w["pairwise logistic"]).sum())
        res[f"{dataset}_n_runs"] = len(w)
    return res


# ----------------------------------------------------------------------------------------------
# Figures
# ----------------------------------------------------------------------------------------------


def _smooth(steps: np.ndarray, values: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Moving average over the finite records; each value is placed at the last step it covers."""
    ok = np.isfinite(values)
    s, v = steps[ok], values[ok]
    if len(v) < width or width <= 1:
        return s, v
    return s[width - 1:], np.convolve(v, np.ones(width) / width, mode="valid")


def gradient_figure(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    """The gradient-vanishing diagnostic during training (cf. HAP-VR Fig. 4), one line per loss,
    from the ``"curve"`` rows of the first run: ``hapvr_gradient_vanishing_<dataset>``."""
    curve = _first_run(_kind(df, "curve"))
    if curve.empty:
        return []
    dataset = str(curve["dataset"].iloc[0])
    fig, axes = new_figure(1, 3, figsize=(12, 3.4), layout="tight")
    panels = (("misranked", "share of pos-neg pairs mis-ranked"),
              ("vanish_surrogate", "near-zero φ'(d) among mis-ranked\n(pair surrogate, HAP-VR "
                                   "Fig. 4)"),
              ("vanish_full", "near-zero ∂L/∂d among mis-ranked\n(whole loss)"))
    for ax, (key, title) in zip(axes, panels, strict=True):
        for i, name in enumerate(n for n in LOSSES if n in set(curve["loss"])):
            sub = curve[curve["loss"] == name].sort_values("step")
            steps, values = _smooth(sub["step"].to_numpy(dtype=float),
                                    sub[key].to_numpy(dtype=float), 5)
            ax.plot(steps, values, label=name, color=f"C{i}", ls=["-", "--", ":"][i % 3])
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("training step")
        ax.set_ylim(-0.02, 1.02)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{dataset}: gradient vanishing during training (threshold "
                 f"{VANISH_THRESHOLD:g}; moving average of 5 records)", fontsize=10)
    return save_figures(fig, fig_dir, f"hapvr_gradient_vanishing_{dataset.lower()}")


def learning_curves_figure(dfs: Sequence[pd.DataFrame | None], fig_dir: Path) -> list[Path]:
    """Test MAP per epoch of the first run of each loss, one panel per dataset
    (``hapvr_learning_curves``), from the ``"epoch"`` rows."""
    runs = [_first_run(_kind(df, "epoch")) for df in dfs if df is not None]
    runs = [r for r in runs if not r.empty]
    if not runs:
        return []
    fig, axes = new_figure(1, len(runs), figsize=(4.6 * len(runs), 3.4), layout="tight",
                           squeeze=False)
    for ax, run in zip(axes[0], runs, strict=True):
        for i, name in enumerate(n for n in LOSSES if n in set(run["loss"])):
            sub = run[run["loss"] == name].sort_values("epoch")
            ax.plot(sub["epoch"], sub["map"], marker="o", ms=3, label=name, color=f"C{i}")
        ax.set_title(f"{run['dataset'].iloc[0]}: test MAP per epoch", fontsize=10)
        ax.set_xlabel("epoch")
        ax.set_ylabel("MAP")
    axes[0, 0].legend(fontsize=8)
    return save_figures(fig, fig_dir, "hapvr_learning_curves")


def training_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    """Figures of one HAP-VR study (``hapvr.synthetic`` or ``hapvr.mq2008``): the
    gradient-vanishing figure of its dataset."""
    return gradient_figure(df, Path(fig_dir))
