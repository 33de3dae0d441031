"""Learners against the Bayes scorers: loss vs label aggregation on data (THEORY §4, §5, §7, §9).

For every learning route (MLP pairwise / plug-in / pointwise, XGBoost pairwise / plug-in) fit
under loss aggregation (a = (1, 1)) and label aggregation (Ȳ = Y_1 + Y_2, linear costs), then
report on held-out data:

* per-label AUCs and both criteria (mean AUC = loss aggregation with a = 1; multipartite AUC of
  Y_1 + Y_2), and on synthetic data their gaps to the Bayes scorers of the same objective
  (:func:`bipartite.bayes.loss_aggregation`, :func:`bipartite.bayes.label_aggregation_scores`
  applied to the exact η), and the pairwise route's excess over the plug-in route (THEORY §9);
* the cross-pair win rate W_{2>1} (:func:`bipartite.dictatorship.cross_pair_win_rate`) and the
  near-tie rate among those cross pairs (THEORY §7), and the change of both from loss to label
  aggregation (the dictatorship shift of LA25 §6);
* on query data (MQ2008), per-label AUCs pooled and per query (gAUC).

Datasets: ``synthetic`` (β = 8, priors (0.5, 0.05)), ``synthetic-det`` (β = 50, near-deterministic
labels), ``banking`` (Personal Loan, Mortgage > 0), ``mq2008`` (relevance ≥ 1, simulated clicks).

Writes ``results.csv`` and ``results.json`` (one row per dataset × route × objective, plus the
Bayes rows) and one figure per dataset ``<dataset>.png`` into ``--out``.

Run: ``python simulations/learners_vs_bayes.py --out results/learners_vs_bayes``
(``--n-train 2000 --n-test 2000 --epochs 20`` for a quick run).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bipartite.bayes import label_aggregation_scores, loss_aggregation
from bipartite.data import load_banking, load_letor, make_synthetic
from bipartite.dictatorship import cross_pair_win_rate, near_tie_rate
from bipartite.learners import MLPRanker, XGBRanker, ranking_criterion
from bipartite.metrics import group_auc, multilabel_auc

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def routes(*, n_jobs: int, epochs: int, seed: int, mlp_threads: int = 1):
    """(route name, estimator class, method for LA, method for label aggregation, params).

    ``n_jobs``: XGBoost threads; ``mlp_threads``: torch threads of the MLPs (1 by default: with 2
    threads on a shared 2-core machine torch's OpenMP barriers made epochs 14-32x slower, see
    ``benchmarks/bench_learners.py``).
    """
    mlp = dict(hidden=(64, 64), epochs=epochs, n_iter_no_change=8, n_jobs=mlp_threads,
               random_state=seed)
    xgb = dict(n_estimators=300, max_depth=3, learning_rate=0.1, n_jobs=n_jobs, random_state=seed)
    return [
        ("mlp-pairwise", MLPRanker, "pairwise", "pairwise", mlp),
        ("mlp-plugin", MLPRanker, "plugin", "plugin", mlp),
        ("mlp-pointwise", MLPRanker, None, "pointwise", mlp),
        ("xgb-pairwise", XGBRanker, "pairwise", "pairwise", xgb),
        ("xgb-plugin", XGBRanker, "plugin", "plugin", xgb),
    ]


def near_tie(Y: np.ndarray, scores: np.ndarray, k: int, j: int, *, rel: float = 1e-3) -> float:
    """Near-tie rate of the cross pairs (THEORY §7) at ``tol = rel`` × the interquartile range of
    the scores (scale-free, so that scorers on different scales are comparable)."""
    q75, q25 = np.percentile(scores, [75, 25])
    return float(near_tie_rate(Y, scores, k, j, tol=rel * max(q75 - q25, np.finfo(float).tiny)))


def evaluate(Y, scores, groups=None) -> dict:
    aucs = multilabel_auc(Y, scores)
    row = {f"auc_{k + 1}": float(aucs[k]) for k in range(Y.shape[1])}
    row["crit_loss_agg"] = ranking_criterion(Y, scores)
    row["crit_label_agg"] = ranking_criterion(Y, scores, objective="label_aggregation")
    row["W_2>1"] = float(cross_pair_win_rate(Y, scores, 1, 0))
    row["near_tie_2|1"] = near_tie(Y, scores, 1, 0)
    if groups is not None:
        for k in range(Y.shape[1]):
            row[f"gauc_{k + 1}"] = float(group_auc(Y[:, k], scores, groups))
    return row


def run_dataset(name, Xtr, Ytr, Xte, Yte, *, gtr=None, gte=None, bayes=None, args) -> list[dict]:
    rows = []
    if bayes is not None:
        for objective, s in bayes.items():
            rows.append({"dataset": name, "route": "bayes", "objective": objective,
                         "fit_s": 0.0, **evaluate(Yte, s, gte)})
    for route, cls, m_la, m_lab, params in routes(n_jobs=args.n_jobs, epochs=args.epochs,
                                                  seed=args.seed, mlp_threads=args.mlp_threads):
        for objective, method in (("loss_aggregation", m_la), ("label_aggregation", m_lab)):
            if method is None:
                continue
            est = cls(objective=objective, method=method, **params)
            t0 = time.perf_counter()
            est.fit(Xtr, Ytr, groups=gtr)
            fit_s = time.perf_counter() - t0
            s = est.decision_function(Xte)
            row = {"dataset": name, "route": route, "objective": objective, "fit_s": fit_s,
                   **evaluate(Yte, s, gte)}
            rows.append(row)
            print(f"{name:14s} {route:14s} {objective:18s} "
                  + " ".join(f"{k}={v:.4f}" for k, v in row.items() if isinstance(v, float)),
                  flush=True)
    return rows


def synthetic(args, beta: float, name: str) -> list[dict]:
    n = args.n_train + args.n_test
    d = make_synthetic(n, priors=(0.5, 0.05), beta=beta, seed=args.seed)
    tr, te = slice(0, args.n_train), slice(args.n_train, None)
    bayes = {
        "loss_aggregation": loss_aggregation(d.eta[te], d.pi, None),
        "label_aggregation": label_aggregation_scores(eta=d.eta[te], aggregate="sum"),
    }
    return run_dataset(name, d.X[tr], d.Y[tr], d.X[te], d.Y[te], bayes=bayes, args=args)


def banking(args) -> list[dict]:
    d = load_banking(args.data_dir / "bank_personal_loan.csv")
    rng = np.random.default_rng(args.seed)
    perm = rng.permutation(len(d.Y))
    half = len(perm) // 2
    tr, te = perm[:half], perm[half:]
    return run_dataset("banking", d.X[tr], d.Y[tr], d.X[te], d.Y[te], args=args)


def mq2008(args) -> list[dict]:
    files = [args.data_dir / "letor" / f"mq2008_S{i}.txt" for i in range(1, 6)]
    # Fold 1 of LETOR 4.0: train S1-S3, test S5 (S4, the official validation part, is unused:
    # the learners hold out their own validation queries for early stopping).
    train = load_letor(files[:3], click="simulated", seed=args.seed)
    test = load_letor(files[4], click="simulated", seed=args.seed + 1)
    return run_dataset("mq2008", train.X, train.Y, test.X, test.Y, gtr=train.qid,
                       gte=test.qid, args=args)


def add_contrasts(df: pd.DataFrame) -> pd.DataFrame:
    """Gaps to Bayes (synthetic), pairwise-over-plug-in excess, LA -> label-aggregation shifts."""
    out = df.copy()
    auc_cols = [c for c in df.columns if c.startswith(("auc_", "crit_"))]
    for col in auc_cols + ["W_2>1"]:
        out[f"gap_{col}"] = np.nan
        out[f"shift_{col}"] = np.nan
    for _, part in df.groupby(["dataset", "objective"]):
        bayes = part[part.route == "bayes"]
        if len(bayes):
            for col in auc_cols + ["W_2>1"]:
                out.loc[part.index, f"gap_{col}"] = part[col] - float(bayes[col].iloc[0])
    for (ds, route), part in df.groupby(["dataset", "route"]):
        la = part[part.objective == "loss_aggregation"]
        lab = part[part.objective == "label_aggregation"]
        if route == "mlp-pointwise":  # pointwise exists for label aggregation only
            la = df[(df.dataset == ds) & (df.route == "mlp-plugin")
                    & (df.objective == "loss_aggregation")]
        if len(la) and len(lab):
            for col in auc_cols + ["W_2>1"]:
                diff = float(lab[col].iloc[0]) - float(la[col].iloc[0])
                out.loc[lab.index, f"shift_{col}"] = diff
    return out


def figure(df: pd.DataFrame, dataset: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    part = df[df.dataset == dataset]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    colours = dict(zip(sorted(part.route.unique()), plt.cm.tab10.colors, strict=False))
    for route, rp in part.groupby("route"):
        la = rp[rp.objective == "loss_aggregation"]
        lab = rp[rp.objective == "label_aggregation"]
        c = colours[route]
        marker = "*" if route == "bayes" else "o"
        size = 160 if route == "bayes" else 50
        if len(la):
            ax1.scatter(la.auc_1, la.auc_2, color=c, marker=marker, s=size, label=f"{route} (LA)")
        if len(lab):
            ax1.scatter(lab.auc_1, lab.auc_2, color=c, marker=marker, s=size, facecolors="none",
                        label=f"{route} (label agg.)")
        if len(la) and len(lab):
            ax1.annotate("", xy=(lab.auc_1.iloc[0], lab.auc_2.iloc[0]),
                         xytext=(la.auc_1.iloc[0], la.auc_2.iloc[0]),
                         arrowprops=dict(arrowstyle="->", color=c, lw=1))
    ax1.set_xlabel("AUC label 1")
    ax1.set_ylabel("AUC label 2")
    ax1.set_title(f"{dataset}: loss (filled) → label aggregation (open)")
    ax1.legend(fontsize=6, ncol=2)
    labels, la_w, lab_w = [], [], []
    for route, rp in part.groupby("route"):
        labels.append(route)
        la_w.append(rp[rp.objective == "loss_aggregation"]["W_2>1"].mean())
        lab_w.append(rp[rp.objective == "label_aggregation"]["W_2>1"].mean())
    x = np.arange(len(labels))
    ax2.bar(x - 0.2, la_w, 0.4, label="loss aggregation (a = 1)")
    ax2.bar(x + 0.2, lab_w, 0.4, label="label aggregation (sum)")
    ax2.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax2.set_xticks(x, labels, rotation=30, ha="right", fontsize=8)
    ax2.set_ylabel("cross-pair win rate W_{2>1}")
    ax2.set_ylim(0, 1)
    ax2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--datasets", default="synthetic,synthetic-det,banking,mq2008")
    p.add_argument("--n-train", type=int, default=20000)
    p.add_argument("--n-test", type=int, default=20000)
    p.add_argument("--beta", type=float, default=8.0)
    p.add_argument("--beta-det", type=float, default=50.0)
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--n-jobs", type=int, default=2, help="XGBoost threads")
    p.add_argument("--mlp-threads", type=int, default=1, help="torch threads of the MLPs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data-dir", type=Path, default=SHARED)
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    runners = {
        "synthetic": lambda: synthetic(args, args.beta, "synthetic"),
        "synthetic-det": lambda: synthetic(args, args.beta_det, "synthetic-det"),
        "banking": lambda: banking(args),
        "mq2008": lambda: mq2008(args),
    }
    rows = []
    for name in args.datasets.split(","):
        if name not in runners:
            raise SystemExit(f"unknown dataset {name!r}; choose from {sorted(runners)}")
        rows += runners[name]()
        df = add_contrasts(pd.DataFrame(rows))
        df.to_csv(args.out / "results.csv", index=False)
        (args.out / "results.json").write_text(
            json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                        "rows": df.to_dict(orient="records")}, indent=1, default=float)
        )
        figure(df, name, args.out / f"{name}.png")
    print(f"wrote {args.out / 'results.csv'}")


if __name__ == "__main__":
    main()
