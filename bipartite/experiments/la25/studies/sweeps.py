"""LA25's population and learner sweeps (Lukasik et al., ICML 2025: loss vs label aggregation):
``la25.skew``, ``la25.frontier``, ``la25.correlation``, ``la25.weights``,
``la25.learning_curve``, ``la25.consistency`` and ``la25.real`` (docs/theory.md §4-§10).

Every study function uses the package's public API for each formula (population AUCs, Bayes
scorers, frontiers, dictatorship diagnostics, surrogate minimisers, learners) and only arranges the
computations into tidy rows.
"""


from __future__ import annotations

import math

import numpy as np

from bipartite.experiments.la25.figures.sweeps import (
    consistency_figures,
    correlation_figures,
    frontier_figures,
    learning_curve_figures,
    real_figures,
    skew_figures,
    weights_figures,
)
from bipartite.labels import AGGREGATES
from bipartite.studies.config import register_study
from bipartite.studies.constraints import Each, OneOf, Range

__all__ = ["la25_consistency", "la25_correlation", "la25_frontier", "la25_learning_curve",
           "la25_real", "la25_skew", "la25_weights"]

# ============================================================================================
# LA25 studies (Lukasik et al., ICML 2025: loss vs label aggregation)
# ============================================================================================
#
# Every study function below uses the package's public API for each formula (population AUCs,
# Bayes scorers, frontiers, dictatorship diagnostics, surrogate minimisers, learners) and only
# arranges the computations into tidy rows. Sizes for `bipartite reproduce`: la25/run.py.


def _valid_random_problem(n: int, K: int, rng: np.random.Generator, *,
                          deterministic: bool = False, max_tries: int = 1000):
    """``FiniteProblem.random`` redrawn until every prior is strictly inside (0, 1)."""
    from bipartite.population import FiniteProblem

    for _ in range(max_tries):
        problem = FiniteProblem.random(n, K, seed=rng, deterministic=deterministic)
        if np.all((problem.pi > 1e-9) & (problem.pi < 1 - 1e-9)):
            return problem
    raise ValueError(f"could not draw a problem with n={n}, K={K} whose priors are all inside "
                     f"(0, 1) in {max_tries} tries.")


def _quiet(fn, *args, **kwargs):
    """Call ``fn`` with UndefinedMetricWarning silenced (NaN results are recorded as NaN)."""
    import warnings

    from bipartite._utils.validation import UndefinedMetricWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return fn(*args, **kwargs)


@register_study("la25.frontier", figures=frontier_figures,
                constraints={"n": Range(1, integer=True), "time_limit": Range(0, low_open=True)})
