"""HAP-VR training study functions (Liu et al., ACM MM 2024): AP-oriented training of a ranker
(docs/theory.md §8, §11).

The same MLP scorer (:func:`bipartite.contrib.ap_training.train_listwise_mlp`) is trained with
QuadLinear-AP, Smooth-AP or the pairwise logistic loss (:data:`~bipartite.experiments.hapvr.figures.LOSSES`)
at a fixed budget, one runner task per (replicate, loss) — the losses of a replicate share its
seed (paired seeds: same data, same initialisation seed) — on

* ``hapvr.synthetic``: a synthetic retrieval problem (:func:`bipartite.contrib.ap_training.make_retrieval`);
* ``hapvr.mq2008``: LETOR 4.0 MQ2008 (binary label: relevance >= 1; NDCG@10 on the graded
  relevance), official folds (train S_a..S_c, test S_e; validation partitions are not used:
  fixed budget).

Rows, by ``kind`` (with ``dataset`` and ``split``):

* ``"final"``: per-query MAP, NDCG@10, gAUC and pooled AUC on the test set after training
  (:func:`bipartite.contrib.ap_training.ranking_report`);
* ``"epoch"``: the same metrics (binary relevance) after every ``epoch`` (learning curves);
* ``"curve"``: every ``track_every``-th training ``step``, the gradient-vanishing diagnostic of
  HAP-VR Fig. 4 measured during training (:func:`bipartite.contrib.ap_training.vanishing_shares`,
  threshold :data:`~bipartite.experiments.hapvr.figures.VANISH_THRESHOLD`): the share of
  mis-ranked pairs (``misranked``) and, among them, the share whose gradient is near zero for the
  pair surrogate alone (``vanish_surrogate``) and for the whole loss (``vanish_full``); also the
  batch's ``train_loss``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bipartite.data.letor import LETOR4_FOLDS, letor4_parts
from bipartite.experiments.hapvr.figures import LOSSES, VANISH_THRESHOLD, training_figures
from bipartite.studies.config import register_study
from bipartite.studies.constraints import OneOf, Range

__all__ = ["FOLDS", "hapvr_mq2008", "hapvr_synthetic", "train_rows"]

#: MQ2008 folds (LETOR 4.0 readme): fold -> (train partitions, test partition), from the one home
#: of the fold layouts, :data:`bipartite.data.letor.LETOR4_FOLDS`.
FOLDS = {k: (train, test) for k, (train, _, test) in LETOR4_FOLDS.items()}


def train_rows(loss: str, train: tuple, test: tuple, *, epochs: int, seed: int,
               track_every: int) -> list[dict]:
    """Train the MLP scorer with ``LOSSES[loss]`` on ``train = (X, y, qid)`` and return the
    ``"final"``, ``"epoch"`` and ``"curve"`` rows on ``test = (X, y, qid, relevance)``."""
    from bipartite.contrib.ap_training import ranking_report, train_listwise_mlp

    if loss not in LOSSES:
        raise ValueError(f"The 'loss' parameter must be one of {list(LOSSES)}, got {loss!r}.")
    X, y, qid = train
    Xt, yt, qt, relt = test
    model = train_listwise_mlp(
        X, y, qid, **LOSSES[loss], epochs=epochs, queries_per_batch=16, lr=1e-3,
        hidden=(64, 32), eval_set=(Xt, yt, qt), track_every=track_every,
        vanish_threshold=VANISH_THRESHOLD, device="cpu", random_state=seed)
    rows: list[dict] = [{"kind": "final",
                         **ranking_report(yt, model.decision_function(Xt), qt, relevance=relt)}]
    rows += [{"kind": "epoch", **e} for e in model.epoch_history_]
    h = model.history_
    if track_every:
        for i, step in enumerate(h["step"]):
            if step % track_every == 0:
                rows.append({"kind": "curve", "step": step, "train_loss": h["loss"][i],
                             "misranked": h["misranked"][i],
                             "vanish_surrogate": h["vanish_surrogate"][i],
                             "vanish_full": h["vanish_full"][i]})
    return rows


@register_study("hapvr.synthetic", figures=training_figures,
                constraints={"loss": OneOf(tuple(LOSSES)), "n_train": Range(1, integer=True), "n_test": Range(1, integer=True),
                             "epochs": Range(1, integer=True), "track_every": Range(1, integer=True)})
def hapvr_synthetic(*, seed: int, loss: str, n_train: int = 300, n_test: int = 200,
                    epochs: int = 30, track_every: int = 2) -> list[dict]:
    """Train with ``loss`` on synthetic retrieval and evaluate (docs/theory.md §8, §11).

    Training and test query sets of ``n_train`` and ``n_test`` queries are drawn by
    :func:`bipartite.contrib.ap_training.make_retrieval` from one generator seeded with ``seed``
    (so the losses of a replicate, which share the seed, see the same data); the scorer is
    initialised with ``random_state=seed``. Rows: see the module docstring.

    >>> rows = hapvr_synthetic(seed=0, loss="Smooth-AP", n_train=12, n_test=6, epochs=1,
    ...                        track_every=1)
    >>> sorted({r["kind"] for r in rows}), 0.0 <= rows[0]["map"] <= 1.0
    (['curve', 'epoch', 'final'], True)
    """
    from bipartite.contrib.ap_training import make_retrieval

    rng = np.random.default_rng(seed)
    tr = make_retrieval(n_train, seed=rng)
    te = make_retrieval(n_test, seed=rng)
    rows = train_rows(loss, (tr.X, tr.y, tr.qid), (te.X, te.y, te.qid, te.relevance),
                      epochs=epochs, seed=seed, track_every=track_every)
    return [{"dataset": "synthetic", "split": "-", **r} for r in rows]


def _subset_queries(arrays: tuple, qid: np.ndarray, max_queries: int | None) -> tuple:
    if max_queries is None:
        return arrays
    keep = np.isin(qid, np.unique(qid)[:max_queries])
    return tuple(a[keep] for a in arrays)


def _binary(bunch: Any) -> np.ndarray:
    """The relevance >= 1 label of a ``load_letor`` result (first label column)."""
    Y = np.asarray(bunch.Y)
    return (Y[:, 0] if Y.ndim == 2 else Y).astype(int)


@register_study("hapvr.mq2008", figures=training_figures,
                constraints={"loss": OneOf(tuple(LOSSES)), "fold": OneOf(tuple(FOLDS)),
                             "epochs": Range(1, integer=True), "track_every": Range(1, integer=True), "max_queries": Range(1, integer=True)})
def hapvr_mq2008(*, seed: int, loss: str, path: str, fold: int = 1, epochs: int = 15,
                 track_every: int = 2, max_queries: int | None = None) -> list[dict]:
    """Train with ``loss`` on an official MQ2008 fold and evaluate (docs/theory.md §8, §10, §11).

    ``path`` is the folder holding ``mq2008_S1.txt`` .. ``mq2008_S5.txt`` (or ``S1.txt`` ..
    ``S5.txt``; :func:`bipartite.data.letor.letor4_parts`); fold ``fold`` trains
    on three partitions and tests on a fourth (:data:`FOLDS`), with the binary label
    relevance >= 1 (:func:`bipartite.data.load_letor`) and NDCG@10 on the graded relevance.
    ``max_queries`` keeps the first queries of each set (tests). The scorer is initialised with
    ``random_state=seed``. Rows: see the module docstring.
    """
    from bipartite.data import load_letor

    if fold not in FOLDS:
        raise ValueError(f"The 'fold' parameter must be one of {sorted(FOLDS)}, got {fold!r}.")
    parts = letor4_parts(path)
    if parts is None:
        raise FileNotFoundError(f"{path}: no MQ2008 (LETOR 4.0) parts mq2008_S1..S5.txt (or "
                                "S1..S5.txt).")
    train_parts, test_part = FOLDS[fold]
    tr = load_letor([parts[p - 1] for p in train_parts], relevance_threshold=1)
    te = load_letor(parts[test_part - 1], relevance_threshold=1)
    q, qt = np.asarray(tr.qid), np.asarray(te.qid)
    train = _subset_queries((np.asarray(tr.X), _binary(tr), q), q, max_queries)
    test = _subset_queries((np.asarray(te.X), _binary(te), qt,
                            np.asarray(te.relevance, dtype=float)), qt, max_queries)
    rows = train_rows(loss, train, test, epochs=epochs, seed=seed, track_every=track_every)
    return [{"dataset": "MQ2008", "split": f"fold{fold}", **r} for r in rows]
