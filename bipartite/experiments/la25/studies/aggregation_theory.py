"""Does the §12 condition predict which label aggregation beats loss aggregation on the LA25 §7
datasets? (docs/theory.md §12.6–§12.10; issue 24, item 2.)

For every aggregation of the §7 family (:data:`AGGREGATIONS`: sum, weighted sums
``w₂/w₁ ∈ {1/4, 1/2, 1, 2, 4}``, OR, AND, lexicographic in both label orders, all with linear
costs) this evaluates :func:`bipartite.pareto.balance_condition` against loss aggregation with
a = 1 on a population:

* **synthetic regimes** (:func:`synthetic_predictions`): the exact population of
  :func:`bipartite.experiments.la25.studies.section7.regime_model` on ``n`` uniform points (the
  true joint, so the verdicts are exact for those points);
* **real data** (:func:`bank_marketing_predictions`, :func:`letor_predictions`): a *plug-in*
  population. :func:`plugin_joint` fits a classifier of the joint label cell
  ``2·Y₁ + Y₂ ∈ {0, 1, 2, 3}`` on the training rows (multinomial logistic regression on
  standardised features, or histogram gradient boosting) and predicts ``Q̂(v | x)`` on the test
  rows; the plug-in population is the test rows with equal mass and that joint
  (:class:`~bipartite.population.FiniteProblem`). Its η̂, π̂ and loss aggregation's AUCs there
  are the condition's inputs; the exact AUCs of the plug-in Bayes scorers on it are its full
  prediction (tilt, under-served label, overshoot). The same plug-in scorers are also scored on
  the *true* test labels (``emp_*`` columns): the plug-in route's own empirical winner.

Each row: ``dataset``, ``split``, ``model``, ``aggregation`` and the columns of
:func:`bipartite.pareto.balance_condition`, plus ``pi_1, pi_2`` (of the population) and, on real
data, ``emp_min_loss, emp_min_label, emp_min_winner``.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from bipartite.experiments.la25.studies.multilabel import PSI_OBJECTIVES

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from bipartite.population import FiniteProblem

__all__ = ["AGGREGATIONS", "MULTILABEL_AGGREGATIONS", "PLUGIN_MODELS", "aggregation_predictions",
           "bank_marketing_predictions", "independent_aggregate_scores", "letor_predictions",
           "multilabel_plugin_logits", "multilabel_predictions", "plugin_balance_rows",
           "plugin_joint", "plugin_predictions", "random_problem_predictions", "synthetic_predictions"]

#: The §7 label-aggregation family (issue 24), as keyword arguments of
#: :func:`bipartite.pareto.balance_condition` (linear costs). ``lex_1_first``: label 1 first,
#: i.e. the weighted sum w = (2, 1) (docs/theory.md §12.9).
AGGREGATIONS: dict[str, dict] = {
    "sum": {"aggregate": "sum"},
    **{f"sum_w2/w1={r:g}": {"aggregate": "sum", "w": [1.0, r]}
       for r in (0.25, 0.5, 1.0, 2.0, 4.0) if r != 1.0},
    "or": {"aggregate": "or"},
    "and": {"aggregate": "product"},
    "lex_1_first": {"aggregate": "sum", "w": [2.0, 1.0]},
    "lex_2_first": {"aggregate": "sum", "w": [1.0, 2.0]},
}
#: The plug-in models of the joint label cell (:func:`plugin_joint`).
PLUGIN_MODELS = ("logistic", "hgb")
#: The label aggregations of the multi-label study (its ``objective`` values, docs/theory.md §5),
#: as the ``aggregate`` of :func:`independent_aggregate_scores`: one per aggregation map of
#: :data:`bipartite.labels.AGGREGATIONS`
#: (:data:`~bipartite.experiments.la25.studies.multilabel.PSI_OBJECTIVES`).
MULTILABEL_AGGREGATIONS: dict[str, str] = dict(PSI_OBJECTIVES)


def aggregation_predictions(problem: FiniteProblem, *, tol: float = 1e-12) -> list[dict]:
    """:func:`bipartite.pareto.balance_condition` for every aggregation of
    :data:`AGGREGATIONS` on ``problem`` (K = 2), one row each (``aggregation`` = its name)."""
    from bipartite.pareto import balance_condition

    pi = problem.pi
    return [{"aggregation": name, "pi_1": float(pi[0]), "pi_2": float(pi[1]),
             **balance_condition(problem, tol=tol, **kw)} for name, kw in AGGREGATIONS.items()]


def random_problem_predictions(n: int = 6, kind: str = "random", *, n_problems: int = 500,
                               seed: int = 0) -> list[dict]:
    """:func:`aggregation_predictions` on ``n_problems`` random K = 2 problems of ``n`` points
    (docs/theory.md §12.10), plus lexicographic aggregation with uniform costs in both orders
    (``lex_1_first_uniform``, ``lex_2_first_uniform``: no closed form, evaluated exactly).

    ``kind``: ``"random"`` (:meth:`~bipartite.population.FiniteProblem.random`, arbitrary
    joints), ``"deterministic"`` (one label vector per point) or ``"independent"``
    (:meth:`~bipartite.population.FiniteProblem.from_eta` with η uniform on [0, 1]², masses
    Dirichlet(1)). Problems with a prior within 1e-6 of 0 or 1 are redrawn. Rows carry
    ``problem`` (index), ``n`` and ``kind``."""
    from bipartite._utils.validation import check_option
    from bipartite.pareto import balance_condition
    from bipartite.population import FiniteProblem

    check_option(kind, "kind", ("random", "deterministic", "independent"))
    rng = np.random.default_rng(seed)
    rows, i = [], 0
    while i < n_problems:
        if kind == "independent":
            P = FiniteProblem.from_eta(rng.dirichlet(np.ones(n)), rng.uniform(0, 1, (n, 2)))
        else:
            P = FiniteProblem.random(n, 2, seed=rng, deterministic=kind == "deterministic")
        if np.any((P.pi < 1e-6) | (P.pi > 1 - 1e-6)):
            continue
        extra = [{"aggregation": f"lex_{f}_first_uniform", "pi_1": float(P.pi[0]),
                  "pi_2": float(P.pi[1]),
                  **balance_condition(P, "sum", w=w, costs="uniform")}
                 for f, w in ((1, [2.0, 1.0]), (2, [1.0, 2.0]))]
        rows += [{"problem": i, "n": n, "kind": kind, **r}
                 for r in aggregation_predictions(P) + extra]
        i += 1
    return rows


def plugin_joint(X_train: ArrayLike, Y_train: ArrayLike, X_test: ArrayLike, *,
                 model: str = "logistic", seed: int = 0) -> np.ndarray:
    """Plug-in joint ``Q̂(v | x)`` on the test rows, shape (n_test, 4), columns
    (0,0), (0,1), (1,0), (1,1) (``itertools.product`` order): a classifier of the cell
    ``2·Y₁ + Y₂`` fitted on the training rows.

    ``model="logistic"``: :class:`~sklearn.linear_model.LogisticRegression` (multinomial,
    lbfgs, C = 1, 2000 iterations) on standardised features; ``"hgb"``:
    :class:`~sklearn.ensemble.HistGradientBoostingClassifier` (200 iterations at most, learning
    rate 0.1, early stopping on 10% of the training rows, ``random_state=seed``). A cell absent
    from the training rows gets probability 0.
    """
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from bipartite._utils.validation import check_array, check_binary, check_option

    check_option(model, "model", PLUGIN_MODELS)
    Xtr = check_array(X_train, "X_train", ndim=2)
    Xte = check_array(X_test, "X_test", ndim=2)
    Ytr = check_binary(Y_train, "Y_train", ndim=2)
    if Ytr.shape != (len(Xtr), 2):
        raise ValueError(f"The 'Y_train' parameter must have shape ({len(Xtr)}, 2), got "
                         f"{Ytr.shape}.")
    cell = 2 * Ytr[:, 0] + Ytr[:, 1]
    if model == "logistic":
        est = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000))
    else:
        est = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.1,
                                             early_stopping=True, validation_fraction=0.1,
                                             random_state=seed)
    est.fit(Xtr, cell)
    Q = np.zeros((len(Xte), 4))
    Q[:, est.classes_.astype(int)] = est.predict_proba(Xte)
    return Q / Q.sum(axis=1, keepdims=True)


def plugin_predictions(X_train: ArrayLike, Y_train: ArrayLike, X_test: ArrayLike,
                       Y_test: ArrayLike, *, model: str = "logistic", seed: int = 0) -> list[dict]:
    """:func:`aggregation_predictions` on the plug-in population of the test rows
    (:func:`plugin_joint`), plus the plug-in scorers' Min AUC on the true test labels:
    ``emp_min_loss`` (loss aggregation, a = 1, π̂ of the plug-in population), ``emp_min_label``
    and ``emp_min_winner`` (``"label"``, ``"loss"`` or ``"tie"``)."""
    from bipartite.bayes import label_aggregation, loss_aggregation
    from bipartite.metrics import min_auc, multilabel_auc
    from bipartite.population import FiniteProblem

    Q = plugin_joint(X_train, Y_train, X_test, model=model, seed=seed)
    problem = FiniteProblem(np.full(len(Q), 1.0 / len(Q)), Q)
    rows = aggregation_predictions(problem)
    Yte = np.asarray(Y_test)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss = min_auc(multilabel_auc(Yte, loss_aggregation(problem.eta, problem.pi)))
        for row in rows:
            kw = AGGREGATIONS[row["aggregation"]]
            label = min_auc(multilabel_auc(Yte, label_aggregation(problem, **kw)))
            row.update(emp_min_loss=loss, emp_min_label=label,
                       emp_min_winner="tie" if label == loss else
                       "label" if label > loss else "loss")
    return rows


def _split_indices(Y: np.ndarray, split: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.model_selection import train_test_split

    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(split),)))
    idx = np.arange(len(Y))
    return train_test_split(idx, test_size=0.3, random_state=int(rng.integers(2**31)),
                            stratify=Y @ [2, 1])


def bank_marketing_predictions(path: str | None = None, *, splits: int = 5, seed: int = 0,
                               model: str = "logistic", n_train: int = 20000,
                               features: str = "client") -> list[dict]:
    """:func:`plugin_predictions` on UCI Bank Marketing
    (:func:`bipartite.data.load_bank_marketing`, labels (mortgage, personal loan)): ``splits``
    stratified 70/30 splits (split ``s`` seeded by ``SeedSequence(seed, spawn_key=(s,))``), the
    training part subsampled to ``n_train`` rows (0: all), as in LA25 §7's protocol
    (:func:`bipartite.experiments.la25.studies.section7.la25_section7_data`; these are splits of
    their own, not the same rows)."""
    from bipartite.data import load_bank_marketing

    d = load_bank_marketing(path, features=features)
    rows = []
    for s in range(splits):
        tr, te = _split_indices(d.Y, s, seed)
        if 0 < n_train < len(tr):
            tr = np.sort(np.random.default_rng([seed, s]).choice(tr, n_train, replace=False))
        for row in plugin_predictions(d.X[tr], d.Y[tr], d.X[te], d.Y[te], model=model, seed=seed):
            rows.append({"dataset": "bank_marketing", "split": s, "model": model,
                         "label_names": "/".join(d.label_names), **row})
    return rows


def letor_predictions(path: str, *, splits: int = 5, seed: int = 0,
                      model: str = "logistic") -> list[dict]:
    """:func:`plugin_predictions` on the MQ2008 stand-in (labels (relevant, click)), fold
    ``s + 1`` of :func:`bipartite.experiments.la25.studies.section7.letor_split` for
    ``s < splits``, clicks simulated with ``seed + s``."""
    from bipartite.experiments.la25.studies.section7 import letor_split

    rows = []
    for s in range(splits):
        train, test, _ = letor_split(path, s, seed=seed + s)
        for row in plugin_predictions(train.X, train.Y, test.X, test.Y, model=model, seed=seed):
            rows.append({"dataset": "letor", "split": s, "model": model,
                         "label_names": "/".join(train.label_names), **row})
    return rows


def synthetic_predictions(regimes: list[str] | None = None,
                          pi2s: tuple[float, ...] = (0.02, 0.05, 0.1, 0.2, 0.35), *,
                          n: int = 20000, seed: int = 0) -> list[dict]:
    """:func:`aggregation_predictions` on the exact population of each §7 synthetic regime
    (:func:`~bipartite.experiments.la25.studies.section7.regime_model`; all of
    :data:`~bipartite.experiments.la25.studies.section7.REGIMES` by default) at each ``pi2``, on
    ``n`` uniform points drawn with ``seed``."""
    from bipartite.experiments.la25.studies.section7 import REGIMES, regime_model

    rows = []
    for name in regimes or list(REGIMES):
        for pi2 in pi2s:
            if name == "nested" and pi2 > 0.5:
                continue
            m = regime_model(name, float(pi2))
            X = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(n, 2))
            for row in aggregation_predictions(m.finite_problem(X)):
                rows.append({"dataset": "synthetic", "regime": name, "pi2": float(pi2), **row})
    return rows


def independent_aggregate_scores(logits: ArrayLike, aggregate: str = "sum") -> np.ndarray:
    """Bayes scorer of label aggregation (linear costs for the sum; any positive costs for AND /
    OR) on conditionally independent labels with ``η_k = σ(z_k)``, for any K, up to an increasing
    map (which leaves every AUC unchanged): docs/theory.md §5 and §12.8.

    * ``"sum"``: ``Σ_k η_k``;
    * ``"product"`` (AND): ``log P(Y = 1 | x) = Σ_k log η_k``;
    * ``"or"``: ``−log P(Y = 0 | x) = −Σ_k log(1 − η_k)``, increasing in ``1 − Π_k (1 − η_k)``.

    Taking logits ``z`` (not η) keeps AND and OR exact where ``Π η_k`` or ``Π (1 − η_k)`` would
    underflow (CAL500 keeps about 100 labels): ``log σ(z) = −log(1 + e^{−z})``. Without the
    independence assumption AND and OR need the joint over ``2^K`` label vectors
    (:func:`bipartite.bayes.label_aggregation_scores`), which K = 174 does not allow.

    >>> independent_aggregate_scores([[0.0, 0.0], [2.0, -2.0]], "sum").round(3).tolist()
    [1.0, 1.0]
    >>> np.exp(independent_aggregate_scores([[0.0, 0.0]], "product")).tolist()
    [0.25]
    """
    from bipartite._utils.validation import check_array, check_option

    z = check_array(logits, "logits", ndim=2)
    check_option(aggregate, "aggregate", tuple(MULTILABEL_AGGREGATIONS.values()))
    if aggregate == "sum":
        from scipy.special import expit

        from bipartite.bayes import label_aggregation_scores

        return label_aggregation_scores(expit(z))
    if aggregate == "product":
        return -np.logaddexp(0.0, -z).sum(axis=1)
    if aggregate == "or":
        return np.logaddexp(0.0, z).sum(axis=1)
    raise ValueError(f"The 'aggregate' parameter {aggregate!r} is an aggregation of "
                     "bipartite.labels.AGGREGATIONS without an independent-labels scorer here yet "
                     "(independent_aggregate_scores, docs/theory.md §5.2).")


def multilabel_plugin_logits(X_train: ArrayLike, Y_train: ArrayLike, X_test: ArrayLike, *,
                             C: float = 1.0) -> np.ndarray:
    """Plug-in logits ``ẑ_k(x) = logit η̂_k(x)`` on the test rows, shape (n_test, K): one
    :class:`~sklearn.linear_model.LogisticRegression` per label (lbfgs, ``C``, 2000 iterations)
    on features standardised with the training rows. Every label needs both classes in
    ``Y_train``."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    from bipartite._utils.validation import check_array, check_binary

    Xtr = check_array(X_train, "X_train", ndim=2)
    Xte = check_array(X_test, "X_test", ndim=2)
    Ytr = check_binary(Y_train, "Y_train", ndim=2)
    if len(Ytr) != len(Xtr):
        raise ValueError(f"The 'Y_train' parameter must have {len(Xtr)} rows, got {len(Ytr)}.")
    single = np.flatnonzero(Ytr.min(axis=0) == Ytr.max(axis=0))
    if single.size:
        raise ValueError(f"The 'Y_train' parameter has a single class in label(s) "
                         f"{single.tolist()}.")
    scaler = StandardScaler().fit(Xtr)
    Ztr, Zte = scaler.transform(Xtr), scaler.transform(Xte)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lbfgs convergence chatter on small, wide sets
        return np.column_stack([
            LogisticRegression(C=C, max_iter=2000).fit(Ztr, Ytr[:, k]).decision_function(Zte)
            for k in range(Ytr.shape[1])])