def la25_frontier(*, seed: int, n: int = 6, deterministic: bool = False,
                  time_limit: float = 60.0) -> list[dict]:
    """Exact vs supported Pareto frontier of per-label AUCs on a random finite problem (docs/theory.md §6).

    Draws ``FiniteProblem.random(n, 2)`` (redrawn until both priors are inside (0, 1)) and
    computes the exact frontier (:func:`bipartite.pareto.exact_frontier`: subset DP for n ≤ 12,
    MILP above), the supported
    points (:func:`bipartite.pareto.supported_frontier`), and the AUC vectors of the Bayes
    scorers of loss aggregation (a = 1, :func:`bipartite.bayes.loss_aggregation`) and label
    aggregation (sum, linear costs, :func:`bipartite.bayes.label_aggregation`) with their
    Pareto certificates (:func:`bipartite.pareto.is_pareto_optimal`).

    Rows: ``kind`` in {"exact", "supported", "loss_aggregation", "label_aggregation",
    "summary"}; ``auc_1, auc_2``; for exact points ``supported`` (within 1e-7 of a supported
    point); for the Bayes points ``pareto_optimal``; the summary row counts the points and gives
    the hypervolumes (reference (0, 0), :func:`bipartite.pareto.hypervolume`) of both sets.
    If the exact frontier takes longer than ``time_limit`` seconds (wall) the task returns only
    a summary row with ``timed_out=True`` (the tables count such problems), rather than
    blocking a worker: some random problems make the MILP recursion very slow.

    >>> rows = la25_frontier(seed=0, n=4)
    >>> summary = rows[-1]
    >>> summary["kind"], summary["n_exact"] >= summary["n_supported"] >= 1
    ('summary', True)
    """
    from bipartite.bayes import label_aggregation, loss_aggregation
    from bipartite.pareto import exact_frontier, hypervolume, is_pareto_optimal, supported_frontier

    rng = np.random.default_rng(seed)
    problem = _valid_random_problem(n, 2, rng, deterministic=deterministic)
    try:
        exact = exact_frontier(problem, time_limit=time_limit)
    except TimeoutError:
        return [{"kind": "summary", "pi_1": problem.pi[0], "pi_2": problem.pi[1],
                 "timed_out": True}]
    supported = supported_frontier(problem)
    rows: list[dict] = []
    dist = np.abs(exact[:, None, :] - supported[None, :, :]).max(axis=2).min(axis=1)
    is_supported = dist <= 1e-7
    for point, sup in zip(exact, is_supported, strict=True):
        rows.append({"kind": "exact", "auc_1": point[0], "auc_2": point[1],
                     "supported": bool(sup)})
    for point in supported:
        rows.append({"kind": "supported", "auc_1": point[0], "auc_2": point[1]})
    bayes = {"loss_aggregation": loss_aggregation(problem.eta, problem.pi),
             "label_aggregation": label_aggregation(problem)}
    for kind, scores in bayes.items():
        point = problem.auc(scores)
        rows.append({"kind": kind, "auc_1": point[0], "auc_2": point[1],
                     "pareto_optimal": is_pareto_optimal(problem, scores)})
    ref = [0.0, 0.0]
    hv_exact, hv_supported = hypervolume(exact, ref), hypervolume(supported, ref)
    rows.append({"kind": "summary", "pi_1": problem.pi[0], "pi_2": problem.pi[1],
                 "n_exact": len(exact), "n_supported": int(is_supported.sum()),
                 "n_unsupported": int((~is_supported).sum()),
                 "hv_exact": hv_exact, "hv_supported": hv_supported,
                 "hv_gap": hv_exact - hv_supported, "timed_out": False})
    return rows


@register_study("la25.consistency", figures=consistency_figures,
                constraints={"n": Range(1, integer=True), "K": Range(1, integer=True), "plugin_samples": Each(Range(1, integer=True))})
def la25_consistency(*, seed: int, n: int = 8, K: int = 2, surrogate: str = "logistic",
                     objective: str = "loss_aggregation",
                     plugin_samples: list[int] | None = None) -> list[dict]:
    """Surrogate consistency on a random finite problem (docs/theory.md §9).

    Draws ``FiniteProblem.random(n, K)`` and computes the AUC regret
    (:func:`bipartite.consistency.auc_regret`) of (i) the exact population minimiser of the
    pairwise ``surrogate`` risk weighted by the ``objective``'s pair weights
    (:func:`bipartite.consistency.surrogate_minimizer`), (ii) the plug-in scorer on the
    population (:func:`bipartite.consistency.plugin_scores`; regret 0 by Bayes optimality) and
    (iii) the plug-in scorer estimated from samples of each size in ``plugin_samples``.

    Rows: ``method`` ("surrogate", "plugin", "plugin_sampled"), ``n_samples`` (sampled plug-in
    only), ``regret`` and ``positive_regret`` (regret > 1e-6, well above the solver tolerance);
    the surrogate row also says whether the infimum was attained (else a tiny ridge was added,
    see :func:`bipartite.consistency.surrogate_minimizer`) and whether the solver warned.

    >>> rows = la25_consistency(seed=0, n=4, K=1, plugin_samples=[])
    >>> [(r["method"], r["positive_regret"]) for r in rows]  # K = 1: consistent
    [('surrogate', False), ('plugin', False)]
    """
    from bipartite.consistency import auc_regret, plugin_scores, surrogate_minimizer

    rng = np.random.default_rng(seed)
    problem = _valid_random_problem(n, K, rng)
    samples = [100, 1000, 10000] if plugin_samples is None else list(plugin_samples)
    rows = []

    def add(method, scores, **extra):
        regret = float(auc_regret(problem, scores, objective=objective))
        rows.append({"method": method, **extra, "regret": regret,
                     "positive_regret": regret > 1e-6})

    import warnings

    from bipartite.consistency import InfimumNotAttainedWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = surrogate_minimizer(problem, surrogate=surrogate, objective=objective)
    ridge = any(issubclass(w.category, InfimumNotAttainedWarning) for w in caught)
    add("surrogate", scores, infimum_attained=not ridge,
        solver_warning=any(not issubclass(w.category, InfimumNotAttainedWarning)
                           for w in caught))
    add("plugin", plugin_scores(problem, objective=objective))
    for m in samples:
        sample_seed = int(rng.integers(2**32))
        try:
            scores = plugin_scores(problem, objective=objective, n_samples=int(m),
                                   seed=sample_seed)
        except ValueError:  # a label without positives (or negatives) in a small sample
            rows.append({"method": "plugin_sampled", "n_samples": int(m), "regret": np.nan,
                         "positive_regret": False})
            continue
        add("plugin_sampled", scores, n_samples=int(m))
    return rows



