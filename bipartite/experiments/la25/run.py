"""The LA25 reproduction: study sets by size, the paper entry (``bipartite reproduce --paper la25``)."""


from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

import bipartite.experiments.la25.studies  # noqa: F401  (registers the study functions)
from bipartite.experiments.la25.figures import (
    consistency_table,
    correlation_table,
    frontier_table,
    learning_curve_table,
    real_table,
    skew_table,
    theory_figures,
    weights_table,
)
from bipartite.experiments.la25.maxmin import maxmin_figures, maxmin_summary_lines
from bipartite.experiments.la25.section7_summary import (
    SECTION7_STUDIES,
    section7_configs,
    section7_summary_lines,
)
from bipartite.experiments.registry import Paper, study_results
from bipartite.studies.config import STUDIES
from bipartite.studies.report import markdown_table

# --------------------------------------------------------------------------------------------
# LA25: the paper entry (`bipartite reproduce --paper la25`)
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _PaperStudy:
    function: str
    title: str
    caption: str
    table: Callable[..., Any]


_LA25_STUDIES: dict[str, _PaperStudy] = {}


def _la25_study(name: str, function: str, title: str, caption: str, table) -> None:
    _LA25_STUDIES[name] = _PaperStudy(function, title, caption, table)




_la25_study(
    "skew", "la25.skew", "Per-label AUC and dictatorship vs label skew (docs/theory.md §4, §7)",
    "Synthetic data (x uniform on [−1, 1]², η_k logistic in one coordinate each, β = 8), label 1 "
    "with π₁ = ½, label 2 with prior π₂. Population AUCs and the cross-pair win rate "
    "W₁>₂ (share of (1,0)-vs-(0,1) pairs won by the label-1 instance; ½ = even-handed) on a test "
    "sample with its exact conditional labels, for the Bayes scorers and for learners trained "
    "with each objective's pairwise loss. Loss aggregation hands the rare label the ranking "
    "(W₁>₂ → 0, `alpha_share_2` → 1); label aggregation by sum keeps label 1's AUC.",
    skew_table)
_la25_study(
    "frontier", "la25.frontier", "Exact vs supported Pareto frontier (docs/theory.md §6)",
    "Random finite problems (K = 2, `FiniteProblem.random`). The exact frontier over all weak "
    "orders (subset DP) against the points a sweep of loss-aggregation weights reaches (supported "
    "points). `share_with_unsupported`: share of problems with at least one unsupported Pareto "
    "point; `relative_hypervolume_gap`: hypervolume the supported points miss, relative to the "
    "exact frontier; then the share of problems where the Bayes scorers' AUC vectors are "
    "certified Pareto-optimal (MILP); `timed_out`: problems whose exact frontier exceeded the "
    "time limit (left out of the other columns).", frontier_table)
_la25_study(
    "correlation", "la25.correlation", "Label correlation: anti-correlated to identical "
    "(docs/theory.md §5)",
    "Label 1 synthetic with π₁ = ½; label 2 slides from Y₂ = 1 − Y₁ (c = −1) through an "
    "independent label with prior 0.1 (c = 0) to Y₂ = Y₁ (c = 1); `corr` is the label "
    "correlation. At c = −1 every scorer has AUC₂ = 1 − AUC₁ and the summed label is constant "
    "(AUC_MP undefined, NaN); at c = 1 all aggregations coincide; in between loss aggregation "
    "favours the rarer label 2 and product/or aggregation trade differently.",
    correlation_table)
_la25_study(
    "weights", "la25.weights", "Weight sensitivity: label weights w vs loss weights a "
    "(docs/theory.md §4, §5)",
    "Bayes scorers with weight ratio r on label 2: loss aggregation a = (1, r) and label "
    "aggregation w = (1, r), at r = 1 and at the ratio nearest r* = π₂(1−π₂)/(π₁(1−π₁)), where "
    "loss aggregation equals label aggregation with w = 1.", weights_table)
_la25_study(
    "learning_curve", "la25.learning_curve", "Learners vs Bayes as n grows (docs/theory.md §9, §10)",
    "Exact AUC regret (loss aggregation, a = 1, π = (½, 0.1)) of the learners on a test "
    "population with exact conditional labels, by training-set size. Pairwise surrogates are "
    "not rank-consistent for loss aggregation (docs/theory.md §9), the plug-in route is.",
    learning_curve_table)