def plugin_balance_rows(logits: ArrayLike, aggregations: list[str], Y_test: ArrayLike | None = None
                        ) -> list[dict]:
    """:func:`bipartite.pareto.balance_from_aucs` for each label aggregation named in
    ``aggregations`` (keys of :data:`MULTILABEL_AGGREGATIONS`) against loss aggregation (a = 1),
    on the plug-in population of ``n`` points with equal mass and conditionally independent
    labels ``η̂ = σ(logits)`` (shape (n, K), any K).

    Each label's exact AUC on it is :func:`bipartite.metrics.weighted_auc` with masses
    ``η̂ / n`` and ``(1 − η̂) / n`` (docs/theory.md §2.2, self-pairs as ties), for loss
    aggregation's Bayes scorer ``Σ_k η̂_k / (π̂_k (1 − π̂_k))`` (``π̂`` the population's mean η̂)
    and the aggregation's (:func:`independent_aggregate_scores`). The sum gets ``b`` =
    :func:`bipartite.pareto.equivalent_loss_weights` (it is loss aggregation with
    ``b_k = π̂_k (1 − π̂_k)``), AND / OR the typical-point tilt.

    One row per aggregation: ``aggregation``, the scalar keys of ``balance_from_aucs`` (the label
    lists ``worst_loss`` / ``worst_label`` joined by ``/``), ``dmin = min_label − min_loss``,
    ``dmacro`` (the macro-AUC difference), and with ``Y_test`` the plug-in scorers' Min AUC on
    those labels (``emp_min_loss``, ``emp_min_label``).
    """
    from scipy.special import expit

    from bipartite._utils.validation import check_array
    from bipartite.bayes import loss_aggregation
    from bipartite.metrics import min_auc, multilabel_auc, weighted_auc
    from bipartite.pareto import balance_from_aucs, equivalent_loss_weights

    Z = check_array(logits, "logits", ndim=2)
    E = expit(Z)
    p = np.full((len(E), 1), 1.0 / len(E))
    pos, neg = p * E, p * (1.0 - E)
    pi = E.mean(axis=0)
    loss_scores = loss_aggregation(E, pi)
    loss = weighted_auc(loss_scores, pos, neg)
    rows = []
    for name in aggregations:
        scores = independent_aggregate_scores(Z, MULTILABEL_AGGREGATIONS[name])
        label = weighted_auc(scores, pos, neg)
        if name == "sum":
            cond = balance_from_aucs(loss, label, pi=pi, b=equivalent_loss_weights(pi))
        else:
            cond = balance_from_aucs(loss, label, pi=pi, aggregate=MULTILABEL_AGGREGATIONS[name])
        row = {"aggregation": name}
        row.update({k: ("/".join(map(str, v)) if isinstance(v, list) else v)
                    for k, v in cond.items()
                    if k not in ("loss_aucs", "label_aucs", "d", "tilt_weights")})
        row.update(dmin=float(label.min() - loss.min()), dmacro=float(label.mean() - loss.mean()))
        if Y_test is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                row.update(emp_min_loss=min_auc(multilabel_auc(Y_test, loss_scores)),
                           emp_min_label=min_auc(multilabel_auc(Y_test, scores)))
        rows.append(row)
    return rows


