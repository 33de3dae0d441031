"""Tables, figures and the ``summary.md`` section of the max-min AUC objective in the LA25 §7
protocol (docs/theory.md §13; issue 13), from the tidy results only.

* :func:`frequency_table` — how often the max-min point is unsupported (study
  ``la25.maxmin_frequency``, :mod:`bipartite.experiments.la25.studies.maxmin`);
* :func:`pinned_points` and :func:`maxmin_figures` — the frontier figure of the pinned
  unsupported problem ``FiniteProblem.random(6, 2, seed=36)``, every objective's point marked;
* tables (:func:`three_objective_table`, :func:`max_min_verdict_table`,
  :func:`synthetic_max_min_table`, :func:`synthetic_bayes_table`,
  :func:`synthetic_verdict_table`) and the ``summary.md`` section (:func:`maxmin_summary_lines`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bipartite.experiments.la25.figures.section7 import LEARNER_NAMES
from bipartite.plots import new_figure, save_figures
from bipartite.studies.report import (
    figure_links,
    format_mean_se,
    markdown_table,
    standard_error,
    write_table,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from bipartite.population import FiniteProblem

__all__ = ["MAX_MIN_ROUTES", "PINNED", "frequency_table", "max_min_verdict_table",
           "maxmin_figures", "maxmin_summary_lines", "pinned_points", "plot_maxmin_frontier",
           "synthetic_bayes_table", "synthetic_max_min_table", "synthetic_verdict_table",
           "three_objective_markdown", "three_objective_table"]


#: The max-min rows of the §7 tables and their names.
MAX_MIN_ROUTES = {"max_min": "max-min AUC (pairwise, group DRO)",
                  "max_min_plugin": "max-min AUC (plug-in)"}


_LA25 = ("loss_aggregation", "label_aggregation")


_THREE = (*_LA25, *MAX_MIN_ROUTES)


#: The pinned problem whose max-min point no weighting reaches (docs/theory.md §13.3).
PINNED = {"n": 6, "K": 2, "seed": 36}


def frequency_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per (K, n): problems, unsupported count, mean gap, mean gap when > 0, max gap, number
    whose best weighting is a tie order (docs/theory.md §13.4's table)."""
    import pandas as pd

    out = []
    for (K, n), sub in df.groupby(["K", "n"]):
        g = sub["gap"].to_numpy()
        pos = sub["unsupported"].astype(bool).to_numpy()
        out.append({"K": int(K), "n": int(n), "problems": len(sub),
                    "seeds": f"{int(sub['problem_seed'].min())}–{int(sub['problem_seed'].max())}",
                    "unsupported": int(pos.sum()), "mean_gap": float(g.mean()),
                    "mean_gap_when_positive": float(g[pos].mean()) if pos.any() else 0.0,
                    "max_gap": float(g.max()), "tie_best": int(sub["tie"].astype(bool).sum())})
    return pd.DataFrame(out)


def pinned_points(problem: FiniteProblem | None = None) -> dict[str, Any]:
    """Everything the frontier figure marks, for ``problem`` (default: the pinned
    ``FiniteProblem.random(6, 2, seed=36)``): ``exact`` (the exact Pareto frontier, subset DP),
    ``supported`` (the AUC vectors of every loss-aggregation scorer f_a, ties included),
    ``loss_aggregation`` (a = 1) and ``label_aggregation`` (η₁ + η₂) Bayes points,
    ``max_min_supported`` (the best weighting) and ``max_min`` (the max-min point of all weak
    orders), ``t_star``, ``t_sup``, ``gap`` and the best weighting ``a``."""
    from bipartite.bayes import label_aggregation_scores, loss_aggregation
    from bipartite.pareto import (
        exact_frontier,
        max_min_point,
        max_min_supported,
        reachable_orders,
    )
    from bipartite.population import FiniteProblem

    P = FiniteProblem.random(PINNED["n"], PINNED["K"], seed=PINNED["seed"]) \
        if problem is None else problem
    top, sup = max_min_point(P), max_min_supported(P)
    _, S, _ = reachable_orders(P)
    return {"problem": P, "exact": exact_frontier(P, method="dp"),
            "supported": np.array([P.auc(s) for s in S]),
            "loss_aggregation": P.auc(loss_aggregation(P.eta, P.pi)),
            "label_aggregation": P.auc(label_aggregation_scores(P.eta)),
            "max_min_supported": sup.auc, "max_min": top.auc, "t_star": top.value,
            "t_sup": sup.value, "gap": max(top.value - sup.value, 0.0), "a": sup.a}


