"""Tables, figures and the ``summary.md`` section of the multi-label study ``la25.multilabel``
(:mod:`bipartite.experiments.la25.studies.multilabel`; docs/theory.md §4, §5, §7, §13), from the
tidy results only.

* :func:`objective_table` — per data set, learner and objective: Min, Diff, macro- and
  micro-AUC, mean ± s.e. over the splits, and how many labels were kept;
* :func:`alpha_gain_table` — Spearman's ρ between each label's effective-weight share ``α_k``
  and its gain under loss aggregation (against its own single-label scorer, K ≤ 14, and against
  label aggregation by sum, every K), with one-sided permutation p-values;
* :func:`win_rate_table` — ``W_{k>j}`` of the most (k) and least (j) skewed kept labels;
* :func:`max_min_table` — what max-min does to the worst label and to macro-AUC;
* :func:`identity_table` — label aggregation by sum against loss aggregation with
  ``a_k = π_k(1 − π_k)`` (equal Bayes scorers) and against ``a = 1``;
* :func:`multilabel_figures` — per data set, per-label AUC against prior (log scale) for each
  objective; and gain against ``α_k`` for all sets.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bipartite.plots import new_figure, save_figures
from bipartite.studies.report import format_mean_se, standard_error, write_table

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import ArrayLike

__all__ = ["N_PERMUTATIONS", "alpha_gain_table", "identity_table", "max_min_table",
           "multilabel_figures", "multilabel_summary_lines", "objective_table",
           "permutation_spearman", "win_rate_table"]

#: Permutations of the rank-correlation tests (seeded; the smallest reachable p is 1/(N + 1)).
N_PERMUTATIONS = 9999
_JOINT = ("macro", "variance_weighted", "sum", "or", "and", "max_min", "max_min_plugin")
_STYLE = {"single": ("o", "0.5"), "macro": ("*", "C3"), "variance_weighted": ("v", "C1"),
          "sum": ("D", "C2"), "or": ("^", "C5"), "and": ("<", "C6"), "max_min": ("P", "C4"),
          "max_min_plugin": ("X", "C0")}


def _fitted(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["skipped"].fillna("").astype(str) == ""] if "skipped" in df else df


def permutation_spearman(x: ArrayLike, y: ArrayLike, *, n_permutations: int = N_PERMUTATIONS,
                         seed: int = 0) -> tuple[float, float]:
    """Spearman's ρ of ``x`` and ``y`` and its one-sided permutation p-value for ρ > 0,
    ``(1 + #{ρ_perm ≥ ρ}) / (1 + n_permutations)``; ``(nan, nan)`` for fewer than 3 points or a
    constant input.

    >>> rho, p = permutation_spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], n_permutations=999)
    >>> round(rho, 3), p < 0.1
    (0.8, True)
    """
    from scipy.stats import rankdata

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan"), float("nan")
    rx, ry = rankdata(x), rankdata(y)
    rx, ry = (rx - rx.mean()) / np.linalg.norm(rx - rx.mean()), ry - ry.mean()
    ry = ry / np.linalg.norm(ry)
    rho = float(rx @ ry)
    rng = np.random.default_rng(seed)
    perms = np.argsort(rng.random((n_permutations, len(ry))), axis=1)
    null = ry[perms] @ rx
    return rho, float((1 + np.sum(null >= rho - 1e-12)) / (1 + n_permutations))


def objective_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, learner, objective): splits, kept/dropped labels, and mean ± s.e. over the
    splits of Min, Diff, macro- and micro-AUC (joint objectives), or of the mean single-label
    AUC (``single``)."""
    import pandas as pd

    df = _fitted(df)
    out = []
    for (ds, learner, obj), sub in df.groupby(["dataset", "learner", "objective"], sort=False):
        per_split = sub.groupby("split")
        row = {"dataset": ds, "learner": learner, "objective": obj, "splits": per_split.ngroups,
               "K": int(sub["n_labels"].iloc[0]), "kept": int(sub["n_kept"].min()),
               "dropped": int(sub["n_dropped"].max())}
        cols = ("min_auc", "diff_auc", "macro_auc", "micro_auc") if obj != "single" else ()
        for c in cols:
            v = per_split[c].first().to_numpy(dtype=float)
            row[c] = format_mean_se(float(np.mean(v)), standard_error(v))
        if obj == "single":
            v = per_split["auc"].mean().to_numpy(dtype=float)
            row["macro_auc"] = format_mean_se(float(np.mean(v)), standard_error(v))
        out.append(row)
    return pd.DataFrame(out)


def _label_means(df: pd.DataFrame, learner: str, obj: str) -> pd.DataFrame:
    sub = df[(df["learner"] == learner) & (df["objective"] == obj)]
    return sub.groupby("label_index").agg(auc=("auc", "mean"), alpha=("alpha_share", "mean"),
                                          prior=("prior_train", "mean"))


