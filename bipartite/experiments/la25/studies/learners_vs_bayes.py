"""LA25: learners against the Bayes scorers, loss vs label aggregation on data (docs/theory.md §4,
§5, §7, §9, §10).

The study ``la25.learners_vs_bayes`` (one task = one dataset) fits every learning route (MLP
pairwise / plug-in / pointwise, XGBoost pairwise / plug-in) under loss aggregation (a = (1, 1))
and label aggregation (Ȳ = Y_1 + Y_2, linear costs) and reports on held-out data:

* per-label AUCs and both criteria (mean AUC = loss aggregation with a = 1; multipartite AUC of
  Y_1 + Y_2, :func:`bipartite.learners.ranking_criterion`), and on synthetic data their gaps to
  the Bayes scorers of the same objective (:func:`bipartite.bayes.loss_aggregation`,
  :func:`bipartite.bayes.label_aggregation_scores` applied to the exact η; docs/theory.md §4.2,
  §5.2), so that the pairwise route's excess over the plug-in route can be read off
  (docs/theory.md §9);
* the cross-pair win rate W_{2>1} (:func:`bipartite.dictatorship.cross_pair_win_rate`) and the
  near-tie rate among those cross pairs (docs/theory.md §7.5), and the change of both from loss
  to label aggregation (the dictatorship shift of LA25 §6);
* on query data (MQ2008), per-label AUCs pooled and per query (gAUC, docs/theory.md §2.5).

Datasets: ``synthetic`` (β = 8, priors (0.5, 0.05)), ``synthetic-det`` (β = 50,
near-deterministic labels), ``banking`` (Personal Loan, Mortgage > 0), ``mq2008`` (relevance ≥ 1,
simulated clicks). The data files are found through :func:`bipartite.data.data_file` (argument
``data``, else ``$BIPARTITE_DATA``, else ``../shared/data``).

This module replaces the former stand-alone script ``simulations/learners_vs_bayes.py``: the
computations are the same; the seed now comes from the runner (``simulations/
learners_vs_bayes.toml`` sets ``paired_seeds = true``, so all datasets of a replicate share one
seed as the script's ``--seed`` did). Also here: the study's figure
(:func:`learners_vs_bayes_figures`) and key-number table (:func:`learners_vs_bayes_table`).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from bipartite.experiments.la25.figures.learners_vs_bayes import (
    CONTRAST_COLUMNS,
    DATASETS,
    OBJECTIVES,
    ROUTES,
    learners_vs_bayes_figures,
)
from bipartite.studies.config import register_study
from bipartite.studies.constraints import Range

__all__ = ["SYNTHETIC_BETA", "SYNTHETIC_PRIORS", "add_contrasts", "evaluate",
           "la25_learners_vs_bayes", "learner_routes", "near_tie"]

#: β of the synthetic datasets when the parameter ``beta`` is not given.
SYNTHETIC_BETA = {"synthetic": 8.0, "synthetic-det": 50.0}
#: Priors of the two synthetic labels.
SYNTHETIC_PRIORS = (0.5, 0.05)


def learner_routes(*, epochs: int, n_estimators: int, seed: int, xgb_threads: int = 1,
                   mlp_threads: int = 1) -> list[tuple]:
    """The learning routes: ``(route, estimator class, method under loss aggregation, method under
    label aggregation, constructor parameters)``; a method ``None`` skips that objective (the
    pointwise route exists for label aggregation only, docs/theory.md §10.2).

    ``xgb_threads``: XGBoost threads; ``mlp_threads``: torch threads of the MLPs (1 by default:
    with 2 threads on a shared 2-core machine torch's OpenMP barriers made epochs 14-32x slower,
    see ``benchmarks/bench_learners.py``). Every learner is seeded with ``seed``.

    >>> [r[0] for r in learner_routes(epochs=1, n_estimators=1, seed=0)] == list(ROUTES)
    True
    """
    from bipartite.learners import MLPRanker, XGBRanker

    mlp = dict(hidden=(64, 64), epochs=epochs, n_iter_no_change=8, n_jobs=mlp_threads,
               random_state=seed)
    xgb = dict(n_estimators=n_estimators, max_depth=3, learning_rate=0.1, n_jobs=xgb_threads,
               random_state=seed)
    return [
        ("mlp-pairwise", MLPRanker, "pairwise", "pairwise", mlp),
        ("mlp-plugin", MLPRanker, "plugin", "plugin", mlp),
        ("mlp-pointwise", MLPRanker, None, "pointwise", mlp),
        ("xgb-pairwise", XGBRanker, "pairwise", "pairwise", xgb),
        ("xgb-plugin", XGBRanker, "plugin", "plugin", xgb),
    ]


def near_tie(Y: np.ndarray, scores: np.ndarray, k: int, j: int, *, rel: float = 1e-3) -> float:
    """Near-tie rate of the cross pairs (docs/theory.md §7.5) at ``tol = rel`` × the
    interquartile range of the scores (scale-free, so that scorers on different scales are
    comparable), :func:`bipartite.dictatorship.near_tie_rate`."""
    from bipartite.dictatorship import near_tie_rate

    q75, q25 = np.percentile(scores, [75, 25])
    return float(near_tie_rate(Y, scores, k, j, tol=rel * max(q75 - q25, np.finfo(float).tiny)))


def evaluate(Y: np.ndarray, scores: np.ndarray, groups: np.ndarray | None = None) -> dict:
    """Held-out metrics of one scorer: ``auc_k`` (:func:`bipartite.metrics.multilabel_auc`),
    ``crit_loss_agg`` and ``crit_label_agg`` (:func:`bipartite.learners.ranking_criterion`,
    pooled), ``win_21`` = W_{2>1} (:func:`bipartite.dictatorship.cross_pair_win_rate`),
    ``near_tie_21`` (:func:`near_tie`), and with ``groups`` ``gauc_k``
    (:func:`bipartite.metrics.group_auc`)."""
    from bipartite.dictatorship import cross_pair_win_rate
    from bipartite.learners import ranking_criterion
    from bipartite.metrics import group_auc, multilabel_auc

    aucs = multilabel_auc(Y, scores)
    row = {f"auc_{k + 1}": float(aucs[k]) for k in range(Y.shape[1])}
    row["crit_loss_agg"] = float(ranking_criterion(Y, scores))
    row["crit_label_agg"] = float(ranking_criterion(Y, scores, objective="label_aggregation"))
    row["win_21"] = float(cross_pair_win_rate(Y, scores, 1, 0))
    row["near_tie_21"] = near_tie(Y, scores, 1, 0)
    if groups is not None:
        for k in range(Y.shape[1]):
            row[f"gauc_{k + 1}"] = float(group_auc(Y[:, k], scores, groups))
    return row


def add_contrasts(rows: list[dict]) -> list[dict]:
    """Add ``gap_<col>`` (row minus the Bayes row of the same objective; NaN without Bayes rows)
    and ``shift_<col>`` (on label-aggregation rows: minus the loss-aggregation row of the same
    route; the pointwise route is compared with the MLP plug-in route) for the
    :data:`CONTRAST_COLUMNS` of the rows of one dataset."""
    cols = [c for c in CONTRAST_COLUMNS if any(c in r for r in rows)]
    by = {(r["route"], r["objective"]): r for r in rows}
    out = []
    for r in rows:
        r = dict(r)
        bayes = by.get(("bayes", r["objective"]))
        la = None
        if r["objective"] == "label_aggregation":
            la_route = "mlp-plugin" if r["route"] == "mlp-pointwise" else r["route"]
            la = by.get((la_route, "loss_aggregation"))
        for c in cols:
            r[f"gap_{c}"] = r[c] - bayes[c] if bayes is not None else float("nan")
            r[f"shift_{c}"] = r[c] - la[c] if la is not None else float("nan")
        out.append(r)
    return out


def _fit_routes(Xtr, Ytr, Xte, Yte, *, gtr=None, gte=None, routes, seed: int, epochs: int,
                n_estimators: int, xgb_threads: int, mlp_threads: int) -> list[dict]:
    rows = []
    for route, cls, m_la, m_lab, params in learner_routes(
            epochs=epochs, n_estimators=n_estimators, seed=seed, xgb_threads=xgb_threads,
            mlp_threads=mlp_threads):
        if route not in routes:
            continue
        for objective, method in zip(OBJECTIVES, (m_la, m_lab), strict=True):
            if method is None:
                continue
            est = cls(objective=objective, method=method, **params)
            t0 = time.perf_counter()
            est.fit(Xtr, Ytr, gtr)  # query ids (positional: `qid`, formerly `groups`)
            fit_s = time.perf_counter() - t0
            rows.append({"route": route, "learner": route.split("-")[0], "method": method,
                         "objective": objective, "fit_s": fit_s,
                         **evaluate(Yte, est.decision_function(Xte), gte)})
    return rows


def _bayes_rows(Yte, eta, pi) -> list[dict]:
    from bipartite.objectives import Objective

    scorers = {objective: Objective(objective).plugin_scores(eta, pi) for objective in OBJECTIVES}
    return [{"route": "bayes", "learner": "bayes", "method": "exact", "objective": objective,
             "fit_s": 0.0, **evaluate(Yte, s)} for objective, s in scorers.items()]


def _data_path(name: str, data: str | None) -> Path:
    from bipartite.data import data_file

    return data_file(name, data, required=True)


# --------------------------------------------------------------------------------------------
# Figure and key-number table (from the tidy results only)
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# The study function
# --------------------------------------------------------------------------------------------


@register_study("la25.learners_vs_bayes", figures=learners_vs_bayes_figures,
                constraints={"n_train": Range(1, integer=True), "n_test": Range(1, integer=True),
                             "beta": Range(0), "epochs": Range(1, integer=True),
                             "n_estimators": Range(1, integer=True),
                             "xgb_threads": Range(1, integer=True),
                             "mlp_threads": Range(1, integer=True)})
def la25_learners_vs_bayes(*, seed: int, dataset: str, n_train: int = 20000, n_test: int = 20000,
                           beta: float | None = None, epochs: int = 100, n_estimators: int = 300,
                           routes: list[str] | None = None, xgb_threads: int = 1,
                           mlp_threads: int = 1, data: str | None = None) -> list[dict]:
    """Learners vs the Bayes scorers on one dataset, loss vs label aggregation (docs/theory.md
    §4, §5, §7, §9, §10).

    ``dataset``:

    * ``"synthetic"`` / ``"synthetic-det"``: ``make_synthetic(n_train + n_test, priors=(0.5,
      0.05), beta=beta, seed=seed)`` (:func:`bipartite.data.make_synthetic`; ``beta`` defaults
      to 8 and 50), the first ``n_train`` rows to train, the rest to test; plus the rows of the
      Bayes scorers (``route="bayes"``) of loss aggregation (a = 1,
      :func:`bipartite.bayes.loss_aggregation` on the exact test η and the population priors)
      and label aggregation (sum, linear costs, :func:`bipartite.bayes.label_aggregation_scores`);
    * ``"banking"``: ``bank_personal_loan.csv`` of the data folder
      (:func:`bipartite.data.load_bank_personal_loan`), split in halves by a permutation drawn from
      ``numpy.random.default_rng(seed)``;
    * ``"mq2008"``: ``letor/mq2008_S1..S5.txt`` of the data folder
      (:func:`bipartite.data.load_letor`, clicks simulated with two seeds spawned from ``seed``
      by ``numpy.random.SeedSequence``): train on S1-S3, test on S5 (fold 1 of LETOR 4.0,
      :func:`bipartite.data.letor.letor_fold_files`; S4, the official validation part, is
      unused: the learners hold out their own validation queries for early stopping), fitted
      with query groups; adds ``gauc_1``, ``gauc_2``.

    ``n_train`` and ``n_test`` apply to the synthetic datasets only; ``data`` is the data folder
    (default ``$BIPARTITE_DATA``, else ``../shared/data``, :func:`bipartite.data.data_dir`).
    ``routes`` selects among :data:`ROUTES` (default all, :func:`learner_routes`: MLP hidden (64,
    64) with ``epochs``; XGBoost depth 3, learning rate 0.1, ``n_estimators`` trees); every learner
    is seeded with ``seed``. ``xgb_threads`` / ``mlp_threads``: threads per fit (1: the runner
    parallelises over datasets).

    Rows: one per route × objective (the pointwise route under label aggregation only) and, on
    synthetic data, the two Bayes rows. Columns: ``route``, ``learner`` ("mlp", "xgb", "bayes"),
    ``method`` ("pairwise", "plugin", "pointwise", "exact"), ``objective``, ``fit_s`` (seconds),
    ``train_size``, ``test_size``, the metrics of :func:`evaluate` (``auc_1``, ``auc_2``,
    ``crit_loss_agg``, ``crit_label_agg``, ``win_21`` = W_{2>1}, ``near_tie_21``, [``gauc_1``,
    ``gauc_2``]) and the contrasts of :func:`add_contrasts` (``gap_*``, ``shift_*`` of ``auc_1``,
    ``auc_2``, ``crit_loss_agg``, ``crit_label_agg``, ``win_21``); synthetic rows also carry
    ``beta``.

    >>> rows = la25_learners_vs_bayes(seed=0, dataset="synthetic", n_train=200, n_test=300,
    ...                               routes=["xgb-plugin"], n_estimators=5)
    >>> [(r["route"], r["objective"]) for r in rows][:2]
    [('bayes', 'loss_aggregation'), ('bayes', 'label_aggregation')]
    >>> len(rows), rows[0]["gap_auc_1"]
    (4, 0.0)
    """
    if dataset not in DATASETS:
        raise ValueError(f"The 'dataset' parameter must be one of {list(DATASETS)}, got "
                         f"{dataset!r}.")
    routes = list(ROUTES) if routes is None else list(routes)
    unknown = sorted(set(routes) - set(ROUTES))
    if unknown:
        raise ValueError(f"The 'routes' parameter has unknown routes {unknown}; choose from "
                         f"{list(ROUTES)}.")
    if beta is not None and dataset not in SYNTHETIC_BETA:
        raise ValueError(f"The 'beta' parameter applies to the synthetic datasets only, not to "
                         f"{dataset!r}.")
    fit = dict(routes=routes, seed=seed, epochs=epochs, n_estimators=n_estimators,
               xgb_threads=xgb_threads, mlp_threads=mlp_threads)
    extra: dict = {}
    if dataset in SYNTHETIC_BETA:
        from bipartite.data import make_synthetic

        beta = SYNTHETIC_BETA[dataset] if beta is None else beta
        extra["beta"] = beta
        d = make_synthetic(n_train + n_test, priors=SYNTHETIC_PRIORS, beta=beta, seed=seed)
        tr, te = slice(0, n_train), slice(n_train, None)
        Xtr, Ytr, Xte, Yte = d.X[tr], d.Y[tr], d.X[te], d.Y[te]
        rows = _bayes_rows(Yte, d.eta[te], d.pi)
        rows += _fit_routes(Xtr, Ytr, Xte, Yte, **fit)
    elif dataset == "banking":
        from bipartite.data import load_bank_personal_loan

        d = load_bank_personal_loan(_data_path("bank_personal_loan.csv", data))
        perm = np.random.default_rng(seed).permutation(len(d.Y))
        half = len(perm) // 2
        tr, te = perm[:half], perm[half:]
        Xtr, Ytr, Xte, Yte = d.X[tr], d.Y[tr], d.X[te], d.Y[te]
        rows = _fit_routes(Xtr, Ytr, Xte, Yte, **fit)
    else:
        from bipartite.data import load_letor
        from bipartite.data.letor import letor_fold_files

        folder = _data_path("letor/mq2008_S1.txt", data).parent  # says where to get the data
        train_files, test_files, _ = letor_fold_files(folder, 1)
        clicks = [int(c.generate_state(1)[0]) for c in np.random.SeedSequence(seed).spawn(2)]
        train = load_letor(train_files, click="simulated", seed=clicks[0])
        test = load_letor(test_files, click="simulated", seed=clicks[1])
        Xtr, Ytr, Xte, Yte = train.X, train.Y, test.X, test.Y
        rows = _fit_routes(Xtr, Ytr, Xte, Yte, gtr=train.qid, gte=test.qid, **fit)
    sizes = {"train_size": int(len(Ytr)), "test_size": int(len(Yte))}
    return [{**r, **sizes, **extra} for r in add_contrasts(rows)]
