"""The MTRUB reproduction: study sets by size, summary, the paper entry
(``bipartite reproduce --paper mtrub``; docs/theory.md §11)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import bipartite.experiments.mtrub.studies  # noqa: F401  (registers the study functions)
from bipartite.experiments.mtrub.figures import (
    aggregation_table,
    check_table,
    key_numbers,
    models_table,
)
from bipartite.experiments.mtrub.studies import LIST_SIZE
from bipartite.experiments.registry import (
    Paper,
    provenance_lines,
    reproduce_record,
    study_results,
)
from bipartite.studies.report import markdown_table, write_table

__all__ = ["BANKING_FILE", "PAPER", "SIZES", "STUDY_FUNCTIONS", "banking_path", "configs",
           "figures", "headline", "summary"]

#: The study folders (``<out>/studies/<name>``) and their registered functions.
STUDY_FUNCTIONS = {"synthetic": "mtrub.synthetic", "banking": "mtrub.banking"}
#: The Banking file name in the data folder (:func:`bipartite.data.data_dir`).
BANKING_FILE = "bank_personal_loan.csv"

#: Sizes of the old ``CONFIGS`` (``seeds`` / ``banking_seeds`` = replicates).
SIZES: dict[str, dict[str, int]] = {
    "full": {"seeds": 5, "n_train": 1500, "n_val": 500, "n_test": 500, "epochs": 40,
             "resolution": 15, "banking_seeds": 5, "banking_resolution": 8, "banking_epochs": 80},
    "quick": {"seeds": 2, "n_train": 500, "n_val": 200, "n_test": 300, "epochs": 25,
              "resolution": 10, "banking_seeds": 1, "banking_resolution": 5, "banking_epochs": 25},
    "smoke": {"seeds": 1, "n_train": 60, "n_val": 30, "n_test": 40, "epochs": 3,
              "resolution": 3, "banking_seeds": 1, "banking_resolution": 2, "banking_epochs": 3},
}


def banking_path(option: str | os.PathLike | None = None) -> Path | None:
    """The Banking CSV: the ``banking`` option (the file, or a folder holding
    :data:`BANKING_FILE`) when given, else :data:`BANKING_FILE` in the data folder
    (:func:`bipartite.data.data_file`: ``$BIPARTITE_DATA``, else ``../shared/data``); ``None`` when
    the file is not there (the Banking study is then not run)."""
    from bipartite.data import data_file

    if option is None or option == "":
        return data_file(BANKING_FILE)
    path = Path(option)
    if path.is_dir():
        return data_file(BANKING_FILE, path)
    return path if path.is_file() else None


def configs(size: str, options: Mapping) -> dict[str, dict]:
    """The MTRUB study configurations for ``size`` (smoke/quick/full).

    ``synthetic`` always; ``banking`` only when the Banking CSV is found (:func:`banking_path`).
    One task per replicate; the option ``seed`` (int, default 0) shifts the study seeds.
    """
    sz = SIZES[size]
    shift = int(options.get("seed") or 0)
    out = {"synthetic": {
        "study": {"function": STUDY_FUNCTIONS["synthetic"], "name": "mtrub-synthetic",
                  "seed": 700 + shift, "replicates": sz["seeds"],
                  "description": "MTRUB learners and aggregation on synthetic nested behaviours"},
        "params": {k: sz[k] for k in ("n_train", "n_val", "n_test", "epochs", "resolution")},
    }}
    path = banking_path(options.get("banking"))
    if path is not None:
        out["banking"] = {
            "study": {"function": STUDY_FUNCTIONS["banking"], "name": "mtrub-banking",
                      "seed": 701 + shift, "replicates": sz["banking_seeds"],
                      "description": "MTRUB aggregation on Banking's five binary labels"},
            "params": {"path": str(path.resolve()), "epochs": sz["banking_epochs"],
                       "resolution": sz["banking_resolution"], "list_size": LIST_SIZE},
        }
    return out


def figures(results_dir: str | os.PathLike, fig_dir: str | os.PathLike) -> list[Path]:
    """Redraw the MTRUB figures from the saved results in ``results_dir`` (PNG + PDF)."""
    from bipartite.studies.config import STUDIES

    paths: list[Path] = []
    for name, df in study_results(results_dir, STUDY_FUNCTIONS).items():
        paths += STUDIES[STUDY_FUNCTIONS[name]].figures(df, Path(fig_dir))
    return paths


def headline(results_dir: str | os.PathLike) -> dict[str, Any]:
    """The key numbers of a finished results folder
    (:func:`~bipartite.experiments.mtrub.figures.key_numbers`), with
    ``config`` (the size) and ``banking`` (``"run"`` or why not)."""
    results_dir = Path(results_dir)
    found = study_results(results_dir, STUDY_FUNCTIONS)
    meta = reproduce_record(results_dir)
    res: dict[str, Any] = {"config": meta.get("size")}
    res.update(key_numbers(found.get("synthetic"), found.get("banking")))
    if "banking" in found:
        res["banking"] = "run"
    else:
        from bipartite.data import data_dir

        res["banking"] = (f"not run: Banking CSV not found (option banking="
                          f"{meta.get('options', {}).get('banking')}, data folder {data_dir()})")
    return res


def summary(results_dir: str | os.PathLike, table_dir: str | os.PathLike) -> str:
    """Write the MTRUB tables (``table_dir``: CSV + Markdown) and return ``summary.md``: learners,
    aggregation (synthetic, Banking), Pareto check, key numbers."""
    import pandas as pd

    results_dir, table_dir = Path(results_dir), Path(table_dir)
    found = study_results(results_dir, STUDY_FUNCTIONS)
    key = headline(results_dir)
    lines = ["# MTRUB — multi-task learners and exponential fusion: reproduced results", ""]
    lines += provenance_lines(results_dir)
    syn, bank = found.get("synthetic"), found.get("banking")
    if syn is not None:
        heads, agg = models_table(syn), aggregation_table(syn)
        write_table(heads, table_dir, "mtrub_models",
                    note="Synthetic nested behaviours, test set; each label ranked by its own "
                         "head; mean over seeds.")
        write_table(agg, table_dir, "mtrub_aggregation_synthetic",
                    note="Synthetic nested behaviours, test set: scorers built from the MMoE "
                         "probabilities (or the exact η); gAUC weighted by pairs; nDCG@10 per "
                         "label (binary) and with the engagement depth Y_click + Y_valid + Y_long "
                         "as grade.")
        lines += [f"## Learners (synthetic nested behaviours, {key['n_seeds']} seed(s), own head "
                  "per label; cf. MTRUB Table 1, Fig. 2)", "", markdown_table(heads, digits=3), "",
                  "## Aggregation (synthetic)", "",
                  markdown_table(agg[["probabilities", "scorer", "auc_mean", "gauc_mean",
                                      "ndcg10_mean"]], digits=3), ""]
    if bank is not None:
        btable = aggregation_table(bank, by="model")
        write_table(btable, table_dir, "mtrub_aggregation_banking",
                    note=f"Banking (5 binary labels), test set (20% of rows); gAUC and nDCG@10 on "
                         f"random lists of {LIST_SIZE} customers (Banking has no queries).")
        lines += ["## Aggregation (Banking, 5 binary labels)", "",
                  markdown_table(btable[["model", "scorer", "n_seeds", "auc_mean", "gauc_mean",
                                         "ndcg10_mean"]], digits=3), ""]
    checks = check_table(syn, bank)
    if not checks.empty:
        write_table(checks, table_dir, "mtrub_pareto_check",
                    note="Pareto check on the test set (gAUC vectors). Candidates: the simplex "
                         "grid of exponents; 'linear' = Σ a_k p_k over the same grid (loss "
                         "aggregation with every mixing weight).")
        lines += ["## Pareto check", "", markdown_table(checks, digits=3), ""]
    write_table(pd.DataFrame({"key": list(key), "value": [str(v) for v in key.values()]}),
                table_dir, "mtrub_key_numbers", note="The headline numbers of this folder.")
    lines += [f"Banking: {key['banking']}", ""]
    missing = [n for n in STUDY_FUNCTIONS if n not in found]
    if missing:
        lines += ["Studies not in this folder: " + ", ".join(missing) + ".", ""]
    fig_dir = results_dir / "figures"
    lines += [f"![{p.name}](figures/{p.name})" for p in sorted(fig_dir.glob("mtrub_*.png"))]
    return "\n".join([*lines, ""])


#: The MTRUB entry of :data:`bipartite.experiments.PAPERS`.
PAPER = Paper("mtrub", configs, figures=figures, summary=summary,
              description="MTRUB: multi-task learners and exponential fusion (Liu et al., WWW'22 "
                          "Companion)")