def alpha_gain_table(df: pd.DataFrame, *, n_permutations: int = N_PERMUTATIONS
                     ) -> pd.DataFrame:
    """Per (dataset, learner): Spearman's ρ between the labels' effective-weight shares ``α_k``
    (loss aggregation, a = 1, training priors) and their gains under loss aggregation, averaged
    over the splits: against the label's own scorer (``gain_vs_single``, K ≤ 14) and against label
    aggregation by sum (``gain_vs_sum``, whose Bayes scorer weights every η_k equally), each with
    its one-sided permutation p-value (:func:`permutation_spearman`). Theory (docs/theory.md §4,
    §7): ρ > 0."""
    import pandas as pd

    df = _fitted(df)
    out = []
    for (ds, learner), sub in df.groupby(["dataset", "learner"], sort=False):
        macro = _label_means(sub, learner, "macro")
        if macro.empty:
            continue
        row = {"dataset": ds, "learner": learner, "labels": len(macro)}
        for ref, name in (("single", "vs_single"), ("sum", "vs_sum")):
            other = _label_means(sub, learner, ref)
            both = macro.join(other.add_suffix("_ref"), how="inner")
            gain = both["auc"] - both["auc_ref"]
            rho, p = permutation_spearman(both["alpha"], gain, n_permutations=n_permutations)
            row.update({f"rho_{name}": rho, f"p_{name}": p,
                        f"mean_gain_{name}": float(gain.mean()) if len(gain) else np.nan})
        out.append(row)
    return pd.DataFrame(out)


