"""Learners vs their Bayes scorers at strong skew: estimation error vs surrogate inconsistency
(docs/theory.md §9, §12).

The study ``la25.section7_gap`` (π = (½, 0.02) by default, the package's synthetic generator)
measures each learning route's gap to the Bayes scorer of its objective on a test population
with exact conditional labels, as the training set grows:

* the **plug-in** routes (``xgb-plugin``, ``mlp-plugin``: η̂_k by a proper loss, then the closed
  form) are consistent, so their gap is estimation error and shrinks with ``n_train``;
* the **pairwise** routes (``xgb-pairwise``, ``mlp-pairwise``) carry estimation error *and* the
  inconsistency of the pairwise surrogate for K ≥ 2 (docs/theory.md §9);
* the **population** routes (``population-logistic``, ``population-exponential``) are the exact
  minimisers of the pairwise surrogate risk on the test population itself — unlimited data and
  an unrestricted scorer — so their gap is the inconsistency alone.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bipartite.plots import new_figure, save_figures
from bipartite.studies.config import register_study
from bipartite.studies.report import mean_and_se

if TYPE_CHECKING:
    import pandas as pd

    from bipartite.population import FiniteProblem

__all__ = ["GAP_ROUTES", "gap_figures", "gap_table", "la25_section7_gap",
           "pairwise_population_minimizer"]

#: The routes of the study.
GAP_ROUTES = ("xgb-plugin", "xgb-pairwise", "mlp-plugin", "mlp-pairwise", "population-logistic",
              "population-exponential")


def pairwise_population_minimizer(problem: FiniteProblem, *, surrogate: str = "logistic",
                                  objective: str = "loss_aggregation", gtol: float = 1e-9
                                  ) -> np.ndarray:
    """Deprecated alias (FutureWarning; removed in 0.5.0) of
    :func:`bipartite.consistency.pairwise_population_minimizer`, the minimiser's home."""
    from bipartite.consistency import pairwise_population_minimizer as population_minimizer

    warnings.warn("bipartite.experiments.la25.section7_gap.pairwise_population_minimizer moved to "
                  "bipartite.consistency.pairwise_population_minimizer (since 0.4.0; the old name "
                  "is removed in 0.5.0).", FutureWarning, stacklevel=2)
    return population_minimizer(problem, surrogate=surrogate, objective=objective, gtol=gtol)


