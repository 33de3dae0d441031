"""LR2PPO study functions: stage 1 vs stage 3 against the annotation fraction on MQ2008
(LR2PPO Tab. 2-3, Fig. 3; docs/theory.md §11).

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
annotated pairs with the same margin loss — shows how much of the gain needs PPO. With
``ablations`` the paper's ablations (Fig. 3) run at the curve fraction: PPO's original clipped
ratio instead of the partial-order ratio, and ``δ = 0`` instead of ``-0.1``.
"""

from __future__ import annotations

import math
import os
import warnings
from pathlib import Path

import numpy as np

from bipartite._utils.validation import UndefinedMetricWarning
from bipartite.experiments.lr2ppo.figures import (
    CONTROL,
    CURVE_FRACTION,
    DELTA_ZERO,
    KS,
    ORIGINAL_RATIO,
    STAGE1,
    STAGE3,
    mq2008_figures,
)
from bipartite.studies.config import register_study
from bipartite.studies.constraints import Range

__all__ = ["SOURCE", "TARGET", "TEST", "find_letor", "lr2ppo_mq2008"]

SOURCE, TARGET, TEST = (1,), (2, 3, 4), (5,)


def find_letor(letor: str | os.PathLike | None = None) -> Path:
    """The folder with the five MQ2008 (LETOR 4.0) parts ``mq2008_S1.txt`` .. ``mq2008_S5.txt``
    (or ``S1.txt`` .. ``S5.txt``; :func:`bipartite.data.letor.letor4_parts`).

    ``letor`` given: that folder (or a glob like ``path/mq2008_S*.txt``, whose folder is used).
    Otherwise ``letor/`` inside the data folder of :func:`bipartite.data.data_dir` (the
    ``BIPARTITE_DATA`` environment variable, else ``../shared/data``). Raises
    ``FileNotFoundError`` explaining how to pass the path when the files are missing.
    """
    from bipartite.data import DATA_ENV, data_dir
    from bipartite.data.letor import letor4_parts

    if letor is None:
        folder = data_dir() / "letor"
    else:
        p = Path(letor)
        folder = p.parent if "*" in p.name or p.is_file() else p
    if letor4_parts(folder) is None:
        raise FileNotFoundError(
            f"The LR2PPO study needs the five MQ2008 (LETOR 4.0) partitions in {folder}. Pass the "
            "folder holding mq2008_S1.txt .. mq2008_S5.txt as letor=PATH (CLI: "
            "`bipartite reproduce --paper lr2ppo --letor PATH`), or put them in letor/ of the data "
            f"folder (${DATA_ENV}, default ../shared/data); see ../shared/data/README.md for the "
            "source of the files.")
    return folder


def _load(folder: Path, parts: tuple[int, ...], max_queries: int | None):
    """Partitions ``parts`` (1-5) of the MQ2008 folder ``folder`` (:func:`find_letor`)."""
    from bipartite.data import load_letor
    from bipartite.data.letor import letor4_parts

    files = letor4_parts(folder)
    d = load_letor([files[k - 1] for k in parts], n_features=46)
    X, rel, q = np.asarray(d.X, dtype=np.float64), np.asarray(d.relevance, float), np.asarray(d.qid)
    if max_queries is not None:
        keep = np.isin(q, np.unique(q)[:max_queries])
        X, rel, q = X[keep], rel[keep], q[keep]
    return X, rel, q


def _ndcg(rel, scores, q) -> dict[str, float]:
    from bipartite.metrics import ndcg_at_k

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return {f"ndcg@{k}": ndcg_at_k(rel, scores, k=k, qid=q) for k in KS}


@register_study("lr2ppo.mq2008", figures=mq2008_figures,
                constraints={"fraction": Range(0, 1), "curve_fraction": Range(0, 1),
                             "source_pair_fraction": Range(0, 1), "state_fraction": Range(0, 1),
                             "base_epochs": Range(1, integer=True), "rm_epochs": Range(1, integer=True),
                             "ppo_iters": Range(0, integer=True), "ft_epochs": Range(1, integer=True),
                             "eval_every": Range(1, integer=True), "max_queries": Range(1, integer=True)})