_la25_study(
    "consistency", "la25.consistency", "Surrogate consistency (docs/theory.md §9)",
    "Random finite problems (n = 8). Exact population minimiser of the pairwise surrogate risk "
    "weighted by the objective's pair weights: share of problems where its ranking has positive "
    "AUC regret (> 1e-6). For K = 1 the surrogates are consistent (regret 0); for K ≥ 2 they "
    "are not. The plug-in scorer has regret 0 on the population.", consistency_table)
_la25_study(
    "real", "la25.real", "Real data: per-label trade-offs (LA25 §7)",
    "Banking (labels: personal loan, mortgage > 0) and/or LETOR (labels: relevant, click; "
    "MQ2008 has no click features, so clicks are simulated by a position-based model, see "
    "`bipartite.data.load_letor`). Test AUCs (and per-query gAUC for LETOR) of the plug-in "
    "scorers at equal weights and of learners trained with each pairwise objective.",
    real_table)


def _la25_sizes(size: str) -> dict[str, dict]:
    """Configurations (TOML structure) of the LA25 studies for ``size`` in smoke/quick/full."""
    def pick(smoke, quick, full):
        return {"smoke": smoke, "quick": quick, "full": full}[size]

    configs = {
        "skew": {
            "study": {"function": "la25.skew", "seed": 600, "replicates": pick(1, 2, 5)},
            "params": {"n_test": pick(400, 5000, 20000), "n_train": pick(300, 2000, 4000),
                       "learners": pick(["xgb"], ["xgb"], ["xgb", "mlp"]),
                       "n_estimators": pick(10, 100, 200), "epochs": 40},
            "grid": {"pi2": pick([0.05, 0.5], [0.02, 0.05, 0.1, 0.2, 0.35, 0.5],
                                 [0.02, 0.05, 0.1, 0.2, 0.35, 0.5])},
        },
        "frontier": {
            "study": {"function": "la25.frontier", "seed": 601, "replicates": pick(2, 5, 20)},
            "grid": {"n": pick([4], [4, 6, 8], [4, 6, 8, 10]), "deterministic": [False]},
        },
        "correlation": {
            "study": {"function": "la25.correlation", "seed": 602,
                      "replicates": pick(1, 1, 3), "paired_seeds": True},
            "params": {"n_points": pick(200, 2000, 4000)},
            "grid": {"c": pick([-1.0, 0.0, 1.0], [round(v, 4) for v in np.linspace(-1, 1, 9)],
                               [round(v, 4) for v in np.linspace(-1, 1, 17)])},
        },
        "weights": {
            "study": {"function": "la25.weights", "seed": 603, "replicates": pick(1, 1, 3),
                      "paired_seeds": True},
            "params": {"n_points": pick(300, 2000, 4000), "n_ratios": pick(5, 25, 41)},
            "grid": {"pi2": pick([0.1], [0.05, 0.2], [0.05, 0.2]),
                     "beta": pick([8.0], [8.0, 64.0], [8.0, 64.0])},
        },
        "learning_curve": {
            "study": {"function": "la25.learning_curve", "seed": 604,
                      "replicates": pick(1, 2, 3)},
            "params": {"n_test": pick(300, 5000, 10000), "n_estimators": pick(10, 100, 200),
                       "epochs": 40, "objective": "loss_aggregation", "pi2": 0.1},
            "grid": {"n_train": pick([200], [250, 1000, 4000],
                                     [250, 500, 1000, 2000, 4000, 8000])},
            "cases": pick(
                [{"learner": "xgb", "method": "plugin"}],
                [{"learner": "xgb", "method": "pairwise"}, {"learner": "xgb", "method": "plugin"},
                 {"learner": "mlp", "method": "plugin"}],
                [{"learner": "xgb", "method": "pairwise"}, {"learner": "xgb", "method": "plugin"},
                 {"learner": "mlp", "method": "pairwise"}, {"learner": "mlp", "method": "plugin"}]),
        },
        "consistency": {
            "study": {"function": "la25.consistency", "seed": 606,
                      "replicates": pick(2, 10, 50)},
            "params": {"n": 8, "plugin_samples": pick([100], [100, 1000, 10000],
                                                      [100, 1000, 10000, 100000])},
            "grid": {"K": [1, 2, 3], "surrogate": ["logistic", "exponential"],
                     "objective": ["loss_aggregation", "label_aggregation"]},
        },
    }
    for name, cfg in configs.items():
        cfg["study"]["name"] = f"la25-{name}"
    return configs


