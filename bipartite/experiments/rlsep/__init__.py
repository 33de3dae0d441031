"""RLSEP label-ranking study: CE vs LSEP vs RLSEP on synthetic ranked labels (RLSEP §5.4, Tab. 1).

The paper trains MobileNetV3 on "Ranked MNIST" (digits of random sizes; size = importance) and
finds that RLSEP, which sees the label ranks, beats CE and LSEP, which see only the
relevant/irrelevant split, on the *ranked* metrics (pairwise precision/recall/F1/accuracy over
label pairs, 0-1, ranked mAP), while the three tie on the *unranked* ones (thresholded label
sets). Here the images are replaced by :func:`bipartite.contrib.label_ranking.make_ranked_labels`
(same structure: 3-6 relevant labels of 10, importances ``U(1, 4)``, features that encode presence
and a centred importance signal) and the CNN by :class:`~bipartite.contrib.label_ranking.LabelRankingMLP`;
label selection uses the threshold network of RLSEP §3.4. As in the paper, the data are fixed and
the network initialisation varies across seeds.

Decision rules (stated before running; see ``papers/rlsep/claims_label_ranking.toml``):

* **beats** — RLSEP minus baseline, paired over seeds: positive in every seed and, with at least
  3 seeds, one-sided paired t-test ``p < 0.01`` (the paper's significance level);
* **tie** — ``|mean paired difference| <= TIE_TOL`` (2 percentage points) on an unranked metric.

Also written: ranked accuracy by number of relevant labels (the analogue of the paper's Fig. 5)
and the mean score by importance decile among relevant labels (a calibration view, Fig. 3).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from bipartite._utils.validation import UndefinedMetricWarning
from bipartite.studies import Paper

__all__ = ["CONFIGS", "LOSSES", "TIE_TOL", "PAPER", "run"]

#: Training losses compared (RLSEP Tab. 1 plus per-label BCE).
LOSSES = ("ce", "bce", "lsep", "rlsep")
_NAMES = {"ce": "CE", "bce": "BCE", "lsep": "LSEP", "rlsep": "RLSEP"}
RANKED = ("precision", "recall", "f1", "accuracy", "exact_match", "map")
UNRANKED = ("precision", "recall", "f1", "accuracy", "exact_match")
#: Tolerance (absolute, on metrics in [0, 1]) under which a mean paired difference is a tie.
TIE_TOL = 0.02

_DATA = dict(n_labels=10, n_features=32, min_relevant=3, max_relevant=6,
             importance_range=(1.0, 4.0), presence_strength=2.0, noise=0.3)

CONFIGS: dict[str, dict[str, Any]] = {
    "full": dict(n_train=2000, n_test=1000, seeds=5, epochs=60, thr_epochs=60, hidden=(64,),
                 thr_hidden=(64,)),
    "quick": dict(n_train=1000, n_test=500, seeds=3, epochs=40, thr_epochs=30, hidden=(64,),
                  thr_hidden=(64,)),
    "smoke": dict(n_train=200, n_test=100, seeds=2, epochs=4, thr_epochs=3, hidden=(16,),
                  thr_hidden=(8,)),
}


def _one_seed(seed: int, data_seed: int, cfg: dict) -> tuple[list[dict], list[dict], list[dict]]:
    """Train every loss with network seed ``seed`` on the fixed data; return metric rows."""
    from bipartite.contrib.label_ranking import (
        LabelRankingMLP,
        ThresholdNetwork,
        make_ranked_labels,
    )
    from bipartite.ranked_metrics import ranked_accuracy, ranked_scores, unranked_scores

    n_tr, n_te = cfg["n_train"], cfg["n_test"]
    d = make_ranked_labels(n_tr + n_te, seed=data_seed, **_DATA)
    tr, te = slice(0, n_tr), slice(n_tr, n_tr + n_te)
    rows, by_m, calib = [], [], []
    m_te = (d.ranks[te] > 0).sum(axis=1)
    imp_te = d.importance[te]
    for loss in LOSSES:
        model = LabelRankingMLP(loss=loss, hidden=cfg["hidden"], epochs=cfg["epochs"],
                                random_state=seed, device="cpu").fit(d.X[tr], d.ranks[tr])
        thr = ThresholdNetwork(model, hidden=cfg["thr_hidden"], epochs=cfg["thr_epochs"],
                               random_state=seed, device="cpu").fit(d.X[tr], d.Y[tr])
        scores = model.decision_function(d.X[te])
        with warnings.catch_warnings():
            # precision/recall of an instance can be 0/0 (e.g. no predicted positive pair);
            # such instances are left out of the mean, as documented in _ranked_metrics
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            r = ranked_scores(d.ranks[te], scores)
            u = unranked_scores(d.Y[te], thr.predict(d.X[te]))
            for m in np.unique(m_te):
                sel = m_te == m
                by_m.append({"seed": seed, "loss": _NAMES[loss], "n_relevant": int(m),
                             "ranked_accuracy": ranked_accuracy(d.ranks[te][sel], scores[sel])})
        rows.append({"seed": seed, "loss": _NAMES[loss],
                     **{f"R_{k}": v for k, v in r.items()},
                     **{f"U_{k}": v for k, v in u.items()}})
        # calibration: mean score (centred per instance) by importance decile, relevant labels
        rel = imp_te > 0
        centred = scores - scores.mean(axis=1, keepdims=True)
        edges = np.quantile(imp_te[rel], np.linspace(0, 1, 11))
        dec = np.clip(np.searchsorted(edges, imp_te[rel], side="right") - 1, 0, 9)
        for q in range(10):
            sel = dec == q
            calib.append({"seed": seed, "loss": _NAMES[loss], "decile": q + 1,
                          "importance": float(imp_te[rel][sel].mean()),
                          "score": float(centred[rel][sel].mean())})
    return rows, by_m, calib


def _paired(df, metric: str, a: str, b: str) -> dict[str, Any]:
    """Paired (over seeds) difference ``a - b`` of ``metric``: mean, SE, min, max, one-sided p."""
    from scipy import stats

    w = df.pivot_table(index="seed", columns="loss", values=metric)
    diff = (w[a] - w[b]).to_numpy()
    n = len(diff)
    se = float(diff.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    if n >= 3 and np.ptp(diff) > 0:
        p = float(stats.ttest_1samp(diff, 0.0, alternative="greater").pvalue)
    elif n >= 3:
        p = 0.0 if diff[0] > 0 else 1.0
    else:
        p = float("nan")
    return {"mean_diff": float(diff.mean()), "se": se, "min_diff": float(diff.min()),
            "max_diff": float(diff.max()), "p_greater": p, "n_seeds": n}


def _verdicts(df) -> tuple[Any, dict[str, Any]]:
    import pandas as pd

    out, key = [], {}
    for baseline in ("CE", "BCE", "LSEP"):
        for kind, metrics in (("R", RANKED), ("U", UNRANKED)):
            for m in metrics:
                st = _paired(df, f"{kind}_{m}", "RLSEP", baseline)
                beats = st["min_diff"] > 0 and (st["n_seeds"] < 3 or st["p_greater"] < 0.01)
                tie = abs(st["mean_diff"]) <= TIE_TOL
                verdict = "beats" if beats else "tie" if tie else (
                    "worse" if st["max_diff"] < 0 else "differs")
                out.append({"baseline": baseline, "kind": kind, "metric": m, **st,
                            "verdict": verdict})
                key[f"{kind}_{m}_vs_{baseline}"] = verdict
    return pd.DataFrame(out), key


def _figures(table, by_m, calib, fig_dir: Path) -> list[Path]:
    from bipartite.studies import _pyplot, save_figure

    plt = _pyplot()
    paths: list[Path] = []
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    for ax, kind, metrics in ((axes[0], "R", RANKED), (axes[1], "U", UNRANKED)):
        x = np.arange(len(metrics))
        width = 0.8 / len(LOSSES)
        for i, loss in enumerate(LOSSES):
            row = table[table["loss"] == _NAMES[loss]].iloc[0]
            ax.bar(x + (i - (len(LOSSES) - 1) / 2) * width,
                   [row[f"{kind}_{m}"] for m in metrics], width,
                   yerr=[row[f"{kind}_{m}_se"] for m in metrics], label=_NAMES[loss])
        ax.set_xticks(x, [m.replace("exact_match", "0-1") for m in metrics])
        ax.set_ylim(0, 1.05)
        ax.set_title("ranked metrics (R)" if kind == "R" else "unranked metrics (U)")
    axes[0].legend(loc="lower left", fontsize=8)
    fig.suptitle("Synthetic ranked labels: mean over seeds, bars = standard error")
    paths += save_figure(fig, fig_dir, "rlsep_metrics")

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    g = by_m.groupby(["loss", "n_relevant"])["ranked_accuracy"].mean().reset_index()
    for loss in LOSSES:
        sub = g[g["loss"] == _NAMES[loss]]
        axes[0].plot(sub["n_relevant"], sub["ranked_accuracy"], marker="o", label=_NAMES[loss])
    axes[0].set_xticks(sorted(g["n_relevant"].unique()))
    axes[0].set_xlabel("number of relevant labels")
    axes[0].set_ylabel("ranked accuracy")
    axes[0].set_title("cf. RLSEP Fig. 5")
    axes[0].legend(fontsize=8)
    c = calib.groupby(["loss", "decile"])[["importance", "score"]].mean().reset_index()
    for loss in LOSSES:
        sub = c[c["loss"] == _NAMES[loss]]
        axes[1].plot(sub["importance"], sub["score"], marker=".", label=_NAMES[loss])
    axes[1].set_xlabel("true importance (decile mean), relevant labels")
    axes[1].set_ylabel("score minus instance mean")
    axes[1].set_title("calibration, cf. RLSEP Fig. 3")
    paths += save_figure(fig, fig_dir, "rlsep_rank_structure")
    return paths


def run(out_dir: Any, quick: bool = False, jobs: int = 1, **options: Any) -> dict[str, Any]:
    """Run the RLSEP label-ranking study; write tables, figures, ``summary.md``, ``results.json``.

    Parameters
    ----------
    out_dir : path
    quick : bool
        The ``"quick"`` configuration (< 2 min on 2 cores).
    jobs : int
        Parallel seeds (joblib); results do not depend on it.
    options : ``smoke`` (tiny configuration for tests), ``seed`` (int, default 0: data seed and
        first network seed); other keys (data paths) are ignored — this study uses no real data.

    Returns
    -------
    dict with the mean metrics per loss (``"RLSEP_R_accuracy"``, ...), the verdicts
    (``"verdict_R_accuracy_vs_LSEP"``: ``"beats"``/``"tie"``/``"worse"``/``"differs"``),
    ``"ranked_beats_all"``, ``"unranked_ties_all"`` and ``"files"``.
    """
    import pandas as pd
    from joblib import Parallel, delayed

    from bipartite.experiments.mtrub import _write_table, table_markdown

    size = "smoke" if options.get("smoke") else "quick" if quick else "full"
    cfg = CONFIGS[size]
    base = int(options.get("seed", 0))
    out = Path(out_dir)
    tables, fig_dir = out / "tables", out / "figures"
    files: list[str] = []
    parts = Parallel(n_jobs=jobs)(delayed(_one_seed)(base + s, base, cfg)
                                  for s in range(cfg["seeds"]))
    df = pd.DataFrame([r for p in parts for r in p[0]])
    by_m = pd.DataFrame([r for p in parts for r in p[1]])
    calib = pd.DataFrame([r for p in parts for r in p[2]])
    cols = [c for c in df.columns if c[:2] in ("R_", "U_")]
    g = df.groupby("loss", sort=False)
    table = g[cols].mean().reset_index()
    se = g[cols].std(ddof=1).reset_index()
    for c in cols:
        table[f"{c}_se"] = se[c].to_numpy() / np.sqrt(cfg["seeds"])
    comp, verdict = _verdicts(df)
    _write_table(df, tables, "rlsep_runs", files,
                 "One row per (network seed, loss); R_ = ranked metrics from the raw scores, "
                 "U_ = unranked metrics from the threshold network (RLSEP §5.3).")
    _write_table(table, tables, "rlsep_label_ranking", files,
                 f"Mean over {cfg['seeds']} network seeds (fixed data) and standard errors "
                 "(cf. RLSEP Tab. 1).")
    _write_table(comp, tables, "rlsep_comparison", files,
                 f"RLSEP minus baseline, paired over seeds. beats: positive in every seed and "
                 f"(n >= 3) one-sided paired t-test p < 0.01; tie: |mean diff| <= {TIE_TOL}.")
    _write_table(by_m.groupby(["loss", "n_relevant"])["ranked_accuracy"].mean().reset_index(),
                 tables, "rlsep_accuracy_by_num_relevant", files,
                 "Ranked accuracy on test instances with a given number of relevant labels "
                 "(cf. RLSEP Fig. 5).")
    files += [str(p) for p in _figures(table, by_m, calib, fig_dir)]

    results: dict[str, Any] = {"config": size}
    for _, row in table.iterrows():
        for c in cols:
            results[f"{row['loss']}_{c}"] = float(row[c])
    for k, v in verdict.items():
        results[f"verdict_{k}"] = v
    acc_m = by_m.groupby(["loss", "n_relevant"])["ranked_accuracy"].mean()
    for (loss, m), v in acc_m.items():
        results[f"{loss}_R_accuracy_m{m}"] = float(v)
    base_names = ("CE", "BCE", "LSEP")
    results["ranked_beats_all"] = all(verdict[f"R_{m}_vs_{b}"] == "beats"
                                      for m in RANKED for b in base_names)
    results["unranked_ties_all"] = all(verdict[f"U_{m}_vs_{b}"] == "tie"
                                       for m in UNRANKED for b in base_names)
    results["unranked_ties_except_exact_match"] = all(
        verdict[f"U_{m}_vs_{b}"] == "tie" for m in UNRANKED if m != "exact_match"
        for b in base_names)
    show = table[["loss", *[f"R_{m}" for m in RANKED], *[f"U_{m}" for m in UNRANKED]]]
    text = [f"# RLSEP label-ranking study ({size} configuration)", "",
            table_markdown(show), "",
            f"RLSEP beats every baseline on every ranked metric: {results['ranked_beats_all']}",
            f"RLSEP ties every baseline on every unranked metric (tol {TIE_TOL}): "
            f"{results['unranked_ties_all']}",
            "ties except 0-1: " + str(results["unranked_ties_except_exact_match"]), ""]
    (out / "summary.md").write_text("\n".join(text))
    (out / "results.json").write_text(json.dumps(results, indent=2))
    files += [str(out / "summary.md"), str(out / "results.json")]
    results["files"] = files
    return results


#: Entry for ``bipartite.studies.PAPERS`` (``"rlsep_label_ranking"`` or as the coordinator wires).
PAPER = Paper("rlsep", run, description="RLSEP: label ranking with ranked labels (synthetic)")