# ---- helpers shared by the synthetic LA25 studies -------------------------------------------

_BAYES_NAMES = {"loss_aggregation": "loss aggregation (a = 1)",
                "label_aggregation": "label aggregation (sum)"}


def _scorer_row(problem, scores, **fields) -> dict:
    """Population per-label AUCs and the cross-pair win rate W_{1>2} of one scorer on a finite
    problem (:meth:`FiniteProblem.auc`, :func:`bipartite.dictatorship.population_win_rate`)."""
    from bipartite.dictatorship import population_win_rate

    aucs = _quiet(problem.auc, scores)
    row = dict(fields)
    for k, value in enumerate(aucs):
        row[f"auc_{k + 1}"] = float(value)
    if problem.K >= 2:
        row["win_12"] = _quiet(population_win_rate, problem, scores, 0, 1)
    return row


def _make_learner(learner: str, objective: str, method: str, seed: int, *, epochs: int,
                  n_estimators: int, w=None):
    """An :class:`~bipartite.learners.MLPRanker` or :class:`~bipartite.learners.XGBRanker`,
    single-threaded (the runner parallelises over tasks), seeded."""
    from bipartite.learners import MLPRanker, XGBRanker

    if learner == "mlp":
        return MLPRanker(objective=objective, method=method, w=w, hidden=(32, 32),
                         epochs=epochs, batch_size=512, lr=3e-3, n_iter_no_change=8,
                         n_jobs=1, random_state=seed)
    if learner == "xgb":
        return XGBRanker(objective=objective, method=method, w=w,
                         n_estimators=n_estimators, learning_rate=0.1, max_depth=3,
                         n_jobs=1, random_state=seed)
    raise ValueError(f"The 'learner' parameter must be 'mlp' or 'xgb', got {learner!r}.")


@register_study("la25.skew", figures=skew_figures,
                constraints={"pi1": Range(0, 1, low_open=True, high_open=True), "pi2": Range(0, 1, low_open=True, high_open=True), "beta": Range(0), "rho": Range(0, 1),
                             "n_test": Range(1, integer=True), "n_train": Range(1, integer=True), "epochs": Range(1, integer=True),
                             "n_estimators": Range(1, integer=True)})