def la25_figures(results_dir: str | os.PathLike, fig_dir: str | os.PathLike) -> list[Path]:
    """Redraw every LA25 figure from the saved results in ``results_dir`` (PNG + PDF)."""
    results_dir, fig_dir = Path(results_dir), Path(fig_dir)
    paths: list[Path] = []
    for name, df in study_results(results_dir, _LA25_STUDIES).items():
        spec = STUDIES[_LA25_STUDIES[name].function]
        if spec.figures is not None:
            paths += spec.figures(df, fig_dir)
    for name, df in study_results(results_dir, SECTION7_STUDIES).items():
        spec = STUDIES[SECTION7_STUDIES[name]]
        if spec.figures is not None:
            paths += spec.figures(df, fig_dir)
    paths += theory_figures(fig_dir)
    paths += maxmin_figures(fig_dir)
    return paths


def la25_summary(results_dir: str | os.PathLike, table_dir: str | os.PathLike) -> str:
    """Rebuild the LA25 key-number tables (CSV in ``table_dir``) and return ``summary.md``."""
    results_dir, table_dir = Path(results_dir), Path(table_dir)
    table_dir.mkdir(parents=True, exist_ok=True)
    meta = {}
    if (results_dir / "reproduce.json").is_file():
        meta = json.loads((results_dir / "reproduce.json").read_text())
    lines = ["# LA25 — loss vs label aggregation: reproduced results", ""]
    if meta:
        lines += [f"Made by `bipartite reproduce --paper la25` (size **{meta.get('size')}**, "
                  f"bipartite {meta.get('bipartite_version')}, {meta.get('finished_at')}; "
                  f"studies ran in {meta.get('elapsed_s')} s).", ""]
        rows = [{"study": k, **v} for k, v in meta.get("studies", {}).items()]
        if rows:
            import pandas as pd

            lines += ["| study | tasks | run now | failed | wall seconds | task CPU seconds |",
                      "|---|---|---|---|---|---|"]
            lines += [f"| {r['study']} | {r['tasks']} | {r['run']} | {r['failed']} | "
                      f"{r['elapsed_s']} | {r.get('task_cpu_s', '–')} |"
                      for r in pd.DataFrame(rows).to_dict("records")]
            lines.append("")
    results = study_results(results_dir, _LA25_STUDIES)
    fig_dir = results_dir / "figures"
    for name, study in _LA25_STUDIES.items():
        if name not in results:
            continue
        table = study.table(results[name])
        table.to_csv(table_dir / f"la25_{name}.csv", index=False)
        lines += [f"## {study.title}", "", study.caption, "", markdown_table(table), ""]
        figs = sorted(p.name for p in fig_dir.glob(f"la25_{name}*.png"))
        lines += [f"![{f}](figures/{f})" for f in figs]
        lines.append("")
    missing = [n for n in _LA25_STUDIES if n not in results]
    if missing:
        lines += ["Studies not in this folder: " + ", ".join(missing) + ".", ""]
    lines += section7_summary_lines(results_dir, table_dir, meta)
    lines += maxmin_summary_lines(results_dir, table_dir, SECTION7_STUDIES)
    return "\n".join(lines)


def _la25_real_configs(size: str, banking: Any, letor: Any) -> dict[str, dict]:
    """The real-data study config (only when a Banking or LETOR path is given)."""
    cases = []
    if banking is not None:
        cases.append({"dataset": "banking", "path": str(Path(banking).resolve())})
    if letor is not None:
        cases.append({"dataset": "letor", "path": str(Path(letor).resolve())})
    if not cases:
        return {}
    return {"real": {
        "study": {"function": "la25.real", "name": "la25-real", "seed": 607,
                  "replicates": {"smoke": 1, "quick": 2, "full": 5}[size]},
        "params": {"n_weights": {"smoke": 3, "quick": 7, "full": 11}[size],
                   "n_estimators": {"smoke": 10, "quick": 60, "full": 200}[size]},
        "grid": {"learner": ["xgb"] if size != "full" else ["xgb", "mlp"]},
        "cases": cases,
    }}


def la25_configs(size: str, options: Mapping) -> dict[str, dict]:
    """The LA25 study configurations for ``size``; the real-data study when a path is given;
    then the §7 studies (:func:`bipartite.experiments.la25.section7_summary.section7_configs`:
    the synthetic sweep, the K = 2 balance check, the learners' gap, and the Bank Marketing and
    LETOR tables whenever their data is found through the data-path setting)."""
    configs = _la25_sizes(size)
    configs.update(_la25_real_configs(size, options.get("banking"), options.get("letor")))
    configs.update(section7_configs(size, options))
    return configs


#: The LA25 entry of :data:`bipartite.experiments.PAPERS`.
PAPER = Paper("la25", la25_configs, figures=la25_figures, summary=la25_summary,
              description="LA25: loss vs label aggregation (Lukasik et al., ICML 2025)")
