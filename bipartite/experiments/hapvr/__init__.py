"""HAP-VR training study (Liu et al., ACM MM 2024): AP-oriented training of a ranker (THEORY §8, §11).

``run(out_dir, quick=False, jobs=1, **options)`` (``bipartite reproduce --paper hapvr``) trains the
same MLP scorer (:func:`bipartite.contrib.ap_training.train_listwise_mlp`) with QuadLinear-AP, Smooth-AP and
the pairwise logistic loss, at a fixed budget, on

* a synthetic retrieval problem (:func:`bipartite.contrib.ap_training.make_retrieval`), and
* LETOR 4.0 MQ2008 (binary label: relevance >= 1; NDCG@10 on the graded relevance), official
  folds (train S_a..S_c, test S_e; validation partitions are not used: fixed budget),

and reports per-query MAP, NDCG@10, gAUC and pooled AUC (mean over seeds and folds), learning
curves, and the gradient-vanishing diagnostic of HAP-VR Fig. 4 measured *during training*
(:func:`bipartite.contrib.ap_training.vanishing_shares`): the share of mis-ranked pairs whose gradient is
near zero, for the pair surrogate alone and for the whole loss.

Outputs: ``tables/*.csv|md``, ``figures/*.png|pdf``, ``summary.md``, ``results.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from bipartite.experiments.mtrub import _write_table, table_markdown
from bipartite.studies import Paper

__all__ = ["run", "CONFIGS", "LOSSES", "PAPER"]

#: Loss settings compared: HAP-VR's video-level QuadLinear-AP setting (δ = 0.05, ρ = 0.1, Table 6),
#: Smooth-AP with its usual τ = 0.01 (THEORY §8 default), and the pairwise logistic loss.
LOSSES: dict[str, dict[str, Any]] = {
    "QuadLinear-AP": {"loss": "quadlinear_ap", "delta": 0.05, "rho": 0.1},
    "Smooth-AP": {"loss": "smooth_ap", "tau": 0.01},
    "pairwise logistic": {"loss": "pairwise_logistic"},
}

CONFIGS: dict[str, dict[str, Any]] = {
    "full": {"seeds": 3, "syn_train": 300, "syn_test": 200, "syn_epochs": 30,
             "letor_folds": [1, 2, 3, 4, 5], "letor_seeds": 1, "letor_epochs": 15,
             "track_every": 2},
    "quick": {"seeds": 2, "syn_train": 120, "syn_test": 80, "syn_epochs": 12,
              "letor_folds": [1], "letor_seeds": 1, "letor_epochs": 6, "track_every": 2},
    "smoke": {"seeds": 1, "syn_train": 20, "syn_test": 10, "syn_epochs": 2,
              "letor_folds": [1], "letor_seeds": 1, "letor_epochs": 1, "track_every": 1,
              "letor_max_queries": 20},
}

#: Threshold of the vanishing-gradient diagnostic (see vanishing_shares): 1 %.
VANISH_THRESHOLD = 1e-2

# MQ2008 folds (LETOR 4.0 readme): train partitions, test partition.
_FOLDS = {1: ([1, 2, 3], 5), 2: ([2, 3, 4], 1), 3: ([3, 4, 5], 2), 4: ([4, 5, 1], 3),
          5: ([5, 1, 2], 4)}


def _train_eval(name: str, X, y, qid, Xt, yt, qt, relt, *, epochs: int, seed: int,
                track_every: int, max_queries: int | None = None) -> tuple[dict, dict]:
    from bipartite.contrib.ap_training import ranking_report, train_listwise_mlp

    model = train_listwise_mlp(
        X, y, qid, **LOSSES[name], epochs=epochs, queries_per_batch=16, lr=1e-3,
        hidden=(64, 32), eval_set=(Xt, yt, qt), track_every=track_every,
        vanish_threshold=VANISH_THRESHOLD, device="cpu", random_state=seed)
    rep = ranking_report(yt, model.decision_function(Xt), qt, relevance=relt)
    return rep, {"history": model.history_, "epochs": model.epoch_history_}


def _synthetic_task(seed: int, cfg: dict) -> list[dict]:
    from bipartite.contrib.ap_training import make_retrieval

    rng = np.random.default_rng(seed)
    tr = make_retrieval(cfg["syn_train"], seed=rng)
    te = make_retrieval(cfg["syn_test"], seed=rng)
    out = []
    for name in LOSSES:
        rep, curves = _train_eval(name, tr.X, tr.y, tr.qid, te.X, te.y, te.qid, te.relevance,
                                  epochs=cfg["syn_epochs"], seed=seed,
                                  track_every=cfg["track_every"])
        out.append({"dataset": "synthetic", "split": "-", "seed": seed, "loss": name, **rep,
                    "_curves": curves})
    return out


def _letor_dir(options: dict) -> Path | None:
    path = options.get("letor")
    if path:
        return Path(path)
    default = Path(__file__).resolve().parents[2] / "shared" / "data" / "letor"
    return default if default.is_dir() else None


def _subset_queries(X, y, q, rel, max_queries: int | None):
    if max_queries is None:
        return X, y, q, rel
    keep = np.isin(q, np.unique(q)[:max_queries])
    return X[keep], y[keep], q[keep], rel[keep]


def _letor_task(fold: int, seed: int, cfg: dict, letor: Path) -> list[dict]:
    from bipartite.data import load_letor

    train_parts, test_part = _FOLDS[fold]
    tr = load_letor([letor / f"mq2008_S{p}.txt" for p in train_parts], relevance_threshold=1)
    te = load_letor(letor / f"mq2008_S{test_part}.txt", relevance_threshold=1)
    mq = cfg.get("letor_max_queries")
    X, y, q, _ = _subset_queries(np.asarray(tr.X), _binary(tr), np.asarray(tr.qid),
                                 np.asarray(tr.relevance), mq)
    Xt, yt, qt, relt = _subset_queries(np.asarray(te.X), _binary(te), np.asarray(te.qid),
                                       np.asarray(te.relevance, dtype=float), mq)
    out = []
    for name in LOSSES:
        rep, curves = _train_eval(name, X, y, q, Xt, yt, qt, relt, epochs=cfg["letor_epochs"],
                                  seed=seed, track_every=cfg["track_every"])
        out.append({"dataset": "MQ2008", "split": f"fold{fold}", "seed": seed, "loss": name,
                    **rep, "_curves": curves})
    return out


def _binary(bunch: Any) -> np.ndarray:
    """The relevance >= 1 label of a ``load_letor`` result (first label column)."""
    Y = np.asarray(bunch.Y)
    return (Y[:, 0] if Y.ndim == 2 else Y).astype(int)


# ----------------------------------------------------------------------------------------------
# Figures
# ----------------------------------------------------------------------------------------------


def _smooth(values: np.ndarray, width: int) -> np.ndarray:
    """Moving average over the non-NaN entries (diagnostics are recorded every few steps)."""
    v = values[np.isfinite(values)]
    if len(v) < width or width <= 1:
        return v
    return np.convolve(v, np.ones(width) / width, mode="valid")


def _gradient_figure(curves: dict[str, dict], dataset: str, fig_dir: Path, track_every: int,
                     stem: str) -> list[Path]:
    from bipartite.studies import _pyplot, save_figure

    plt = _pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
    panels = (("misranked", "share of pos-neg pairs mis-ranked"),
              ("vanish_surrogate", "near-zero φ'(d) among mis-ranked\n(pair surrogate, HAP-VR Fig. 4)"),
              ("vanish_full", "near-zero ∂L/∂d among mis-ranked\n(whole loss)"))
    for ax, (key, title) in zip(axes, panels, strict=True):
        for i, (name, c) in enumerate(curves.items()):
            v = np.asarray(c["history"][key], dtype=float)
            s = _smooth(v, 5)
            steps = (np.arange(len(s)) + 1) * track_every
            ax.plot(steps, s, label=name, color=f"C{i}",
                    ls=["-", "--", ":"][i % 3])
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("training step")
        ax.set_ylim(-0.02, 1.02)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{dataset}: gradient vanishing during training (threshold "
                 f"{VANISH_THRESHOLD:g}; moving average of 5 records)", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, fig_dir, stem)


def _curve_figure(all_curves: dict[str, dict[str, dict]], fig_dir: Path) -> list[Path]:
    from bipartite.studies import _pyplot, save_figure

    plt = _pyplot()
    fig, axes = plt.subplots(1, len(all_curves), figsize=(4.6 * len(all_curves), 3.4),
                             squeeze=False)
    for ax, (dataset, curves) in zip(axes[0], all_curves.items(), strict=True):
        for i, (name, c) in enumerate(curves.items()):
            ep = c["epochs"]
            ax.plot([e["epoch"] for e in ep], [e["map"] for e in ep], marker="o", ms=3,
                    label=name, color=f"C{i}")
        ax.set_title(f"{dataset}: test MAP per epoch", fontsize=10)
        ax.set_xlabel("epoch")
        ax.set_ylabel("MAP")
    axes[0, 0].legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, fig_dir, "hapvr_learning_curves")


# ----------------------------------------------------------------------------------------------
# run
# ----------------------------------------------------------------------------------------------


def run(out_dir: Any, quick: bool = False, jobs: int = 1, **options: Any) -> dict[str, Any]:
    """Run the HAP-VR training study (module docstring); write tables, figures and a summary.

    Parameters
    ----------
    out_dir : path; quick : bool (the ``"quick"`` configuration, < 2 min on 2 cores);
    jobs : int — parallel tasks (joblib); results do not depend on it.
    options : ``letor`` (folder with ``mq2008_S1.txt`` .. ``S5``; default ``../shared/data/letor``
        beside the repo; the MQ2008 part is reported as not run when absent), ``smoke`` (tiny
        configuration for tests), ``seed`` (int, default 0); other keys are ignored.

    Returns
    -------
    dict of key numbers and ``"files"`` (paths written).
    """
    import pandas as pd
    from joblib import Parallel, delayed

    size = "smoke" if options.get("smoke") else "quick" if quick else "full"
    cfg = CONFIGS[size]
    base = int(options.get("seed", 0))
    out = Path(out_dir)
    tables, fig_dir = out / "tables", out / "figures"
    files: list[str] = []

    tasks = [delayed(_synthetic_task)(base + s, cfg) for s in range(cfg["seeds"])]
    letor = _letor_dir(options)
    letor_ok = letor is not None and all(
        (letor / f"mq2008_S{p}.txt").is_file() for p in range(1, 6))
    if letor_ok:
        tasks += [delayed(_letor_task)(fold, base + s, cfg, letor)
                  for fold in cfg["letor_folds"] for s in range(cfg["letor_seeds"])]
    rows = [r for batch in Parallel(n_jobs=jobs)(tasks) for r in batch]

    first: dict[str, dict[str, dict]] = {}
    for r in rows:
        first.setdefault(r["dataset"], {})
        first[r["dataset"]].setdefault(r["loss"], r["_curves"])
    df = pd.DataFrame([{k: v for k, v in r.items() if k != "_curves"} for r in rows])
    metrics = ["map", "ndcg@10", "gauc", "auc"]
    g = df.groupby(["dataset", "loss"], sort=False)
    table = g[metrics].mean().reset_index()
    se = g[metrics].std().reset_index()
    n = g.size().values
    for m in metrics:
        table[f"{m}_se"] = se[m].to_numpy() / np.sqrt(np.maximum(n, 1))
    table.insert(2, "n_runs", n)
    # vanishing shares averaged over the whole training run of every seed
    for key in ("misranked", "vanish_surrogate", "vanish_full"):
        vals = {}
        for r in rows:
            v = np.asarray(r["_curves"]["history"][key], dtype=float)
            vals.setdefault((r["dataset"], r["loss"]), []).append(float(np.nanmean(v)))
        table[f"{key}_avg"] = [np.mean(vals[(d, lo)]) for d, lo in
                               zip(table["dataset"], table["loss"], strict=True)]
    _write_table(df, tables, "hapvr_training_runs", files,
                 "One row per (dataset, split, seed, loss): test metrics after a fixed budget.")
    _write_table(table, tables, "hapvr_training", files,
                 "Mean over seeds (and MQ2008 folds) of test MAP (queries with a relevant item), "
                 "NDCG@10 (graded relevance on MQ2008), gAUC (pairs-weighted) and pooled AUC; "
                 "*_avg: shares of the gradient diagnostic averaged over training "
                 f"(threshold {VANISH_THRESHOLD:g}).")
    for dataset, curves in first.items():
        stem = f"hapvr_gradient_vanishing_{dataset.lower()}"
        files += [str(p) for p in _gradient_figure(curves, dataset, fig_dir, cfg["track_every"],
                                                   stem)]
    files += [str(p) for p in _curve_figure(first, fig_dir)]

    results: dict[str, Any] = {"config": size,
                               "letor": "run" if letor_ok else f"not run: MQ2008 not found "
                                                              f"(option letor={letor})"}
    for _, row in table.iterrows():
        for m in (*metrics, "vanish_surrogate_avg", "vanish_full_avg"):
            results[f"{row['dataset']}_{row['loss']}_{m}"] = float(row[m])
    wins = df.pivot_table(index=["dataset", "split", "seed"], columns="loss", values="map")
    for dataset in wins.index.get_level_values(0).unique():
        w = wins.loc[dataset]
        results[f"{dataset}_quadlinear_beats_smoothap_runs"] = int(
            (w["QuadLinear-AP"] > w["Smooth-AP"]).sum())
        results[f"{dataset}_quadlinear_beats_pairwise_runs"] = int(
            (w["QuadLinear-AP"] > w["pairwise logistic"]).sum())
        results[f"{dataset}_n_runs"] = len(w)
    text = [f"# HAP-VR training study ({size} configuration)", "",
            table_markdown(table[["dataset", "loss", "n_runs", *metrics, "misranked_avg",
                                  "vanish_surrogate_avg", "vanish_full_avg"]]),
            f"MQ2008: {results['letor']}", ""]
    (out / "summary.md").write_text("\n".join(text))
    (out / "results.json").write_text(json.dumps(results, indent=2))
    files += [str(out / "summary.md"), str(out / "results.json")]
    results["files"] = files
    return results


#: Entry for ``bipartite.studies.PAPERS`` (``"hapvr": "bipartite.experiments.hapvr:PAPER"``).
PAPER = Paper("hapvr", run, description="HAP-VR: AP-oriented training with QuadLinear-AP")