_POINT_STYLE = {
    "loss_aggregation": ("*", "C3", "loss aggregation (a = 1)"),
    "label_aggregation": ("D", "C2", "label aggregation (sum)"),
    "max_min_supported": ("s", "C0", "max-min of the weightings (best a)"),
    "max_min": ("P", "C4", "max-min point (all weak orders)"),
}


def plot_maxmin_frontier(points: dict | None = None, ax: Axes | None = None) -> Figure:
    """The per-label AUC plane of a K = 2 problem (default: the pinned one): the exact Pareto
    frontier (open circles), what the loss-aggregation weightings reach (grey dots, the upper
    hull drawn), the four objectives' points (:func:`pinned_points`), the diagonal, and the
    level sets ``min(AUC₁, AUC₂) = t*`` and ``= t_sup`` (dashed corners). Returns the figure."""
    pts = pinned_points() if points is None else points
    if ax is None:
        fig, ax = new_figure(figsize=(5.6, 4.6))
    else:
        fig = ax.figure
    ex, sup = np.asarray(pts["exact"]), np.asarray(pts["supported"])
    ax.scatter(sup[:, 0], sup[:, 1], s=10, color="0.6", zorder=2,
               label="every loss-aggregation scorer f_a")
    o = np.argsort(ex[:, 0])
    ax.plot(ex[o, 0], ex[o, 1], "-", color="0.8", lw=0.8, zorder=1)
    ax.scatter(ex[:, 0], ex[:, 1], s=28, facecolors="none", edgecolors="k", lw=0.7, zorder=3,
               label=f"exact Pareto frontier ({len(ex)} points)")
    for key, (marker, colour, name) in _POINT_STYLE.items():
        x = np.asarray(pts[key])
        ax.scatter(x[0], x[1], marker=marker, s=110 if key == "loss_aggregation" else 70,
                   color=colour, zorder=4, label=f"{name}: ({x[0]:.4f}, {x[1]:.4f})")
    lo = float(min(ex.min(), sup.min())) - 0.01
    hi = float(max(ex.max(), sup.max())) + 0.01
    for t, colour, name in ((pts["t_star"], "C4", "t*"), (pts["t_sup"], "C0", "t_sup")):
        ax.plot([t, t, hi], [hi, t, t], "--", color=colour, lw=0.8,
                label=f"min AUC = {name} = {t:.4f}")
    ax.plot([lo, hi], [lo, hi], ":", color="k", lw=0.6)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("AUC₁")
    ax.set_ylabel("AUC₂")
    ax.set_title(f"Max-min point not reachable by any weighting: gap {pts['gap']:.4f}\n"
                 "(FiniteProblem.random(6, 2, seed=36); docs/theory.md §13.3)", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6, loc="lower left")
    return fig


def maxmin_figures(fig_dir: str | os.PathLike) -> list[Path]:
    """``la25_maxmin_frontier`` (PNG + PDF): :func:`plot_maxmin_frontier` of the pinned
    problem. Needs no simulation."""
    return save_figures(plot_maxmin_frontier(), Path(fig_dir), "la25_maxmin_frontier")