def la25_skew(*, seed: int, pi2: float, pi1: float = 0.5, beta: float = 8.0, rho: float = 0.0,
              n_test: int = 20000, n_train: int = 2000, learners: list[str] | None = None,
              epochs: int = 40, n_estimators: int = 150) -> list[dict]:
    """Per-label AUC and dictatorship as label 2 gets rarer (docs/theory.md §4, §5, §7; LA25 §6-7).

    Synthetic problem (:func:`bipartite.data.synthetic_model`, priors ``(pi1, pi2)``); the test
    sample, with its exact conditional joint, is a finite problem
    (:meth:`~bipartite.data.SyntheticModel.finite_problem`) on which AUCs and the cross-pair
    win rate ``W_{1>2}`` are exact population values. Scorers: the Bayes scorers of loss
    aggregation (a = 1) and label aggregation (sum), each label's η alone (the reference), and
    the ``learners`` ("xgb", "mlp") trained with the pairwise objective of each aggregation on
    ``n_train`` samples. Rows: ``scorer`` ("bayes" or the learner), ``objective``,
    ``auc_1, auc_2``, ``frac_1, frac_2`` (AUC as a share of the label's best single-label AUC),
    ``win_12``, and the theory: ``alpha_share_2``, ``dictator`` (-1 for none).

    >>> rows = la25_skew(seed=0, pi2=0.05, n_test=500, learners=[])
    >>> loss = [r for r in rows if r["objective"] == "loss_aggregation"][0]
    >>> loss["dictator"], loss["win_12"] < 0.5  # the rare label 2 dictates
    (1, True)
    """
    from bipartite.bayes import label_aggregation_scores, loss_aggregation
    from bipartite.data import synthetic_model
    from bipartite.dictatorship import dictator, effective_weight_shares

    rng = np.random.default_rng(seed)
    model = synthetic_model(priors=(pi1, pi2), beta=beta, rho=rho)
    test = model.sample(n_test, seed=int(rng.integers(2**32)))
    problem = model.finite_problem(test.X)
    best = [_quiet(problem.auc, test.eta[:, k])[k] for k in range(2)]
    theory = {"alpha_share_2": float(effective_weight_shares(model.pi)[1]),
              "dictator": -1 if dictator(model.pi) is None else int(dictator(model.pi))}
    scorers = {("bayes", "loss_aggregation"): loss_aggregation(test.eta, model.pi),
               ("bayes", "label_aggregation"): label_aggregation_scores(test.eta),
               ("bayes", "label_1_only"): test.eta[:, 0],
               ("bayes", "label_2_only"): test.eta[:, 1]}
    learners = ["xgb"] if learners is None else list(learners)
    if learners:
        train = model.sample(n_train, seed=int(rng.integers(2**32)))
        for learner in learners:
            for objective in ("loss_aggregation", "label_aggregation"):
                est = _make_learner(learner, objective, "pairwise", int(rng.integers(2**31)),
                                    epochs=epochs, n_estimators=n_estimators)
                est.fit(train.X, train.Y)
                scorers[(learner, objective)] = est.decision_function(test.X)
    rows = []
    for (scorer, objective), scores in scorers.items():
        row = _scorer_row(problem, scores, scorer=scorer, objective=objective)
        row.update(frac_1=row["auc_1"] / best[0], frac_2=row["auc_2"] / best[1], **theory)
        rows.append(row)
    return rows


def _correlated_problem(model, X, c: float):
    """Finite problem on the rows of ``X`` whose label correlation slides with ``c`` in [−1, 1].

    ``model`` is a two-label synthetic model (orthogonal directions, η_1 and η_b). Label 2 has
    ``η_2 = |c| η_1^± + (1 − |c|) η_b`` with ``η_1^+ = η_1`` (c > 0) and ``η_1^- = 1 − η_1``
    (c < 0), and the two labels are coupled given x by the Gaussian copula with correlation c
    (:func:`bipartite.population.gaussian_copula_joint`): c = 0 gives label 2 = the independent
    synthetic label, c = 1 gives Y_2 = Y_1 (identical), c = −1 gives Y_2 = 1 − Y_1. Joint
    probabilities below 1e-12 are rounding left by the copula at c = ±1 (e.g. 2e-16 on (1, 1)
    when Y_2 = 1 − Y_1): they are set to 0 and the rows renormalised, so that a constant summed
    label is recognised as such."""
    from bipartite.population import FiniteProblem, gaussian_copula_joint

    E = model.eta(X)
    e1 = E[:, 0]
    toward = e1 if c >= 0 else 1.0 - e1
    eta = np.column_stack([e1, abs(c) * toward + (1.0 - abs(c)) * E[:, 1]])
    joint = gaussian_copula_joint(eta, c)
    joint[joint < 1e-12] = 0.0
    joint /= joint.sum(axis=1, keepdims=True)
    return FiniteProblem(np.full(len(X), 1.0 / len(X)), joint)


@register_study("la25.correlation", figures=correlation_figures,
                constraints={"c": Range(-1, 1), "pi1": Range(0, 1, low_open=True, high_open=True), "pi2": Range(0, 1, low_open=True, high_open=True), "beta": Range(0),
                             "n_points": Range(1, integer=True)})
