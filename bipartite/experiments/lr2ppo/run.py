"""The LR2PPO reproduction: study set by size, summary, the paper entry
(``bipartite reproduce --paper lr2ppo``; docs/theory.md §11)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bipartite.experiments.lr2ppo.figures import (
    CONTROL,
    CURVE_FRACTION,
    DELTA_ZERO,
    KS,
    ORIGINAL_RATIO,
    STAGE1,
    STAGE3,
    annotation_table,
    gains_table,
    key_numbers,
    mq2008_figures,
    runs_table,
)
from bipartite.experiments.lr2ppo.studies import find_letor
from bipartite.experiments.registry import Paper, provenance_lines, study_result
from bipartite.studies.report import markdown_table, write_table

__all__ = ["PAPER", "SIZES", "STUDY", "configs", "figures", "find_letor", "headline", "summary"]

#: The study folder (``<out>/studies/<STUDY>``) and its registered function.
STUDY = "mq2008"
_FUNCTION = "lr2ppo.mq2008"

#: Sizes of the old ``CONFIGS`` (``seeds`` = replicates; ``max_queries`` None = all queries).
SIZES: dict[str, dict[str, Any]] = {
    "full": dict(seeds=3, fractions=[0.05, 0.1, 0.2, 0.4], base_epochs=15, rm_epochs=10,
                 ppo_iters=300, ft_epochs=5, eval_every=25, ablations=True, max_queries=None,
                 source_pair_fraction=0.25, state_fraction=0.4),
    "quick": dict(seeds=1, fractions=[0.1, 0.4], base_epochs=10, rm_epochs=5, ppo_iters=100,
                  ft_epochs=3, eval_every=20, ablations=True, max_queries=None,
                  source_pair_fraction=0.25, state_fraction=0.4),
    "smoke": dict(seeds=1, fractions=[0.1], base_epochs=2, rm_epochs=2, ppo_iters=4,
                  ft_epochs=1, eval_every=2, ablations=True, max_queries=20,
                  source_pair_fraction=0.25, state_fraction=0.4),
}


def configs(size: str, options: Mapping) -> dict[str, dict]:
    """The LR2PPO study configuration for ``size`` (smoke/quick/full).

    The study needs MQ2008: the option ``letor`` (a folder with ``mq2008_S1.txt`` .. ``S5``, or a
    glob ``.../mq2008_S*.txt``; missing files there are an error naming how to pass them), else
    ``letor/`` of the data folder (:func:`bipartite.data.data_dir`); without either no study is
    configured. One task per (seed, annotation fraction), fraction 0 = stage 1 alone; the
    fractions of one replicate share the seed (``paired_seeds``: one stage-1 model, nested
    annotation sets).
    """
    letor = options.get("letor")
    try:
        folder = find_letor(letor)
    except FileNotFoundError:
        if letor is not None:
            raise
        return {}
    sz = dict(SIZES[size])
    seeds, fractions = sz.pop("seeds"), sz.pop("fractions")
    params = {k: v for k, v in sz.items() if v is not None}
    return {STUDY: {
        "study": {"function": _FUNCTION, "name": f"lr2ppo-{STUDY}", "seed": 900,
                  "replicates": seeds, "paired_seeds": True,
                  "description": "LR2PPO stage 1 vs stage 3 against the annotation fraction "
                                 "on MQ2008 (LR2PPO Tab. 3)"},
        "params": {"letor": str(folder.resolve()), "curve_fraction": CURVE_FRACTION, **params},
        "grid": {"fraction": [0.0, *fractions]},
    }}


def figures(results_dir: str | os.PathLike, fig_dir: str | os.PathLike) -> list[Path]:
    """Redraw the LR2PPO figures from the saved results in ``results_dir`` (PNG + PDF)."""
    df = study_result(results_dir, STUDY)
    return [] if df is None else mq2008_figures(df, Path(fig_dir))


def headline(results_dir: str | os.PathLike) -> dict[str, Any]:
    """The key numbers of a finished results folder
    (:func:`~bipartite.experiments.lr2ppo.figures.key_numbers`); empty when
    the study is not there."""
    df = study_result(results_dir, STUDY)
    return {} if df is None else key_numbers(df)


def _claims(key: dict[str, Any], fractions: list[float]) -> list[str]:
    """The verdicts on the paper's claims, from the key numbers."""
    s1 = key.get(f"{STAGE1}|f0|ndcg@10", float("nan"))
    lines = [
        f"- Stage 3 raises NDCG@10 over stage 1 at every annotated fraction, in every seed "
        f"(§5.2, Tab. 3): **{key['stage3_improves_ndcg10_all_fractions']}**; on every NDCG@k, "
        f"fraction and seed: **{key['stage3_improves_all']}**."]
    acc = [key.get(f"{STAGE3}|f{f:g}|rm_accuracy") for f in fractions]
    if len(acc) > 1 and None not in acc:
        grows = all(b > a for a, b in zip(acc, acc[1:], strict=False))
        lines.append("- The reward-model accuracy grows with the annotated fraction (§5.3, "
                     f"Tab. 3): {', '.join(f'{a:.3f}' for a in acc)} at "
                     f"{', '.join(f'{f:g}' for f in fractions)}: **{grows}**.")
    parts = []
    for f in fractions:
        gain = key.get(f"gain_ndcg@10_f{f:g}")
        control = key.get(f"{CONTROL}|f{f:g}|ndcg@10")
        if gain is not None and control is not None:
            parts.append(f"{f:g}: control {control - s1:+.3f} vs stage 3 {gain:+.3f}")
    if parts:
        most = all(key[f"{CONTROL}|f{f:g}|ndcg@10"] - s1 > 0.5 * key[f"gain_ndcg@10_f{f:g}"] > 0
                   for f in fractions if f"gain_ndcg@10_f{f:g}" in key)
        lines.append("- Control not in the paper: fine-tuning stage 1 directly on the annotated "
                     f"pairs gets most (> half) of stage 3's NDCG@10 gain: **{most}** "
                     f"({'; '.join(parts)}).")
    tag = f"|f{CURVE_FRACTION:g}|ndcg@10"
    if ORIGINAL_RATIO + tag in key:
        orig, main = key[ORIGINAL_RATIO + tag], key[STAGE3 + tag]
        lines.append(f"- PPO's original ratio collapses (§5.3, Fig. 3a): it ends at NDCG@10 "
                     f"{orig:.3f} vs {main:.3f} (partial-order ratio) and {s1:.3f} (stage 1); "
                     f"collapse (below stage 1): **{orig < s1}**.")
    if DELTA_ZERO + tag in key:
        d0, main = key[DELTA_ZERO + tag], key[STAGE3 + tag]
        lines.append(f"- δ = -0.1 beats δ = 0 (§5.3, Fig. 3b): NDCG@10 {main:.3f} vs {d0:.3f}; "
                     f"within 0.01 of each other: **{abs(d0 - main) < 0.01}**.")
    return lines