def three_objective_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, learner and objective (loss aggregation, label aggregation, both max-min
    routes): mean and s.e. over splits (or replicates) of ``auc_1, auc_2, diff, min`` and
    ``sum`` (ΣAUC = AUC₁ + AUC₂). For the XGBoost plug-in sweep (``xgb_plugin``), the sweep
    weighting with the best test Min AUC per split (``sweep_best_min``: an oracle, chosen on the
    test rows) is given as a reference."""
    import pandas as pd

    key = "split" if "split" in df else "replicate"
    d = df.assign(sum=df["auc_1"] + df["auc_2"])
    parts = [d[d["objective"].isin(_THREE)]]
    sweep = d[d["objective"] == "sweep"]
    if not sweep.empty:
        best = sweep.loc[sweep.groupby(["dataset", key])["min"].idxmax()]
        parts.append(best.assign(objective="sweep_best_min"))
    rows = pd.concat(parts, ignore_index=True)
    order = [*_THREE, "sweep_best_min"]
    out = []
    for (dataset, learner, objective), sub in rows.groupby(["dataset", "learner", "objective"]):
        rec = {"dataset": dataset, "learner": learner, "objective": objective}
        for c in ("auc_1", "auc_2", "diff", "min", "sum"):
            rec[c], rec[f"{c}_se"] = float(sub[c].mean()), standard_error(sub[c])
        rec["splits"] = int(sub[key].nunique())
        out.append(rec)
    table = pd.DataFrame(out)
    if table.empty:
        return table
    lorder = ["bayes", "linear", "linear_hinge", "mlp", "xgb", "xgb_plugin"]
    k = (table["learner"].map(lambda v: lorder.index(v) if v in lorder else 9) * 10
         + table["objective"].map(order.index))
    return table.assign(_k=k).sort_values(["dataset", "_k"]).drop(columns="_k") \
        .reset_index(drop=True)


def max_min_verdict_table(df: pd.DataFrame) -> pd.DataFrame:
    """Each max-min route against both LA25 objectives, per dataset and learner, paired by
    split: ``d_min_loss`` / ``d_min_label`` (max-min's Min AUC minus that objective's),
    ``d_min_best`` (minus the better of the two, per split) with its s.e. and the splits where
    it is ≥ 0 (``at_least_both``), and the cost in total AUC ``d_sum_loss`` / ``d_sum_label``
    (ΣAUC difference; < 0: balancing costs total AUC)."""
    import pandas as pd

    key = "split" if "split" in df else "replicate"
    d = df.assign(sum=df["auc_1"] + df["auc_2"])
    out = []
    for (dataset, learner), sub in d[d["objective"].isin(_THREE)].groupby(["dataset", "learner"]):
        w = sub.pivot_table(index=key, columns="objective", values=["min", "sum", "diff"])
        if not all(("min", o) in w for o in _LA25):
            continue
        best = np.maximum(w["min"]["loss_aggregation"], w["min"]["label_aggregation"])
        for route in MAX_MIN_ROUTES:
            if ("min", route) not in w:
                continue
            dm = (w["min"][route] - best).dropna()
            rec = {"dataset": dataset, "learner": learner, "route": route,
                   "d_min_best": float(dm.mean()), "d_min_best_se": standard_error(dm),
                   "at_least_both": f"{int((dm >= 0).sum())}/{len(dm)}"}
            for o, short in (("loss_aggregation", "loss"), ("label_aggregation", "label")):
                x = (w["min"][route] - w["min"][o]).dropna()
                y = (w["sum"][route] - w["sum"][o]).dropna()
                z = (w["diff"][route] - w["diff"][o]).dropna()
                rec.update({f"d_min_{short}": float(x.mean()), f"d_min_{short}_se": standard_error(x),
                            f"d_sum_{short}": float(y.mean()), f"d_sum_{short}_se": standard_error(y),
                            f"d_diff_{short}": float(z.mean())})
            out.append(rec)
    return pd.DataFrame(out)


def synthetic_max_min_table(df: pd.DataFrame) -> pd.DataFrame:
    """The synthetic sweep where the max-min learners ran: per regime, π₂, learner and objective
    (Bayes: both aggregations and the best weighting, ``max_min_supported``; learners: both
    aggregations and both max-min routes), means over replicates of ``auc_1, auc_2, diff, min,
    sum`` (ΣAUC) with the s.e. of ``min`` and ``sum``, the max-min value's bracket ``t_star_lo,
    t_star_hi`` and the gap to it, ``gap_lo, gap_hi`` (:func:`max_min_gap_columns`)."""
    import pandas as pd

    if "gap_lo" not in df or not df["objective"].isin(list(MAX_MIN_ROUTES)).any():
        return pd.DataFrame()
    fitted = df[df["objective"].isin(list(MAX_MIN_ROUTES))][["regime", "pi2"]].drop_duplicates()
    d = df.merge(fitted, on=["regime", "pi2"])
    d = d[d["gap_lo"].notna() & d["objective"].isin([*_THREE, "max_min_supported"])]
    d = d.assign(sum=d["auc_1"] + d["auc_2"])
    cols = ["auc_1", "auc_2", "diff", "min", "sum", "t_star_lo", "t_star_hi", "gap_lo", "gap_hi"]
    lorder = ["bayes", "linear", "linear_hinge", "mlp", "xgb"]
    oorder = [*_THREE, "max_min_supported"]
    regimes = list(dict.fromkeys(df["regime"]))
    out = []
    for (regime, pi2, learner, objective), sub in d.groupby(["regime", "pi2", "learner",
                                                            "objective"]):
        out.append({"regime": regime, "pi2": pi2, "learner": learner, "objective": objective,
                    **{c: float(sub[c].mean()) for c in cols}, "min_se": standard_error(sub["min"]),
                    "sum_se": standard_error(sub["sum"]), "replicates": len(sub),
                    "_k": (regimes.index(regime), pi2,
                           lorder.index(learner) if learner in lorder else 9,
                           oorder.index(objective))})
    t = pd.DataFrame(out)
    return t.sort_values("_k").drop(columns="_k").reset_index(drop=True)


def synthetic_bayes_table(df: pd.DataFrame) -> pd.DataFrame:
    """Bayes scorers at every regime and π₂: Min AUC and ΣAUC of loss aggregation (a = 1),
    label aggregation and the max-min point (the best weighting; ``t_star_hi − t_star_lo``
    bounds how far the exact max-min value can be above it), and the cost of balancing
    ``cost_sum = ΣAUC(loss) − ΣAUC(max-min)``; means over replicates.

    The loss-aggregation row uses the model's priors π (as every §7 row does), while the bracket
    and the max-min row use the test sample's own priors (``problem.pi``, the normalisation of
    its AUCs). Loss aggregation with the *sample's* priors maximises ΣAUC over all weak orders,
    so ``cost_sum ≥ 0`` holds exactly only up to the small difference between the two priors;
    it was ≥ 0 in every cell measured (docs/theory.md §13.7)."""
    import pandas as pd

    b = df[(df["learner"] == "bayes") & df["objective"].isin(
        ["loss_aggregation", "label_aggregation", "max_min_supported"])]
    if b.empty or "t_star_lo" not in b:
        return pd.DataFrame()
    b = b.assign(sum=b["auc_1"] + b["auc_2"], width=b["t_star_hi"] - b["t_star_lo"])
    out = []
    for (regime, pi2), sub in b.groupby(["regime", "pi2"], sort=False):
        m = sub.groupby("objective")[["min", "sum", "diff"]].mean()
        if "max_min_supported" not in m.index:
            continue
        out.append({"regime": regime, "pi2": pi2,
                    "loss_min": m.loc["loss_aggregation", "min"],
                    "label_min": m.loc["label_aggregation", "min"],
                    "max_min": m.loc["max_min_supported", "min"],
                    "bracket_width": float(sub["width"].max()),
                    "loss_sum": m.loc["loss_aggregation", "sum"],
                    "label_sum": m.loc["label_aggregation", "sum"],
                    "max_min_sum": m.loc["max_min_supported", "sum"],
                    "cost_sum": m.loc["loss_aggregation", "sum"]
                    - m.loc["max_min_supported", "sum"],
                    "max_min_diff": m.loc["max_min_supported", "diff"]})
    return pd.DataFrame(out)


def synthetic_verdict_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per regime and learner (synthetic, where the max-min rows exist): each max-min route's
    Min AUC minus the better LA25 objective's, paired by replicate, and the ΣAUC cost against
    loss aggregation — :func:`max_min_verdict_table` with the regime as the dataset."""
    sub = df[df["objective"].isin(_THREE) & (df["learner"] != "bayes")]
    if sub.empty or not sub["objective"].isin(list(MAX_MIN_ROUTES)).any():
        import pandas as pd

        return pd.DataFrame()
    t = max_min_verdict_table(sub.assign(dataset=sub["regime"] + " π₂=" + sub["pi2"].map(
        lambda v: f"{v:g}")))
    return t.rename(columns={"dataset": "setting"})