def la25_correlation(*, seed: int, c: float, pi1: float = 0.5, pi2: float = 0.1,
                     beta: float = 8.0, n_points: int = 2000) -> list[dict]:
    """Label-correlation sweep from anti-correlated (c = −1: Y_2 = 1 − Y_1) through independent
    (c = 0) to identical labels (c = 1) (docs/theory.md §4, §5).

    The synthetic model with priors ``(pi1, pi2)`` (:func:`bipartite.data.synthetic_model`)
    gives η_1 and an independent η_b; label 2 moves from η_b toward η_1 (c > 0) or 1 − η_1
    (c < 0) as in :func:`_correlated_problem`, so its prior moves from pi2 (c = 0) to pi1 or
    1 − pi1. On the finite problem of ``n_points`` sampled x, the Bayes scorers of loss
    aggregation (a = 1) and label aggregation by sum, product and or
    (:func:`bipartite.bayes.label_aggregation`) get their population per-label AUCs, ``win_12``
    and the multipartite AUC of the summed label (``mp_auc``, linear costs; NaN when the sum is
    constant, at c = −1). ``corr`` is the label correlation computed from the joint.

    >>> rows = la25_correlation(seed=0, c=-1.0, n_points=200)
    >>> r = rows[0]
    >>> r["scorer"], round(r["corr"], 6), bool(np.isnan(r["mp_auc"]))
    ('loss_aggregation', -1.0, True)
    """
    from bipartite.bayes import label_aggregation, loss_aggregation
    from bipartite.data import synthetic_model

    rng = np.random.default_rng(seed)
    model = synthetic_model(priors=(pi1, pi2), beta=beta)
    X = model.sample(n_points, seed=int(rng.integers(2**32))).X
    problem = _correlated_problem(model, X, c)
    pi = problem.pi
    joint11 = float(problem.mass @ problem.label_probs[:, 3])
    corr = float((joint11 - pi[0] * pi[1])
                 / math.sqrt(pi[0] * (1 - pi[0]) * pi[1] * (1 - pi[1])))
    scorers = {"loss_aggregation": loss_aggregation(problem.eta, pi)}
    for aggregate in AGGREGATES:  # every tabled ψ (bipartite.labels.AGGREGATIONS)
        try:
            scorers[f"label_{aggregate}"] = _quiet(label_aggregation, problem,
                                                   aggregate=aggregate)
        except ValueError:  # the aggregated label is constant: every scorer is optimal
            scorers[f"label_{aggregate}"] = np.zeros(problem.n)
    rows = []
    for name, scores in scorers.items():
        row = _scorer_row(problem, scores, scorer=name)
        row.update(corr=corr, pi_2=float(pi[1]), mp_auc=_quiet(problem.multipartite_auc, scores))
        rows.append(row)
    return rows


@register_study("la25.weights", figures=weights_figures,
                constraints={"pi1": Range(0, 1, low_open=True, high_open=True), "pi2": Range(0, 1, low_open=True, high_open=True), "beta": Range(0), "rho": Range(0, 1),
                             "n_points": Range(1, integer=True), "n_ratios": Range(1, integer=True),
                             "max_ratio": Range(0, low_open=True)})
def la25_weights(*, seed: int, pi2: float = 0.1, pi1: float = 0.5, beta: float = 8.0,
                 rho: float = 0.0, n_points: int = 2000, n_ratios: int = 25,
                 max_ratio: float = 100.0) -> list[dict]:
    """Weight sensitivity: label-aggregation weights w against loss-aggregation weights a
    (docs/theory.md §4, §5).

    On the finite problem of ``n_points`` synthetic x (exact joint), for ratios r from
    1/max_ratio to max_ratio (log grid), the Bayes scorer of loss aggregation with a = (1, r)
    (:func:`bipartite.bayes.loss_aggregation`) and of label aggregation with w = (1, r)
    (:func:`bipartite.bayes.label_aggregation_scores`). Loss aggregation is even-handed only
    near r* = π_2(1 − π_2)/(π_1(1 − π_1)) (column ``balanced_ratio``): its effective weights
    put the prior into the scale; label aggregation's scorer is free of the priors.

    >>> rows = la25_weights(seed=0, n_points=300, n_ratios=3)
    >>> [(r["aggregation"], r["ratio"]) for r in rows][:3]
    [('loss', 0.01), ('loss', 1.0), ('loss', 100.0)]
    """
    from bipartite.bayes import effective_weights, label_aggregation_scores, loss_aggregation
    from bipartite.data import synthetic_model

    rng = np.random.default_rng(seed)
    model = synthetic_model(priors=(pi1, pi2), beta=beta, rho=rho)
    X = model.sample(n_points, seed=int(rng.integers(2**32))).X
    problem = model.finite_problem(X)
    pi = problem.pi
    balanced = float(pi[1] * (1 - pi[1]) / (pi[0] * (1 - pi[0])))
    ratios = np.logspace(-math.log10(max_ratio), math.log10(max_ratio), n_ratios)
    rows = []
    for aggregation in ("loss", "label"):
        for r in ratios:
            w = np.array([1.0, float(r)])
            if aggregation == "loss":
                scores = loss_aggregation(problem.eta, pi, w)
                alpha = effective_weights(pi, w)
            else:
                scores = label_aggregation_scores(problem.eta, w=w)
                alpha = w
            rows.append(_scorer_row(problem, scores, aggregation=aggregation,
                                    ratio=float(round(r, 12)),
                                    score_weight_share_2=float(alpha[1] / alpha.sum()),
                                    balanced_ratio=balanced))
    return rows


