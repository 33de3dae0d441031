"""The HAP-VR training reproduction: study sets by size, summary, the paper entry
(``bipartite reproduce --paper hapvr``; docs/theory.md §8, §11)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import bipartite.experiments.hapvr.studies  # noqa: F401  (registers the study functions)
from bipartite.experiments.hapvr.figures import (
    LOSSES,
    METRICS,
    VANISH_THRESHOLD,
    gradient_figure,
    key_numbers,
    learning_curves_figure,
    runs_table,
    training_table,
)
from bipartite.experiments.registry import (
    Paper,
    provenance_lines,
    reproduce_record,
    study_results,
)
from bipartite.studies.report import markdown_table, write_table

__all__ = ["PAPER", "SIZES", "STUDY_FUNCTIONS", "configs", "figures", "find_mq2008", "headline",
           "summary"]

#: The study folders (``<out>/studies/<name>``) and their registered functions.
STUDY_FUNCTIONS = {"synthetic": "hapvr.synthetic", "mq2008": "hapvr.mq2008"}

#: Sizes of the old ``CONFIGS`` (``seeds`` / ``letor_seeds`` = replicates).
SIZES: dict[str, dict[str, Any]] = {
    "full": {"seeds": 3, "syn_train": 300, "syn_test": 200, "syn_epochs": 30,
             "letor_folds": [1, 2, 3, 4, 5], "letor_seeds": 1, "letor_epochs": 15,
             "track_every": 2, "letor_max_queries": None},
    "quick": {"seeds": 2, "syn_train": 120, "syn_test": 80, "syn_epochs": 12,
              "letor_folds": [1], "letor_seeds": 1, "letor_epochs": 6, "track_every": 2,
              "letor_max_queries": None},
    "smoke": {"seeds": 1, "syn_train": 20, "syn_test": 10, "syn_epochs": 2,
              "letor_folds": [1], "letor_seeds": 1, "letor_epochs": 1, "track_every": 1,
              "letor_max_queries": 20},
}


def find_mq2008(option: str | os.PathLike | None = None) -> Path | None:
    """The folder with ``mq2008_S1.txt`` .. ``mq2008_S5.txt``: the ``letor`` option when given,
    else ``letor/`` of the data folder (:func:`bipartite.data.data_dir`: ``$BIPARTITE_DATA``, else
    ``../shared/data``); ``None`` when the files are not all there (the MQ2008 study is then not
    run)."""
    from bipartite.data import data_dir

    folder = data_dir() / "letor" if option is None or option == "" else Path(option)
    ok = all((folder / f"mq2008_S{p}.txt").is_file() for p in range(1, 6))
    return folder if ok else None


def configs(size: str, options: Mapping) -> dict[str, dict]:
    """The HAP-VR study configurations for ``size`` (smoke/quick/full).

    ``synthetic`` always; ``mq2008`` only when MQ2008 is found (:func:`find_mq2008`). One task
    per (replicate, fold, loss); the tasks of one replicate share its seed (``paired_seeds``).
    The option ``seed`` (int, default 0) shifts the study seeds.
    """
    sz = SIZES[size]
    shift = int(options.get("seed") or 0)
    out = {"synthetic": {
        "study": {"function": STUDY_FUNCTIONS["synthetic"], "name": "hapvr-synthetic",
                  "seed": 710 + shift, "replicates": sz["seeds"], "paired_seeds": True,
                  "description": "QuadLinear-AP vs Smooth-AP vs pairwise logistic training on "
                                 "synthetic retrieval (HAP-VR Table 2, Fig. 4)"},
        "params": {"n_train": sz["syn_train"], "n_test": sz["syn_test"],
                   "epochs": sz["syn_epochs"], "track_every": sz["track_every"]},
        "grid": {"loss": list(LOSSES)},
    }}
    folder = find_mq2008(options.get("letor"))
    if folder is not None:
        params = {"path": str(folder.resolve()), "epochs": sz["letor_epochs"],
                  "track_every": sz["track_every"]}
        if sz["letor_max_queries"] is not None:
            params["max_queries"] = sz["letor_max_queries"]
        out["mq2008"] = {
            "study": {"function": STUDY_FUNCTIONS["mq2008"], "name": "hapvr-mq2008",
                      "seed": 711 + shift, "replicates": sz["letor_seeds"], "paired_seeds": True,
                      "description": "QuadLinear-AP vs Smooth-AP vs pairwise logistic training on "
                                     "MQ2008 folds (HAP-VR Table 2, Fig. 4)"},
            "params": params,
            "grid": {"fold": list(sz["letor_folds"]), "loss": list(LOSSES)},
        }
    return out


def _found(results_dir) -> list:
    found = study_results(results_dir, STUDY_FUNCTIONS)
    return [found.get(name) for name in STUDY_FUNCTIONS]


def figures(results_dir: str | os.PathLike, fig_dir: str | os.PathLike) -> list[Path]:
    """Redraw the HAP-VR figures from the saved results in ``results_dir`` (PNG + PDF): the
    gradient-vanishing figure of each dataset and the learning curves."""
    fig_dir = Path(fig_dir)
    dfs = [df for df in _found(results_dir) if df is not None]
    paths: list[Path] = []
    for df in dfs:
        paths += gradient_figure(df, fig_dir)
    return paths + learning_curves_figure(dfs, fig_dir)


def headline(results_dir: str | os.PathLike) -> dict[str, Any]:
    """The key numbers of a finished results folder
    (:func:`~bipartite.experiments.hapvr.figures.key_numbers`), with
    ``config`` (the size) and ``letor`` (``"run"`` or why not)."""
    results_dir = Path(results_dir)
    syn, mq = _found(results_dir)
    meta = reproduce_record(results_dir)
    res: dict[str, Any] = {"config": meta.get("size")}
    if mq is not None:
        res["letor"] = "run"
    else:
        from bipartite.data import data_dir

        res["letor"] = (f"not run: MQ2008 not found (option letor="
                        f"{meta.get('options', {}).get('letor')}, data folder {data_dir()})")
    res.update(key_numbers(syn, mq))
    return res


def summary(results_dir: str | os.PathLike, table_dir: str | os.PathLike) -> str:
    """Write the HAP-VR tables (``table_dir``: CSV + Markdown) and return ``summary.md``."""
    import pandas as pd

    results_dir, table_dir = Path(results_dir), Path(table_dir)
    syn, mq = _found(results_dir)
    key = headline(results_dir)
    lines = ["# HAP-VR — AP-oriented training with QuadLinear-AP: reproduced results", ""]
    lines += provenance_lines(results_dir)
    if syn is not None or mq is not None:
        runs, table = runs_table(syn, mq), training_table(syn, mq)
        write_table(runs, table_dir, "hapvr_training_runs",
                    note="One row per (dataset, split, replicate, loss): test metrics after a "
                         "fixed budget.")
        write_table(table, table_dir, "hapvr_training",
                    note="Mean over seeds (and MQ2008 folds) of test MAP (queries with a relevant "
                         "item), NDCG@10 (graded relevance on MQ2008), gAUC (pairs-weighted) and "
                         "pooled AUC; *_avg: shares of the gradient diagnostic averaged over "
                         f"training (threshold {VANISH_THRESHOLD:g}).")
        avg = [c for c in ("misranked_avg", "vanish_surrogate_avg", "vanish_full_avg")
               if c in table]
        lines += ["Same MLP scorer trained at a fixed budget with each loss (cf. HAP-VR Table 2); "
                  "*_avg: gradient-vanishing shares among mis-ranked pairs averaged over training "
                  "(cf. HAP-VR Fig. 4).", "",
                  markdown_table(table[["dataset", "loss", "n_runs", *METRICS, *avg]], digits=3),
                  ""]
    write_table(pd.DataFrame({"key": list(key), "value": [str(v) for v in key.values()]}),
                table_dir, "hapvr_key_numbers", note="The headline numbers of this folder.")
    lines += [f"MQ2008: {key['letor']}", ""]
    fig_dir = results_dir / "figures"
    lines += [f"![{p.name}](figures/{p.name})" for p in sorted(fig_dir.glob("hapvr_*.png"))]
    return "\n".join([*lines, ""])


#: The HAP-VR entry of :data:`bipartite.experiments.PAPERS`.
PAPER = Paper("hapvr", configs, figures=figures, summary=summary,
              description="HAP-VR: AP-oriented training with QuadLinear-AP (Liu et al., ACM MM "
                          "2024)")