def la25_section7_gap(*, seed: int, route: str, n_train: int = 4000, pi2: float = 0.02,
                      objective: str = "loss_aggregation", n_test: int = 2000, n_pop: int = 1000,
                      epochs: int = 40, n_estimators: int = 200) -> dict:
    """Gap of one learning route to the Bayes scorer of ``objective`` (docs/theory.md §9, §12).

    The synthetic model (:func:`bipartite.data.synthetic_model`, priors (½, ``pi2``), β = 8) and
    a test sample of ``n_test`` x with its exact joint (a finite problem; the Bayes scorer is
    exact on it). A learner route (``xgb-…``, ``mlp-…``; XGBoost depth 3, ``n_estimators`` trees;
    MLP (32, 32), ``epochs``) is trained on ``n_train`` samples; a population route minimises the
    pairwise surrogate risk on the first ``n_pop`` test points
    (:func:`bipartite.consistency.pairwise_population_minimizer`) and is compared with the Bayes scorer there
    (``n_train`` is then 0).

    Returns ``auc_1, auc_2, win_12`` of the route, ``bayes_auc_1, bayes_auc_2, bayes_win_12``,
    the gaps ``gap_auc_1, gap_auc_2, gap_win_12`` (route − Bayes), ``max_abs_gap`` (largest
    ``|gap|`` of the two AUCs) and ``regret`` (:func:`bipartite.consistency.auc_regret`).

    >>> row = la25_section7_gap(seed=0, route="xgb-plugin", n_train=500, n_test=300,
    ...                         n_estimators=5)
    >>> row["regret"] >= 0, row["n_train"]
    (True, 500)
    """
    from bipartite.bayes import label_aggregation_scores, loss_aggregation
    from bipartite.consistency import auc_regret
    from bipartite.consistency import pairwise_population_minimizer as population_minimizer
    from bipartite.data import synthetic_model
    from bipartite.dictatorship import population_win_rate
    from bipartite.learners import MLPRanker, XGBRanker

    if route not in GAP_ROUTES:
        raise ValueError(f"The 'route' parameter must be one of {list(GAP_ROUTES)}, got "
                         f"{route!r}.")
    rng = np.random.default_rng(seed)
    model = synthetic_model(priors=(0.5, pi2))
    test = model.sample(n_test, seed=int(rng.integers(2**32)))
    X, eta = test.X, test.eta
    if route.startswith("population"):
        X, eta, n_train = X[:n_pop], eta[:n_pop], 0
    problem = model.finite_problem(X)
    bayes = (loss_aggregation(eta, model.pi) if objective == "loss_aggregation"
             else label_aggregation_scores(eta))
    if route.startswith("population"):
        scores = population_minimizer(problem, surrogate=route.split("-")[1],
                                      objective=objective)
    else:
        learner, method = route.split("-")
        train = model.sample(n_train, seed=int(rng.integers(2**32)))
        est_seed = int(rng.integers(2**31))
        if learner == "xgb":
            est = XGBRanker(objective=objective, method=method, n_estimators=n_estimators,
                            learning_rate=0.1, max_depth=3, n_jobs=1, random_state=est_seed)
        else:
            est = MLPRanker(objective=objective, method=method, hidden=(32, 32), epochs=epochs,
                            lr=3e-3, n_iter_no_change=8, n_jobs=1, random_state=est_seed,
                            batch_size=512 if method == "pairwise" or n_train < 20000 else 2048)
        scores = est.fit(train.X, train.Y).decision_function(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = {"objective": objective, "pi2": float(pi2), "n_train": int(n_train),
               "n_points": len(X)}
        for name, s in (("", scores), ("bayes_", bayes)):
            aucs = problem.auc(s)
            row.update({f"{name}auc_1": float(aucs[0]), f"{name}auc_2": float(aucs[1]),
                        f"{name}win_12": float(population_win_rate(problem, s, 0, 1))})
        row["regret"] = float(auc_regret(problem, scores, objective=objective))
    for c in ("auc_1", "auc_2", "win_12"):
        row[f"gap_{c}"] = row[c] - row[f"bayes_{c}"]
    row["max_abs_gap"] = max(abs(row["gap_auc_1"]), abs(row["gap_auc_2"]))
    return row


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


def plugin_threshold(table, tol: float = 0.01) -> dict:
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
    """Gap to Bayes (largest ``|ΔAUC|`` and ΔW₁>₂) against the training size, per route; the
    population minimisers as horizontal lines (n = ∞)."""
    paths: list[Path] = []
    for objective, part in df.groupby("objective"):
        fig, axes = new_figure(1, 2, figsize=(10.0, 3.8), layout="constrained")
        for i, (route, sub) in enumerate(sorted(part.groupby("route"))):
            for ax, col in zip(axes, ["max_abs_gap", "gap_win_12"], strict=True):
                st = mean_and_se(sub, ["n_train"], col)
                if route.startswith("population"):
                    ax.axhline(st["mean"].iloc[0], ls=":", color=f"C{i}",
                               label=f"{route} (n = ∞)")
                else:
                    ax.errorbar(st["n_train"], st["mean"], yerr=st["se"], marker="o", ms=3,
                                capsize=2, color=f"C{i}", label=route)
        axes[0].axhline(0.01, color="k", lw=0.6, ls="--", label="0.01")
        axes[0].set_ylabel("largest |AUC_k(learner) − AUC_k(Bayes)|")
        axes[1].axhline(0.0, color="k", lw=0.6)
        axes[1].set_ylabel("W₁>₂(learner) − W₁>₂(Bayes)")
        from matplotlib.ticker import NullFormatter, NullLocator

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


register_study("la25.section7_gap", figures=gap_figures)(la25_section7_gap)