def multilabel_predictions(dataset: str, split: int, *, data: str | None = None,
                           C: float = 1.0) -> list[dict]:
    """The condition of docs/theory.md §12 (:func:`bipartite.pareto.balance_from_aucs`) for each
    label aggregation of the multi-label study against loss aggregation (a = 1), on a plug-in
    population of one split of a Mulan set (issue 33).

    The split, its kept labels and the aggregations run on it are the study's
    (:func:`~bipartite.experiments.la25.studies.multilabel.multilabel_split`,
    :func:`~bipartite.experiments.la25.studies.multilabel.kept_labels`,
    :func:`~bipartite.experiments.la25.studies.multilabel.skip_reason`: AND and OR only where
    their label is not almost constant). η̂ comes from :func:`multilabel_plugin_logits` fitted on
    the split's training rows; the plug-in population is the test rows with equal mass and η̂ on
    them, the labels conditionally independent given x (a joint over ``2^K`` label vectors is out
    of reach for K up to 174, and the per-label logistic models give no dependence):
    :func:`plugin_balance_rows`, scored also on the true test labels.

    One row per aggregation run on the split: ``dataset, split, n_kept`` and the columns of
    :func:`plugin_balance_rows`.
    """
    from bipartite.experiments.la25.studies.multilabel import (
        kept_labels,
        multilabel_split,
        skip_reason,
    )

    Xtr, Ytr, Xte, Yte, _, _ = multilabel_split(dataset, split, data=data)
    keep = kept_labels(Ytr, Yte)
    Ytr, Yte = Ytr[:, keep], Yte[:, keep]
    run = [name for name in MULTILABEL_AGGREGATIONS if skip_reason(name, Ytr, Yte) is None]
    if not run:
        return []
    Z = multilabel_plugin_logits(Xtr, Ytr, Xte, C=C)
    return [{"dataset": dataset, "split": int(split), "n_kept": len(keep), **row}
            for row in plugin_balance_rows(Z, run, Yte)]