def summary(results_dir: str | os.PathLike, table_dir: str | os.PathLike) -> str:
    """Write the LR2PPO key-number tables (``table_dir``: CSV + Markdown) and return
    ``summary.md``: NDCG@k by method and annotated fraction (cf. LR2PPO Tab. 3), the paired gains
    over stage 1 and the verdicts on the paper's claims (§5.2-§5.3)."""
    import pandas as pd

    results_dir, table_dir = Path(results_dir), Path(table_dir)
    lines = ["# LR2PPO — reward model + PPO from partial-order pairs: reproduced results", "",
             *provenance_lines(results_dir)]
    df = study_result(results_dir, STUDY)
    if df is None:
        return "\n".join([
            *lines, f"The study `{STUDY}` is not in this folder: it needs MQ2008 (LETOR 4.0) "
            "partitions mq2008_S1.txt .. mq2008_S5.txt, passed as `--letor PATH` or found in "
            "letor/ of the data folder ($BIPARTITE_DATA, default ../shared/data).", ""])
    n = int(df["replicate"].nunique())
    table, gains, key = annotation_table(df), gains_table(df), key_numbers(df)
    cols = [f"ndcg@{k}" for k in KS]
    write_table(runs_table(df), table_dir, "lr2ppo_runs",
                note="One row per (seed, method, annotation fraction): test NDCG@k on MQ2008 S5 "
                     "and the reward-model accuracy on S5's partial-order pairs.")
    write_table(table, table_dir, "lr2ppo_annotation",
                note=f"Mean over {n} seed(s) (cf. LR2PPO Tab. 3); *_se: standard error.")
    write_table(gains, table_dir, "lr2ppo_gains",
                note="NDCG gain over stage 1, paired by seed: mean and minimum over seeds.")
    write_table(pd.DataFrame({"key": list(key), "value": [str(v) for v in key.values()]}),
                table_dir, "lr2ppo_key_numbers", note="The headline numbers of this folder.")
    fractions = sorted(f for f in df["fraction"].unique() if f > 0)
    lines += [
        f"MQ2008: source S1 (graded relevance), target S2-S4 (partial-order pairs), test S5; "
        f"{n} seed(s). No real domain shift (source and target are one collection).", "",
        "## NDCG@k by method and annotated fraction (cf. LR2PPO Tab. 3)", "",
        markdown_table(table[["method", "fraction", *cols, "rm_accuracy"]]), "",
        "## Gain over stage 1, paired by seed", "",
        markdown_table(gains[["method", "fraction", *[f"gain_{c}" for c in cols],
                              "n_seeds"]]) if len(gains) else "(no annotated fraction)", "",
        "## The paper's claims", "", *_claims(key, fractions), ""]
    fig_dir = results_dir / "figures"
    lines += [f"![{p.name}](figures/{p.name})" for p in sorted(fig_dir.glob("lr2ppo_*.png"))]
    return "\n".join([*lines, ""])


#: The LR2PPO entry of :data:`bipartite.experiments.PAPERS`.
PAPER = Paper("lr2ppo", configs, figures=figures, summary=summary,
              description="LR2PPO: reward model + PPO from partial-order pairs (Guo et al.; "
                          "MQ2008)")
