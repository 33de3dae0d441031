"""RLSEP study functions: CE vs BCE vs LSEP vs RLSEP on synthetic ranked labels
(RLSEP §5.4, Tab. 1; docs/theory.md §11).

The paper trains MobileNetV3 on "Ranked MNIST" (digits of random sizes; size = importance) and
finds that RLSEP, which sees the label ranks, beats CE and LSEP, which see only the
relevant/irrelevant split, on the *ranked* metrics (pairwise precision/recall/F1/accuracy over
label pairs, 0-1, ranked mAP), while the three tie on the *unranked* ones (thresholded label
sets). Here the images are replaced by :func:`bipartite.contrib.label_ranking.make_ranked_labels`
(same structure: 3-6 relevant labels of 10, importances ``U(1, 4)``, features that encode presence
and a centred importance signal) and the CNN by
:class:`~bipartite.contrib.label_ranking.LabelRankingMLP`; label selection uses the threshold
network of RLSEP §3.4 (:class:`~bipartite.contrib.label_ranking.ThresholdNetwork`). As in the
paper, the data are fixed (``data_seed``, a study parameter shared by every task) and the network
initialisation varies across replicates (the runner's seed).
"""

from __future__ import annotations

import warnings

import numpy as np

from bipartite._utils.validation import UndefinedMetricWarning
from bipartite.experiments.rlsep.figures import LOSSES, label_ranking_figures
from bipartite.studies.config import register_study
from bipartite.studies.constraints import Each, OneOf, Range

__all__ = ["rlsep_label_ranking"]


@register_study("rlsep.label_ranking", figures=label_ranking_figures,
                constraints={"loss": OneOf(LOSSES), "data_seed": Range(0, integer=True),
                             "n_train": Range(1, integer=True), "n_test": Range(1, integer=True), "epochs": Range(1, integer=True),
                             "thr_epochs": Range(1, integer=True), "hidden": Each(Range(1, integer=True)),
                             "thr_hidden": Each(Range(1, integer=True)), "n_labels": Range(1, integer=True),
                             "n_features": Range(1, integer=True), "min_relevant": Range(0, integer=True),
                             "max_relevant": Range(1, integer=True),
                             "importance_range": Each(Range(), min_len=2),
                             "presence_strength": Range(), "noise": Range(0)})
def rlsep_label_ranking(*, seed: int, loss: str, data_seed: int = 0, n_train: int = 2000,
                        n_test: int = 1000, epochs: int = 60, thr_epochs: int = 60,
                        hidden: list[int] | None = None, thr_hidden: list[int] | None = None,
                        n_labels: int = 10, n_features: int = 32, min_relevant: int = 3,
                        max_relevant: int = 6, importance_range: list[float] | None = None,
                        presence_strength: float = 2.0, noise: float = 0.3) -> list[dict]:
    """Train one label scorer with ``loss`` (network seed ``seed``) on fixed synthetic ranked
    labels and evaluate it on ranked and unranked metrics (RLSEP §5.3-§5.5, docs/theory.md §11).

    The data, ``make_ranked_labels(n_train + n_test, seed=data_seed, ...)``, are the same in every
    task; the first ``n_train`` rows train, the rest test. A
    :class:`~bipartite.contrib.label_ranking.LabelRankingMLP` (``loss`` in ``"ce"``, ``"bce"``,
    ``"lsep"``, ``"rlsep"``; hidden widths ``hidden``, default ``[64]``) gives the scores; a
    :class:`~bipartite.contrib.label_ranking.ThresholdNetwork` (``thr_hidden``) selects the
    labels. Rows, by ``kind``:

    * ``"metrics"`` (one row): ``R_*`` = :func:`bipartite.ranked_metrics.ranked_scores` of the raw
      scores (precision, recall, f1, accuracy, exact_match, map), ``U_*`` =
      :func:`bipartite.ranked_metrics.unranked_scores` of the selected labels;
    * ``"by_num_relevant"``: ``n_relevant``, ``n_instances`` and ``ranked_accuracy`` on the test
      instances with that many relevant labels (cf. RLSEP Fig. 5);
    * ``"calibration"``: ``decile`` (1-10) of the true importance among relevant test labels,
      its mean ``importance`` and the mean ``score`` minus the instance's mean score (Fig. 3).

    Instances whose ranked precision/recall is 0/0 are left out of those means
    (:mod:`bipartite.ranked_metrics`).

    >>> rows = rlsep_label_ranking(seed=0, loss="rlsep", n_train=60, n_test=40, epochs=1,
    ...                            thr_epochs=1, hidden=[8], thr_hidden=[4])
    >>> metrics = [r for r in rows if r["kind"] == "metrics"][0]
    >>> 0.0 <= metrics["R_accuracy"] <= 1.0, sorted({r["kind"] for r in rows})
    (True, ['by_num_relevant', 'calibration', 'metrics'])
    """
    from bipartite.contrib.label_ranking import (
        LabelRankingMLP,
        ThresholdNetwork,
        make_ranked_labels,
    )
    from bipartite.ranked_metrics import ranked_accuracy, ranked_scores, unranked_scores

    hidden = (64,) if hidden is None else tuple(int(h) for h in hidden)
    thr_hidden = (64,) if thr_hidden is None else tuple(int(h) for h in thr_hidden)
    imp = (1.0, 4.0) if importance_range is None else tuple(float(v) for v in importance_range)
    d = make_ranked_labels(n_train + n_test, seed=data_seed, n_labels=n_labels,
                           n_features=n_features, min_relevant=min_relevant,
                           max_relevant=max_relevant, importance_range=imp,
                           presence_strength=presence_strength, noise=noise)
    tr, te = slice(0, n_train), slice(n_train, n_train + n_test)
    model = LabelRankingMLP(loss=loss, hidden=hidden, epochs=epochs, random_state=seed,
                            device="cpu").fit(d.X[tr], d.ranks[tr])
    thr = ThresholdNetwork(model, hidden=thr_hidden, epochs=thr_epochs, random_state=seed,
                           device="cpu").fit(d.X[tr], d.Y[tr])
    scores = model.decision_function(d.X[te])
    ranks_te, imp_te = d.ranks[te], d.importance[te]
    m_te = (ranks_te > 0).sum(axis=1)
    rows: list[dict] = []
    with warnings.catch_warnings():
        # precision/recall of an instance can be 0/0 (e.g. no predicted positive pair); such
        # instances are left out of the mean, as documented in bipartite.ranked_metrics
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        r = ranked_scores(ranks_te, scores)
        u = unranked_scores(d.Y[te], thr.predict(d.X[te]))
        rows.append({"kind": "metrics", **{f"R_{k}": v for k, v in r.items()},
                     **{f"U_{k}": v for k, v in u.items()}})
        for m in np.unique(m_te):
            sel = m_te == m
            rows.append({"kind": "by_num_relevant", "n_relevant": int(m),
                         "n_instances": int(sel.sum()),
                         "ranked_accuracy": ranked_accuracy(ranks_te[sel], scores[sel])})
    # calibration: mean score (centred per instance) by importance decile, relevant labels
    rel = imp_te > 0
    centred = scores - scores.mean(axis=1, keepdims=True)
    edges = np.quantile(imp_te[rel], np.linspace(0, 1, 11))
    dec = np.clip(np.searchsorted(edges, imp_te[rel], side="right") - 1, 0, 9)
    for q in range(10):
        sel = dec == q
        if sel.any():
            rows.append({"kind": "calibration", "decile": q + 1,
                         "importance": float(imp_te[rel][sel].mean()),
                         "score": float(centred[rel][sel].mean())})
    return rows