def lr2ppo_mq2008(*, seed: int, letor: str, fraction: float, base_epochs: int = 15,
                  rm_epochs: int = 10, ppo_iters: int = 300, ft_epochs: int = 5,
                  eval_every: int = 25, ablations: bool = True,
                  curve_fraction: float = CURVE_FRACTION, max_queries: int | None = None,
                  source_pair_fraction: float = 0.25, state_fraction: float = 0.4) -> list[dict]:
    """Stage 1, and the stages 2-3 of LR2PPO with a ``fraction`` of the target pairs annotated,
    on MQ2008 in the folder ``letor`` (LR2PPO §3.2, Tab. 3; docs/theory.md §11).

    Everything random derives from ``seed``: the stage-1 model
    (:class:`~bipartite.contrib.lr2ppo.RelevanceRegressor` on S1, ``base_epochs``), the
    ``source_pair_fraction`` of S1's partial-order pairs added to the reward model's training
    pairs, the ``state_fraction`` of all within-query target pairs that are the PPO states, and
    the order in which target pairs get annotated (the first ``fraction`` of them: nested sets
    across fractions). Run every fraction of one replicate with the same seed (paired seeds) to
    share the stage-1 model and the nested annotation sets.

    ``fraction = 0``: only the stage-1 row. Otherwise a
    :class:`~bipartite.contrib.lr2ppo.PairRewardModel` (``rm_epochs``) on the annotated target
    pairs plus the source pairs, then :class:`~bipartite.contrib.lr2ppo.LR2PPO` (``ppo_iters``)
    and, at ``curve_fraction`` with ``ablations``, the original-ratio and ``δ = 0`` variants,
    and the control :func:`~bipartite.contrib.lr2ppo.finetune_on_pairs` (``ft_epochs``).
    ``max_queries`` keeps the first queries of each partition (tests). Rows:

    * ``kind="final"``: ``method``, ``ndcg@1``, ``ndcg@3``, ``ndcg@5``, ``ndcg@10`` on S5, and
      ``rm_accuracy`` (reward-model accuracy on S5's partial-order pairs; NaN for stage 1 and the
      control);
    * ``kind="curve"`` (at ``curve_fraction`` only): ``method``, ``step`` (PPO iteration, 0 =
      stage 1, then every ``eval_every`` and the last) and ``ndcg@10`` on S5.
    """
    from bipartite.contrib.lr2ppo import (
        LR2PPO,
        PairRewardModel,
        RelevanceRegressor,
        finetune_on_pairs,
        partial_order_pairs,
        within_group_pairs,
    )

    folder = find_letor(letor)
    Xs, ys, qs = _load(folder, SOURCE, max_queries)
    Xe, ye, qe = _load(folder, TEST, max_queries)
    rng = np.random.default_rng(seed)
    base = RelevanceRegressor(epochs=base_epochs, random_state=seed, device="cpu")
    base.fit(Xs, ys)
    base_ndcg = _ndcg(ye, base.decision_function(Xe), qe)
    if fraction == 0:
        return [{"kind": "final", "method": STAGE1, "rm_accuracy": np.nan, **base_ndcg}]

    Xt, yt, qt = _load(folder, TARGET, max_queries)
    pt = partial_order_pairs(yt, qt)
    ps = partial_order_pairs(ys, qs)
    ps = ps[rng.random(len(ps)) < source_pair_fraction]
    pe = partial_order_pairs(ye, qe)
    allp = within_group_pairs(qt)
    pool = allp[rng.random(len(allp)) < state_fraction]
    X2 = np.vstack([Xt, Xs])
    order = rng.permutation(len(pt))          # nested annotation sets across fractions
    ann = pt[order[: max(1, int(round(fraction * len(pt))))]]
    rm = PairRewardModel(epochs=rm_epochs, random_state=seed, device="cpu")
    rm.fit(X2, np.vstack([ann, ps + len(Xt)]))
    acc = rm.accuracy(Xe, pe)
    on_curve = math.isclose(fraction, curve_fraction)
    variants = [(STAGE3, {})]
    if ablations and on_curve:
        variants += [(ORIGINAL_RATIO, {"ratio": "original"}), (DELTA_ZERO, {"delta": 0.0})]
    rows: list[dict] = []
    for name, kw in variants:
        curve = [{"kind": "curve", "method": name, "step": 0,
                  "ndcg@10": base_ndcg["ndcg@10"]}]

        def record(it, model, name=name, curve=curve):
            if it % eval_every == 0 or it == ppo_iters:
                curve.append({"kind": "curve", "method": name, "step": it,
                              "ndcg@10": _ndcg(ye, model.decision_function(Xe), qe)["ndcg@10"]})

        ppo = LR2PPO(base, rm, n_iters=ppo_iters, random_state=seed, device="cpu", **kw)
        ppo.fit(Xt, qt, pairs=pool, callback=record if on_curve else None)
        rows.append({"kind": "final", "method": name, "rm_accuracy": acc,
                     **_ndcg(ye, ppo.decision_function(Xe), qe)})
        if on_curve:
            rows += curve
    tuned = finetune_on_pairs(base, Xt, ann, epochs=ft_epochs, random_state=seed)
    rows.append({"kind": "final", "method": CONTROL, "rm_accuracy": np.nan,
                 **_ndcg(ye, tuned.decision_function(Xe), qe)})
    return rows
