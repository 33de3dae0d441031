"""LR2PPO study on MQ2008: stage 1 vs stage 3 against the annotation fraction (LR2PPO Tab. 2-3).

The paper transfers MSLR-WEB10K (source) to MQ2008 (target) and LRMovieNet genres to long-tail
genres; neither MSLR nor LRMovieNet (nor their ViT/RoBERTa encoders) is available here. The
analogue: MQ2008 (LETOR 4.0, 46 features, relevance 0/1/2) split by query set:

* **source** = partition S1: graded relevance -> stage 1 (SmoothL1) and augmented pairs for the
  reward model;
* **target** = S2, S3, S4: only partial-order pairs (``rel_i > rel_j`` within a query); a fraction
  (5 %-40 %, paper Tab. 3) is "annotated" for the reward model, and a random 40 % of all
  within-query pairs, unannotated, are the states of stage 3 (paper App. C.3);
* **test** = S5: NDCG@{1,3,5,10} from the graded relevance (queries without a relevant document
  are left out, see :func:`bipartite.metrics.ndcg_at_k`), and the reward-model accuracy on its
  partial-order pairs.

Source and target come from the same collection, so there is no real domain shift: what is tested
is whether the reward model + PPO stage turns a few target pair annotations into NDCG gains over
the stage-1 model. A control not in the paper — fine-tuning the stage-1 model directly on the
annotated pairs with the same margin loss — shows how much of the gain needs PPO. The full
configuration adds the paper's ablations (Fig. 3): PPO's original clipped ratio instead of the
partial-order ratio, and ``δ = 0`` instead of ``-0.1``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from bipartite._utils.validation import UndefinedMetricWarning
from bipartite.studies import Paper

__all__ = ["CONFIGS", "KS", "PAPER", "find_letor", "run"]

KS = (1, 3, 5, 10)
#: Annotation fraction of the training curves and ablations (the paper's default, App. C.3).
_CURVE_FRACTION = 0.1
SOURCE, TARGET, TEST = (1,), (2, 3, 4), (5,)

CONFIGS: dict[str, dict[str, Any]] = {
    "full": dict(seeds=3, fractions=(0.05, 0.1, 0.2, 0.4), base_epochs=15, rm_epochs=10,
                 ppo_iters=300, ft_epochs=5, eval_every=25, ablations=True, max_queries=None,
                 source_pair_fraction=0.25, state_fraction=0.4),
    "quick": dict(seeds=1, fractions=(0.1, 0.4), base_epochs=10, rm_epochs=5, ppo_iters=100,
                  ft_epochs=3, eval_every=20, ablations=True, max_queries=None,
                  source_pair_fraction=0.25, state_fraction=0.4),
    "smoke": dict(seeds=1, fractions=(0.1,), base_epochs=2, rm_epochs=2, ppo_iters=4,
                  ft_epochs=1, eval_every=2, ablations=True, max_queries=20,
                  source_pair_fraction=0.25, state_fraction=0.4),
}


def find_letor(letor: Any = None) -> Path:
    """The folder with ``mq2008_S1.txt`` .. ``mq2008_S5.txt``.

    ``letor`` given: that folder (or a glob like ``path/mq2008_S*.txt``, whose folder is used).
    Otherwise ``../shared/data/letor`` relative to the current directory. Raises
    ``FileNotFoundError`` explaining how to pass the path when the files are missing.
    """
    if letor is None:
        folder = Path.cwd().parent / "shared" / "data" / "letor"
    else:
        p = Path(letor)
        folder = p.parent if "*" in p.name or p.is_file() else p
    missing = [f"mq2008_S{k}.txt" for k in range(1, 6) if not (folder / f"mq2008_S{k}.txt")
               .is_file()]
    if missing:
        raise FileNotFoundError(
            f"The LR2PPO study needs MQ2008 (LETOR 4.0) partitions {missing} in {folder}. Pass the "
            "folder holding mq2008_S1.txt .. mq2008_S5.txt as letor=PATH (CLI: "
            "`bipartite reproduce --paper lr2ppo --letor PATH`); see ../shared/data/README.md for "
            "the source of the files.")
    return folder


def _load(folder: Path, parts: tuple[int, ...], max_queries: int | None):
    from bipartite.data import load_letor

    d = load_letor([folder / f"mq2008_S{k}.txt" for k in parts], n_features=46)
    X, rel, q = np.asarray(d.X, dtype=np.float64), np.asarray(d.relevance, float), np.asarray(d.qid)
    if max_queries is not None:
        keep = np.isin(q, np.unique(q)[:max_queries])
        X, rel, q = X[keep], rel[keep], q[keep]
    return X, rel, q


def _ndcg(rel, scores, q) -> dict[str, float]:
    from bipartite.metrics import ndcg_at_k

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return {f"ndcg@{k}": ndcg_at_k(rel, scores, k=k, groups=q) for k in KS}


def _one_seed(seed: int, cfg: dict, folder: str) -> tuple[list[dict], dict[str, list[dict]]]:
    from bipartite.contrib.lr2ppo import (
        LR2PPO,
        PairRewardModel,
        RelevanceRegressor,
        finetune_on_pairs,
        partial_order_pairs,
        within_group_pairs,
    )

    mq = cfg["max_queries"]
    Xs, ys, qs = _load(Path(folder), SOURCE, mq)
    Xt, yt, qt = _load(Path(folder), TARGET, mq)
    Xe, ye, qe = _load(Path(folder), TEST, mq)
    rng = np.random.default_rng(seed)
    rows: list[dict] = []
    curves: dict[str, list[dict]] = {}

    base = RelevanceRegressor(epochs=cfg["base_epochs"], random_state=seed, device="cpu")
    base.fit(Xs, ys)
    rows.append({"seed": seed, "method": "stage 1", "fraction": 0.0, "rm_accuracy": np.nan,
                 **_ndcg(ye, base.decision_function(Xe), qe)})

    pt = partial_order_pairs(yt, qt)
    ps = partial_order_pairs(ys, qs)
    ps = ps[rng.random(len(ps)) < cfg["source_pair_fraction"]]
    pe = partial_order_pairs(ye, qe)
    allp = within_group_pairs(qt)
    pool = allp[rng.random(len(allp)) < cfg["state_fraction"]]
    X2 = np.vstack([Xt, Xs])
    order = rng.permutation(len(pt))          # nested annotation sets across fractions

    def curve_cb(name):
        curves[name] = [{"iteration": 0, "ndcg@10": _ndcg(ye, base.decision_function(Xe),
                                                          qe)["ndcg@10"]}]

        def cb(it, model):
            if it % cfg["eval_every"] == 0 or it == cfg["ppo_iters"]:
                val = _ndcg(ye, model.decision_function(Xe), qe)["ndcg@10"]
                curves[name].append({"iteration": it, "ndcg@10": val})
        return cb

    for frac in cfg["fractions"]:
        ann = pt[order[: max(1, int(round(frac * len(pt))))]]
        rm = PairRewardModel(epochs=cfg["rm_epochs"], random_state=seed, device="cpu")
        rm.fit(X2, np.vstack([ann, ps + len(Xt)]))
        acc = rm.accuracy(Xe, pe)
        variants = [("LR2PPO (stage 3)", {})]
        if cfg["ablations"] and frac == _CURVE_FRACTION:
            variants += [("stage 3, original PPO ratio", {"ratio": "original"}),
                         ("stage 3, delta = 0", {"delta": 0.0})]
        for name, kw in variants:
            ppo = LR2PPO(base, rm, n_iters=cfg["ppo_iters"], random_state=seed, device="cpu",
                         **kw)
            cb = curve_cb(name) if frac == _CURVE_FRACTION else None
            ppo.fit(Xt, qt, pairs=pool, callback=cb)
            rows.append({"seed": seed, "method": name, "fraction": frac, "rm_accuracy": acc,
                         **_ndcg(ye, ppo.decision_function(Xe), qe)})
        tuned = finetune_on_pairs(base, Xt, ann, epochs=cfg["ft_epochs"], random_state=seed)
        rows.append({"seed": seed, "method": "stage 1 + pair fine-tune (control)",
                     "fraction": frac, "rm_accuracy": np.nan,
                     **_ndcg(ye, tuned.decision_function(Xe), qe)})
    return rows, curves


def _figures(table, curves: dict[str, list[dict]], fig_dir: Path) -> list[Path]:
    from bipartite.studies import _pyplot, save_figure

    plt = _pyplot()
    paths: list[Path] = []
    fig, axes = plt.subplots(1, len(KS), figsize=(3.2 * len(KS), 3.2), sharex=True)
    base = table[table["method"] == "stage 1"].iloc[0]
    for ax, k in zip(axes, KS, strict=True):
        col = f"ndcg@{k}"
        ax.axhline(base[col], color="gray", ls="--", label="stage 1")
        for method, marker in (("LR2PPO (stage 3)", "o"),
                               ("stage 1 + pair fine-tune (control)", "s")):
            sub = table[table["method"] == method].sort_values("fraction")
            ax.errorbar(sub["fraction"], sub[col], yerr=sub[f"{col}_se"], marker=marker,
                        label=method, capsize=2)
        ax.set_title(f"NDCG@{k}")
        ax.set_xlabel("annotated fraction of target pairs")
    axes[0].legend(fontsize=7)
    fig.suptitle("MQ2008 (source S1, target S2-S4, test S5): cf. LR2PPO Tab. 3", y=1.04)
    paths += save_figure(fig, fig_dir, "lr2ppo_ndcg_vs_annotation")

    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for name, pts in curves.items():
        ax.plot([p["iteration"] for p in pts], [p["ndcg@10"] for p in pts], marker=".",
                label=name)
    ax.set_xlabel("PPO iteration")
    ax.set_ylabel("test NDCG@10")
    ax.set_title(f"stage-3 curves, first seed, {_CURVE_FRACTION:g} annotated; cf. Fig. 3")
    ax.legend(fontsize=7)
    paths += save_figure(fig, fig_dir, "lr2ppo_training_curves")
    return paths


def run(out_dir: Any, quick: bool = False, jobs: int = 1, **options: Any) -> dict[str, Any]:
    """Run the LR2PPO study on MQ2008; write tables, figures, ``summary.md``, ``results.json``.

    Parameters
    ----------
    out_dir : path
    quick : bool
        The ``"quick"`` configuration (< 2 min on 2 cores).
    jobs : int
        Parallel seeds (joblib); results do not depend on it.
    options : ``letor`` (folder with ``mq2008_S1.txt`` .. ``S5``, or a glob
        ``.../mq2008_S*.txt``; default ``../shared/data/letor`` relative to the current
        directory; a clear ``FileNotFoundError`` otherwise), ``smoke`` (tiny configuration for
        tests), ``seed`` (int, default 0); other keys are ignored.

    Returns
    -------
    dict with mean NDCG@k per (method, fraction), reward-model accuracies, the paired gains of
    stage 3 over stage 1 (``"gain_ndcg@10_f0.1"``), ``"stage3_improves_all"`` and ``"files"``.
    """
    import pandas as pd
    from joblib import Parallel, delayed

    from bipartite.experiments.mtrub import _write_table, table_markdown

    folder = find_letor(options.get("letor"))
    size = "smoke" if options.get("smoke") else "quick" if quick else "full"
    cfg = CONFIGS[size]
    base_seed = int(options.get("seed", 0))
    out = Path(out_dir)
    tables, fig_dir = out / "tables", out / "figures"
    files: list[str] = []
    parts = Parallel(n_jobs=jobs)(delayed(_one_seed)(base_seed + s, cfg, str(folder))
                                  for s in range(cfg["seeds"]))
    df = pd.DataFrame([r for p in parts for r in p[0]])
    curves = parts[0][1]
    cols = [f"ndcg@{k}" for k in KS]
    g = df.groupby(["method", "fraction"], sort=False)
    table = g[[*cols, "rm_accuracy"]].mean().reset_index()
    se = g[cols].std(ddof=1).reset_index()
    for c in cols:
        table[f"{c}_se"] = (se[c] / np.sqrt(cfg["seeds"])).fillna(0.0).to_numpy()
    # paired gains over stage 1 (same seed)
    s1 = df[df["method"] == "stage 1"].set_index("seed")[cols]
    gains = []
    for (method, frac), sub in df[df["method"] != "stage 1"].groupby(["method", "fraction"],
                                                                      sort=False):
        d = sub.set_index("seed")[cols] - s1.loc[sub["seed"]].to_numpy()
        gains.append({"method": method, "fraction": frac,
                      **{f"gain_{c}": float(d[c].mean()) for c in cols},
                      **{f"min_gain_{c}": float(d[c].min()) for c in cols},
                      "n_seeds": len(d)})
    gains = pd.DataFrame(gains)
    _write_table(df, tables, "lr2ppo_runs", files,
                 "One row per (seed, method, annotation fraction): test NDCG@k on MQ2008 S5 and "
                 "the reward-model accuracy on S5's partial-order pairs.")
    _write_table(table, tables, "lr2ppo_annotation", files,
                 f"Mean over {cfg['seeds']} seed(s) (cf. LR2PPO Tab. 3); *_se: standard error.")
    _write_table(gains, tables, "lr2ppo_gains", files,
                 "NDCG gain over stage 1, paired by seed: mean and minimum over seeds.")
    files += [str(p) for p in _figures(table, curves, fig_dir)]

    results: dict[str, Any] = {"config": size, "letor": str(folder)}
    for _, row in table.iterrows():
        tag = f"{row['method']}|f{row['fraction']:g}"
        for c in cols:
            results[f"{tag}|{c}"] = float(row[c])
        if np.isfinite(row["rm_accuracy"]):
            results[f"{tag}|rm_accuracy"] = float(row["rm_accuracy"])
    main = gains[gains["method"] == "LR2PPO (stage 3)"]
    for _, row in main.iterrows():
        for c in cols:
            results[f"gain_{c}_f{row['fraction']:g}"] = float(row[f"gain_{c}"])
    results["stage3_improves_all"] = bool(
        (main[[f"min_gain_{c}" for c in cols]].to_numpy() > 0).all())
    results["stage3_improves_ndcg10_all_fractions"] = bool((main["min_gain_ndcg@10"] > 0).all())
    show = table[["method", "fraction", *cols, "rm_accuracy"]]
    text = [f"# LR2PPO on MQ2008 ({size} configuration)", "", table_markdown(show), "",
            table_markdown(gains[["method", "fraction", *[f"gain_{c}" for c in cols],
                                  "n_seeds"]]), "",
            f"Stage 3 beats stage 1 on every NDCG@k, fraction and seed: "
            f"{results['stage3_improves_all']}", ""]
    (out / "summary.md").write_text("\n".join(text))
    (out / "results.json").write_text(json.dumps(results, indent=2))
    files += [str(out / "summary.md"), str(out / "results.json")]
    results["files"] = files
    return results


#: Entry for ``bipartite.studies.PAPERS``.
PAPER = Paper("lr2ppo", run, description="LR2PPO: reward model + PPO from partial-order pairs "
                                         "(MQ2008)")
