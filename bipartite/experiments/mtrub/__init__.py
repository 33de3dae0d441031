"""MTRUB study (Liu et al., WWW'22 Companion): multi-task learners and exponential score fusion.

``run(out_dir, quick=False, jobs=1, **options)`` (``bipartite reproduce --paper mtrub``) runs

1. **Synthetic nested behaviours** (:func:`bipartite.contrib.fusion.make_nested_behaviour`: click ⊇ valid
   stay ⊇ long stay, query groups, exact η known):

   * learners (MTRUB Table 1, Fig. 2): shared-bottom and MMoE :class:`MultiTaskMLP`, and one
     single-task MLP per label; each label ranked by its own head; gAUC, nDCG@10, AUC;
   * aggregation of the MMoE probabilities (THEORY §4, §5, §11): exponential fusion with exponents
     searched for Pareto-optimal validation gAUCs (:func:`bipartite.contrib.fusion.pareto_search`), uniform
     fusion, loss aggregation (a_k = 1, plug-in), label aggregation (sum, plug-in) and click only;
     the same with the exact η as an oracle;
   * a Pareto check on test data: does the validation frontier stay non-dominated, are the loss and
     label aggregation scorers dominated by some fusion, and how do the fusion and linear
     (``Σ_k a_k p_k``, all a on the simplex) families dominate each other.

2. **Banking** (LA25 §7 data; its five binary columns as behaviour labels): the same aggregation
   comparison on MMoE probabilities. Banking has no queries: gAUC and nDCG@10 are computed on
   random lists of 20 customers (a seeded partition of the test rows), stated in every table.

Outputs under ``out_dir``: ``tables/*.csv`` and ``*.md``, ``figures/*.png`` and ``*.pdf``,
``summary.md``; the return value is a dict of key numbers plus ``"files"``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from bipartite._utils.validation import UndefinedMetricWarning
from bipartite.studies import Paper

__all__ = ["run", "CONFIGS", "PAPER", "table_markdown"]

CONFIGS: dict[str, dict[str, Any]] = {
    "full": {"seeds": 5, "n_train": 1500, "n_val": 500, "n_test": 500, "epochs": 40,
             "resolution": 15, "banking_seeds": 5, "banking_resolution": 8, "banking_epochs": 80},
    "quick": {"seeds": 2, "n_train": 500, "n_val": 200, "n_test": 300, "epochs": 25,
              "resolution": 10, "banking_seeds": 1, "banking_resolution": 5, "banking_epochs": 25},
    "smoke": {"seeds": 1, "n_train": 60, "n_val": 30, "n_test": 40, "epochs": 3,
              "resolution": 3, "banking_seeds": 1, "banking_resolution": 2, "banking_epochs": 3},
}

_LIST_SIZE = 20  # customers per random list (Banking has no queries)
#: The five binary columns of Banking, in load_banking's Y_all order.
_BANKING_LABELS = ["personal_loan", "securities_account", "cd_account", "online", "credit_card"]


# ----------------------------------------------------------------------------------------------
# Small helpers: tables, metrics
# ----------------------------------------------------------------------------------------------


def table_markdown(df, *, floatfmt: str = ".3f") -> str:
    """A pandas DataFrame as a GitHub markdown table (no extra dependency)."""
    cols = [str(c) for c in df.columns]

    def fmt(v: Any) -> str:
        if isinstance(v, (float, np.floating)):
            return "nan" if np.isnan(v) else format(float(v), floatfmt)
        return str(v)

    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def _write_table(df, tables: Path, name: str, files: list[str], note: str = "") -> None:
    tables.mkdir(parents=True, exist_ok=True)
    df.to_csv(tables / f"{name}.csv", index=False)
    text = (note + "\n\n" if note else "") + table_markdown(df)
    (tables / f"{name}.md").write_text(text)
    files += [str(tables / f"{name}.csv"), str(tables / f"{name}.md")]


def _label_metrics(Y: np.ndarray, score: np.ndarray, groups: np.ndarray,
                   names: list[str]) -> dict[str, float]:
    """Per-label AUC, gAUC (pairs-weighted) and nDCG@10 of one scorer, and their means."""
    from bipartite.metrics import group_auc, multilabel_auc, ndcg_at_k

    out: dict[str, float] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        aucs = multilabel_auc(Y, score)
        for k, name in enumerate(names):
            out[f"auc_{name}"] = float(aucs[k])
            out[f"gauc_{name}"] = group_auc(Y[:, k], score, groups)
            out[f"ndcg10_{name}"] = ndcg_at_k(Y[:, k], score, k=10, groups=groups)
    for m in ("auc", "gauc", "ndcg10"):
        out[f"{m}_mean"] = float(np.nanmean([out[f"{m}_{n}"] for n in names]))
    return out


def _gauc_vector(Y: np.ndarray, score: np.ndarray, groups: np.ndarray) -> np.ndarray:
    from bipartite.metrics import group_auc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return np.array([group_auc(Y[:, k], score, groups) for k in range(Y.shape[1])])


def _dominated_by(a: np.ndarray, B: np.ndarray) -> bool:
    """True if some row of B is >= a everywhere and > a somewhere."""
    return bool(np.any(np.all(B >= a, axis=1) & np.any(B > a, axis=1)))


# ----------------------------------------------------------------------------------------------
# One replicate: aggregation of probabilities and the Pareto check
# ----------------------------------------------------------------------------------------------


def _aggregators(P_val: np.ndarray, Y_val: np.ndarray, g_val: np.ndarray, prior: np.ndarray,
                 resolution: int) -> tuple[dict[str, np.ndarray], Any]:
    """Exponents / weights of every aggregated scorer, chosen on validation data."""
    from bipartite.contrib.fusion import pareto_search

    search = pareto_search(P_val, Y_val, groups=g_val, resolution=resolution)
    K = P_val.shape[1]
    return {"fusion_searched": search.best(), "fusion_uniform": np.full(K, 1.0 / K),
            "prior": prior}, search


def _aggregate_scores(P: np.ndarray, spec: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    from bipartite.bayes import label_aggregation_scores, loss_aggregation
    from bipartite.contrib.fusion import score_fusion

    return {
        "fusion (searched γ)": score_fusion(P, spec["fusion_searched"]),
        "fusion (uniform γ)": score_fusion(P, spec["fusion_uniform"]),
        "loss aggregation (a=1)": loss_aggregation(P, spec["prior"]),
        "label aggregation (sum)": label_aggregation_scores(eta=P),
        "first label only": P[:, 0],
    }


def _pareto_check(P_test: np.ndarray, Y_test: np.ndarray, g_test: np.ndarray, search: Any,
                  agg_scores: dict[str, np.ndarray]) -> dict[str, Any]:
    """Test-set behaviour of the validation frontier, and fusion vs linear families."""
    from bipartite.contrib.fusion import score_fusion
    from bipartite.pareto import pareto_filter

    cand = search.candidates
    S = score_fusion(P_test, cand)
    A_fus = np.array([_gauc_vector(Y_test, S[:, j], g_test) for j in range(len(cand))])
    A_fus = np.nan_to_num(A_fus, nan=-1.0)
    test_pareto = np.asarray(pareto_filter(A_fus), dtype=bool)
    L = P_test @ cand.T  # linear family Σ a_k p_k over the same simplex grid
    A_lin = np.nan_to_num(
        np.array([_gauc_vector(Y_test, L[:, j], g_test) for j in range(len(cand))]), nan=-1.0)
    lin_pareto = np.asarray(pareto_filter(A_lin), dtype=bool)
    out = {
        "n_candidates": len(cand),
        "n_val_pareto": len(search.pareto_index),
        "val_pareto_still_pareto_on_test": float(np.mean(test_pareto[search.pareto_index])),
        "n_test_pareto": int(test_pareto.sum()),
        "fusion_front_dominated_by_linear": float(np.mean(
            [_dominated_by(a, A_lin) for a in A_fus[test_pareto]])),
        "linear_front_dominated_by_fusion": float(np.mean(
            [_dominated_by(a, A_fus) for a in A_lin[lin_pareto]])),
    }
    for name in ("loss aggregation (a=1)", "label aggregation (sum)"):
        a = _gauc_vector(Y_test, agg_scores[name], g_test)
        key = name.split(" (")[0].replace(" ", "_")
        out[f"{key}_dominated_by_fusion"] = _dominated_by(a, A_fus)
    return out, {"fusion": A_fus, "linear": A_lin, "test_pareto": test_pareto,
                 "lin_pareto": lin_pareto}


# ----------------------------------------------------------------------------------------------
# Synthetic nested behaviours
# ----------------------------------------------------------------------------------------------


def _fit_models(X, Y, seed: int, epochs: int, single: bool) -> dict[str, Any]:
    from bipartite.contrib.multitask import MultiTaskMLP

    K = Y.shape[1]
    common = {"epochs": epochs, "batch_size": 256, "random_state": seed, "device": "cpu"}
    models = {
        "shared-bottom": MultiTaskMLP(tasks=K, architecture="shared_bottom", hidden=(64, 32),
                                      **common).fit(X, Y),
        "MMoE": MultiTaskMLP(tasks=K, architecture="mmoe", n_experts=4, expert_hidden=(32,),
                             **common).fit(X, Y),
    }
    if single:
        models["single-task"] = [
            MultiTaskMLP(tasks=1, architecture="shared_bottom", hidden=(64, 32),
                         **common).fit(X, Y[:, [k]]) for k in range(K)]
    return models


def _predict(model: Any, X: np.ndarray) -> np.ndarray:
    if isinstance(model, list):
        return np.column_stack([m.predict_proba(X)[:, 0] for m in model])
    return model.predict_proba(X)


def _synthetic_replicate(seed: int, cfg: dict[str, Any]) -> dict[str, Any]:
    from bipartite.contrib.fusion import make_nested_behaviour

    rng = np.random.default_rng(seed)
    splits = {}
    for part in ("train", "val", "test"):
        splits[part] = make_nested_behaviour(cfg[f"n_{part}"], seed=rng)
    names = splits["train"].label_names
    tr, va, te = splits["train"], splits["val"], splits["test"]
    models = _fit_models(tr.X, tr.Y, seed, cfg["epochs"], single=True)
    head_rows = []
    probs = {}
    for mname, model in models.items():
        probs[mname] = {"val": _predict(model, va.X), "test": _predict(model, te.X)}
        P = probs[mname]["test"]
        for k, lname in enumerate(names):
            m = _label_metrics(te.Y[:, [k]], P[:, k], te.groups, [lname])
            head_rows.append({"seed": seed, "model": mname, "label": lname,
                              "auc": m[f"auc_{lname}"], "gauc": m[f"gauc_{lname}"],
                              "ndcg10": m[f"ndcg10_{lname}"]})
    prior = tr.Y.mean(axis=0)
    agg_rows, checks, fronts = [], [], {}
    for source, P_val, P_test in (("MMoE", probs["MMoE"]["val"], probs["MMoE"]["test"]),
                                  ("exact η", va.eta, te.eta)):
        spec, search = _aggregators(P_val, va.Y, va.groups,
                                    prior if source == "MMoE" else tr.eta.mean(axis=0),
                                    cfg["resolution"])
        scores = _aggregate_scores(P_test, spec)
        for sname, score in scores.items():
            m = _label_metrics(te.Y, score, te.groups, names)
            depth = _ndcg_depth(te.Y, score, te.groups)
            agg_rows.append({"seed": seed, "probabilities": source, "scorer": sname,
                             **m, "ndcg10_depth": depth,
                             "gamma": json.dumps(np.round(spec["fusion_searched"], 3).tolist())
                             if sname == "fusion (searched γ)" else ""})
        check, front = _pareto_check(P_test, te.Y, te.groups, search, scores)
        checks.append({"dataset": "synthetic", "seed": seed, "probabilities": source, **check})
        agg_gauc = {s: _gauc_vector(te.Y, scores[s], te.groups) for s in scores}
        fronts[source] = {**front, "aggregators": agg_gauc, "candidates": search.candidates,
                          "val_pareto": search.pareto_index}
    return {"heads": head_rows, "aggregation": agg_rows, "checks": checks, "fronts": fronts,
            "names": names}


def _ndcg_depth(Y: np.ndarray, score: np.ndarray, groups: np.ndarray) -> float:
    """nDCG@10 with graded relevance = number of behaviours (engagement depth 0..K)."""
    from bipartite.metrics import ndcg_at_k

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return ndcg_at_k(Y.sum(axis=1), score, k=10, groups=groups)


# ----------------------------------------------------------------------------------------------
# Banking
# ----------------------------------------------------------------------------------------------


def _banking_path(options: dict[str, Any]) -> Path | None:
    path = options.get("banking")
    if path:
        return Path(path)
    default = Path(__file__).resolve().parents[2] / "shared" / "data" / "bank_personal_loan.csv"
    return default if default.is_file() else None


def _banking_replicate(seed: int, cfg: dict[str, Any], path: Path) -> dict[str, Any]:
    from bipartite.contrib.multitask import MultiTaskMLP
    from bipartite.data import load_banking

    data = load_banking(path)
    # X_all drops the five binary label columns and Mortgage: no label leakage (THEORY §10).
    X = np.asarray(data.X_all, dtype=float)
    Y = np.asarray(data.Y_all, dtype=int)[:, :5]
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(X))
    n_tr, n_va = int(0.6 * len(X)), int(0.2 * len(X))
    tr, va, te = perm[:n_tr], perm[n_tr:n_tr + n_va], perm[n_tr + n_va:]

    def lists(n: int) -> np.ndarray:
        return rng.permutation(n) // _LIST_SIZE

    g_va, g_te = lists(len(va)), lists(len(te))
    rows, checks, fronts = [], [], {}
    for arch in ("mmoe", "shared_bottom"):
        model = MultiTaskMLP(tasks=5, architecture=arch, epochs=cfg["banking_epochs"],
                             hidden=(64, 32), expert_hidden=(32,), random_state=seed,
                             device="cpu").fit(X[tr], Y[tr])
        P_va, P_te = model.predict_proba(X[va]), model.predict_proba(X[te])
        spec, search = _aggregators(P_va, Y[va], g_va, Y[tr].mean(axis=0),
                                    cfg["banking_resolution"])
        scores = _aggregate_scores(P_te, spec)
        for k, lname in enumerate(_BANKING_LABELS):
            scores[f"own head: {lname}"] = P_te[:, k]
        for sname, score in scores.items():
            m = _label_metrics(Y[te], score, g_te, _BANKING_LABELS)
            rows.append({"seed": seed, "model": arch, "scorer": sname, **m,
                         "gamma": json.dumps(np.round(spec["fusion_searched"], 3).tolist())
                         if sname == "fusion (searched γ)" else ""})
        if arch == "mmoe":
            check, front = _pareto_check(P_te, Y[te], g_te, search, scores)
            checks.append({"dataset": "banking", "seed": seed, "probabilities": arch, **check})
            fronts = {**front, "aggregators": {s: _gauc_vector(Y[te], scores[s], g_te)
                                               for s in scores if not s.startswith("own")}}
    return {"rows": rows, "checks": checks, "fronts": fronts}


# ----------------------------------------------------------------------------------------------
# Figures
# ----------------------------------------------------------------------------------------------

_MARKERS = {"fusion (searched γ)": ("*", "C3"), "fusion (uniform γ)": ("P", "C4"),
            "loss aggregation (a=1)": ("s", "C0"), "label aggregation (sum)": ("D", "C2"),
            "first label only": ("v", "C7")}


def _frontier_figure(front: dict, names: list[str], i: int, j: int, title: str, fig_dir: Path,
                     stem: str) -> list[Path]:
    from bipartite.studies import _pyplot, save_figure

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 4.4))
    A, L = front["fusion"], front["linear"]
    ok = (A >= 0).all(axis=1)  # undefined gAUCs were stored as -1
    ax.scatter(L[:, i], L[:, j], s=8, c="C1", alpha=0.35, label="linear Σ a_k p_k (grid)")
    ax.scatter(A[ok, i], A[ok, j], s=8, c="0.6", alpha=0.6, label="fusion Π p_k^γ_k (grid)")
    tp = front["test_pareto"] & ok
    ax.scatter(A[tp, i], A[tp, j], s=14, facecolors="none", edgecolors="k",
               label="fusion: Pareto on test (all labels)")
    for name, a in front["aggregators"].items():
        marker, color = _MARKERS.get(name, ("o", "k"))
        ax.scatter([a[i]], [a[j]], marker=marker, s=90, c=color, edgecolors="k", zorder=5,
                   label=name)
    ax.set_xlabel(f"test gAUC ({names[i]})")
    ax.set_ylabel(f"test gAUC ({names[j]})")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="lower left")
    return save_figure(fig, fig_dir, stem)


def _models_figure(heads, fig_dir: Path) -> list[Path]:
    from bipartite.studies import _pyplot, save_figure

    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    models = list(dict.fromkeys(heads["model"]))
    labels = list(dict.fromkeys(heads["label"]))
    width = 0.8 / len(models)
    for ax, metric in zip(axes, ("gauc", "ndcg10"), strict=True):
        for m_i, model in enumerate(models):
            sub = heads[heads["model"] == model].groupby("label", sort=False)[metric]
            mean = sub.mean().reindex(labels)
            se = (sub.std() / np.sqrt(sub.count())).reindex(labels).fillna(0.0)
            x = np.arange(len(labels)) + (m_i - (len(models) - 1) / 2) * width
            ax.bar(x, mean.values, width, yerr=se.values, label=model, capsize=2)
        ax.set_xticks(np.arange(len(labels)), labels)
        ax.set_ylabel({"gauc": "test gAUC", "ndcg10": "test nDCG@10"}[metric])
        lo = float(heads[metric].min())
        ax.set_ylim(max(0.0, lo - 0.05), min(1.0, float(heads[metric].max()) + 0.03))
    axes[0].legend(fontsize=8)
    fig.suptitle("Synthetic nested behaviours: each label ranked by its own head "
                 "(mean ± s.e. over seeds)", fontsize=10)
    return save_figure(fig, fig_dir, "mtrub_models")


# ----------------------------------------------------------------------------------------------
# run
# ----------------------------------------------------------------------------------------------


def _mean_table(df, by: list[str], cols: list[str]):
    g = df.groupby(by, sort=False)
    out = g[cols].mean().reset_index()
    out.insert(len(by), "n_seeds", g.size().values)
    return out


def run(out_dir: Any, quick: bool = False, jobs: int = 1, **options: Any) -> dict[str, Any]:
    """Run the MTRUB study (see the module docstring) and write tables, figures and a summary.

    Parameters
    ----------
    out_dir : path — created if needed.
    quick : bool — the ``"quick"`` configuration (< 2 min on 2 cores) instead of ``"full"``.
    jobs : int — parallel replicates (joblib processes); results do not depend on it.
    options : ``banking`` (path to the Banking CSV; default ``../shared/data`` beside the repo,
        the Banking part is reported as not run when absent), ``smoke`` (bool: a tiny
        configuration for tests), ``seed`` (int, default 0); other keys are ignored.

    Returns
    -------
    dict of key numbers (means over seeds) and ``"files"``, the list of files written.
    """
    import pandas as pd
    from joblib import Parallel, delayed

    size = "smoke" if options.get("smoke") else "quick" if quick else "full"
    cfg = CONFIGS[size]
    base_seed = int(options.get("seed", 0))
    out = Path(out_dir)
    tables, fig_dir = out / "tables", out / "figures"
    files: list[str] = []
    seeds = [base_seed + s for s in range(cfg["seeds"])]

    reps = Parallel(n_jobs=jobs)(delayed(_synthetic_replicate)(s, cfg) for s in seeds)
    names = reps[0]["names"]
    heads = pd.DataFrame([r for rep in reps for r in rep["heads"]])
    agg = pd.DataFrame([r for rep in reps for r in rep["aggregation"]])
    checks = [c for rep in reps for c in rep["checks"]]

    head_table = _mean_table(heads, ["model", "label"], ["auc", "gauc", "ndcg10"])
    _write_table(head_table, tables, "mtrub_models", files,
                 "Synthetic nested behaviours, test set; each label ranked by its own head; "
                 "mean over seeds.")
    metric_cols = [c for c in agg.columns if c.startswith(("auc_", "gauc_", "ndcg10_"))]
    agg_table = _mean_table(agg, ["probabilities", "scorer"], metric_cols)
    _write_table(agg_table, tables, "mtrub_aggregation_synthetic", files,
                 "Synthetic nested behaviours, test set: scorers built from the MMoE "
                 "probabilities (or the exact η); gAUC weighted by pairs; nDCG@10 per label "
                 "(binary) and with the engagement depth Y_click + Y_valid + Y_long as grade.")
    files += [str(p) for p in _models_figure(heads, fig_dir)]
    front = reps[0]["fronts"]["MMoE"]
    files += [str(p) for p in _frontier_figure(
        front, names, 0, 2, f"Synthetic, MMoE probabilities, seed {seeds[0]}", fig_dir,
        "mtrub_frontier_synthetic")]

    results: dict[str, Any] = {"config": size}
    mm = head_table.groupby("model")[["gauc", "ndcg10"]].mean()
    for model in mm.index:
        results[f"synthetic_{model}_mean_gauc"] = float(mm.loc[model, "gauc"])
        results[f"synthetic_{model}_mean_ndcg10"] = float(mm.loc[model, "ndcg10"])
    for _, row in head_table.iterrows():
        results[f"synthetic_{row['model']}_gauc_{row['label']}"] = float(row["gauc"])
    per_seed = heads.groupby(["seed", "model"])["gauc"].mean().unstack()
    results["synthetic_mmoe_beats_shared_bottom_seeds"] = int(
        (per_seed["MMoE"] > per_seed["shared-bottom"]).sum())
    # same backbone (shared-bottom MLP), one network for K tasks vs one per task
    results["synthetic_shared_bottom_beats_single_task_seeds"] = int(
        (per_seed["shared-bottom"] > per_seed["single-task"]).sum())
    results["n_seeds"] = len(seeds)
    for _, row in agg_table.iterrows():
        key = f"synthetic_{row['probabilities']}_{row['scorer']}_gauc_mean"
        results[key] = float(row["gauc_mean"])

    banking_path = _banking_path(options)
    if banking_path is not None and banking_path.is_file():
        bseeds = [base_seed + s for s in range(cfg["banking_seeds"])]
        breps = Parallel(n_jobs=jobs)(
            delayed(_banking_replicate)(s, cfg, banking_path) for s in bseeds)
        brows = pd.DataFrame([r for rep in breps for r in rep["rows"]])
        checks += [c for rep in breps for c in rep["checks"]]
        bcols = [c for c in brows.columns if c.startswith(("auc_", "gauc_", "ndcg10_"))]
        btable = _mean_table(brows, ["model", "scorer"], bcols)
        _write_table(btable, tables, "mtrub_aggregation_banking", files,
                     f"Banking (5 binary labels), test set (20% of rows); gAUC and nDCG@10 on "
                     f"random lists of {_LIST_SIZE} customers (Banking has no queries).")
        files += [str(p) for p in _frontier_figure(
            breps[0]["fronts"], _BANKING_LABELS, 0, 2,
            f"Banking, MMoE probabilities, seed {bseeds[0]} (projection of 5 labels)", fig_dir,
            "mtrub_frontier_banking")]
        for arch in ("mmoe", "shared_bottom"):
            sub = btable[btable["model"] == arch].set_index("scorer")
            for scorer in sub.index:
                if scorer.startswith("own head: "):  # a head is judged on its own label
                    label = scorer.removeprefix("own head: ")
                    results[f"banking_{arch}_own_head_auc_{label}"] = float(
                        sub.loc[scorer, f"auc_{label}"])
                    continue
                results[f"banking_{arch}_{scorer}_gauc_mean"] = float(sub.loc[scorer, "gauc_mean"])
                results[f"banking_{arch}_{scorer}_auc_mean"] = float(sub.loc[scorer, "auc_mean"])
        results["banking"] = "run"
    else:
        results["banking"] = f"not run: Banking CSV not found (option banking={banking_path})"

    check_df = pd.DataFrame(checks)
    _write_table(check_df, tables, "mtrub_pareto_check", files,
                 "Pareto check on the test set (gAUC vectors). Candidates: the simplex grid of "
                 "exponents; 'linear' = Σ a_k p_k over the same grid (loss aggregation with every "
                 "mixing weight).")
    for col in ("val_pareto_still_pareto_on_test", "fusion_front_dominated_by_linear",
                "linear_front_dominated_by_fusion"):
        for ds, sub in check_df.groupby(["dataset", "probabilities"]):
            results[f"{ds[0]}_{ds[1]}_{col}"] = float(sub[col].mean())
    for col in ("loss_aggregation_dominated_by_fusion", "label_aggregation_dominated_by_fusion"):
        for ds, sub in check_df.groupby(["dataset", "probabilities"]):
            results[f"{ds[0]}_{ds[1]}_{col}"] = float(sub[col].astype(float).mean())

    summary = _summary(results, head_table, agg_table, check_df)
    (out / "summary.md").write_text(summary)
    files.append(str(out / "summary.md"))
    (out / "results.json").write_text(json.dumps(results, indent=2, default=str))
    files.append(str(out / "results.json"))
    results["files"] = files
    return results


def _summary(results: dict, head_table, agg_table, check_df) -> str:
    lines = [f"# MTRUB study ({results['config']} configuration, {results['n_seeds']} seed(s))",
             "", "## Learners (synthetic nested behaviours, own head per label)", "",
             table_markdown(head_table), "## Aggregation (synthetic)", "",
             table_markdown(agg_table[["probabilities", "scorer", "auc_mean", "gauc_mean",
                                       "ndcg10_mean"]]),
             "## Pareto check", "", table_markdown(check_df), "",
             f"Banking: {results['banking']}", ""]
    return "\n".join(lines)


#: Entry for ``bipartite.studies.PAPERS`` (``"mtrub": "bipartite.experiments.mtrub:PAPER"``).
PAPER = Paper("mtrub", run, description="MTRUB: multi-task learners and exponential fusion")