def win_rate_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, learner, joint objective) and pair of the rarest (k) and the most balanced (j)
    kept labels (a split's training priors pick the pair, so re-splits may give several rows):
    ``W_{k>j}`` mean ± s.e. over the splits of that pair (½ is even-handed; above ½, k's positives
    are ranked above j's)."""
    import pandas as pd

    df = _fitted(df)
    df = df[df["objective"].isin(_JOINT)]
    out = []
    keys = ["dataset", "learner", "objective", "rare_label", "common_label"]
    for (ds, learner, obj, rare, common), sub in df.groupby(keys, sort=False):
        first = sub.groupby("split").first()  # the splits whose rarest / most balanced pair it is
        w = first["win_rare_common"].to_numpy(dtype=float)
        w = w[np.isfinite(w)]
        out.append({"dataset": ds, "learner": learner, "objective": obj,
                    "rare_label": str(rare), "common_label": str(common),
                    "W_rare_over_common": format_mean_se(float(np.mean(w)) if len(w) else np.nan,
                                                         standard_error(w)),
                    "splits": len(w)})
    return pd.DataFrame(out)


def _paired(df: pd.DataFrame, learner: str, a: str, b: str, col: str) -> np.ndarray:
    sub = df[df["learner"] == learner]
    x = sub[sub["objective"] == a].groupby("split")[col].first()
    y = sub[sub["objective"] == b].groupby("split")[col].first()
    both = x.to_frame("a").join(y.to_frame("b"), how="inner")
    return (both["a"] - both["b"]).to_numpy(dtype=float)


def max_min_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, learner, max-min route): the change of Min AUC and of macro-AUC against loss
    aggregation (a = 1), paired by split: mean ± s.e. and on how many splits Min AUC rose."""
    import pandas as pd

    df = _fitted(df)
    out = []
    for (ds, learner), sub in df.groupby(["dataset", "learner"], sort=False):
        for route in ("max_min", "max_min_plugin"):
            d_min = _paired(sub, learner, route, "macro", "min_auc")
            d_macro = _paired(sub, learner, route, "macro", "macro_auc")
            if not len(d_min):
                continue
            out.append({"dataset": ds, "learner": learner, "route": route,
                        "delta_min_auc": float(d_min.mean()), "se_min": standard_error(d_min),
                        "min_up_splits": f"{int((d_min > 0).sum())}/{len(d_min)}",
                        "delta_macro_auc": float(d_macro.mean()),
                        "se_macro": standard_error(d_macro)})
    return pd.DataFrame(out)


def identity_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, learner): the mean absolute difference of AUC_k under label aggregation by sum
    and under variance-weighted loss aggregation, over labels and splits (their Bayes scorers are equal, docs/theory.md §5), beside the same against
    loss aggregation with a = 1 (``vs_macro``), and the labels' rank correlation of the two AUC
    vectors. The identity predicts ``vs_variance_weighted`` < ``vs_macro``."""
    import pandas as pd

    df = _fitted(df)
    out = []
    for (ds, learner), sub in df.groupby(["dataset", "learner"], sort=False):
        key = ["split", "label_index"]
        s = sub[sub["objective"] == "sum"].set_index(key)["auc"]
        row = {"dataset": ds, "learner": learner}
        for ref in ("variance_weighted", "macro"):
            r = sub[sub["objective"] == ref].set_index(key)["auc"]
            both = s.to_frame("s").join(r.to_frame("r"), how="inner")
            row[f"vs_{ref}"] = float(np.mean(np.abs(both["s"] - both["r"]))) if len(both) \
                else np.nan
            row[f"n_{ref}"] = len(both)
        both = np.isfinite(row["vs_variance_weighted"]) and np.isfinite(row["vs_macro"])
        row["closer_to_variance_weighted"] = (bool(row["vs_variance_weighted"] < row["vs_macro"])
                                              if both else None)
        out.append(row)
    return pd.DataFrame(out)


def _log_x(ax) -> None:
    """A log x axis, called after the data is drawn, with labelled ticks: the decades past two
    decades, 1, 2 and 5 times them past one, and about six round values inside one decade (the
    emotions priors, 0.22–0.45, had no decade and so no label); minor ticks are unlabelled."""
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

    ax.set_xscale("log")
    lo, hi = ax.get_xlim()
    decades = np.log10(hi / lo) if lo > 0 else np.inf
    ax.xaxis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]) if decades <= 1
                               else LogLocator(base=10.0, subs=(1.0,) if decades > 2
                                               else (1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def multilabel_figures(df: pd.DataFrame, fig_dir: str | os.PathLike) -> list[Path]:
    """Per data set ``multilabel_<dataset>.png/.pdf``: per-label test AUC (mean over splits)
    against the training prior (log scale), one panel per learner, one marker and colour per
    objective; and ``multilabel_gain_vs_alpha``: each label's gain under loss aggregation over
    label aggregation by sum against its effective-weight share (log-log x), one colour per set."""
    df = _fitted(df)
    paths: list[Path] = []
    learners = list(dict.fromkeys(df["learner"]))
    for ds, sub in df.groupby("dataset", sort=False):
        fig, axes = new_figure(1, len(learners), figsize=(4.2 * len(learners), 3.6),
                               squeeze=False, sharey=True, layout="constrained")
        for ax, learner in zip(axes[0], learners, strict=True):
            for obj, (marker, colour) in _STYLE.items():
                m = _label_means(sub, learner, obj)
                if m.empty:
                    continue
                ax.scatter(m["prior"], m["auc"], marker=marker, color=colour, s=18, alpha=0.8,
                           label=obj.replace("_", " "))
            _log_x(ax)
            ax.set_xlabel("training prior π_k (log scale)")
            ax.set_title(f"{ds}: {learner}", fontsize=9)
            ax.grid(alpha=0.3)
        axes[0][0].set_ylabel("test AUC_k (mean over splits)")
        axes[0][-1].legend(fontsize=6, loc="lower right")
        paths += save_figures(fig, fig_dir, f"multilabel_{ds}")
    fig, axes = new_figure(1, len(learners), figsize=(4.2 * len(learners), 3.6), squeeze=False,
                           sharey=True, layout="constrained")
    for ax, learner in zip(axes[0], learners, strict=True):
        for i, (ds, sub) in enumerate(df.groupby("dataset", sort=False)):
            macro, ref = _label_means(sub, learner, "macro"), _label_means(sub, learner, "sum")
            both = macro.join(ref.add_suffix("_ref"), how="inner")
            if both.empty:
                continue
            ax.scatter(both["alpha"], both["auc"] - both["auc_ref"], s=14, color=f"C{i}",
                       alpha=0.8, label=ds)
        ax.axhline(0.0, color="k", lw=0.6)
        _log_x(ax)
        ax.set_xlabel("effective-weight share α_k / Σα (log scale)")
        ax.set_title(f"gain of loss aggregation over sum: {learner}", fontsize=9)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("AUC_k(a = 1) − AUC_k(sum)")
    axes[0][-1].legend(fontsize=6)
    paths += save_figures(fig, fig_dir, "multilabel_gain_vs_alpha")
    return paths


def multilabel_summary_lines(df: pd.DataFrame, table_dir: str | os.PathLike) -> list[str]:
    """The ``summary.md`` section of the study: every table above, written to ``table_dir`` as
    ``la25_multilabel_*.csv/.md``, in Markdown."""
    from bipartite.studies.report import markdown_table

    tables = {"objectives": (objective_table(df), "Per data set, learner and objective: mean ± "
                             "s.e. over the splits (standard split + re-splits)."),
              "alpha_gain": (alpha_gain_table(df), "Spearman ρ of α_k share vs gain under loss "
                             "aggregation (a = 1), one-sided permutation p-values."),
              "win_rates": (win_rate_table(df), "W_{k>j}: rarest kept label k over the most "
                            "balanced j."),
              "max_min": (max_min_table(df), "Max-min against loss aggregation (a = 1), paired "
                          "by split."),
              "identity": (identity_table(df), "Label aggregation by sum vs loss aggregation "
                           "with a_k = π_k(1 − π_k) (equal Bayes scorers) and a = 1.")}
    lines = ["## Multi-label benchmarks (K = 6 to 174)", ""]
    skipped = df[df["skipped"].fillna("").astype(str) != ""] if "skipped" in df else df.iloc[:0]
    for name, (table, note) in tables.items():
        write_table(table, table_dir, f"la25_multilabel_{name}", note=note)
        lines += [f"**{name}.** {note}", "", markdown_table(table), ""]
    if len(skipped):
        reasons = skipped.groupby(["dataset", "objective"])["skipped"].first()
        lines += ["Skipped objectives: " + "; ".join(f"{d} {o}: {r}"
                                                     for (d, o), r in reasons.items()), ""]
    return lines