_ROW_NAMES = {"loss_aggregation": "loss aggregation (a = 1)",
              "label_aggregation": "label aggregation (sum)", **MAX_MIN_ROUTES,
              "max_min_supported": "best weighting (Bayes, refined sweep)",
              "sweep_best_min": "plug-in sweep, best test Min (oracle)"}


def _text_table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table of already formatted cells (the one table writer, ``markdown_table``)."""
    import pandas as pd

    return markdown_table(pd.DataFrame(rows, columns=header))


def three_objective_markdown(table: pd.DataFrame, dataset: str,
                             names: tuple[str, str] = ("AUC₁", "AUC₂")) -> str:
    """Markdown of :func:`three_objective_table` for one dataset."""
    sub = table[table["dataset"] == dataset]
    rows = [[LEARNER_NAMES.get(r.learner, r.learner), _ROW_NAMES.get(r.objective, r.objective),
             format_mean_se(r.auc_1, r.auc_1_se), format_mean_se(r.auc_2, r.auc_2_se),
             format_mean_se(r.diff, r.diff_se), format_mean_se(r.min, r.min_se),
             format_mean_se(r.sum, r.sum_se), str(r.splits)]
            for r in sub.itertuples(index=False)]
    return _text_table(["learner", "objective", f"AUC {names[0]}", f"AUC {names[1]}",
                        "Diff AUC", "Min AUC", "ΣAUC", "splits"], rows)


def _verdict_markdown(v: pd.DataFrame) -> str:
    name = "setting" if "setting" in v else "dataset"

    def d(r: dict, c: str) -> str:
        return f"{r[c]:+.3f} ± {r[c + '_se']:.3f}"

    rows = [[str(r[name]), LEARNER_NAMES.get(r["learner"], r["learner"]),
             MAX_MIN_ROUTES[r["route"]].split("(")[1][:-1], d(r, "d_min_best"),
             str(r["at_least_both"]), d(r, "d_min_loss"), d(r, "d_min_label"),
             d(r, "d_sum_loss"), d(r, "d_sum_label")] for r in v.to_dict("records")]
    return _text_table(["data", "learner", "route", "Min − better LA25 Min", "≥ both",
                        "Min − loss agg.", "Min − label agg.", "ΣAUC − loss agg.",
                        "ΣAUC − label agg."], rows)


def _synthetic_markdown(t: pd.DataFrame) -> str:
    rows = []
    for r in t.to_dict("records"):
        gap = (f"{r['gap_lo']:.4f}" if r["gap_hi"] - r["gap_lo"] < 5e-5
               else f"{r['gap_lo']:.4f}–{r['gap_hi']:.4f}")
        rows.append([str(r["regime"]), f"{r['pi2']:g}",
                     LEARNER_NAMES.get(r["learner"], r["learner"]),
                     _ROW_NAMES.get(r["objective"], r["objective"]), f"{r['auc_1']:.3f}",
                     f"{r['auc_2']:.3f}", f"{r['diff']:.3f}", format_mean_se(r["min"], r["min_se"]),
                     format_mean_se(r["sum"], r["sum_se"]), gap])
    return _text_table(["regime", "π₂", "learner", "objective", "AUC₁", "AUC₂", "Diff", "Min",
                        "ΣAUC", "gap to the max-min point"], rows)


def maxmin_summary_lines(results_dir: str | os.PathLike, table_dir: str | os.PathLike,
                         studies: Mapping[str, str]) -> list[str]:
    """The balanced-ranking part of ``summary.md`` (and its CSV tables in ``table_dir``): the
    three-objective tables of the §7 studies that ran with ``max_min=True``, the synthetic exact
    gaps, the unsupported frequency, and the pinned problem with its figure.

    ``studies`` maps study folder names to registered study functions
    (:data:`bipartite.experiments.la25.run.SECTION7_STUDIES`); it is passed in, so
    that this module does not import the summary module that imports it."""
    from bipartite.experiments.registry import study_results

    results_dir, table_dir = Path(results_dir), Path(table_dir)
    results = study_results(results_dir, studies)
    lines = ["## Balanced ranking: the max-min AUC beside LA25's two objectives "
             "(docs/theory.md §13)", "",
             "Same learners, seeds, splits and test rows as the §7 tables above; two more rows "
             "per learner: the max-min AUC objective by the pairwise route (group DRO over the "
             "per-label pairwise losses) and by the plug-in route (η̂ heads, then the weighting "
             "with the best held-out Min AUC). ΣAUC = AUC₁ + AUC₂; its difference is the cost "
             "of balancing in total AUC. Mean ± s.e. over splits (real data) or replicates "
             "(synthetic).", ""]
    pts = pinned_points()
    lines += ["### The max-min point can be unsupported", "",
              f"Pinned problem `FiniteProblem.random(6, 2, seed=36)`: the max-min point of all "
              f"weak orders is ({pts['max_min'][0]:.4f}, {pts['max_min'][1]:.4f}), t* = "
              f"{pts['t_star']:.4f}; the best loss-aggregation weighting a = "
              f"({pts['a'][0]:.3f}, {pts['a'][1]:.3f}) reaches ({pts['max_min_supported'][0]:.4f}, "
              f"{pts['max_min_supported'][1]:.4f}), t_sup = {pts['t_sup']:.4f}: gap "
              f"{pts['gap']:.4f}. Loss aggregation (a = 1) is at ({pts['loss_aggregation'][0]:.4f}, "
              f"{pts['loss_aggregation'][1]:.4f}), label aggregation at "
              f"({pts['label_aggregation'][0]:.4f}, {pts['label_aggregation'][1]:.4f}).", ""]
    lines += [*figure_links(results_dir / "figures", "la25_maxmin_frontier"), ""]
    if "maxmin_frequency" in results:
        ft = frequency_table(results["maxmin_frequency"])
        write_table(ft, table_dir, "la25_maxmin_frequency",
                    note="How often the max-min point is unsupported (docs/theory.md §13.4).")
        lines += ["Random problems `FiniteProblem.random(n, K, seed)` (study "
                  "`la25.maxmin_frequency`; t* exact, t_sup over every weighting, ties "
                  "included; unsupported: gap > 1e-9):", "", markdown_table(ft), ""]
    for name, dataset, title, labels in (
            ("section7_bank_marketing", "bank_marketing", "UCI Bank Marketing",
             ("mortgage", "personal loan")),
            ("section7_letor", "letor", "MQ2008 stand-in", ("relevant", "click"))):
        df = results.get(name)
        if df is None or not df["objective"].isin(list(MAX_MIN_ROUTES)).any():
            continue
        table = three_objective_table(df)
        write_table(table, table_dir, f"la25_maxmin_{dataset}",
                    note=f"{title}: loss, label and max-min AUC objectives.")
        verdict = max_min_verdict_table(df)
        write_table(verdict, table_dir, f"la25_maxmin_{dataset}_verdict",
                    note="Max-min minus each LA25 objective, paired by split.")
        lines += [f"### {title}: three objectives", "", three_objective_markdown(
            table, dataset, labels), "", "Max-min minus each LA25 objective, paired by split:",
            "", _verdict_markdown(verdict), ""]
    df = results.get("section7_synthetic")
    if df is not None and "gap_lo" in df:
        bayes = synthetic_bayes_table(df)
        write_table(bayes, table_dir, "la25_maxmin_synthetic_bayes",
                    note="Synthetic regimes: the exact max-min point and its cost (Bayes).")
        lines += ["### Synthetic regimes: the exact max-min point and its cost (Bayes)", "",
                  "Exact population AUCs on the test sample (a finite problem with exact "
                  "conditional labels). `max_min`: the best weighting's Min AUC; the exact "
                  "max-min value over all weak orders lies in [max_min, max_min + "
                  "bracket_width] (weak duality along the weight path, "
                  "`bipartite.experiments.la25.studies.maxmin.max_min_bracket`). `cost_sum`: ΣAUC of "
                  "loss aggregation (the ΣAUC maximiser) minus the max-min point's.", "",
                  markdown_table(bayes), ""]
        t = synthetic_max_min_table(df)
        if not t.empty:
            write_table(t, table_dir, "la25_maxmin_synthetic",
                        note="Synthetic regimes: learners, three objectives.")
            v = synthetic_verdict_table(df)
            write_table(v, table_dir, "la25_maxmin_synthetic_verdict",
                        note="Synthetic regimes: max-min minus each LA25 objective.")
            lines += ["### Synthetic regimes: learners, three objectives", "",
                      "Where the learners were fitted. 'gap to the max-min point': the exact "
                      "max-min value of the test population (bracketed as above) minus the "
                      "scorer's Min AUC.", "", _synthetic_markdown(t), "",
                      "Max-min minus each LA25 objective, paired by replicate:", "",
                      _verdict_markdown(v), ""]
    return lines
