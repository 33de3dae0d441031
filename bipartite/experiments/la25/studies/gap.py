"""Learners vs their Bayes scorers at strong skew: estimation error vs surrogate inconsistency
(docs/theory.md §9, §12).

The study ``la25.section7_gap`` (π = (½, 0.02) by default, the package's synthetic generator)
measures each learning route's gap to the Bayes scorer of its objective on a test population
with exact conditional labels, as the training set grows:

* the **plug-in** routes (``xgb-plugin``, ``mlp-plugin``: η̂_k by a proper loss, then the closed
  form) are consistent, so their gap is estimation error and shrinks with ``n_train``;
* the **pairwise** routes (``xgb-pairwise``, ``mlp-pairwise``) carry estimation error *and* the
  inconsistency of the pairwise surrogate for K ≥ 2 (docs/theory.md §9);
* the **population** routes (``population-logistic``, ``population-exponential``) are the exact
  minimisers of the pairwise surrogate risk on the test population itself — unlimited data and
  an unrestricted scorer — so their gap is the inconsistency alone.
"""

from __future__ import annotations

import warnings

import numpy as np

from bipartite.consistency import pairwise_population_minimizer
from bipartite.experiments.la25.figures.section7 import GAP_ROUTES, gap_figures
from bipartite.objectives import Objective
from bipartite.studies.config import register_study

__all__ = ["GAP_ROUTES", "la25_section7_gap"]

@register_study("la25.section7_gap", figures=gap_figures)
def la25_section7_gap(*, seed: int, route: str, n_train: int = 4000, pi2: float = 0.02,
                      objective: str = "loss_aggregation", n_test: int = 2000, n_pop: int = 1000,
                      epochs: int = 40, n_estimators: int = 200) -> dict:
    """Gap of one learning route to the Bayes scorer of ``objective`` (docs/theory.md §9, §12).

    The synthetic model (:func:`bipartite.data.synthetic_model`, priors (½, ``pi2``), β = 8) and
    a test sample of ``n_test`` x with its exact joint (a finite problem; the Bayes scorer is
    exact on it). A learner route (``xgb-…``, ``mlp-…``; XGBoost depth 3, ``n_estimators`` trees;
    MLP (32, 32), ``epochs``) is trained on ``n_train`` samples; a population route minimises the
    pairwise surrogate risk on the first ``n_pop`` test points
    (:func:`bipartite.consistency.pairwise_population_minimizer`) and is compared with the Bayes scorer there
    (``n_train`` is then 0).

    Returns ``auc_1, auc_2, win_12`` of the route, ``bayes_auc_1, bayes_auc_2, bayes_win_12``,
    the gaps ``gap_auc_1, gap_auc_2, gap_win_12`` (route − Bayes), ``max_abs_gap`` (largest
    ``|gap|`` of the two AUCs) and ``regret`` (:func:`bipartite.consistency.auc_regret`).

    >>> row = la25_section7_gap(seed=0, route="xgb-plugin", n_train=500, n_test=300,
    ...                         n_estimators=5)
    >>> row["regret"] >= 0, row["n_train"]
    (True, 500)
    """
    from bipartite.consistency import auc_regret
    from bipartite.data import synthetic_model
    from bipartite.dictatorship import population_win_rate
    from bipartite.learners import MLPRanker, XGBRanker

    if route not in GAP_ROUTES:
        raise ValueError(f"The 'route' parameter must be one of {list(GAP_ROUTES)}, got "
                         f"{route!r}.")
    rng = np.random.default_rng(seed)
    model = synthetic_model(priors=(0.5, pi2))
    test = model.sample(n_test, seed=int(rng.integers(2**32)))
    X, eta = test.X, test.eta
    if route.startswith("population"):
        X, eta, n_train = X[:n_pop], eta[:n_pop], 0
    problem = model.finite_problem(X)
    bayes = Objective(objective).plugin_scores(eta, model.pi)  # exact η: the Bayes scorer
    if route.startswith("population"):
        scores = pairwise_population_minimizer(problem, surrogate=route.split("-")[1],
                                               objective=objective)
    else:
        learner, method = route.split("-")
        train = model.sample(n_train, seed=int(rng.integers(2**32)))
        est_seed = int(rng.integers(2**31))
        if learner == "xgb":
            est = XGBRanker(objective=objective, method=method, n_estimators=n_estimators,
                            learning_rate=0.1, max_depth=3, n_jobs=1, random_state=est_seed)
        else:
            est = MLPRanker(objective=objective, method=method, hidden=(32, 32), epochs=epochs,
                            lr=3e-3, n_iter_no_change=8, n_jobs=1, random_state=est_seed,
                            batch_size=512 if method == "pairwise" or n_train < 20000 else 2048)
        scores = est.fit(train.X, train.Y).decision_function(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = {"objective": objective, "pi2": float(pi2), "n_train": int(n_train),
               "n_points": len(X)}
        for name, s in (("", scores), ("bayes_", bayes)):
            aucs = problem.auc(s)
            row.update({f"{name}auc_1": float(aucs[0]), f"{name}auc_2": float(aucs[1]),
                        f"{name}win_12": float(population_win_rate(problem, s, 0, 1))})
        row["regret"] = float(auc_regret(problem, scores, objective=objective))
    for c in ("auc_1", "auc_2", "win_12"):
        row[f"gap_{c}"] = row[c] - row[f"bayes_{c}"]
    row["max_abs_gap"] = max(abs(row["gap_auc_1"]), abs(row["gap_auc_2"]))
    return row
