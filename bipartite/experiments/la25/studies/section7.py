"""LA25 §7 as the paper ran it: per-label AUCs, Diff AUC and Min AUC of every objective
(docs/theory.md §10.7, §12).

Two study functions, registered with the runner:

* ``la25.section7_synthetic`` — the synthetic skew sweep in six label-dependence regimes
  (:data:`REGIMES`): the Bayes scorers of both aggregations and of each label alone (exact
  population AUCs on a test sample with its exact conditional labels), the frontier they trace
  (:func:`bipartite.pareto.weight_sweep`), and learners trained with each aggregation;
* ``la25.section7_data`` — the paper's table on real data (UCI Bank Marketing, the MQ2008
  stand-in for MSLR-WEB30K, or real MSLR folds when given): one row per objective (each label
  alone, label aggregation by sum with linear costs, loss aggregation with a = 1) and learner
  (:data:`LEARNERS`), test AUCs per label, Diff and Min AUC (:func:`bipartite.metrics.diff_auc`,
  :func:`bipartite.metrics.min_auc`); and a plug-in weight sweep that traces the learners'
  reachable trade-offs.

Tables and figures: :mod:`bipartite.experiments.la25.figures.section7`. The LETOR fold layouts
(MQ2008 parts, MSLR folds) live in :mod:`bipartite.data.letor` (:func:`~bipartite.data.letor.letor_fold_files`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bipartite.experiments.la25.figures.section7 import section7_data_figures, synthetic_figures
from bipartite.experiments.la25.studies.family import (
    FAMILY_OBJECTIVES,
    FAMILY_RATIOS,
    family_weights,
)
from bipartite.studies.config import register_study
from bipartite.studies.constraints import Range

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from sklearn.utils import Bunch

    from bipartite.learners import MLPRanker, XGBRanker
    from bipartite.population import FiniteProblem

__all__ = ["FAMILY_OBJECTIVES", "FAMILY_RATIOS", "LEARNERS", "MAX_MIN_OBJECTIVES", "OBJECTIVES",
           "REGIMES", "Regime", "RegimeModel", "family_bayes_scores", "family_weights",
           "la25_section7_data", "la25_section7_synthetic", "letor_split", "make_learner",
           "regime_model"]

#: The four rows of LA25 §7's table: each label alone, label aggregation (Ȳ = Y₁ + Y₂, linear
#: costs) and loss aggregation with a = (1, 1); as learner keyword arguments.
OBJECTIVES: dict[str, dict] = {
    "label_1": {"objective": "loss_aggregation", "a": [1.0, 0.0]},
    "label_2": {"objective": "loss_aggregation", "a": [0.0, 1.0]},
    "label_aggregation": {"objective": "label_aggregation"},
    "loss_aggregation": {"objective": "loss_aggregation"},
}
#: The balanced rows (docs/theory.md §13.6; issue 13), fitted when a §7 study runs with
#: ``max_min=True``: the max-min AUC objective by the pairwise route (group DRO over the per-label
#: pairwise losses, the learner's own surrogate) and by the plug-in route (η̂_k heads, then the
#: weighting a that maximises the held-out min AUC). The MLP and linear plug-in learners hold out
#: 25% of the rows (the value docs/theory.md §13.6 advises when a label is rare; XGBoost's
#: default is 0.25 already); everything else is the row's learner as for the other objectives.
MAX_MIN_OBJECTIVES: dict[str, dict] = {
    "max_min": {"objective": "max_min", "method": "pairwise"},
    "max_min_plugin": {"objective": "max_min", "method": "plugin"},
}
#: The learners: ``linear`` / ``linear_hinge`` are the paper's family ("AUC optimisation with
#: logistic or hinge surrogates"): an :class:`~bipartite.learners.MLPRanker` with ``hidden=()``,
#: which is one ``Linear`` layer on standardised inputs, i.e. a linear scorer ``w·x + b``, trained
#: with the pairwise logistic or hinge loss weighted by the objective's pair weights
#: (:mod:`bipartite.surrogates`); ``mlp`` a (32, 32) ReLU MLP with the logistic loss; ``xgb``
#: XGBoost ``rank:pairwise`` with the objective's pair weights (docs/theory.md §10.3). The linear
#: scorer uses a larger step (3e-2) and patience (10 epochs) than the MLP: started with a
#: reversed weight, its loss falls while the order (and so the validation AUC) stays reversed until
#: the weight crosses zero, and a patience of 5 epochs at 1e-2 stopped it there (AUC 0.04 on one
#: synthetic replicate).
LEARNERS = ("linear", "linear_hinge", "mlp", "xgb")


def make_learner(learner: str, objective: str, seed: int, *, epochs: int = 40,
                 n_estimators: int = 200) -> MLPRanker | XGBRanker:
    """The §7 learner ``learner`` for the table row ``objective`` (:data:`OBJECTIVES`,
    :data:`MAX_MIN_OBJECTIVES` or :data:`FAMILY_OBJECTIVES`), single-threaded (the runner
    parallelises over tasks) and seeded."""
    from bipartite.learners import MLPRanker, XGBRanker

    rows = {**OBJECTIVES, **MAX_MIN_OBJECTIVES, **FAMILY_OBJECTIVES}
    if objective not in rows:
        raise ValueError(f"The 'objective' parameter must be one of {list(rows)}, got "
                         f"{objective!r}.")
    kw = dict(rows[objective])
    if kw.get("method") == "plugin" and learner != "xgb":
        kw["validation_fraction"] = 0.25
    if learner in ("linear", "linear_hinge"):
        return MLPRanker(**kw, hidden=(), surrogate="hinge" if learner == "linear_hinge"
                         else "logistic", epochs=epochs, batch_size=512, lr=3e-2,
                         n_iter_no_change=10, n_jobs=1, random_state=seed)
    if learner == "mlp":
        return MLPRanker(**kw, hidden=(32, 32), epochs=epochs, batch_size=512, lr=3e-3,
                         n_iter_no_change=5, n_jobs=1, random_state=seed)
    if learner == "xgb":
        return XGBRanker(**kw, n_estimators=n_estimators, learning_rate=0.1, max_depth=3,
                         n_jobs=1, random_state=seed)
    raise ValueError(f"The 'learner' parameter must be one of {list(LEARNERS)}, got {learner!r}.")


def _balance(aucs) -> dict:
    """``auc_1, auc_2, diff, min`` of a per-label AUC vector (LA25 §7's Diff and Min AUC)."""
    from bipartite.metrics import diff_auc, min_auc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # clip a rounding ulp above 1 (diff_auc/min_auc refuse 1.0000000000000002)
        a = np.clip(np.asarray(aucs, dtype=float), 0.0, 1.0)
        return {"auc_1": float(a[0]), "auc_2": float(a[1]), "diff": diff_auc(a),
                "min": min_auc(a)}


# ============================================================================================
# Synthetic regimes
# ============================================================================================

@dataclasses.dataclass(frozen=True)
class Regime:
    """A label-dependence regime: x uniform on [−1, 1]², η₁ = σ(β₁(x₁ − t₁)) with π₁ = ½, label 2
    on the direction ``(sin τ, cos τ)`` (``tilt`` τ; 0 is the x₂ axis, independent of label 1)
    with sharpness β₂, coupled to label 1 given x by a Gaussian copula ``rho``, or nested
    (``Y₂ ⊂ Y₁``: η₂ = η₁ σ(β₂(x₂ − t₂)), P(Y₂ = 1, Y₁ = 0 | x) = 0)."""

    beta: tuple[float, float] = (8.0, 8.0)
    tilt: float = 0.0
    rho: float = 0.0
    nested: bool = False
    text: str = ""


#: The six regimes of the sweep.
REGIMES: dict[str, Regime] = {
    "independent": Regime(text="independent coordinates and labels (the package's generator)"),
    "positive": Regime(tilt=math.pi / 4, rho=0.5,
                       text="label 2 tilted 45° toward label 1, copula ρ = +0.5"),
    "negative": Regime(tilt=-math.pi / 4, rho=-0.5,
                       text="label 2 tilted 45° away from label 1, copula ρ = −0.5"),
    "nested": Regime(nested=True, text="Y₂ ⊂ Y₁ (clicks within relevant documents)"),
    "balanced_harder": Regime(beta=(2.0, 8.0), text="balanced label 1 harder (β₁ = 2, β₂ = 8)"),
    "balanced_easier": Regime(beta=(8.0, 2.0), text="skewed label 2 harder (β₁ = 8, β₂ = 2)"),
}


@functools.lru_cache(maxsize=1)
def _grid() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tensor Gauss–Legendre rule on [−1, 1]² (64 panels × 8 nodes per axis), weights summing to
    1: the expectation over uniform x used to set the priors (error ~1e-10 for β ≤ 8)."""
    g, w = np.polynomial.legendre.leggauss(8)
    edges = np.linspace(-1.0, 1.0, 65)
    lo, hi = edges[:-1, None], edges[1:, None]
    nodes = ((lo + hi) / 2 + (hi - lo) / 2 * g).ravel()
    weights = ((hi - lo) / 2 * w).ravel() / 2
    X1, X2 = np.meshgrid(nodes, nodes, indexing="ij")
    return X1.ravel(), X2.ravel(), np.outer(weights, weights).ravel()


@dataclasses.dataclass(frozen=True)
class RegimeModel:
    """The two-label synthetic model of a regime at prior ``pi2`` (:func:`regime_model`)."""

    name: str
    regime: Regime
    thresholds: tuple[float, float]
    pi: np.ndarray

    def eta(self, X: ArrayLike) -> np.ndarray:
        """η(x), shape (n, 2)."""
        from scipy.special import expit

        X = np.asarray(X, dtype=float)
        (b1, b2), (t1, t2), tau = self.regime.beta, self.thresholds, self.regime.tilt
        e1 = expit(b1 * (X[:, 0] - t1))
        if self.regime.nested:
            e2 = e1 if math.isinf(t2) else e1 * expit(b2 * (X[:, 1] - t2))
        else:
            e2 = expit(b2 * (math.sin(tau) * X[:, 0] + math.cos(tau) * X[:, 1] - t2))
        return np.column_stack([e1, e2])

    def joint(self, X: ArrayLike) -> np.ndarray:
        """P(Y = v | x) over (0,0), (0,1), (1,0), (1,1), shape (n, 4)."""
        from bipartite.population import gaussian_copula_joint, independent_joint

        E = self.eta(X)
        if self.regime.nested:
            Q = np.column_stack([1 - E[:, 0], np.zeros(len(E)), E[:, 0] - E[:, 1], E[:, 1]])
            return np.clip(Q, 0.0, 1.0)
        if self.regime.rho == 0.0:
            return independent_joint(E)
        return gaussian_copula_joint(E, self.regime.rho)

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(X, Y, eta)``: n uniform x and label vectors drawn from the exact joint."""
        from bipartite.population import label_vectors

        X = rng.uniform(-1.0, 1.0, size=(n, 2))
        cdf = np.cumsum(self.joint(X), axis=1)
        u = rng.random(n)[:, None] * cdf[:, -1:]
        m = np.minimum((u >= cdf).sum(axis=1), 3)
        return X, label_vectors(2)[m].astype(np.int64), self.eta(X)

    def finite_problem(self, X: ArrayLike) -> FiniteProblem:
        """The rows of ``X`` with uniform mass and the exact joint
        (:class:`bipartite.population.FiniteProblem`): AUCs on it are exact given those x."""
        from bipartite.population import FiniteProblem

        return FiniteProblem(np.full(len(X), 1.0 / len(X)), self.joint(X))


@functools.lru_cache(maxsize=64)
def regime_model(name: str, pi2: float) -> RegimeModel:
    """The model of regime ``name`` (:data:`REGIMES`) with priors (½, ``pi2``); the thresholds
    solve E[η_k(X)] = π_k on the quadrature of :func:`_grid` (Brent). ``nested`` needs
    pi2 ≤ ½ (pi2 = ½ makes the labels identical).

    >>> m = regime_model("independent", 0.1)
    >>> np.round(m.pi, 8).tolist()
    [0.5, 0.1]
    """
    from scipy import optimize
    from scipy.special import expit

    if name not in REGIMES:
        raise ValueError(f"The 'regime' parameter must be one of {list(REGIMES)}, got {name!r}.")
    if not 0.0 < pi2 < 1.0:
        raise ValueError(f"The 'pi2' parameter must be in (0, 1), got {pi2!r}.")
    reg = REGIMES[name]
    X1, X2, W = _grid()
    b1, b2 = reg.beta

    def solve(fn, target):
        return optimize.brentq(lambda t: W @ fn(t) - target, -1.0 - 40 / b1 - 40 / b2,
                               1.0 + 40 / b1 + 40 / b2, xtol=1e-13)

    t1 = solve(lambda t: expit(b1 * (X1 - t)), 0.5)
    e1 = expit(b1 * (X1 - t1))
    if reg.nested:
        if pi2 > 0.5 + 1e-12:
            raise ValueError(f"nested labels need pi2 <= pi1 = 0.5, got {pi2!r}.")
        t2 = -math.inf if pi2 >= 0.5 - 1e-12 else solve(lambda t: e1 * expit(b2 * (X2 - t)), pi2)
    else:
        s, c = math.sin(reg.tilt), math.cos(reg.tilt)
        t2 = solve(lambda t: expit(b2 * (s * X1 + c * X2 - t)), pi2)
    return RegimeModel(name, reg, (float(t1), float(t2)), np.array([0.5, float(pi2)]))


def family_bayes_scores(eta: ArrayLike, pi: ArrayLike, joint: ArrayLike) -> dict[str, np.ndarray]:
    """The Bayes scorers of the rows of :data:`FAMILY_OBJECTIVES` that have a closed form
    (:meth:`bipartite.objectives.Objective.plugin_scores`: ``w·η`` for the weighted sums,
    a cell of the joint for OR and AND, ``Σ_k α_k η_k`` with the priors ``pi`` for loss
    aggregation), given η (n, 2) and the joint ``P(Y = v | x)`` (n, 4). The lexicographic rows
    (four levels, uniform costs) have none and are left out.

    >>> s = family_bayes_scores([[0.9, 0.2]], [0.5, 0.5], [[0.08, 0.02, 0.72, 0.18]])
    >>> round(float(s["label_and"][0]), 2), round(float(s["label_or"][0]), 2), "label_lex_12" in s
    (0.18, 0.92, False)
    """
    from bipartite.objectives import as_objective

    out = {}
    for name, spec in FAMILY_OBJECTIVES.items():
        obj = as_objective(**spec)
        if obj.kind == "label_aggregation" and not (obj.linear_costs or obj.binary_aggregate):
            continue
        out[name] = obj.plugin_scores(eta, pi, joint=joint)
    return out


#: The columns of a family row whose objective is undefined on the training rows (NaN).
_UNDEFINED = {"auc_1": math.nan, "auc_2": math.nan, "diff": math.nan, "min": math.nan,
              "win_12": math.nan, "note": "aggregated label constant in the training rows"}


def _family_scores(learner: str, objective: str, seed: int, Xtr, Ytr, Xte, *, epochs: int,
                   n_estimators: int) -> np.ndarray | None:
    """Test scores of the family row ``objective`` fitted by ``learner``, or None, with an
    :class:`~bipartite.UndefinedMetricWarning`, when its aggregated label is constant on the
    training rows (AND with no row holding both labels: the objective is undefined, nothing
    to fit). The study then writes the row with NaN AUCs and a ``note``; the family tables
    pair only the defined rows."""
    from bipartite._utils.validation import UndefinedMetricWarning
    from bipartite.labels import aggregate_labels
    from bipartite.learners.base import check_comparable_levels
    from bipartite.objectives import as_objective

    obj = as_objective(**FAMILY_OBJECTIVES[objective])
    if obj.kind == "label_aggregation":
        try:
            check_comparable_levels(aggregate_labels(Ytr, obj.aggregate, obj.w))
        except ValueError:
            warnings.warn(f"The family row {objective!r} is undefined: its aggregated label is "
                          "constant on the training rows.", UndefinedMetricWarning, stacklevel=2)
            return None
    est = make_learner(learner, objective, seed, epochs=epochs, n_estimators=n_estimators)
    return est.fit(Xtr, Ytr).decision_function(Xte)


def _label_corr(problem) -> float:
    pi = problem.pi
    p11 = float(problem.mass @ problem.label_probs[:, 3])
    return float((p11 - pi[0] * pi[1]) / math.sqrt(pi[0] * (1 - pi[0]) * pi[1] * (1 - pi[1])))


@register_study("la25.section7_synthetic", figures=synthetic_figures,
                constraints={"pi2": Range(0, 1, low_open=True, high_open=True), "n_test": Range(1, integer=True), "n_train": Range(1, integer=True),
                             "n_sweep": Range(1, integer=True), "epochs": Range(1, integer=True), "n_estimators": Range(1, integer=True)})
def la25_section7_synthetic(*, seed: int, regime: str, pi2: float, n_test: int = 20000,
                            n_train: int = 4000, learners: list[str] | None = None,
                            learner_pi2: list[float] | None = None, n_sweep: int = 41,
                            epochs: int = 40, n_estimators: int = 150,
                            max_min: bool = False, family: bool = False) -> list[dict]:
    """LA25 §7's synthetic trend in one label-dependence regime at one skew (docs/theory.md §12).

    Model :func:`regime_model` (π = (½, ``pi2``)); a test sample of ``n_test`` x with its exact
    joint is a finite problem on which every AUC is exact. Rows (``learner``, ``objective``):

    * ``bayes``: the Bayes scorers of ``label_1`` (η₁), ``label_2`` (η₂), ``label_aggregation``
      (η₁ + η₂, :func:`bipartite.bayes.label_aggregation_scores`) and ``loss_aggregation``
      (a = 1, :func:`bipartite.bayes.loss_aggregation` with the population priors);
    * ``frontier``: the sweep f_t of loss aggregation with a = (1 − t, t), t = r/(1 + r) for
      ``n_sweep`` ratios r log-spaced in [10⁻³, 10³] (:func:`bipartite.pareto.weight_sweep`): the
      supported frontier that both Bayes points lie on (``t``);
    * ``max_min``: the point with the highest Min AUC among the sweep and the Bayes points of
      both aggregations (the best balance a weighting reaches, to the grid's resolution; the exact
      value is :func:`bipartite.pareto.max_min_supported`, too slow at this n);
    * each learner of ``learners`` (:data:`LEARNERS`; default ``["linear", "xgb"]``), trained on
      ``n_train`` samples with label and loss aggregation — only when ``pi2`` is in
      ``learner_pi2`` (default: always).

    With ``max_min=True`` (docs/theory.md §13; :mod:`bipartite.experiments.la25.studies.maxmin`) also:
    the row ``("bayes", "max_min_supported")``, the best weighting, refined from the sweep; each
    learner with the two max-min objectives of :data:`MAX_MIN_OBJECTIVES` (same training
    sample, seeds from a stream of their own so the other rows do not change); and on every
    scorer's row its gap to the max-min point of the test population, bracketed exactly
    (columns of :func:`~bipartite.experiments.la25.studies.maxmin.max_min_gap_columns`).

    With ``family=True`` (issue 24) also the aggregation family of :data:`FAMILY_OBJECTIVES`:
    its Bayes scorers (:func:`family_bayes_scores`; every row but the lexicographic ones, which
    have no closed form) at every ``pi2``, and each learner fitted with each of its objectives
    where the learners run (same training sample; seeds from a stream of their own,
    ``SeedSequence([seed, 14])``, so the other rows do not change).

    Columns: ``auc_1, auc_2, diff, min`` (Diff/Min AUC), ``win_12`` (cross-pair win rate
    W₁>₂, :func:`bipartite.dictatorship.population_win_rate`), ``corr`` (label correlation of
    the test problem), ``pi_1, pi_2``.

    >>> rows = la25_section7_synthetic(seed=0, regime="independent", pi2=0.05, n_test=400,
    ...                                learners=[], n_sweep=3)
    >>> r = {x["objective"]: x for x in rows if x["learner"] == "bayes"}
    >>> r["loss_aggregation"]["min"] > r["label_aggregation"]["min"]
    True
    """
    from bipartite.bayes import label_aggregation_scores, loss_aggregation
    from bipartite.dictatorship import population_win_rate
    from bipartite.pareto import weight_sweep

    rng = np.random.default_rng(seed)
    model = regime_model(regime, float(pi2))
    X, _, eta = model.sample(n_test, np.random.default_rng(rng.integers(2**32)))
    problem = model.finite_problem(X)
    common = {"corr": _label_corr(problem), "pi_1": 0.5, "pi_2": float(pi2)}
    rows: list[dict] = []

    def add(learner, objective, scores, **extra):
        if scores is None:
            rows.append({"learner": learner, "objective": objective, **_UNDEFINED, **extra,
                         **common})
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            aucs = problem.auc(scores)
            win = population_win_rate(problem, scores, 0, 1)
        rows.append({"learner": learner, "objective": objective, **_balance(aucs),
                     "win_12": float(win), **extra, **common})

    bayes = {"label_1": eta[:, 0], "label_2": eta[:, 1],
             "label_aggregation": label_aggregation_scores(eta),
             "loss_aggregation": loss_aggregation(eta, model.pi)}
    if family:
        bayes.update(family_bayes_scores(eta, model.pi, problem.label_probs))
    for objective, scores in bayes.items():
        add("bayes", objective, scores)
    r = np.logspace(-3.0, 3.0, n_sweep)
    t = r / (1.0 + r)
    _, sweep = weight_sweep(pi=model.pi, problem=problem, a=np.column_stack([1 - t, t]))
    for ti, aucs in zip(t, sweep, strict=True):
        rows.append({"learner": "bayes", "objective": "frontier", "t": float(ti),
                     **_balance(aucs), **common})
    # the best Min AUC over the sweep grid and the two Bayes points (which lie on the same path)
    points = np.vstack([sweep, [[r["auc_1"], r["auc_2"]] for r in rows
                                if r["objective"] in ("label_aggregation", "loss_aggregation")]])
    best = int(np.argmax(points.min(axis=1)))
    rows.append({"learner": "bayes", "objective": "max_min",
                 "t": float(t[best]) if best < len(t) else float("nan"),
                 **_balance(points[best]), **common})
    if max_min:
        from bipartite.experiments.la25.studies.maxmin import max_min_bracket

        bracket = max_min_bracket(problem, t)
        add("bayes", "max_min_supported", loss_aggregation(eta, problem.pi, bracket["a"]),
            t=bracket["lam"])
    learners = ["linear", "xgb"] if learners is None else list(learners)
    fit_here = learner_pi2 is None or any(abs(float(pi2) - p) < 1e-12 for p in learner_pi2)
    if learners and fit_here:
        Xtr, Ytr, _ = model.sample(n_train, np.random.default_rng(rng.integers(2**32)))
        for learner in learners:
            for objective in ("label_aggregation", "loss_aggregation"):
                est = make_learner(learner, objective, int(rng.integers(2**31)), epochs=epochs,
                                   n_estimators=n_estimators)
                est.fit(Xtr, Ytr)
                add(learner, objective, est.decision_function(X))
        # max-min rows: a stream of their own, SeedSequence([seed, 13]) of the runner's seed
        mm_rng = np.random.default_rng([seed, 13])
        for learner in learners if max_min else []:
            for objective in MAX_MIN_OBJECTIVES:
                est = make_learner(learner, objective, int(mm_rng.integers(2**31)),
                                   epochs=epochs, n_estimators=n_estimators)
                est.fit(Xtr, Ytr)
                add(learner, objective, est.decision_function(X))
        # the aggregation family: a stream of its own, SeedSequence([seed, 14])
        fam_rng = np.random.default_rng([seed, 14])
        for learner in learners if family else []:
            for objective in FAMILY_OBJECTIVES:
                add(learner, objective,
                    _family_scores(learner, objective, int(fam_rng.integers(2**31)), Xtr, Ytr,
                                   X, epochs=epochs, n_estimators=n_estimators))
    if max_min:
        from bipartite.experiments.la25.studies.maxmin import max_min_gap_columns

        max_min_gap_columns(rows, bracket)
    return rows


# ============================================================================================
# Real data: Bank Marketing, LETOR (MQ2008 stand-in, MSLR folds)
# ============================================================================================

def _subsample_queries(d, max_queries: int, rng: np.random.Generator):
    queries = np.unique(d.qid)
    if max_queries <= 0 or len(queries) <= max_queries:
        return np.arange(len(d.qid))
    keep = rng.choice(queries, size=max_queries, replace=False)
    return np.flatnonzero(np.isin(d.qid, keep))


def letor_split(path: str | Path, split: int, *, max_queries: int = 0,
                seed: int | np.random.Generator = 0) -> tuple[Bunch, Bunch, str]:
    """Train and test Bunches of LETOR split ``split`` (0-based fold) under ``path``.

    * MQ2008 (``mq2008_S1..S5.txt`` or ``S1..S5.txt`` in ``path``): fold ``split + 1`` of the
      LETOR 4.0 layout (fold k trains on S_k, S_k+1, S_k+2, tests on S_k+4, indices mod 5; S_k+3,
      the validation part, is unused: the learners hold out their own validation rows); the
      click label is simulated by the position-based model of
      :func:`bipartite.data.simulate_clicks`.
    * MSLR-WEB10K/30K (``Fold1..Fold5/{train,test}.txt`` in ``path``): that fold's ``train.txt``
      and ``test.txt``; the click label is the MSLR click feature, ``1[f134 > 0]``
      (:func:`bipartite.data.load_letor`, ``click="auto"``). ``max_queries > 0`` keeps that many
      random queries of each file (MSLR-WEB30K has ~19 000 training queries per fold).

    The fold layouts are :func:`bipartite.data.letor.letor_fold_files`. ``seed`` (an int or a
    Generator) seeds the simulated clicks and the query subsample.

    Returns ``(train, test, description)`` (the description names the data, not the fold).
    """
    from bipartite.data import load_letor
    from bipartite.data.letor import letor_fold_files

    rng = np.random.default_rng(seed)
    train_files, test_files, layout = letor_fold_files(path, split % 5 + 1)
    if layout == "mq2008":
        train = load_letor(train_files, click="simulated", seed=int(rng.integers(2**32)))
        test = load_letor(test_files, click="simulated", seed=int(rng.integers(2**32)))
        what = "MQ2008 (LETOR 4.0 folds: train S_k..S_k+2, test S_k+4), simulated clicks"
    else:
        train = load_letor(train_files, dtype=np.float32)
        test = load_letor(test_files, dtype=np.float32)
        what = f"MSLR {Path(path).name} (Fold1..Fold5 train/test), click = 1[f134 > 0]"
    itr = _subsample_queries(train, max_queries, rng)
    ite = _subsample_queries(test, max_queries, rng)
    for d, idx in ((train, itr), (test, ite)):
        d.X, d.Y, d.qid = d.X[idx], d.Y[idx], d.qid[idx]
    return train, test, what


def _split_streams(seed: int, split: int) -> tuple[np.random.Generator, ...]:
    """The four random streams of one split of a §7 real-data task, from the runner's task seed
    (:func:`bipartite.studies.task_seed`): the data (splitting, subsampling, simulated clicks),
    the learners of the LA25 rows, the max-min rows and the aggregation family's rows. The §7
    real-data studies run with paired seeds, so every learner of a split sees the same data;
    ``SeedSequence(seed, spawn_key=(split,))`` separates the splits (its first three children
    do not depend on how many are spawned)."""
    children = np.random.SeedSequence(seed, spawn_key=(int(split),)).spawn(4)
    return tuple(np.random.default_rng(c) for c in children)


def _bank_split(path: str, n_train: int, features: str, rng: np.random.Generator):
    from sklearn.model_selection import train_test_split

    from bipartite.data import load_bank_marketing

    d = load_bank_marketing(path, features=features)
    idx = np.arange(len(d.Y))
    tr, te = train_test_split(idx, test_size=0.3, random_state=int(rng.integers(2**31)),
                              stratify=d.Y @ [1, 2])
    if 0 < n_train < len(tr):
        tr = np.sort(rng.choice(tr, n_train, replace=False))
    return d, tr, te


def _eta_hat(Xtr, Ytr, Xte, seed: int, n_estimators: int) -> np.ndarray:
    """Plug-in estimates η̂_k on the test rows: one XGBoost ``binary:logistic`` booster per label
    (:class:`~bipartite.learners.XGBRanker`, ``method="plugin"``, label weights e_k)."""
    from bipartite.learners import XGBRanker

    out = np.empty((len(Xte), Ytr.shape[1]))
    for k in range(Ytr.shape[1]):
        est = XGBRanker(objective="label_aggregation", method="plugin", w=np.eye(Ytr.shape[1])[k],
                        n_estimators=n_estimators, learning_rate=0.1, max_depth=3, n_jobs=1,
                        random_state=seed)
        out[:, k] = est.fit(Xtr, Ytr).decision_function(Xte)
    return out


@register_study("la25.section7_data", figures=section7_data_figures,
                constraints={"n_train": Range(1, integer=True), "max_queries": Range(0, integer=True),
                             "n_sweep": Range(1, integer=True), "epochs": Range(1, integer=True), "n_estimators": Range(1, integer=True)})
def la25_section7_data(*, seed: int, dataset: str, path: str, split: int, learner: str,
                       n_train: int = 20000, features: str = "client", max_queries: int = 0,
                       n_sweep: int = 21, epochs: int = 40, n_estimators: int = 200,
                       max_min: bool = False, family: bool = False) -> list[dict]:
    """LA25 §7's table on one split of real data, one learner (docs/theory.md §10.7, §12).

    ``dataset``:

    * ``"bank_marketing"``: :func:`bipartite.data.load_bank_marketing` (``path`` = the CSV,
      ``features``), labels (mortgage, personal loan); a stratified 70/30 split, the training
      part subsampled to ``n_train`` rows (0: all);
    * ``"letor"``: :func:`letor_split` (``path`` = the MQ2008 folder or an MSLR root), labels
      (relevant = 1[grade ≥ 1], click), fold ``split + 1``; ``max_queries`` per file (0: all).
      Learners train on pooled pairs (no query groups: LA25 ranks instances, not lists); the
      test AUCs are pooled, and per query (gAUC, :func:`bipartite.metrics.group_auc`) as well.

    ``learner`` in :data:`LEARNERS` fits the four objectives of :data:`OBJECTIVES` (rows
    ``objective``); ``learner="xgb_plugin"`` instead estimates η̂_k by XGBoost and gives the
    plug-in weight sweep a = (1 − t, t) over ``n_sweep`` values (``objective="sweep"``) and the
    plug-in points of both aggregations (``plugin_label_aggregation``: η̂₁ + η̂₂;
    ``plugin_loss_aggregation``: a = 1 with π̂ the training means).

    Columns: ``auc_1, auc_2, diff, min`` (test, pooled), ``gauc_1, gauc_2`` (LETOR), ``win_12``
    (:func:`bipartite.dictatorship.cross_pair_win_rate`), ``label_1, label_2`` (names),
    ``pi_1, pi_2`` (training priors), ``n_train_rows, n_test_rows``, ``data`` (which data and splitting).

    ``max_min=True`` adds, for a learner of :data:`LEARNERS`, the rows of
    :data:`MAX_MIN_OBJECTIVES` (the max-min AUC objective, pairwise and plug-in; docs/theory.md
    §13.6), fitted on the same training rows after the four rows above, with seeds from a stream
    of their own so that those rows do not change. ``family=True`` (issue 24; a learner of
    :data:`LEARNERS` only) adds in the same way the rows of :data:`FAMILY_OBJECTIVES`: label
    aggregation by weighted sums, OR, AND and lexicographically, and loss aggregation with
    a₂/a₁ swept on :data:`FAMILY_RATIOS`; same training and test rows, a stream of their own. A
    family row whose aggregated label is constant on the training rows is undefined: NaN AUCs,
    a ``note`` and an :class:`~bipartite.UndefinedMetricWarning` (:func:`_family_scores`).

    Seeds: every stream comes from the runner's ``seed`` (:func:`_split_streams`: the data, the
    learners and the max-min rows of split ``split``); the §7 configs pair the seeds, so all
    learners of a split see the same split, subsample and simulated clicks.
    """
    from bipartite.bayes import label_aggregation_scores, loss_aggregation
    from bipartite.dictatorship import cross_pair_win_rate
    from bipartite.metrics import group_auc, multilabel_auc

    if family and learner not in LEARNERS:
        raise ValueError(f"The 'family' option fits the aggregation family with a learner of "
                         f"{list(LEARNERS)}, got learner={learner!r}.")
    data_rng, fit_rng, mm_rng, fam_rng = _split_streams(seed, split)
    if dataset == "bank_marketing":
        d, tr, te = _bank_split(path, n_train, features, data_rng)
        Xtr, Ytr, Xte, Yte, gte = d.X[tr], d.Y[tr], d.X[te], d.Y[te], None
        names = d.label_names
        what = f"UCI Bank Marketing ({features} features; stratified 70/30 splits)"
    elif dataset == "letor":
        train, test, what = letor_split(path, split, max_queries=max_queries, seed=data_rng)
        Xtr, Ytr, Xte, Yte, gte = train.X, train.Y, test.X, test.Y, test.qid
        names = train.label_names
    else:
        raise ValueError(f"The 'dataset' parameter must be 'bank_marketing' or 'letor', got "
                         f"{dataset!r}.")
    pi_hat = Ytr.mean(axis=0)
    common = {"label_1": names[0], "label_2": names[1], "pi_1": float(pi_hat[0]),
              "pi_2": float(pi_hat[1]), "n_train_rows": len(Ytr), "n_test_rows": len(Yte),
              "data": what}
    def evaluate(objective, scores, **extra) -> dict:
        if scores is None:
            return {"objective": objective, **_UNDEFINED, **extra, **common}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            row = {"objective": objective, **_balance(multilabel_auc(Yte, scores)),
                   "win_12": float(cross_pair_win_rate(Yte, scores, 0, 1))}
            if gte is not None:
                for k in range(2):
                    row[f"gauc_{k + 1}"] = float(group_auc(Yte[:, k], scores, gte))
        return {**row, **extra, **common}

    rows = []
    if learner == "xgb_plugin":
        eta = _eta_hat(Xtr, Ytr, Xte, int(fit_rng.integers(2**31)), n_estimators)
        for t in np.linspace(0.0, 1.0, n_sweep):
            rows.append(evaluate("sweep", loss_aggregation(eta, pi_hat, [1.0 - t, t]),
                                 t=float(t)))
        rows.append(evaluate("plugin_label_aggregation", label_aggregation_scores(eta)))
        rows.append(evaluate("plugin_loss_aggregation", loss_aggregation(eta, pi_hat)))
        return rows
    for objective in OBJECTIVES:
        est = make_learner(learner, objective, int(fit_rng.integers(2**31)), epochs=epochs,
                           n_estimators=n_estimators)
        est.fit(Xtr, Ytr)
        rows.append(evaluate(objective, est.decision_function(Xte)))
    for objective in MAX_MIN_OBJECTIVES if max_min else ():
        est = make_learner(learner, objective, int(mm_rng.integers(2**31)), epochs=epochs,
                           n_estimators=n_estimators)
        est.fit(Xtr, Ytr)
        rows.append(evaluate(objective, est.decision_function(Xte)))
    for objective in FAMILY_OBJECTIVES if family else ():
        rows.append(evaluate(objective, _family_scores(
            learner, objective, int(fam_rng.integers(2**31)), Xtr, Ytr, Xte, epochs=epochs,
            n_estimators=n_estimators)))
    return rows