@register_study("la25.learning_curve", figures=learning_curve_figures,
                constraints={"learner": OneOf(("xgb", "mlp")),
                             "method": OneOf(("pairwise", "plugin")),
                             "n_train": Range(1, integer=True), "pi1": Range(0, 1, low_open=True, high_open=True), "pi2": Range(0, 1, low_open=True, high_open=True), "beta": Range(0),
                             "rho": Range(0, 1), "n_test": Range(1, integer=True), "epochs": Range(1, integer=True),
                             "n_estimators": Range(1, integer=True)})
def la25_learning_curve(*, seed: int, n_train: int, learner: str, method: str,
                        objective: str = "loss_aggregation", pi1: float = 0.5,
                        pi2: float = 0.1, beta: float = 8.0, rho: float = 0.0,
                        n_test: int = 5000, epochs: int = 40,
                        n_estimators: int = 150) -> dict:
    """Learners vs Bayes as the training set grows: exact AUC regret (docs/theory.md §9, §10).

    A learner (``"mlp"``/``"xgb"``, ``method`` "pairwise" or "plugin", see
    :mod:`bipartite.learners`) is trained on ``n_train`` synthetic samples; its regret
    (:func:`bipartite.consistency.auc_regret`) is computed on the finite problem of ``n_test``
    test x with their exact conditional joint, against the Bayes scorer of that finite problem.
    Returns ``regret``, the objective value and the per-label AUCs.

    >>> row = la25_learning_curve(seed=0, n_train=300, learner="xgb", method="plugin",
    ...                           n_test=300, n_estimators=10)
    >>> row["regret"] >= 0
    True
    """
    from bipartite.consistency import auc_regret, objective_value
    from bipartite.data import synthetic_model

    rng = np.random.default_rng(seed)
    model = synthetic_model(priors=(pi1, pi2), beta=beta, rho=rho)
    train = model.sample(n_train, seed=int(rng.integers(2**32)))
    test = model.sample(n_test, seed=int(rng.integers(2**32)))
    problem = model.finite_problem(test.X)
    est = _make_learner(learner, objective, method, int(rng.integers(2**31)), epochs=epochs,
                        n_estimators=n_estimators)
    est.fit(train.X, train.Y)
    scores = est.decision_function(test.X)
    row = _scorer_row(problem, scores)
    row.update(regret=float(auc_regret(problem, scores, objective=objective)),
               objective_value=float(objective_value(problem, scores, objective=objective)))
    return row



def _real_split(dataset: str, path: str, rng: np.random.Generator):
    """Load Banking or LETOR (:func:`bipartite.data.load_bank_personal_loan` / ``load_letor``) and split
    70/30 (by query for LETOR)."""
    from sklearn.model_selection import GroupShuffleSplit, train_test_split

    from bipartite.data import load_bank_personal_loan, load_letor
    from bipartite.data.letor import letor_files

    split_seed = int(rng.integers(2**31))
    if dataset == "banking":
        d = load_bank_personal_loan(path)
        codes = d.Y @ (2 ** np.arange(d.Y.shape[1]))
        tr, te = train_test_split(np.arange(len(d.Y)), test_size=0.3, random_state=split_seed,
                                  stratify=codes)
        groups = None
    elif dataset == "letor":
        d = load_letor([str(f) for f in letor_files(path)], seed=split_seed)
        splitter = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=split_seed)
        tr, te = next(splitter.split(d.X, d.Y, groups=d.qid))
        groups = d.qid
    else:
        raise ValueError(f"The 'dataset' parameter must be 'banking' or 'letor', got {dataset!r}.")
    return d, tr, te, groups


