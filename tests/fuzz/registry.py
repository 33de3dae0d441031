"""The fuzz registry: one valid call per public callable, with the kind of every parameter that
bad-input families are fed to (in the spirit of scikit-learn's ``test_common.py``).

A :class:`Case` holds the callable, its valid keyword arguments and ``kinds`` (parameter -> kind);
:data:`FAMILIES` turns a kind into bad values. Callables that are not fuzzed here are listed in
:mod:`tests.fuzz.exempt` with a reason; ``test_registry_is_complete`` fails when a public callable
is in neither.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import torch
from scipy import sparse

from bipartite import (
    bayes,
    consistency,
    dictatorship,
    labels,
    metrics,
    objectives,
    pareto,
    population,
    ranked_metrics,
    surrogates,
)
from bipartite.contrib import ap_training, fusion, label_ranking, lr2ppo
from bipartite.data import clicks, synthetic
from bipartite.diagnostics import delong_auc_variance, delong_paired_test
from bipartite.experiments.la25.studies import aggregation_theory as la25_aggregation_theory
from bipartite.learners import base as lbase
from bipartite.learners import maxmin as lmaxmin
from bipartite.learners import nets
from bipartite.pareto import dominance, milp
from bipartite.population import FiniteProblem
from bipartite.studies import tasks as stasks


@dataclass(frozen=True)
class Case:
    fn: Callable[..., Any]
    kwargs: dict[str, Any]
    kinds: dict[str, str] = field(default_factory=dict)
    slow: bool = False  # fuzz families only under -m slow
    alt_forms: bool = False  # array arguments in other forms must give the same answer
    weight: str | None = None  # name of a sample-weight argument (rescaling must not matter)
    mismatch: bool = True  # array arguments share a length: a shorter one must be refused
    #: "param:family" -> why that family's value is *valid* input for this callable (documented);
    #: such calls are not bad inputs: test_fuzz checks that they give a value instead
    accepts: dict[str, str] = field(default_factory=dict)
    #: parameter -> how it uses its values, for integers beyond 2**53 (test_fuzz checks the exact
    #: answer): "order" (only their order: scores, Pareto points) or "shift" (order and
    #: differences: ordinal levels)
    exact: dict[str, str] = field(default_factory=dict)
    #: the group-id parameter of a result that does not depend on the row order or on the id
    #: values: interleaved rows and other ids must give the same answer
    groups: str | None = None

    def call(self, **override: Any) -> Any:
        return self.fn(**{**self.kwargs, **override})


# ---------------------------------------------------------------------------------------------
# valid data
# ---------------------------------------------------------------------------------------------
_rng = np.random.default_rng(0)
y1 = np.array([0, 1, 0, 1, 1, 0, 1, 0])
s1 = np.array([0.1, 0.9, 0.2, 0.8, 0.7, 0.35, 0.6, 0.4])
w1 = np.array([1.0, 2.0, 0.5, 1.0, 1.5, 1.0, 3.0, 0.25])
Y2 = np.array([[0, 1], [1, 0], [0, 0], [1, 1], [1, 0], [0, 1], [1, 1], [0, 0]])
grades = np.array([0, 2, 1, 2, 1, 0, 2, 1])
qid8 = np.array([0, 0, 0, 0, 1, 1, 1, 1])
R3 = np.array([[2, 0, 1], [1, 2, 0], [0, 1, 3], [3, 2, 1]])
S3 = np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.1], [0.1, 0.4, 0.9], [0.7, 0.5, 0.2]])
B3 = (R3 > 0).astype(int)
P = FiniteProblem.random(5, 2, seed=0)
fP = np.array([0.3, 0.1, 0.5, 0.2, 0.4])
eta = np.array([[0.9, 0.2], [0.3, 0.3], [0.1, 0.8], [0.6, 0.5]])
pi2 = np.array([0.4, 0.3])
delta3 = np.array([[0.0, 0.2, -0.1], [-0.2, 0.0, 0.3], [0.1, -0.3, 0.0]])
joint = population.independent_joint(eta)
pts = np.array([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9], [0.4, 0.4]])
t6 = np.array([[0.3, -0.2, 1.5, 0.1, 0.0, 0.7]])
l6 = np.array([[1.0, 0.0, 1.0, 0.0, 0.0, 1.0]])

C = Case
_LEVELS = ("ordinal levels are any finite reals (documented): only their order and differences "
           "matter")
_ROWS = "one row per point, independent of the other arguments' length: fewer rows are valid"
_ONE_LABEL = "a shorter 'pi' is a valid problem with fewer labels (K = 1 included)"
_EMPTY_SET = "an empty (0, K) point set is valid: its Pareto set is empty, its hypervolume 0"
_LIMIT = "a larger limit only allows more grid points; the grid asked for is small"
_COUNT = "a size calculator: returns integer counts, allocates nothing"
_ELEMENTWISE = ("elementwise on any shape (0-d included): the AP losses apply it to [..., n, n] "
                "difference matrices")
_GRADES = "labels are graded relevance (0, 1, 2, ...), documented and tested; negative is refused"
_RHO = "rho in [0, 1] (docs/theory.md §8): rho = 0 drops the positive-positive term"
_YBAR = ("aggregated labels are any reals with any leading batch dimensions (weighted sums, "
         "callable aggregates)")
_SCALAR_SIDE = ("one side may be a scalar (0-d): it broadcasts against the other, as in "
                "torch.nn.MarginRankingLoss (documented)")
_STEP = "beta = inf is the documented step-function limit (0/1 eta)"
# Iteration counts (epochs, n_estimators) have kind "int", not "size": a huge count is a long but
# valid request that allocates nothing up front, unlike the sizes that the "huge" family probes.
CASES: dict[str, Case] = {
    # metrics --------------------------------------------------------------------------------
    "bipartite.metrics.auc": C(metrics.auc, dict(y_true=y1, y_score=s1, sample_weight=w1),
                               dict(y_true="bin", y_score="arr", sample_weight="w"),
                               alt_forms=True, weight="sample_weight", exact={"y_score": "order"}),
    "bipartite.metrics.partial_auc": C(
        metrics.partial_auc, dict(y_true=y1, y_score=s1, max_fpr=0.5, sample_weight=w1),
        dict(y_true="bin", y_score="arr", max_fpr="unit", sample_weight="w"), alt_forms=True,
        weight="sample_weight", exact={"y_score": "order"}),
    "bipartite.metrics.average_precision": C(
        metrics.average_precision, dict(y_true=y1, y_score=s1, sample_weight=w1),
        dict(y_true="bin", y_score="arr", sample_weight="w"), alt_forms=True,
        weight="sample_weight", exact={"y_score": "order"}),
    "bipartite.metrics.multilabel_auc": C(
        metrics.multilabel_auc, dict(Y=Y2, y_score=s1, sample_weight=w1),
        dict(Y="bin", y_score="arr", sample_weight="w"), alt_forms=True, weight="sample_weight",
        exact={"y_score": "order"}),
    "bipartite.metrics.multipartite_auc": C(
        metrics.multipartite_auc, dict(y_true=grades, y_score=s1, costs="linear",
                                       sample_weight=w1),
        dict(y_true="grades", y_score="arr", costs="opt", sample_weight="w"), alt_forms=True,
        weight="sample_weight",
        accepts={"y_true:negative": _LEVELS, "y_true:fractional": _LEVELS},
        exact={"y_true": "shift", "y_score": "order"}),
    "bipartite.metrics.group_auc": C(
        metrics.group_auc, dict(y_true=y1, y_score=s1, qid=qid8, sample_weight=w1),
        dict(y_true="bin", y_score="arr", qid="qid", sample_weight="w", weighting="opt"),
        alt_forms=True, weight="sample_weight", exact={"y_score": "order"}, groups="qid"),
    "bipartite.metrics.grouped_stats": C(
        metrics.grouped_stats, dict(Y=Y2, y_score=s1, qid=qid8, sample_weight=w1),
        dict(Y="bin", y_score="arr", qid="qid", sample_weight="w")),
    "bipartite.metrics.QueryRows": C(
        metrics.QueryRows, dict(qid=qid8), dict(qid="qid"),
        accepts={"qid:empty": "no rows are a valid grouping: zero queries, nothing to score"}),
    "bipartite.metrics.QuerySegments": C(
        metrics.QuerySegments, dict(y_score=s1, qid=qid8), dict(y_score="arr", qid="qid")),
    "bipartite.metrics.ndcg_at_k": C(
        metrics.ndcg_at_k, dict(relevance=grades, y_score=s1, k=3, qid=qid8),
        dict(relevance="grades", y_score="arr", k="int", gain="opt", qid="qid"),
        alt_forms=True, exact={"y_score": "order"}, groups="qid",
        accepts={"relevance:fractional": "graded relevance may be any non-negative real, as in "
                                         "sklearn.metrics.ndcg_score (negative is refused)"}),
    "bipartite.metrics.diff_auc": C(metrics.diff_auc, dict(aucs=[0.7, 0.6]), dict(aucs="prob"),
                                    mismatch=False),
    "bipartite.metrics.min_auc": C(metrics.min_auc, dict(aucs=[0.7, 0.6]), dict(aucs="prob"),
                                   mismatch=False),
    "bipartite.metrics.weighted_auc": C(
        metrics.weighted_auc, dict(y_score=s1, pos_weight=(y1 * w1)[:, None],
                                   neg_weight=((1 - y1) * w1)[:, None]),
        dict(y_score="arr", pos_weight="w", neg_weight="w"), alt_forms=True,
        exact={"y_score": "order"}),
    "bipartite.metrics.weighted_multipartite_auc": C(
        metrics.weighted_multipartite_auc,
        dict(y_score=[0.0, 1.0, 0.5], level_weight=[[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]],
             costs=[[0, 0], [1, 0]]),
        dict(y_score="arr", level_weight="w", costs="w")),
    # ranked metrics -------------------------------------------------------------------------
    **{f"bipartite.ranked_metrics.{n}": C(getattr(ranked_metrics, n), dict(ranks=R3, y_score=S3),
                                          dict(ranks="grades", y_score="arr"), alt_forms=True)
       for n in ("ranked_accuracy", "ranked_exact_match", "ranked_f1", "ranked_map",
                 "ranked_precision", "ranked_recall", "ranked_scores")},
    "bipartite.ranked_metrics.unranked_scores": C(
        ranked_metrics.unranked_scores, dict(y_true=B3, y_pred=(S3 > 0.45).astype(int)),
        dict(y_true="bin", y_pred="bin"), alt_forms=True),
    # labels ---------------------------------------------------------------------------------
    "bipartite.labels.cost_matrix": C(labels.cost_matrix, dict(levels=[0, 1, 2], costs="gain"),
                                      dict(levels="grades", costs="opt"), mismatch=False,
                                      accepts={"levels:negative": _LEVELS,
                                               "levels:fractional": _LEVELS}),
    "bipartite.labels.cost_potential": C(labels.cost_potential, dict(levels=[0, 1, 2], costs="gain"),
                                         dict(levels="grades", costs="opt"), mismatch=False,
                                         accepts={"levels:negative": _LEVELS,
                                                  "levels:fractional": _LEVELS}),
    "bipartite.labels.aggregate_labels": C(labels.aggregate_labels, dict(Y=Y2, aggregate="sum"),
                                           dict(Y="bin", aggregate="opt", w="w"), mismatch=False),
    "bipartite.labels.sum_weights": C(labels.sum_weights, dict(w=[1.0, 2.0], K=2),
                                      dict(w="w"), mismatch=False),
    "bipartite.labels.pairwise_preference": C(labels.pairwise_preference, dict(problem=P),
                                              dict(problem="problem", aggregate="opt")),
    "bipartite.labels.is_transitive": C(labels.is_transitive, dict(delta=delta3),
                                        dict(delta="arr", atol="tol"), mismatch=False),
    "bipartite.labels.find_cycle": C(labels.find_cycle, dict(delta=delta3),
                                     dict(delta="arr", atol="tol"), mismatch=False),
    "bipartite.labels.preference_scores": C(labels.preference_scores, dict(delta=delta3),
                                            dict(delta="arr", atol="tol"), mismatch=False),
    # bayes ----------------------------------------------------------------------------------
    "bipartite.bayes.effective_weights": C(bayes.effective_weights, dict(pi=pi2, a=[1.0, 2.0]),
                                           dict(pi="prob", a="w")),
    "bipartite.bayes.loss_aggregation": C(bayes.loss_aggregation, dict(eta=eta, pi=pi2),
                                          dict(eta="prob", pi="prob", a="w"),
                                          accepts={"eta:shape_mismatch": _ROWS}),
    "bipartite.bayes.label_aggregation": C(bayes.label_aggregation, dict(problem=P),
                                           dict(problem="problem", atol="tol", aggregate="opt",
                                                w="w")),
    "bipartite.bayes.label_aggregation_scores": C(
        bayes.label_aggregation_scores, dict(eta=eta, joint=joint),
        dict(eta="prob", joint="prob", aggregate="opt")),
    "bipartite.bayes.anticorrelation_identity": C(bayes.anticorrelation_identity,
                                                  dict(joint=joint), dict(joint="prob"),
                                                  mismatch=False),
    # consistency ----------------------------------------------------------------------------
    **{f"bipartite.consistency.{n}": C(getattr(consistency, n), dict(problem=P),
                                       dict(problem="problem", objective="opt"))
       for n in ("objective_factors", "objective_pair_weights", "bayes_scores", "plugin_scores")},
    "bipartite.consistency.objective_value": C(consistency.objective_value,
                                               dict(problem=P, scores=fP),
                                               dict(problem="problem", scores="arr")),
    "bipartite.consistency.auc_regret": C(consistency.auc_regret, dict(problem=P, scores=fP),
                                          dict(problem="problem", scores="arr")),
    "bipartite.consistency.smooth_pair_loss": C(
        consistency.smooth_pair_loss, dict(surrogate="logistic", d=s1, order=2),
        dict(surrogate="opt", d="arr", order="int"), mismatch=False,
        accepts={"d:empty": "elementwise: no differences, no losses",
                 "d:wrong_ndim": "elementwise on any shape (pair-difference matrices)",
                 "d:zero_d": "elementwise on any shape, 0-d included"}),
    "bipartite.consistency.infimum_attained": C(
        consistency.infimum_attained, dict(W=np.abs(delta3)), dict(W="w"), mismatch=False),
    "bipartite.consistency.surrogate_minimizer": C(
        consistency.surrogate_minimizer, dict(problem=P),
        dict(problem="problem", surrogate="opt", solver="opt"), slow=True),
    "bipartite.consistency.pairwise_population_minimizer": C(
        consistency.pairwise_population_minimizer, dict(problem=P),
        dict(problem="problem", surrogate="opt", objective="opt", gtol="tol")),
    # objectives -----------------------------------------------------------------------------
    "bipartite.objectives.Objective": C(
        objectives.Objective, dict(kind="loss_aggregation", a=[1.0, 2.0]),
        dict(kind="opt", a="w"), mismatch=False),
    "bipartite.objectives.as_objective": C(
        objectives.as_objective, dict(objective="label_aggregation", w=[1.0, 2.0]),
        dict(objective="opt", w="w", aggregate="opt", costs="opt"), mismatch=False),
    "bipartite._pair_losses.get_pair_loss": C(surrogates.get_pair_loss, dict(kind="logistic"),
                                              dict(kind="opt")),
    "bipartite.consistency.exponential_fixed_point": C(
        consistency.exponential_fixed_point, dict(problem=P),
        dict(problem="problem", tol="tol", max_iter="int")),
    # dictatorship ---------------------------------------------------------------------------
    "bipartite.dictatorship.effective_weight_shares": C(
        dictatorship.effective_weight_shares, dict(pi=pi2), dict(pi="prob", a="w"),
        accepts={"pi:shape_mismatch": _ONE_LABEL}),
    "bipartite.dictatorship.dictator": C(dictatorship.dictator, dict(pi=[0.05, 0.5]),
                                         dict(pi="prob", a="w"),
                                         accepts={"pi:shape_mismatch": _ONE_LABEL}),
    "bipartite.dictatorship.dictator_threshold": C(dictatorship.dictator_threshold,
                                                   dict(pi=pi2, k=0), dict(pi="prob", k="int")),
    "bipartite.dictatorship.cross_pair_win_rate": C(
        dictatorship.cross_pair_win_rate, dict(Y=Y2, scores=s1, k=0, j=1, sample_weight=w1),
        dict(Y="bin", scores="arr", k="int", j="int", sample_weight="w"), alt_forms=True,
        weight="sample_weight"),
    "bipartite.dictatorship.near_tie_rate": C(
        dictatorship.near_tie_rate, dict(Y=Y2, scores=s1, k=0, j=1, tol=0.05, sample_weight=w1),
        dict(Y="bin", scores="arr", k="int", tol="tol", sample_weight="w"), alt_forms=True,
        weight="sample_weight"),
    "bipartite.dictatorship.cross_pair_win_rates": C(
        dictatorship.cross_pair_win_rates, dict(Y=Y2, scores=s1, sample_weight=w1),
        dict(Y="bin", scores="arr", sample_weight="w"), alt_forms=True, weight="sample_weight"),
    "bipartite.dictatorship.near_tie_rates": C(
        dictatorship.near_tie_rates, dict(Y=Y2, scores=s1, tol=0.05, sample_weight=w1),
        dict(Y="bin", scores="arr", tol="tol", sample_weight="w"), alt_forms=True,
        weight="sample_weight"),
    "bipartite.dictatorship.report": C(dictatorship.report, dict(Y=Y2, scores=s1),
                                       dict(Y="bin", scores="arr", tol="tol")),
    "bipartite.dictatorship.population_win_rate": C(
        dictatorship.population_win_rate, dict(problem=P, scores=fP, k=0, j=1),
        dict(problem="problem", scores="arr", k="int")),
    "bipartite.dictatorship.label_vector_order": C(
        dictatorship.label_vector_order, dict(kind="loss", pi=pi2),
        dict(kind="opt", pi="prob", K="size")),
    # population -----------------------------------------------------------------------------
    "bipartite.population.FiniteProblem": C(FiniteProblem,
                                            dict(mass=[0.5, 0.5], label_probs=[[0.8, 0.2], [0.3, 0.7]]),
                                            dict(mass="prob", label_probs="prob")),
    "bipartite.labels.label_vectors": C(labels.label_vectors, dict(K=3), dict(K="size")),
    "bipartite.labels.check_n_labels": C(labels.check_n_labels, dict(K=3), dict(K="size")),
    "bipartite.labels.get_aggregation": C(labels.get_aggregation, dict(aggregate="sum"),
                                          dict(aggregate="opt")),
    "bipartite.population.independent_joint": C(population.independent_joint, dict(eta=eta),
                                                dict(eta="prob"), mismatch=False),
    "bipartite.population.gaussian_copula_joint": C(population.gaussian_copula_joint,
                                                    dict(eta=eta, rho=0.3),
                                                    dict(eta="prob", rho="unit")),
    "bipartite.population.win_matrix": C(population.win_matrix, dict(scores=fP),
                                         dict(scores="arr"), mismatch=False),
    "bipartite.population.enumerate_weak_orders": C(population.enumerate_weak_orders, dict(n=3),
                                                    dict(n="size")),
    # pareto ---------------------------------------------------------------------------------
    "bipartite.pareto.dominance.dominates": C(dominance.dominates, dict(a=[0.9, 0.5], b=[0.8, 0.5]),
                                              dict(a="arr", b="arr")),
    "bipartite.pareto.dominance.pareto_filter": C(dominance.pareto_filter, dict(points=pts),
                                                  dict(points="arr"), mismatch=False,
                                                  accepts={"points:empty": _EMPTY_SET},
                                                  exact={"points": "order"}),
    "bipartite.pareto.dominance.hypervolume": C(dominance.hypervolume,
                                                dict(points=pts, reference=[0.0, 0.0]),
                                                dict(points="arr", reference="arr"),
                                                accepts={"points:empty": _EMPTY_SET,
                                                         "points:shape_mismatch": _ROWS}),
    "bipartite.pareto.frontier.simplex_grid": C(pareto.simplex_grid, dict(K=3, resolution=4),
                                                dict(K="size", resolution="size",
                                                     max_points="size"),
                                                accepts={"max_points:huge": _LIMIT}),
    "bipartite.pareto.frontier.exact_frontier": C(
        pareto.exact_frontier, dict(problem=P),
        dict(problem="problem", tol="tol", eps="tol", time_limit="pos", method="opt")),
    "bipartite.pareto.frontier.supported_frontier": C(pareto.supported_frontier, dict(problem=P),
                                                      dict(problem="problem", tol="tol")),
    "bipartite.pareto.frontier.is_pareto_optimal": C(
        pareto.is_pareto_optimal, dict(problem=P, scores=fP),
        dict(problem="problem", scores="arr", tol="tol", method="opt")),
    "bipartite.pareto.frontier.weight_sweep": C(
        pareto.weight_sweep, dict(eta=eta, pi=pi2, Y=Y2[:4], n_weights=5),
        dict(eta="prob", pi="prob", Y="bin", n_weights="size")),
    "bipartite.pareto.frontier.frontier_table": C(pareto.frontier_table, dict(problem=P),
                                                  dict(problem="problem")),
    "bipartite.pareto.dp.dp_limit": C(pareto.dp_limit, dict(K=2), dict(K="size"),
                                      accepts={"K:huge": _COUNT}),
    "bipartite.pareto.milp.milp_size": C(pareto.milp_size, dict(n=5, K=2),
                                         dict(n="size", K="size"),
                                         accepts={"n:huge": _COUNT, "K:huge": _COUNT}),
    "bipartite.pareto.milp.optimal_ranking": C(pareto.optimal_ranking, dict(problem=P),
                                               dict(problem="problem", time_limit="pos",
                                                    costs="opt")),
    "bipartite.pareto.milp.auc_milp": C(milp.auc_milp,
                                        dict(problem=P, backend="highspy", time_limit=None),
                                        dict(problem="problem", backend="opt", tol="tol")),
    "bipartite.pareto.maxmin.max_min_point": C(pareto.max_min_point, dict(problem=P),
                                               dict(problem="problem", time_limit="pos",
                                                    weights="w", method="opt")),
    "bipartite.pareto.maxmin.max_min_gap": C(pareto.max_min_gap, dict(problem=P),
                                             dict(problem="problem", weights="w")),
    "bipartite.pareto.maxmin.max_min_supported": C(pareto.max_min_supported, dict(problem=P),
                                                   dict(problem="problem", weights="w")),
    "bipartite.pareto.maxmin.balanced_weights": C(pareto.balanced_weights, dict(problem=P),
                                                  dict(problem="problem", weights="w")),
    "bipartite.pareto.maxmin.reachable_orders": C(pareto.reachable_orders, dict(problem=P),
                                                  dict(problem="problem")),
    "bipartite.pareto.balance.weighted_sum_tilt": C(
        pareto.weighted_sum_tilt, dict(pi=pi2, w=[1.0, 2.0], a=[1.0, 1.0]),
        dict(pi="prob", w="w", a="w")),
    "bipartite.pareto.balance.exchange_rates": C(pareto.exchange_rates,
                                                 dict(eta=eta, aggregate="product"),
                                                 dict(eta="prob", aggregate="opt")),
    "bipartite.pareto.balance.lexicographic_weights": C(pareto.lexicographic_weights,
                                                        dict(order=[1, 0]), dict(order="arr")),
    "bipartite.pareto.balance.aggregation_tilt": C(
        pareto.aggregation_tilt, dict(problem=P, aggregate="product"),
        dict(problem="problem", aggregate="opt", costs="opt", a="w")),
    "bipartite.pareto.balance.balance_condition": C(
        pareto.balance_condition, dict(problem=P, aggregate="or"),
        dict(problem="problem", aggregate="opt", costs="opt", a="w", tol="tol")),
    "bipartite.pareto.balance_k.balance_from_aucs": C(
        pareto.balance_from_aucs, dict(loss_aucs=[0.7, 0.8], label_aucs=[0.75, 0.7], pi=pi2),
        dict(loss_aucs="prob", label_aucs="prob", pi="prob", a="w", b="w", tol="tol")),
    "bipartite.pareto.balance_k.equivalent_loss_weights": C(
        pareto.equivalent_loss_weights, dict(pi=pi2, w=[1.0, 2.0]), dict(pi="prob", w="w")),
    "bipartite.pareto.balance_k.typical_point_weights": C(
        pareto.typical_point_weights, dict(pi=pi2, aggregate="or"),
        dict(pi="prob", aggregate="opt")),
    "bipartite.experiments.la25.studies.aggregation_theory.plugin_joint": C(
        la25_aggregation_theory.plugin_joint,
        dict(X_train=np.vstack([s1, 1 - s1]).T, Y_train=Y2, X_test=np.vstack([s1, s1]).T),
        dict(X_train="arr", Y_train="bin", X_test="arr", model="opt"), mismatch=False),
    # surrogates -----------------------------------------------------------------------------
    "bipartite.surrogates.sigmoid_step": C(surrogates.sigmoid_step, dict(x=t6[0], tau=0.1),
                                           dict(x="arr", tau="pos"),
                                           accepts={"x:wrong_ndim": _ELEMENTWISE,
                                                    "x:zero_d": _ELEMENTWISE}),
    "bipartite.surrogates.quadlinear": C(surrogates.quadlinear, dict(x=t6[0], delta=0.1),
                                         dict(x="arr", delta="pos"),
                                         accepts={"x:wrong_ndim": _ELEMENTWISE,
                                                  "x:zero_d": _ELEMENTWISE}),
    "bipartite.surrogates.pairwise_loss": C(surrogates.pairwise_loss, dict(scores=t6, labels=l6),
                                            dict(scores="arr", labels="bin", kind="opt",
                                                 margin="pos"), alt_forms=True,
                                            accepts={"labels:label_2": _GRADES}),
    "bipartite.surrogates.lsep_loss": C(surrogates.lsep_loss, dict(scores=t6, labels=l6),
                                        dict(scores="arr", labels="bin"), alt_forms=True),
    "bipartite.surrogates.rlsep_loss": C(surrogates.rlsep_loss,
                                         dict(scores=t6, ranks=[[2, 0, 1, 0, 0, 3]]),
                                         dict(scores="arr", ranks="grades"), alt_forms=True),
    "bipartite.surrogates.margin_ranking_loss": C(
        surrogates.margin_ranking_loss, dict(scores_a=t6[0], scores_b=t6[0][::-1]),
        dict(scores_a="arr", scores_b="arr", margin="pos"),
        accepts={"scores_a:zero_d": _SCALAR_SIDE, "scores_b:zero_d": _SCALAR_SIDE}),
    "bipartite.surrogates.ap_risk": C(surrogates.ap_risk, dict(scores=t6, labels=l6),
                                      dict(scores="arr", labels="bin"), alt_forms=True),
    "bipartite.surrogates.smooth_ap_loss": C(surrogates.smooth_ap_loss,
                                             dict(scores=t6, labels=l6),
                                             dict(scores="arr", labels="bin", tau="pos"),
                                             alt_forms=True),
    "bipartite.surrogates.quadlinear_ap_loss": C(
        surrogates.quadlinear_ap_loss, dict(scores=t6, labels=l6),
        dict(scores="arr", labels="bin", delta="pos", rho="pos"), alt_forms=True,
        accepts={"rho:zero": _RHO}),
    "bipartite.surrogates.make_pair_loss": C(surrogates.make_pair_loss, dict(kind="logistic"),
                                             dict(kind="opt", margin="pos")),
    "bipartite.surrogates.loss_aggregation_pair_weights": C(
        surrogates.loss_aggregation_pair_weights, dict(Y=Y2[None].astype(float)),
        dict(Y="bin", a="w"), mismatch=False),
    "bipartite.surrogates.label_aggregation_pair_weights": C(
        surrogates.label_aggregation_pair_weights, dict(ybar=grades[None].astype(float)),
        dict(ybar="grades", costs="opt"), mismatch=False,
        accepts={"ybar:negative": _YBAR, "ybar:fractional": _YBAR, "ybar:wrong_ndim": _YBAR}),
    "bipartite.surrogates.prepare_inputs": C(surrogates.prepare_inputs,
                                             dict(scores=t6, labels=l6, where=None),
                                             dict(scores="arr", labels="arr")),
    "bipartite.surrogates.ap_loss": C(
        surrogates.ap_loss, dict(scores=t6, labels=l6, neg_step=surrogates.heaviside_ge,
                                 pos_step=surrogates.heaviside_ge),
        dict(scores="arr", labels="bin", rho="pos"), accepts={"rho:zero": _RHO}),
    # contrib --------------------------------------------------------------------------------
    "bipartite.contrib.pairs.within_group_pairs": C(lr2ppo.within_group_pairs,
                                                     dict(qid=qid8),
                                                     dict(qid="qid", max_pairs="size"),
                                                     accepts={"max_pairs:huge": _LIMIT}),
    "bipartite.contrib.pairs.partial_order_pairs": C(lr2ppo.partial_order_pairs,
                                                      dict(relevance=grades, qid=qid8),
                                                      dict(relevance="grades", qid="qid")),
    "bipartite.contrib.lr2ppo.partial_order_policy_loss": C(
        lr2ppo.partial_order_policy_loss,
        dict(p1=s1, p2=s1[::-1].copy(), advantage=s1 - 0.5),
        dict(p1="arr", p2="arr", advantage="arr", margin="pos")),
    "bipartite.contrib.label_ranking.importance_to_ranks": C(
        label_ranking.importance_to_ranks, dict(importance=S3), dict(importance="w", atol="tol"),
        mismatch=False),
    "bipartite.contrib.label_ranking.make_ranked_labels": C(
        label_ranking.make_ranked_labels, dict(n_samples=20, n_labels=4, n_features=3,
                                               min_relevant=1, max_relevant=2),
        dict(n_samples="size", n_labels="size", seed="seed")),
    "bipartite.contrib.fusion.score_fusion": C(fusion.score_fusion,
                                               dict(P=eta, exponents=[1.0, 0.5]),
                                               dict(P="prob", exponents="arr"),
                                               accepts={"P:shape_mismatch": _ROWS}),
    "bipartite.contrib.fusion.pareto_search": C(
        fusion.pareto_search, dict(P_val=np.vstack([eta, eta[::-1]]), Y_val=Y2, resolution=3),
        dict(P_val="prob", Y_val="bin", resolution="size", seed="seed")),
    "bipartite.contrib.fusion.make_nested_behaviour": C(
        fusion.make_nested_behaviour, dict(n_queries=5, items_per_query=4),
        dict(n_queries="size", items_per_query="size", seed="seed")),
    "bipartite.contrib.ap_training.pair_gradients": C(
        ap_training.pair_gradients, dict(scores=t6, labels=l6),
        dict(scores="arr", labels="bin", delta="pos", rho="pos", tau="pos", loss="opt"),
        accepts={"rho:zero": _RHO}),
    "bipartite.contrib.ap_training.vanishing_shares": C(
        ap_training.vanishing_shares, dict(scores=t6, labels=l6),
        dict(scores="arr", labels="bin", delta="pos", tau="pos")),
    "bipartite.contrib.ap_training.ranking_report": C(
        ap_training.ranking_report, dict(y=y1, scores=s1, qid=qid8, k=3),
        dict(y="bin", scores="arr", qid="qid", k="int"), groups="qid"),
    "bipartite.contrib.ap_training.make_retrieval": C(
        ap_training.make_retrieval, dict(n_queries=4, items_range=(5, 8), n_features=5),
        dict(n_queries="size", noise="pos", positive_rate="unit", seed="seed"),
        accepts={"noise:zero": "noise = 0 is the documented noiseless generator"}),
    "bipartite.contrib.ap_training.train_listwise_mlp": C(
        ap_training.train_listwise_mlp,
        dict(X=np.c_[s1, s1 ** 2], y=y1, qid=qid8, epochs=1, hidden=(4,)),
        dict(X="arr", y="bin", qid="qid", lr="pos", tau="pos", delta="pos", epochs="int",
             random_state="seed"), slow=True),
    # data -----------------------------------------------------------------------------------
    "bipartite.data.synthetic.make_synthetic": C(
        synthetic.make_synthetic, dict(n=20, priors=(0.3, 0.5)),
        dict(n="size", priors="prob", beta="pos", rho="unit", dim="size", seed="seed"),
        accepts={"beta:inf": _STEP}),
    "bipartite.data.synthetic.synthetic_model": C(synthetic.synthetic_model,
                                                  dict(priors=(0.3, 0.5)),
                                                  dict(priors="prob", beta="pos", dim="size"),
                                                  accepts={"beta:inf": _STEP}),
    "bipartite.data.clicks.simulate_clicks": C(
        clicks.simulate_clicks, dict(relevance=grades, qid=qid8, base_scores=s1),
        dict(relevance="grades", qid="qid", base_scores="arr", eta_pos="pos", seed="seed"),
        accepts={"eta_pos:zero": "eta_pos = 0 is the documented click model without position "
                                 "bias"}),
    # diagnostics ----------------------------------------------------------------------------
    "bipartite.diagnostics.delong_auc_variance": C(
        delong_auc_variance, dict(y_true=y1, y_score=s1, sample_weight=w1),
        dict(y_true="bin", y_score="arr", sample_weight="w"), alt_forms=True,
        weight="sample_weight", exact={"y_score": "order"}),
    "bipartite.diagnostics.delong_paired_test": C(
        delong_paired_test, dict(y_true=y1, score_a=s1, score_b=s1 ** 2 + 0.1 * y1[::-1]),
        dict(y_true="bin", score_a="arr", score_b="arr", level="unit"), alt_forms=True,
        exact={"score_a": "order", "score_b": "order"}),
    # learners -------------------------------------------------------------------------------
    "bipartite.learners.base.ranking_criterion": C(
        lbase.ranking_criterion, dict(Y=Y2, scores=s1),
        dict(Y="bin", scores="arr", a="w", objective="opt"), alt_forms=True),
    "bipartite.objectives.label_aucs": C(lbase.label_aucs, dict(Y=Y2, scores=s1),
                                         dict(Y="bin", scores="arr")),
    "bipartite.learners.maxmin.grid_resolution": C(lmaxmin.grid_resolution, dict(K=3),
                                                   dict(K="size", max_points="size"),
                                                   accepts={"K:huge": _COUNT,
                                                            "max_points:huge": _LIMIT}),
    "bipartite.learners.nets.check_hidden": C(nets.check_hidden, dict(hidden=(4, 3)),
                                              dict(hidden="hidden")),
    "bipartite.learners.nets.make_mlp": C(nets.make_mlp, dict(n_in=3, hidden=(4,), n_out=1, seed=0),
                                          dict(n_in="size", hidden="hidden", seed="seed")),
    # studies (pure helpers) -----------------------------------------------------------------
    "bipartite.studies.tasks.task_key": C(stasks.task_key,
                                          dict(function="f", params={"a": 1}, replicate=0),
                                          dict(replicate="int")),
    "bipartite.studies.tasks.task_seed": C(
        stasks.task_seed, dict(study_seed=1, function="f", params={"a": 1}, replicate=0),
        dict(study_seed="seed", replicate="int")),
    "bipartite.studies.tasks.count_tasks": C(
        stasks.count_tasks, dict(config={"cases": [], "grid": {"n": [10, 20]}, "replicates": [0, 1]}),
        dict(config="config")),
}


def _learner_cases() -> dict[str, Case]:
    from bipartite.learners import MLPRanker, XGBRanker

    X = np.c_[s1, s1 ** 2, y1 * 0.1]

    def fit_predict(cls, **params):
        def run(X=X, Y=Y2, **kw):
            return cls(**{**params, **kw}).fit(X, Y).predict(X)
        return run

    return {
        "bipartite.learners.mlp.MLPRanker": C(
            fit_predict(MLPRanker, epochs=2, hidden=(4,), random_state=0), dict(X=X, Y=Y2),
            dict(X="arr", Y="bin", lr="pos", epochs="int", random_state="seed"), slow=True),
        "bipartite.learners.xgb.XGBRanker": C(
            fit_predict(XGBRanker, n_estimators=2, random_state=0, n_jobs=1), dict(X=X, Y=Y2),
            dict(X="arr", Y="bin", learning_rate="pos", n_estimators="int",
                 random_state="seed"), slow=True,
            accepts={"X:nan": "NaN features are XGBoost's missing values (documented)",
                     "X:object_none": "None features are missing values for XGBoost (NaN)",
                     "X:nullable_na": "pd.NA features are missing values for XGBoost (NaN)"}),
    }


CASES.update(_learner_cases())


# ---------------------------------------------------------------------------------------------
# bad-input families by kind
# ---------------------------------------------------------------------------------------------
def _setfirst(v, x):
    a = np.array(v, dtype=float, copy=True)
    a.flat[0] = x
    return a


def _wrong_ndim(v):
    a = np.asarray(v)
    return a.ravel() if a.ndim >= 2 else a[:, None]


def _masked(v):
    a = np.asarray(v, dtype=float)
    mask = np.zeros(a.shape, dtype=bool)
    mask.flat[0] = True
    return np.ma.masked_array(a, mask=mask)


def _object_with(v, x):
    a = np.asarray(v).astype(object)
    a.flat[0] = x
    return a


def _structured(v):
    a = np.asarray(v, dtype=float)
    out = np.zeros(a.shape, dtype=[("value", float)])
    out["value"] = a
    return out


def _nullable_na(v):
    a = np.asarray(v, dtype=float)
    if a.ndim == 1:
        return pd.Series(pd.array([pd.NA, *a[1:].tolist()], dtype="Float64"))
    if a.ndim == 2:
        frame = pd.DataFrame(a).astype("Float64")
        frame.iloc[0, 0] = pd.NA
        return frame
    return _object_with(a, pd.NA)


def _meta(v):
    return torch.empty(np.asarray(v).shape, dtype=torch.float64, device="meta")


_ARRAY = {
    "nan": lambda v: _setfirst(v, np.nan),
    "inf": lambda v: _setfirst(v, np.inf),
    "-inf": lambda v: _setfirst(v, -np.inf),
    "empty": lambda v: np.asarray(v)[:0],
    "wrong_ndim": _wrong_ndim,
    "wrong_type": lambda v: "abc",
    # issue 22: input whose meaning a plain NumPy conversion drops or garbles
    "masked": _masked,                                   # the mask would be ignored
    "object_none": lambda v: _object_with(v, None),      # an object array with a hole
    "nullable_na": _nullable_na,                         # pandas Float64 holding pd.NA
    "complex": lambda v: np.asarray(v, dtype=float) + 1j,  # imaginary part would be dropped
    "datetime": lambda v: np.asarray(v, dtype=float).astype(np.int64).astype("datetime64[s]"),
    "timedelta": lambda v: np.asarray(v, dtype=float).astype(np.int64).astype("timedelta64[s]"),
    "structured": _structured,
    "meta_tensor": _meta,                                # no values at all
    "sparse_tensor": lambda v: torch.as_tensor(np.array(v, dtype=float)).to_sparse(),
    "zero_d": lambda v: np.array(np.asarray(v).flat[0]),   # a 0-d array for an n-d one
    "scipy_sparse": lambda v: sparse.csr_matrix(np.asarray(v, dtype=float).reshape(
        -1, np.asarray(v).shape[-1] if np.asarray(v).ndim else 1)),  # 2-D: sparse has no 3-D
}
#: The families of issue 22 (foreign forms of an array): test_fuzz runs those of one parameter in
#: one forked worker (``run_guarded_batch``) to keep the suite's runtime down.
FORM_FAMILIES = ("zero_d", "masked", "object_none", "nullable_na", "complex", "datetime", "timedelta",
                 "structured", "meta_tensor", "sparse_tensor", "scipy_sparse", "mixed_types",
                 "mixed_list", "none_id")
#: group (query) ids: any hashable ids of one type, none missing
_QID = {**_ARRAY, "mixed_types": lambda v: _object_with(v, str(np.asarray(v).flat[0])),
        "mixed_list": lambda v: [str(x) if i == 0 else x for i, x in enumerate(np.asarray(v).tolist())],
        "none_id": lambda v: [None, *np.asarray(v).tolist()[1:]]}
FAMILIES: dict[str, dict[str, Callable[[Any], Any]]] = {
    "arr": _ARRAY,
    "qid": _QID,
    "bin": {**_ARRAY, "label_2": lambda v: _setfirst(v, 2), "label_-1": lambda v: _setfirst(v, -1)},
    "grades": {**_ARRAY, "negative": lambda v: _setfirst(v, -1),
               "fractional": lambda v: _setfirst(v, 0.5)},
    "prob": {**_ARRAY, "above_1": lambda v: _setfirst(v, 1.5),
             "below_0": lambda v: _setfirst(v, -0.1)},
    "w": {**_ARRAY, "negative": lambda v: _setfirst(v, -1.0)},
    "tol": {"nan": lambda v: np.nan, "inf": lambda v: np.inf, "negative": lambda v: -1.0,
            "wrong_type": lambda v: "small"},
    "pos": {"nan": lambda v: np.nan, "inf": lambda v: np.inf, "negative": lambda v: -1.0,
            "zero": lambda v: 0.0, "wrong_type": lambda v: "fast"},
    "unit": {"nan": lambda v: np.nan, "inf": lambda v: np.inf, "above_1": lambda v: 2.0,
             "wrong_type": lambda v: "x"},
    "int": {"negative": lambda v: -1, "fractional": lambda v: 1.5, "wrong_type": lambda v: "x"},
    "size": {"negative": lambda v: -1, "fractional": lambda v: 2.5, "wrong_type": lambda v: "x",
             "huge": lambda v: 10**12},
    "seed": {"negative": lambda v: -1, "wrong_type": lambda v: "x"},
    "opt": {"bogus": lambda v: "BOGUS", "wrong_type": lambda v: 3},
    "problem": {"none": lambda v: None, "wrong_type": lambda v: "x"},
    "hidden": {"negative": lambda v: (-1,), "wrong_type": lambda v: "x"},
    "config": {"wrong_type": lambda v: 3, "no_grid": lambda v: {"cases": []}},
}
ARRAY_KINDS = ("arr", "bin", "grades", "prob", "w", "qid")


def _family_inputs(name: str) -> list[tuple[str, str, Any]]:
    """``(parameter, family, value)`` for every fuzzed parameter of case ``name``."""
    case = CASES[name]
    out = []
    n_arrays = sum(1 for k in case.kinds.values() if k in ARRAY_KINDS)
    for param, kind in case.kinds.items():
        valid = case.kwargs.get(param)
        for fam, make in FAMILIES[kind].items():
            if valid is None and kind in ARRAY_KINDS:
                valid = [0.5, 0.5]  # an optional array: the family applies to a small one
            out.append((param, fam, make(valid)))
        if kind in ARRAY_KINDS and case.mismatch and n_arrays >= 2 and param in case.kwargs:
            v = np.asarray(case.kwargs[param])
            if v.ndim >= 1 and len(v) > 1:
                out.append((param, "shape_mismatch", v[:-1]))
    return out


def bad_inputs(name: str) -> list[tuple[str, str, Any]]:
    """``(parameter, family, bad value)`` for every fuzzed parameter of case ``name``, less the
    families that the case documents as valid input (:func:`accepted_inputs`)."""
    acc = CASES[name].accepts
    return [(p, f, v) for p, f, v in _family_inputs(name) if f"{p}:{f}" not in acc]


def accepted_inputs(name: str) -> list[tuple[str, str, Any, str]]:
    """``(parameter, family, value, reason)`` for the families that case ``name`` accepts."""
    acc = CASES[name].accepts
    return [(p, f, v, acc[f"{p}:{f}"]) for p, f, v in _family_inputs(name) if f"{p}:{f}" in acc]


# ---------------------------------------------------------------------------------------------
# integers beyond 2**53 (Case.exact): the values they must behave as, and their forms
# ---------------------------------------------------------------------------------------------
def exact_reference(v, how):
    """The float values that huge integers must behave as: dense ranks (per column) for "order",
    the integers themselves for "shift" (their differences matter)."""
    a = np.asarray(v)
    if how == "shift":
        assert a.dtype.kind in "iu", "shift: the valid value must hold integers"
        return a.astype(np.int64)
    if a.ndim == 1:
        return np.unique(a, return_inverse=True)[1].astype(np.int64)
    return np.stack([np.unique(a[:, j], return_inverse=True)[1] for j in range(a.shape[1])], 1)


def huge_integer_forms(r):
    """Integer arrays equal to ``r`` (small non-negative ints) up to a shift far past 2**53: in
    float64 neighbours would round into ties."""
    out = {"int64": np.int64(2**62) + r, "int64_negative": r - np.int64(2**62),
           "uint64": np.uint64(2**63) + r.astype(np.uint64),
           "python_int": (2**80 + r.astype(object)).tolist()}
    if r.ndim == 1:
        out["pandas_Int64"] = pd.Series(pd.array(np.int64(2**62) + r, dtype="Int64"))
    return out
