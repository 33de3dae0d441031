"""MTRUB figures and key-number tables, from the tidy results of ``mtrub.synthetic`` and
``mtrub.banking`` only (docs/theory.md §11).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bipartite.plots import new_figure, save_figures

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["AGGREGATORS", "BANKING_LABELS", "aggregation_table", "banking_figures",
           "check_table", "frontier_figure", "key_numbers", "models_figure", "models_table",
           "synthetic_figures"]

#: The aggregated scorers compared, in table order.
AGGREGATORS = ("fusion (searched γ)", "fusion (uniform γ)", "loss aggregation (a=1)",
               "label aggregation (sum)", "first label only")
#: The five binary columns of Banking used as behaviours, in ``load_bank_personal_loan(...).Y_all`` order.
BANKING_LABELS = ("personal_loan", "securities_account", "cd_account", "online", "credit_card")

_MARKERS = {"fusion (searched γ)": ("*", "C3"), "fusion (uniform γ)": ("P", "C4"),
            "loss aggregation (a=1)": ("s", "C0"), "label aggregation (sum)": ("D", "C2"),
            "first label only": ("v", "C7")}
_CHECK_COLUMNS = ("n_candidates", "n_val_pareto", "val_pareto_still_pareto_on_test",
                  "n_test_pareto", "fusion_front_dominated_by_linear",
                  "linear_front_dominated_by_fusion", "loss_aggregation_dominated_by_fusion",
                  "label_aggregation_dominated_by_fusion")


def _kind(df, kind: str):
    return df[df["kind"] == kind] if "kind" in df else df.iloc[:0]


def _label_names(df) -> list[str]:
    """The labels of a results table, in order (from the head rows, else the gAUC columns)."""
    heads = _kind(df, "head")
    if not heads.empty:
        return list(dict.fromkeys(heads["label"]))
    front = _kind(df, "front")
    return [c[5:] for c in front.columns if c.startswith("gauc_") and c != "gauc_mean"
            and front[c].notna().any()]


# ----------------------------------------------------------------------------------------------
# Tables
# ----------------------------------------------------------------------------------------------


def _mean_table(df, by: list[str], cols: list[str]):
    g = df.groupby(by, sort=False)
    out = g[cols].mean().reset_index()
    out.insert(len(by), "n_seeds", g["replicate"].nunique().to_numpy())
    return out


def models_table(df: pd.DataFrame) -> pd.DataFrame:
    """Synthetic learners: mean over replicates of test AUC, gAUC and nDCG@10 per (model, label),
    each label ranked by its own head (cf. MTRUB Table 1)."""
    return _mean_table(_kind(df, "head"), ["model", "label"], ["auc", "gauc", "ndcg10"])


def aggregation_table(df: pd.DataFrame, by: str = "probabilities") -> pd.DataFrame:
    """Mean over replicates of every per-label metric of each aggregated scorer, per ``by``
    (``"probabilities"`` for the synthetic study, ``"model"`` for Banking) and ``scorer``."""
    sub = _kind(df, "aggregation").dropna(axis=1, how="all")
    cols = [c for c in sub.columns if c.startswith(("auc_", "gauc_", "ndcg10_"))]
    return _mean_table(sub, [by, "scorer"], cols)


def check_table(*dfs: pd.DataFrame | None) -> pd.DataFrame:
    """The Pareto checks of every replicate (one row per dataset, replicate and probability
    source; see :func:`~bipartite.experiments.mtrub.studies.pareto_check_row`)."""
    import pandas as pd

    parts = [_kind(df, "check") for df in dfs if df is not None]
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame(columns=["dataset", "replicate", "seed", "probabilities",
                                     *_CHECK_COLUMNS])
    checks = pd.concat(parts, ignore_index=True)
    cols = ["dataset", "replicate", "seed", "probabilities", *_CHECK_COLUMNS]
    out = checks[cols].copy()  # in task order: synthetic, then Banking
    for col in ("n_candidates", "n_val_pareto", "n_test_pareto"):
        out[col] = out[col].astype(int)
    for col in ("loss_aggregation_dominated_by_fusion", "label_aggregation_dominated_by_fusion"):
        out[col] = out[col].astype(bool)
    return out


def key_numbers(synthetic: pd.DataFrame | None = None, banking: pd.DataFrame | None = None) -> dict[str, Any]:
    """The headline numbers of the MTRUB study (means over replicates), keyed as the claims and
    tests quote them (e.g. ``synthetic_MMoE_mean_gauc``, ``banking_mmoe_val_pareto_still_pareto_on_test``)."""
    res: dict[str, Any] = {}
    if synthetic is not None and not synthetic.empty:
        heads = _kind(synthetic, "head")
        head_table = models_table(synthetic)
        mm = head_table.groupby("model", sort=False)[["gauc", "ndcg10"]].mean()
        for model in mm.index:
            res[f"synthetic_{model}_mean_gauc"] = float(mm.loc[model, "gauc"])
            res[f"synthetic_{model}_mean_ndcg10"] = float(mm.loc[model, "ndcg10"])
        for _, row in head_table.iterrows():
            res[f"synthetic_{row['model']}_gauc_{row['label']}"] = float(row["gauc"])
        per_seed = heads.groupby(["replicate", "model"])["gauc"].mean().unstack()
        res["synthetic_mmoe_beats_shared_bottom_seeds"] = int(
            (per_seed["MMoE"] > per_seed["shared-bottom"]).sum())
        # same backbone (shared-bottom MLP), one network for K tasks vs one per task
        res["synthetic_shared_bottom_beats_single_task_seeds"] = int(
            (per_seed["shared-bottom"] > per_seed["single-task"]).sum())
        res["n_seeds"] = int(synthetic["replicate"].nunique())
        for _, row in aggregation_table(synthetic).iterrows():
            res[f"synthetic_{row['probabilities']}_{row['scorer']}_gauc_mean"] = float(
                row["gauc_mean"])
    if banking is not None and not banking.empty:
        btable = aggregation_table(banking, by="model")
        for arch in ("mmoe", "shared_bottom"):
            sub = btable[btable["model"] == arch].set_index("scorer")
            for scorer in sub.index:
                if scorer.startswith("own head: "):  # a head is judged on its own label
                    label = scorer.removeprefix("own head: ")
                    res[f"banking_{arch}_own_head_auc_{label}"] = float(sub.loc[scorer,
                                                                            f"auc_{label}"])
                    continue
                res[f"banking_{arch}_{scorer}_gauc_mean"] = float(sub.loc[scorer, "gauc_mean"])
                res[f"banking_{arch}_{scorer}_auc_mean"] = float(sub.loc[scorer, "auc_mean"])
    checks = check_table(synthetic, banking)
    for (ds, source), sub in checks.groupby(["dataset", "probabilities"], sort=False):
        for col in ("val_pareto_still_pareto_on_test", "fusion_front_dominated_by_linear",
                    "linear_front_dominated_by_fusion", "loss_aggregation_dominated_by_fusion",
                    "label_aggregation_dominated_by_fusion"):
            res[f"{ds}_{source}_{col}"] = float(sub[col].astype(float).mean())
    return res


# ----------------------------------------------------------------------------------------------
# Figures
# ----------------------------------------------------------------------------------------------


def frontier_figure(df: pd.DataFrame, names: list[str], i: int, j: int, title: str, fig_dir: Path,
                    stem: str) -> list[Path]:
    """Test gAUCs of labels ``i`` and ``j`` for every exponent of the grid (fusion and linear
    families), the fusion's test frontier and the aggregated scorers, from the ``"front"`` and
    ``"aggregation"`` rows of one task and probability source."""
    fig, ax = new_figure(figsize=(5.2, 4.4))
    front = _kind(df, "front")
    fus, lin = front[front["family"] == "fusion"], front[front["family"] == "linear"]
    xi, xj = f"gauc_{names[i]}", f"gauc_{names[j]}"
    gcols = [f"gauc_{n}" for n in names]
    ok = np.isfinite(fus[gcols].to_numpy(dtype=float)).all(axis=1)
    ax.scatter(lin[xi], lin[xj], s=8, c="C1", alpha=0.35, label="linear Σ a_k p_k (grid)")
    ax.scatter(fus.loc[ok, xi], fus.loc[ok, xj], s=8, c="0.6", alpha=0.6,
               label="fusion Π p_k^γ_k (grid)")
    tp = ok & fus["test_pareto"].astype(bool).to_numpy()
    ax.scatter(fus.loc[tp, xi], fus.loc[tp, xj], s=14, facecolors="none", edgecolors="k",
               label="fusion: Pareto on test (all labels)")
    agg = _kind(df, "aggregation")
    for name in AGGREGATORS:
        point = agg[agg["scorer"] == name]
        if point.empty:
            continue
        marker, color = _MARKERS[name]
        ax.scatter(point[xi].iloc[:1], point[xj].iloc[:1], marker=marker, s=90, c=color,
                   edgecolors="k", zorder=5, label=name)
    ax.set_xlabel(f"test gAUC ({names[i]})")
    ax.set_ylabel(f"test gAUC ({names[j]})")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="lower left")
    return save_figures(fig, fig_dir, stem)


def models_figure(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    """Bar chart of test gAUC and nDCG@10 per label and model (own head; mean ± s.e.)."""
    heads = _kind(df, "head")
    fig, axes = new_figure(1, 2, figsize=(9, 3.6))
    models = list(dict.fromkeys(heads["model"]))
    labels = list(dict.fromkeys(heads["label"]))
    width = 0.8 / len(models)
    for ax, metric in zip(axes, ("gauc", "ndcg10"), strict=True):
        for m_i, model in enumerate(models):
            sub = heads[heads["model"] == model].groupby("label", sort=False)[metric]
            mean = sub.mean().reindex(labels)
            se = (sub.std() / np.sqrt(sub.count())).reindex(labels).fillna(0.0)
            x = np.arange(len(labels)) + (m_i - (len(models) - 1) / 2) * width
            ax.bar(x, mean.values, width, yerr=se.values, label=model, capsize=2)
        ax.set_xticks(np.arange(len(labels)), labels)
        ax.set_ylabel({"gauc": "test gAUC", "ndcg10": "test nDCG@10"}[metric])
        lo, hi = float(heads[metric].min()), float(heads[metric].max())
        ax.set_ylim(max(0.0, lo - 0.05), min(1.0, hi + 0.03))
    axes[0].legend(fontsize=8)
    fig.suptitle("Synthetic nested behaviours: each label ranked by its own head "
                 "(mean ± s.e. over seeds)", fontsize=10)
    return save_figures(fig, fig_dir, "mtrub_models")


def _first_task(df, mask):
    """The rows of ``mask`` in the first replicate, and (replicate, seed); ``None`` if none."""
    sub = df[mask]
    if sub.empty:
        return sub, None
    rep = sub["replicate"].min()
    sub = sub[sub["replicate"] == rep]
    return sub, (int(rep), int(sub["seed"].iloc[0]))


def synthetic_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    """Figures of ``mtrub.synthetic``: ``mtrub_models`` and ``mtrub_frontier_synthetic`` (MMoE
    probabilities, first replicate, click vs long stay)."""
    fig_dir = Path(fig_dir)
    paths = models_figure(df, fig_dir) if not _kind(df, "head").empty else []
    mask = ((df["probabilities"] == "MMoE").to_numpy() if "probabilities" in df
            else np.zeros(len(df), dtype=bool))
    sub, rs = _first_task(df, mask)
    if rs is not None:
        names = _label_names(df)
        paths += frontier_figure(sub, names, 0, len(names) - 1,
                                 f"Synthetic, MMoE probabilities, replicate {rs[0]} (seed {rs[1]})",
                                 fig_dir, "mtrub_frontier_synthetic")
    return paths


def banking_figures(df: pd.DataFrame, fig_dir: Path) -> list[Path]:
    """Figure of ``mtrub.banking``: ``mtrub_frontier_banking`` (MMoE probabilities, first
    replicate, personal loan vs CD account: a projection of the five labels)."""
    if "model" not in df:
        return []
    sub, rs = _first_task(df, df["model"] == "mmoe")
    if rs is None or _kind(sub, "front").empty:
        return []
    return frontier_figure(sub, list(BANKING_LABELS), 0, 2,
                           f"Banking, MMoE probabilities, replicate {rs[0]} (seed {rs[1]}; "
                           "projection of 5 labels)", Path(fig_dir), "mtrub_frontier_banking")