@register_study("la25.real", figures=real_figures,
                constraints={"learner": OneOf(("xgb", "mlp")), "n_weights": Range(1, integer=True),
                             "n_estimators": Range(1, integer=True), "epochs": Range(1, integer=True)})
def la25_real(*, seed: int, dataset: str, path: str, learner: str = "xgb",
              n_weights: int = 11, n_estimators: int = 200, epochs: int = 60) -> list[dict]:
    """Per-label AUC trade-offs on real data: Banking or LETOR (docs/theory.md §4-§7, §10; LA25 §7).

    A 70/30 split (by query for LETOR). The ``learner`` ("xgb" or "mlp") estimates each η_k by
    the plug-in route (label aggregation with weights e_k: the score is η̂_k); the weight sweeps
    of loss aggregation (:func:`bipartite.bayes.loss_aggregation`, a = (1 − t, t), π̂ = training
    means) and of label aggregation (w = (1 − t, t),
    :func:`bipartite.bayes.label_aggregation_scores`) trace the per-label test AUCs reachable by
    each family; the same learner trained directly with the pairwise objective of loss
    aggregation (a = 1) and label aggregation (sum) gives one point each (``kind="direct"``).
    Test metrics: per-label AUC (pooled), gAUC per query for LETOR
    (:func:`bipartite.metrics.group_auc`), and the cross-pair win rate W_{1>2}
    (:func:`bipartite.dictatorship.cross_pair_win_rate`).
    """
    from bipartite.bayes import label_aggregation_scores, loss_aggregation
    from bipartite.dictatorship import cross_pair_win_rate
    from bipartite.metrics import group_auc, multilabel_auc

    rng = np.random.default_rng(seed)
    d, tr, te, groups = _real_split(dataset, path, rng)
    X, Y = np.asarray(d.X, dtype=np.float64), np.asarray(d.Y)
    K = Y.shape[1]
    g_tr = None if groups is None else groups[tr]
    eta_hat = np.empty((len(te), K))
    for k in range(K):
        est = _make_learner(learner, "label_aggregation", "plugin", int(rng.integers(2**31)),
                            epochs=epochs, n_estimators=n_estimators, w=np.eye(K)[k])
        est.fit(X[tr], Y[tr])
        eta_hat[:, k] = est.decision_function(X[te])
    pi_hat = Y[tr].mean(axis=0)
    t = np.linspace(0.0, 1.0, n_weights)

    def metrics(scores) -> dict:
        row = {f"auc_{k + 1}": v for k, v in enumerate(_quiet(multilabel_auc, Y[te], scores))}
        if groups is not None:
            for k in range(K):
                row[f"gauc_{k + 1}"] = _quiet(group_auc, Y[te, k], scores, groups[te])
        row["win_12"] = _quiet(cross_pair_win_rate, Y[te], scores, 0, 1)
        return row

    rows = []
    for ti in t:
        w = np.array([1.0 - ti, ti])
        loss_scores = loss_aggregation(eta_hat, pi_hat, w)
        label_scores = label_aggregation_scores(eta_hat, w=w)
        rows.append({"kind": "loss_sweep", "t": float(ti), **metrics(loss_scores)})
        rows.append({"kind": "label_sweep", "t": float(ti), **metrics(label_scores)})
    for objective in ("loss_aggregation", "label_aggregation"):
        est = _make_learner(learner, objective, "pairwise", int(rng.integers(2**31)),
                            epochs=epochs, n_estimators=n_estimators)
        est.fit(X[tr], Y[tr], g_tr)
        rows.append({"kind": "direct", "objective": objective,
                     **metrics(est.decision_function(X[te]))})
    for row in rows:
        row.update(label_1=d.label_names[0], label_2=d.label_names[1],
                   pi_1=float(pi_hat[0]), pi_2=float(pi_hat[1]))
    return rows
