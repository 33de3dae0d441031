"""The LA25 reproduction: the study sets by size, the figures, ``summary.md`` and the paper entry
(``bipartite reproduce --paper la25``; docs/theory.md §4-§13).

The studies (folders under ``<out>/studies/``; :data:`STUDY_FUNCTIONS`):

* the sweeps ``skew``, ``frontier``, ``correlation``, ``weights``, ``learning_curve``,
  ``consistency``, and ``real`` (only with ``--banking`` / ``--letor``);
* ``section7_synthetic`` — ``la25.section7_synthetic`` over six dependence regimes × skews;
* ``section7_balance`` — ``la25.section7_balance``, the K = 2 condition on random problems;
* ``section7_gap`` — ``la25.section7_gap``, learners vs Bayes at π₂ = 0.02;
* ``section7_bank_marketing`` — ``la25.section7_data`` on UCI Bank Marketing, when
  ``bank_marketing_full.csv`` (or the UCI ``bank-full.csv``) is in the data folder;
* ``section7_letor`` — ``la25.section7_data`` on the MQ2008 stand-in (``letor/mq2008_S1..S5.txt``
  in the data folder), or on real MSLR-WEB10K/30K folds given with ``--letor``;
* ``maxmin_frequency`` — ``la25.maxmin_frequency``, how often the max-min point is unsupported;
* ``multilabel`` — ``la25.multilabel`` on the seven Mulan benchmarks (K = 6 to 174), when their
  files are in the data folder's ``multilabel/``; opt-in: ``--only multilabel``.

The quick size (``bipartite reproduce``'s default, the main job) runs the studies on synthetic
data only; ``--real-data`` adds the real-data ones (:data:`REAL_DATA_STUDIES`) at that size,
``--letor PATH`` the LETOR table, and ``--full`` runs every one it finds except the opt-in
multi-label study (:data:`OPT_IN_STUDIES`: ``--only multilabel``).

The synthetic and real-data §7 studies run with ``max_min=True``: every learner also fits the
max-min AUC objective (docs/theory.md §13); and with ``family=True`` (issue 24): the learners
of :data:`FAMILY_LEARNERS` also fit the aggregation family
(:data:`~bipartite.experiments.la25.studies.section7.FAMILY_OBJECTIVES`: weighted sums, OR,
AND, lexicographic, loss aggregation with a swept), on the same splits, seeds and test rows; its
tables are :mod:`bipartite.experiments.la25.figures.family`. The data folder is the package's one data-path setting
(:func:`bipartite.data.data_dir`: the ``data`` option, else ``$BIPARTITE_DATA``, else
``../shared/data``).

To add a study: register its function in a module of :mod:`bipartite.experiments.la25.studies`,
add its folder to :data:`STUDY_FUNCTIONS` and its config to :func:`configs`, its tables to a module
of :mod:`bipartite.experiments.la25.figures` and its section to :func:`summary`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

import bipartite.experiments.la25.studies  # noqa: F401  (registers the study functions)
from bipartite.data.letor import letor_layout
from bipartite.experiments.la25.figures.family import family_summary_lines
from bipartite.experiments.la25.figures.maxmin import maxmin_figures, maxmin_summary_lines
from bipartite.experiments.la25.figures.multilabel import multilabel_summary_lines
from bipartite.experiments.la25.figures.section7 import (
    balance_table,
    gap_table,
    harder_table,
    paper_layout,
    paper_layout_markdown,
    plugin_threshold,
    synthetic_table,
    verdict_table,
)
from bipartite.experiments.la25.figures.section7 import learner_gap_table as synthetic_gap_table
from bipartite.experiments.la25.figures.sweeps import sweep_summary_lines, theory_figures
from bipartite.experiments.la25.studies.multilabel import multilabel_config
from bipartite.experiments.la25.studies.section7 import REGIMES
from bipartite.experiments.registry import (
    Paper,
    provenance_lines,
    reproduce_record,
    study_results,
)
from bipartite.studies.config import STUDIES
from bipartite.studies.report import markdown_table, write_table

__all__ = ["FAMILY_LEARNERS", "MULTILABEL_STUDIES", "OPT_IN_STUDIES", "PAPER", "REAL_DATA_STUDIES",
           "SECTION7_STUDIES", "STUDY_FUNCTIONS", "SWEEP_STUDIES",
           "configs",
           "figures", "find_section7_data", "section7_configs", "section7_summary_lines",
           "summary"]

#: The sweeps: study folder name -> registered study function.
SWEEP_STUDIES = {
    "skew": "la25.skew", "frontier": "la25.frontier", "correlation": "la25.correlation",
    "weights": "la25.weights", "learning_curve": "la25.learning_curve",
    "consistency": "la25.consistency", "real": "la25.real",
}

#: Study folder name -> registered study function.
SECTION7_STUDIES = {
    "section7_synthetic": "la25.section7_synthetic",
    "section7_balance": "la25.section7_balance",
    "section7_gap": "la25.section7_gap",
    "section7_bank_marketing": "la25.section7_data",
    "section7_letor": "la25.section7_data",
    "maxmin_frequency": "la25.maxmin_frequency",
}
_BANK_NAMES = ("bank_marketing_full.csv", "bank-full.csv")

#: Every LA25 study folder -> its registered study function.
#: The multi-label benchmarks (issue 25; :mod:`bipartite.experiments.la25.studies.multilabel`).
MULTILABEL_STUDIES = {"multilabel": "la25.multilabel"}
STUDY_FUNCTIONS = {**SWEEP_STUDIES, **SECTION7_STUDIES, **MULTILABEL_STUDIES}
#: The studies on real data (found through the data-path setting). The quick main job leaves them
#: out unless ``real_data`` is set or ``only`` names them; ``--full`` runs every one it finds.
REAL_DATA_STUDIES = ("section7_bank_marketing", "section7_letor", "multilabel")
#: Studies that run only when ``only`` names them (and in the smoke run of the tests): the
#: multi-label benchmarks take longer than all the other LA25 studies together
#: (``bipartite reproduce --full --only multilabel``).
OPT_IN_STUDIES = ("multilabel",)


def configs(size: str, options: Mapping) -> dict[str, dict]:
    """The LA25 study configurations for ``size``: the sweeps; the real-data sweep when a
    ``banking`` or ``letor`` path is given; then the §7 studies (:func:`section7_configs`: the
    synthetic sweep, the K = 2 balance check, the learners' gap, the max-min frequency, and the
    Bank Marketing and LETOR tables whenever their data is found through the data-path
    setting) and the multi-label benchmarks (when the Mulan files are found). At the quick size
    (the main job) the real-data studies (:data:`REAL_DATA_STUDIES`) run only with
    ``real_data`` or when ``only`` names them; the opt-in studies (:data:`OPT_IN_STUDIES`) run
    only when ``only`` names them (and at the smoke size)."""
    out = _sweep_configs(size)
    out.update(_real_configs(size, options.get("banking"), options.get("letor")))
    out.update(section7_configs(size, options))
    multilabel = multilabel_config(size, options.get("data"))
    if multilabel is not None:
        out["multilabel"] = multilabel
    asked = set(options.get("only") or ())
    if options.get("letor") is not None:  # real folds given by path: asked for
        asked.add("section7_letor")
    if size == "quick" and not options.get("real_data"):
        out = {k: v for k, v in out.items() if k not in REAL_DATA_STUDIES or k in asked}
    if size != "smoke":
        out = {k: v for k, v in out.items() if k not in OPT_IN_STUDIES or k in asked}
    return out


def figures(results_dir: str | os.PathLike, fig_dir: str | os.PathLike) -> list[Path]:
    """Redraw every LA25 figure from the saved results in ``results_dir`` (PNG + PDF): each
    study's own figures (registered with the runner), the theory figures and the max-min
    frontier figure."""
    results_dir, fig_dir = Path(results_dir), Path(fig_dir)
    paths: list[Path] = []
    for name, df in study_results(results_dir, STUDY_FUNCTIONS).items():
        spec = STUDIES[STUDY_FUNCTIONS[name]]
        if spec.figures is not None:
            paths += spec.figures(df, fig_dir)
    paths += theory_figures(fig_dir)
    paths += maxmin_figures(fig_dir)
    return paths


def summary(results_dir: str | os.PathLike, table_dir: str | os.PathLike) -> str:
    """Write the LA25 key-number tables (``table_dir``: CSV + Markdown, through
    :func:`bipartite.studies.report.write_table`) and return ``summary.md``: provenance, the
    sweeps, §7 as the paper ran it, and the max-min section."""
    results_dir, table_dir = Path(results_dir), Path(table_dir)
    table_dir.mkdir(parents=True, exist_ok=True)
    meta = reproduce_record(results_dir)
    lines = ["# LA25 — loss vs label aggregation: reproduced results", ""]
    lines += provenance_lines(results_dir)
    fig_dir = results_dir / "figures"
    lines += sweep_summary_lines(study_results(results_dir, SWEEP_STUDIES), table_dir, fig_dir)
    lines += section7_summary_lines(results_dir, table_dir, meta)
    lines += maxmin_summary_lines(results_dir, table_dir, SECTION7_STUDIES)
    found = study_results(results_dir, MULTILABEL_STUDIES)
    if "multilabel" in found:
        lines += multilabel_summary_lines(found["multilabel"], table_dir)
    return "\n".join(lines)


def _sweep_configs(size: str) -> dict[str, dict]:
    """Configurations (TOML structure) of the LA25 sweeps for ``size`` in smoke/quick/full."""
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


def _real_configs(size: str, banking: Any, letor: Any) -> dict[str, dict]:
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


def find_section7_data(options: Mapping) -> dict:
    """The real data of the §7 tables: ``{"bank_marketing": path or None, "letor": path or None,
    "letor_layout": "mq2008" | "mslr" | None, "folder": data folder}``.

    Bank Marketing: ``options["bank_marketing"]`` if given, else ``bank_marketing_full.csv`` or
    ``bank-full.csv`` in the data folder. LETOR: ``options["letor"]`` when it is a folder of MQ2008
    parts or MSLR folds (:func:`bipartite.data.letor.letor_layout`), else the data
    folder's ``letor`` folder when it holds the MQ2008 parts.
    """
    from bipartite.data import data_dir

    folder = data_dir(options.get("data"))
    bank = options.get("bank_marketing")
    if bank is None:
        bank = next((folder / n for n in _BANK_NAMES if (folder / n).is_file()), None)
    letor = options.get("letor")
    if letor_layout(letor) is None:
        letor = folder / "letor" if letor_layout(folder / "letor") == "mq2008" else None
    return {"bank_marketing": None if bank is None else Path(bank).resolve(),
            "letor": None if letor is None else Path(letor).resolve(),
            "letor_layout": letor_layout(letor), "folder": folder}


def _pick(size: str, smoke, quick, full):
    return {"smoke": smoke, "quick": quick, "full": full}[size]


#: The learners that fit the aggregation family in the §7 studies, by size: full, LA25's three
#: (linear, MLP, XGBoost); ``--quick``, the linear scorer only (the real data, 2 splits) and
#: linear and XGBoost (synthetic, 1 replicate); smoke, XGBoost.
FAMILY_LEARNERS = {"smoke": ("xgb",), "quick": ("linear", "xgb"), "full": ("linear", "mlp", "xgb")}


def section7_configs(size: str, options: Mapping) -> dict[str, dict]:
    """The §7 study configurations for ``size`` (smoke / quick / full); the real-data tables
    only for the data :func:`find_section7_data` finds."""
    def pick(smoke, quick, full):
        return _pick(size, smoke, quick, full)

    cfg: dict[str, dict] = {
        "section7_synthetic": {
            "study": {"function": "la25.section7_synthetic", "seed": 700,
                      "replicates": pick(1, 1, 5), "paired_seeds": True},
            "params": {"n_test": pick(400, 3000, 20000), "n_train": pick(300, 1000, 4000),
                       "learners": pick(["xgb"], ["linear", "xgb"], ["linear", "mlp", "xgb"]),
                       "learner_pi2": pick([0.05], [0.02], [0.02]),
                       "n_sweep": pick(5, 21, 41), "n_estimators": pick(10, 100, 150),
                       "epochs": pick(40, 15, 40), "max_min": True, "family": True},
            "grid": {"regime": pick(["independent", "nested"], list(REGIMES), list(REGIMES)),
                     "pi2": pick([0.05, 0.5], [0.02, 0.1, 0.5],
                                 [0.02, 0.05, 0.1, 0.2, 0.35, 0.5])},
        },
        "section7_balance": {
            "study": {"function": "la25.section7_balance", "seed": 701,
                      "replicates": pick(1, 1, 2)},
            "params": {"n_problems": pick(20, 250, 500)},
            "grid": {"deterministic": [False, True]},
            "cases": pick([{"n": 4, "frontier": True}],
                          [{"n": 4, "frontier": True}, {"n": 8, "frontier": True}],
                          [{"n": 4, "frontier": True}, {"n": 6, "frontier": True},
                           {"n": 8, "frontier": True}, {"n": 12, "frontier": False}]),
        },
        "section7_gap": {
            "study": {"function": "la25.section7_gap", "seed": 702,
                      "replicates": pick(1, 1, 3), "paired_seeds": True},
            "params": {"pi2": 0.02, "n_test": pick(300, 2000, 2000),
                       "n_pop": pick(100, 500, 800), "n_estimators": pick(10, 200, 200),
                       "epochs": 40},
            "cases": _gap_cases(size),
        },
        "maxmin_frequency": {
            "study": {"function": "la25.maxmin_frequency", "seed": 705, "replicates": 1},
            "params": {"n_problems": pick(5, 25, 25)},
            "grid": {"first_seed": pick([0], [0, 25, 50, 75], [0, 25, 50, 75])},
            "cases": pick([{"n": 6, "K": 2}], [{"n": 6, "K": 2}, {"n": 8, "K": 2}],
                          [{"n": 6, "K": 2}, {"n": 8, "K": 2}, {"n": 10, "K": 2},
                           {"n": 6, "K": 3}]),
        },
    }
    data = find_section7_data(options)
    learners = pick(["xgb", "xgb_plugin"], ["linear", "xgb_plugin"],
                    ["linear", "linear_hinge", "mlp", "xgb", "xgb_plugin"])
    common = {"n_estimators": pick(10, 60, 200), "epochs": pick(3, 12, 40),
              "n_sweep": pick(3, 11, 21), "max_min": True}
    splits = pick([0], [0, 1], [0, 1, 2, 3, 4])
    # the family on the learners of FAMILY_LEARNERS (not the hinge scorer, not the plug-in sweep)
    cases = [{"learner": lr, "family": lr in FAMILY_LEARNERS[size]} for lr in learners]
    if data["bank_marketing"] is not None:
        cfg["section7_bank_marketing"] = {
            "study": {"function": "la25.section7_data", "seed": 703, "replicates": 1,
                      "paired_seeds": True},
            "params": {"dataset": "bank_marketing", "path": str(data["bank_marketing"]),
                       "features": "client", "n_train": pick(2000, 4000, 10000), **common},
            "grid": {"split": splits}, "cases": cases,
        }
    if data["letor"] is not None:
        mslr = data["letor_layout"] == "mslr"
        cfg["section7_letor"] = {
            "study": {"function": "la25.section7_data", "seed": 704, "replicates": 1,
                      "paired_seeds": True},
            "params": {"dataset": "letor", "path": str(data["letor"]),
                       "max_queries": pick(200, 1000, 2000) if mslr else 0, **common},
            "grid": {"split": splits}, "cases": cases,
        }
    for name, c in cfg.items():
        c["study"]["name"] = f"la25-{name}"
    return cfg


def _gap_cases(size: str) -> list[dict]:
    if size == "smoke":
        return [{"route": "xgb-plugin", "n_train": 500}]
    if size == "quick":
        return [{"route": "xgb-plugin", "n_train": 4000}, {"route": "xgb-plugin", "n_train": 16000},
                {"route": "xgb-pairwise", "n_train": 16000},
                {"route": "population-exponential", "n_train": 0}]
    sizes, learners = [4000, 16000, 64000], ["xgb", "mlp"]
    pops = ["population-logistic", "population-exponential"]
    cases = [{"route": f"{lr}-{m}", "n_train": n} for lr in learners
             for m in ("plugin", "pairwise") for n in sizes]
    return cases + [{"route": r, "n_train": 0} for r in pops]


# --------------------------------------------------------------------------------------------
# summary.md
# --------------------------------------------------------------------------------------------

_INTRO = (
    "LA25 §7 compares the objectives by each label's AUC, **Diff AUC** = |AUC₁ − AUC₂| (lower "
    "is more balanced) and **Min AUC** = min(AUC₁, AUC₂) (higher is more balanced), one row per "
    "objective: each label alone, label aggregation (Ȳ = Y₁ + Y₂, linear costs), loss aggregation "
    "(a = 1). Learners: a linear scorer trained with the pairwise logistic or hinge loss (the "
    "paper's family), a (32, 32) MLP and XGBoost, each with the objective's pair weights; the "
    "Bayes scorers where η is known. Mean ± standard error over splits (real data) or "
    "replicates (synthetic). **Data substitutions:** LA25's Banking data is taken to be UCI Bank "
    "Marketing (labels `housing` = mortgage, `loan` = personal loan; client features only); "
    "MSLR-WEB30K is not available here, so its table runs on LETOR 4.0 MQ2008 with simulated "
    "clicks unless MSLR folds are given (`bipartite reproduce --paper la25 --only section7_letor "
    "--letor DIR`, see `bipartite.data.load_letor`); HelpSteer is not reachable here and "
    "is not run. The paper's numbers are from a secondary summary (reference, not ground truth).")
_LETOR_STANDIN = (
    "MQ2008 stands in for MSLR-WEB30K and differs from it in three ways: the click label is "
    "simulated by a position-based model over the BM25 ranking of each query "
    "(`bipartite.data.simulate_clicks`), not logged clicks; its prior is about 0.04 (relevance "
    "≥ 1: about 0.19), while MSLR's click label 1[f134 > 0] has a prior that cannot be checked "
    "here; and it has 784 queries "
    "and 15 211 documents with 46 features, against MSLR-WEB30K's 31 531 queries, 3.77 M "
    "documents and 136 features. Train on three parts, test on the fifth (LETOR fold layout); "
    "learners rank pooled pairs; AUCs are pooled over the test documents.")


def _missing(name: str, what: str, folder, extra: str = "") -> list[str]:
    return [f"### {what}", "",
            f"Not run: the data was not found through the data-path setting (the `data` option, "
            f"`$BIPARTITE_DATA`, else `../shared/data`; here {folder}){extra}. `{name}` is "
            "absent from this folder.", ""]


def _figs(fig_dir: Path, stem: str) -> list[str]:
    return [f"![{p.name}](figures/{p.name})" for p in sorted(fig_dir.glob(f"{stem}*.png"))]


def _data_block(df, dataset: str, title: str, paper_name: str, table_dir: Path,
                fig_dir: Path, note: str = "") -> list[str]:
    layout = paper_layout(df)
    write_table(layout, table_dir, f"la25_section7_{dataset}",
                note=f"{title}: LA25 §7's table, mean ± s.e. over the splits.")
    verdict = verdict_table(df)
    write_table(verdict, table_dir, f"la25_section7_{dataset}_verdict",
                note="Label minus loss aggregation, paired by split.")
    what = "; ".join(sorted(set(df["data"])))
    lines = [f"### {title}", "", f"Data: {what}; {df['split'].nunique()} splits. {note}", "",
             paper_layout_markdown(layout, dataset, paper_name=paper_name), "",
             "Label minus loss aggregation, paired by split (`d_min` > 0 or `d_diff` < 0: label "
             "aggregation is the more balanced):", "", markdown_table(verdict), ""]
    return lines + _figs(fig_dir, f"la25_section7_{dataset}") + [""]


def section7_summary_lines(results_dir: str | os.PathLike, table_dir: str | os.PathLike,
                           meta: Mapping | None = None) -> list[str]:
    """The §7 part of ``summary.md`` (and its CSV tables in ``table_dir``), from the results
    only; a real-data table whose study is absent says why."""
    results_dir, table_dir = Path(results_dir), Path(table_dir)
    results = study_results(results_dir, SECTION7_STUDIES)
    fig_dir = results_dir / "figures"
    options = dict((meta or {}).get("options") or {})
    folder = find_section7_data({k: v for k, v in options.items() if k == "data"})["folder"]
    lines = ["## LA25 §7 as the paper ran it (docs/theory.md §10.7, §12)", "", _INTRO, ""]
    if "section7_bank_marketing" in results:
        lines += _data_block(results["section7_bank_marketing"], "bank_marketing",
                             "Banking = UCI Bank Marketing (mortgage, personal loan)", "Banking",
                             table_dir, fig_dir)
    else:
        lines += _missing("section7_bank_marketing", "Banking = UCI Bank Marketing", folder,
                          " (needs bank_marketing_full.csv or bank-full.csv)")
    if "section7_letor" in results:
        df = results["section7_letor"]
        mslr = df["data"].str.contains("MSLR|Fold", regex=True).any()
        title = ("MSLR-WEB (relevant, click)" if mslr
                 else "MSLR-WEB30K → MQ2008 stand-in (relevant, simulated click)")
        lines += _data_block(df, "letor", title, "MSLR-WEB30K", table_dir, fig_dir,
                             "" if mslr else _LETOR_STANDIN)
    else:
        lines += _missing("section7_letor", "MSLR-WEB30K → MQ2008 stand-in", folder,
                          " (needs letor/mq2008_S1..S5.txt, or MSLR folds with --letor)")
    if "section7_synthetic" in results:
        df = results["section7_synthetic"]
        table = synthetic_table(df)
        write_table(table, table_dir, "la25_section7_synthetic",
                    note="Synthetic skew sweep: Diff and Min AUC per regime and prior.")
        gaps = synthetic_gap_table(df)
        write_table(gaps, table_dir, "la25_section7_synthetic_gaps",
                    note="Learners minus the Bayes scorer of the same objective.")
        regimes = "; ".join(f"`{k}`: {v.text}" for k, v in REGIMES.items()
                            if k in set(df["regime"]))
        cols = ["regime", "pi2", "corr", "loss_diff", "label_diff", "loss_min", "label_min",
                "max_min", "loss_underserves", "label_more_balanced"]
        lines += ["### Synthetic skew sweep (Bayes scorers, exact population AUCs)", "",
                  f"π₁ = ½, label 2 with prior π₂; regimes: {regimes}. `loss_underserves`: the "
                  "label to which loss aggregation gives the lower AUC; label aggregation can "
                  "have the higher Min AUC only when it is the balanced label 1 "
                  "(docs/theory.md §12). `max_min`: best Min AUC of any weighting.", "",
                  markdown_table(table[cols]), "",
                  "Learners' Diff / Min AUC are in `tables/la25_section7_synthetic.csv`; their "
                  "gaps to the Bayes scorer of the same objective (mean over replicates):", "",
                  markdown_table(gaps), ""]
        lines += _figs(fig_dir, "la25_section7_diff") + _figs(fig_dir, "la25_section7_min")
        lines += _figs(fig_dir, "la25_section7_plane") + [""]
    if "section7_balance" in results:
        df = results["section7_balance"]
        table, harder = balance_table(df), harder_table(df)
        write_table(table, table_dir, "la25_section7_balance",
                    note="Which Bayes scorer is more balanced, K = 2 (docs/theory.md §12).")
        write_table(harder, table_dir, "la25_section7_balance_harder",
                    note="By which label has the lower single-label optimum AUC_k(η_k).")
        lines += ["### Which Bayes scorer is more balanced, K = 2 (docs/theory.md §12)", "",
                  "Random finite problems (`FiniteProblem.random`). Share of problems where each "
                  "objective's Bayes scorer has the higher Min AUC / lower Diff AUC, by case "
                  "(which label loss aggregation under-serves); `inequality_failures` counts "
                  "problems breaking the §12 chain (0 expected).", "", markdown_table(table), "",
                  "By which label has the lower single-label optimum AUC_k(η_k):", "",
                  markdown_table(harder), ""] + _figs(fig_dir, "la25_section7_balance") + [""]
    if "section7_gap" in results:
        table = gap_table(results["section7_gap"])
        write_table(table, table_dir, "la25_section7_gap",
                    note="Learners vs Bayes at π₂ = 0.02 (gap = learner − Bayes).")
        found = plugin_threshold(table)
        text = []
        for (objective, learner), v in sorted(found.items()):
            if v["n_train"] is None:
                text.append(f"{learner.upper()} ({objective.replace('_', ' ')}): the plug-in gap "
                            "stays above 0.01 at every size run.")
            else:
                pair = ("–" if v["pairwise_gap"] is None else
                        f"{v['pairwise_gap']:.3f} (W₁>₂ {v['pairwise_gap_win_12']:+.3f})")
                text.append(f"{learner.upper()} ({objective.replace('_', ' ')}): plug-in gap "
                            f"< 0.01 from n = {v['n_train']}; the pairwise route's gap there: "
                            f"{pair}.")
        lines += ["### Learners vs Bayes at π₂ = 0.02: estimation vs inconsistency", "",
                  "Gap = learner − Bayes scorer of the same objective (exact, on a test "
                  "population). Plug-in routes are consistent (estimation error only); "
                  "`population-*` rows are the exact pairwise-surrogate minimisers on the test "
                  "population (surrogate inconsistency only).", "", " ".join(text), "",
                  markdown_table(table), ""] + _figs(fig_dir, "la25_section7_gap") + [""]
    lines += family_summary_lines({k: v for k, v in results.items()
                                   if k in ("section7_bank_marketing", "section7_letor",
                                            "section7_synthetic")}, table_dir)
    lines += ["### HelpSteer", "", "Not run: the HelpSteer data is not reachable here (no copy "
              "in the data folder, no network access); LA25's HelpSteer trend (loss "
              "aggregation's Diff AUC higher in every setting) is not reproduced.", ""]
    return lines


#: The LA25 entry of :data:`bipartite.experiments.PAPERS`.
#: Measured CPU seconds per task of each study (``task_cpu_s / tasks`` of ``reproduce.json``;
#: quick: the main job on 2 idle cores; full: a full run, 2 cores, multilabel under load), which
#: weigh the progress bar's time estimate (:class:`~bipartite.experiments.Paper`).
TASK_SECONDS = {
    "quick": {"skew": 0.64, "frontier": 0.05, "correlation": 0.02, "weights": 0.05,
              "learning_curve": 0.21, "consistency": 0.03, "section7_synthetic": 1.06,
              "section7_balance": 0.39, "section7_gap": 0.61, "maxmin_frequency": 0.46,
              "section7_bank_marketing": 3.3, "section7_letor": 4.6, "multilabel": 1.5},
    "full": {"skew": 2.73, "frontier": 0.21, "correlation": 0.12, "weights": 0.47,
             "learning_curve": 0.36, "consistency": 0.04, "section7_synthetic": 4.36,
             "section7_balance": 0.71, "section7_gap": 2.47, "maxmin_frequency": 1.49,
             "section7_bank_marketing": 12.2, "section7_letor": 13.0, "multilabel": 2.6},
}

PAPER = Paper("la25", configs, figures=figures, summary=summary, task_seconds=TASK_SECONDS,
              description="LA25: loss vs label aggregation (Lukasik et al., ICML 2025)")
