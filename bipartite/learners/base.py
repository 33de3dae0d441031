"""Objectives, criteria and the shared estimator machinery of the learners (docs/theory.md §10).

Query ids are passed as ``qid=`` (XGBoost's name) to ``fit``, ``score`` and
:func:`ranking_criterion`; ``groups=`` is a deprecated alias (FutureWarning) kept for one release.
"""


from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import metadata_routing
from sklearn.utils.validation import validate_data

from bipartite._utils.validation import (
    UndefinedMetricWarning,
    as_numeric_array,
    check_consistent_length,
    check_finite,
    check_label_matrix,
    check_option,
    check_positive,
    check_qid,
    resolve_qid,
)
from bipartite.bayes import OBJECTIVES
from bipartite.metrics import QueryRows
from bipartite.objectives import Objective, as_objective, label_aucs
from bipartite.surrogates import PAIRWISE_KINDS as SURROGATES

__all__ = ["LEARNER_OBJECTIVES", "OBJECTIVES", "SURROGATES", "MissingQueryIdWarning", "RankerMixin",
           "label_aucs", "ranking_criterion", "trained_labels"]

#: The learners' objectives: the core two (:data:`bipartite.bayes.OBJECTIVES`) and the max-min
#: AUC of docs/theory.md §13, which has no single Bayes scorer of its own (§13.6).
LEARNER_OBJECTIVES = OBJECTIVES + ("max_min",)

MLP_METHODS = ("pairwise", "pointwise", "plugin")
# float32 input is kept as is (half the memory on MSLR-sized data); anything else -> float64
FLOAT_DTYPES = [np.float64, np.float32]
XGB_METHODS = ("pairwise", "plugin")


# ---------------------------------------------------------------------------------------------
# Objective specification, shared by both estimators
# ---------------------------------------------------------------------------------------------
def learner_objective(est: RankerMixin) -> Objective:
    """The :class:`~bipartite.objectives.Objective` of a ranker's parameters (``objective``,
    ``a``, ``w``, ``aggregate``, ``costs``), validated once by its constructor. The rankers keep
    these as plain scikit-learn parameters and build the value inside ``fit``."""
    check_option(est.objective, "objective", LEARNER_OBJECTIVES)
    return Objective.from_spec(est.objective, a=est.a, aggregate=est.aggregate, w=est.w,
                               costs=est.costs)


def check_objective(est: RankerMixin, methods: tuple[str, ...]) -> Objective:
    """Validate the objective/method parameters of ``est`` (called at fit); returns the
    :class:`~bipartite.objectives.Objective`. The objective's own options are checked by its
    constructor; here only what the ``method`` adds (docs/theory.md §10.2)."""
    obj = learner_objective(est)
    check_option(est.method, "method", methods)
    closed_form = obj.linear_costs or obj.binary_aggregate
    if est.method == "pointwise":
        if obj.kind != "label_aggregation":
            raise ValueError(
                "method='pointwise' (regression on the aggregated label) is only defined for "
                f"objective='label_aggregation', got objective={est.objective!r}."
            )
        if not closed_form:
            raise ValueError(
                "method='pointwise' regresses on Ȳ, whose minimiser E[Ȳ|x] is Bayes-optimal only "
                f"for linear costs (docs/theory.md §5); got costs={est.costs!r}. Use method='pairwise'."
            )
    if est.method == "plugin" and not closed_form:
        raise ValueError(
            "method='plugin' needs a closed-form Bayes scorer: label aggregation with "
            f"aggregate='sum' has one for linear costs only (docs/theory.md §3, §5), got "
            f"costs={est.costs!r}. Use method='pairwise'."
        )
    return obj


#: Size limit of the plug-in joint head (a ``2**K``-way softmax over label vectors, label
#: aggregation whose ψ needs the joint): K <= 12 labels (4,096 classes); raise it with ``max_joint_labels=``.
JOINT_MAX_LABELS = 12


def check_joint_labels(K: int, max_joint_labels: int) -> None:
    """Refuse a ``2**K``-way joint head above ``max_joint_labels`` before anything is built."""
    limit = check_positive(max_joint_labels, "max_joint_labels", integer=True)
    if K > limit:
        raise ValueError(
            f"The plug-in joint head for label aggregation by a ψ that needs the joint (not affine "
            f"in Y) has 2**{K} = {2**K} classes "
            f"(K={K} labels in 'Y'), more than the limit max_joint_labels = {limit} "
            f"(2**{limit} classes); use aggregate='sum', method='pairwise', or raise "
            f"'max_joint_labels' deliberately."
        )


def batch_pair_weights(Y: Any, ybar: Any, *, where: Any, a: Any = None, levels: Any = None,
                       costs: Any = None) -> Any:
    """The objective's pair weights on a training batch (docs/theory.md §8.2), factored
    (``dense=False``) and unchecked (the data were validated at ``fit``): the pairs of the levels
    of ``ybar`` weighted by the costs when the objective aggregates labels
    (:meth:`Objective.aggregated_labels <bipartite.objectives.Objective.aggregated_labels>` gave
    ``ybar``; ``levels`` and the cost matrix ``costs`` of the whole training set, so a batch
    holding a subset of the levels gets the same weights), else each label's pairs of ``Y``
    weighted by the mixing weights ``a`` (a tensor on the batch's device; None: ones)."""
    from bipartite import surrogates

    if ybar is not None:
        return surrogates.label_aggregation_pair_weights(
            ybar, costs=costs, where=where, levels=levels, dense=False, check_input=False)
    return surrogates.loss_aggregation_pair_weights(Y, a=a, where=where, dense=False,
                                                    check_input=False)


class MissingQueryIdWarning(UserWarning):
    """A ranker fitted with query ids is scored without them (the pooled criterion is returned)."""


def ranking_criterion(
    Y: ArrayLike,
    scores: ArrayLike,
    *,
    objective: str = "loss_aggregation",
    a: ArrayLike | None = None,
    w: ArrayLike | None = None,
    aggregate: str | Callable[[np.ndarray], float] = "sum",
    costs: str | ArrayLike = "linear",
    qid: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    check_input: bool = True,
) -> float:
    """The AUC criterion an objective maximises, evaluated on labelled data (docs/theory.md §4, §5).

    * ``objective="loss_aggregation"``: ``Σ_k a_k AUC_k(f) / Σ_k a_k`` with mixing weights ``a``
      (default ones); labels with a single class are left out (their AUC is undefined).
    * ``objective="label_aggregation"``: the multipartite AUC of the aggregated label
      ``Ȳ = ψ(Y)`` (label weights ``w`` of the sum) with ``costs`` (:func:`bipartite.metrics.multipartite_auc`).
    * ``objective="max_min"``: ``min_k AUC_k`` over the labels with both classes (docs/theory.md
      §13; with ``qid``, the min of the per-label uniform gAUCs). ``a`` and ``w`` must be None.

    With ``qid`` (query ids) only pairs within a query count, and every query weighs the same
    (the per-query AUCs are averaged uniformly over the queries where they are defined, as
    :func:`bipartite.metrics.group_auc` with ``weighting="uniform"``) — the normalisation the
    learners use when fitted with ``qid``. ``groups`` is a deprecated alias of ``qid``. All
    per-query AUCs come from one sort (:func:`bipartite.metrics.grouped_stats`).
    ``check_input=False`` skips the checks of ``Y`` (then a 2-D 0/1 array), ``scores`` (finite
    float64) and ``qid`` (then int codes ``0..G-1``, :func:`check_qid`): for callers that
    validated at their public entry.

    Both lie in [0, 1]; a constant scorer gets ½ (ties count ½). NaN with
    :class:`~bipartite.UndefinedMetricWarning` when no pair is comparable.

    Parameters
    ----------
    Y : array-like of shape (n, K) or (n,)
        Binary labels.
    scores : array-like of shape (n,)
    qid : array-like of shape (n,), optional

    >>> Y = [[0, 0], [1, 0], [0, 1], [1, 1]]
    >>> round(ranking_criterion(Y, [0.0, 1.0, 2.0, 3.0]), 3)
    0.875
    >>> round(ranking_criterion(Y, [0.0, 1.0, 2.0, 3.0], objective="label_aggregation"), 3)
    1.0
    >>> round(ranking_criterion(Y, [0.0, 1.0, 2.0, 3.0], qid=[0, 0, 1, 1]), 3)
    1.0
    >>> round(ranking_criterion(Y, [0.0, 1.0, 2.0, 3.0], objective="max_min"), 3)
    0.75
    """
    check_option(objective, "objective", LEARNER_OBJECTIVES)
    qid, _ = resolve_qid(qid, groups, "ranking_criterion")
    spec = as_objective(objective, a=a, w=w, aggregate=aggregate, costs=costs)
    return spec.criterion(Y, scores, qid=qid, check_input=check_input)


def quiet_criterion(Y: np.ndarray, scores: np.ndarray, spec: Objective, qid=None) -> float:
    """Criterion for early stopping: NaN (no warning) when undefined on the validation split
    (:meth:`Objective.criterion <bipartite.objectives.Objective.criterion>` of ``spec``).
    ``Y`` and ``qid`` (codes) were validated at ``fit``; the scores are the network's, checked
    for NaN/inf here (a diverged fit must not rank silently)."""
    s = np.asarray(scores, dtype=np.float64)
    check_finite(s, "scores")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return spec.criterion(Y, s, qid=qid, check_input=False)


def trained_labels(prior: np.ndarray, spec: Objective, who: str) -> np.ndarray:
    """The labels a ranker optimises: the rule for a label with a **single class in the training
    rows** (training prior ``π̂_k`` = 0 or 1, e.g. enron's ``D.D18`` in the standard training
    split), whose AUC_k is undefined there.

    Loss aggregation and max-min leave such a label **out, with a warning naming it** — as the
    criterion already does (:meth:`Objective.criterion <bipartite.objectives.Objective.criterion>`
    averages over the labels with a comparable pair): the plug-in closed form drops its term
    ``α_k η̂_k`` (``α_k = a_k/(π̂_k(1 − π̂_k))`` is undefined), max-min leaves it out of the min,
    the pairwise routes have no pair of it. It raises instead when no label (or no label with
    ``a_k > 0``) is left. Label aggregation keeps every label (its closed form does not use the
    priors; a constant label only shifts ``Ȳ``). Returns the (K,) mask of the labels kept
    (the rankers' ``trained_labels_``).
    """
    K = len(prior)
    keep = (prior > 0) & (prior < 1)
    if not spec.uses_priors or keep.all():
        return np.ones(K, dtype=bool)
    single = np.flatnonzero(~keep)
    shown = ", ".join(f"{k} (prior {prior[k]:g})" for k in single[:10])
    shown += " ..." if len(single) > 10 else ""
    a = spec.mixing_weights(K)
    if not keep.any() or (a is not None and not np.any(a[keep] > 0)):
        raise ValueError(
            f"The 'Y' parameter has no label {'with a_k > 0 ' if keep.any() else ''}with both "
            f"classes in the training rows (single-class labels: {shown}): objective="
            f"{spec.kind!r} has nothing to optimise.")
    warnings.warn(
        f"{who}: {len(single)} label(s) of 'Y' have a single class in the training rows, so "
        f"their AUC is undefined there; objective={spec.kind!r} leaves them out (no plug-in term, "
        f"no pair, not in the max-min): labels {shown}.", UserWarning, stacklevel=4)
    return keep


#: The error of a fit with nothing to rank (both rankers).
NO_COMPARABLE_PAIR = ("The 'Y' parameter gives no comparable pair (every label, or the aggregated "
                      "label, is constant within every query with positive weight): nothing to "
                      "fit.")


def check_comparable_levels(ybar: np.ndarray, qid: np.ndarray | None = None) -> None:
    """Raise ``ValueError`` (:data:`NO_COMPARABLE_PAIR`) when the aggregated label ``ybar`` is
    constant within every query (the whole sample without ``qid``): label aggregation then has
    no pair to rank (e.g. OR of labels that every row has one of), and a fit would return an
    arbitrary scorer."""
    if qid is None:
        if len(ybar) == 0 or np.ptp(ybar) == 0:
            raise ValueError(NO_COMPARABLE_PAIR)
        return
    rows = QueryRows(qid, check_input=False)
    if not np.any(rows.reduce(np.maximum, ybar) > rows.reduce(np.minimum, ybar)):
        raise ValueError(NO_COMPARABLE_PAIR)


def plugin_ranking_scores(
    eta: np.ndarray | None, joint: np.ndarray | None, pi: np.ndarray, spec: Objective,
    keep: np.ndarray | None = None,
) -> np.ndarray:
    """Combine estimated η (n, K) / joint (n, 2**K) by the closed form of the objective
    (:meth:`Objective.plugin_scores <bipartite.objectives.Objective.plugin_scores>`); for an
    objective that uses the priors, over the labels ``keep`` only (:func:`trained_labels`).
    Needs only the marginals η unless the objective needs the joint: O(n K) at any K."""
    if keep is not None and spec.uses_priors and not keep.all():
        a = spec.mixing_weights(len(pi))
        a = np.ones(len(pi)) if a is None else a
        spec, eta, pi = Objective("loss_aggregation", a=a[keep]), eta[:, keep], pi[keep]
    return spec.plugin_scores(eta, pi, joint=joint)


#: Most labels :func:`label_codes` packs into one int64 code per row.
MAX_CODE_LABELS = 62


def label_codes(Y: np.ndarray) -> np.ndarray:
    """Index of each row's label vector (label 1 = most significant bit).

    Same order as :func:`bipartite.labels.label_vectors`. Only the joint head uses it, after
    its own 2**K limit (:func:`check_joint_labels`); an int64 holds K <= 62 labels.
    """
    K = Y.shape[1]
    if K > MAX_CODE_LABELS:
        raise ValueError(f"The 'Y' parameter has K={K} labels: label-vector codes (2**K values) "
                         f"hold at most {MAX_CODE_LABELS} labels.")
    return (Y.astype(np.int64) << np.arange(K - 1, -1, -1)[None, :]).sum(axis=1)




class RankerMixin:
    """Shared input handling, criterion, metadata-routing defaults and tags of the two rankers.

    Metadata routing (scikit-learn >= 1.4, ``sklearn.set_config(enable_metadata_routing=True)``):
    ``qid`` (fit, score) and ``sample_weight`` (fit, XGBRanker) have the default request
    ``None``: passed through ``params=`` without ``set_fit_request(qid=True)`` /
    ``set_score_request(qid=True)``, scikit-learn raises ``UnsetMetadataPassedError`` (nothing is
    dropped silently). The deprecated alias ``groups`` is not routable (``UNUSED``), so that
    ``params={"groups": qid}`` reaches the splitter (``GroupKFold``) only.
    """

    __metadata_request__fit = {"groups": metadata_routing.UNUSED}
    __metadata_request__score = {"groups": metadata_routing.UNUSED}

    def _spec(self) -> Objective:
        """The :class:`~bipartite.objectives.Objective` of the parameters (built at use: the
        parameters stay plain scikit-learn parameters)."""
        return learner_objective(self)

    def _plugin_spec(self) -> Objective:
        """The closed form of the plug-in route: the objective's, or, for ``"max_min"``, loss
        aggregation with the fitted mixing weights ``a_`` (docs/theory.md §13.6)."""
        spec = self._spec()
        return spec if spec.fixed_weights else Objective("loss_aggregation", a=self.a_)

    def _record_max_min(self, choice: Any) -> None:
        """Max-min plug-in: keep the search (a :class:`~bipartite.learners.maxmin.MaxMinChoice`)
        and its ``a_``, ``val_auc_``, ``val_min_auc_``."""
        self.a_search_ = choice
        self.a_ = choice.a
        self.val_auc_, self.val_min_auc_ = choice.aucs, choice.value

    def _validate_fit_input(self, X: ArrayLike, Y: ArrayLike, qid: ArrayLike | None, groups: ArrayLike | None = None, *,
                            allow_nan: bool = False):
        """Validated ``(X, Y (n, K) float, query codes or None)``; records ``n_queries_``."""
        qid, qname = resolve_qid(qid, groups, f"{type(self).__name__}.fit", stacklevel=4)
        if Y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None "
                "(the 'Y' parameter: binary labels of shape (n, K))."
            )
        X = self._validate_X(X, reset=True, ensure_min_samples=2,
                             ensure_all_finite="allow-nan" if allow_nan else True)
        Y = check_label_matrix(Y)
        check_consistent_length(X=X, Y=Y)
        codes = check_qid(qid, X.shape[0], qname)
        self.n_queries_ = None if codes is None else int(codes.max()) + 1
        self._spec().check_labels(Y.shape[1])  # 'a' / 'w' against K, before any training
        return X, Y, codes

    def _fit_labels(self, Y: np.ndarray, sample_weight: np.ndarray | None = None) -> Objective:
        """Record what the objective takes from the training labels, before any training, and
        return the Objective: ``n_labels_``, ``prior_`` (the label means, weighted by
        ``sample_weight``), ``trained_labels_`` (:func:`trained_labels`, with its warning) and
        ``joint_head_`` (whether the plug-in route needs the ``2**K``-way joint head; its size
        limit checked by :func:`check_joint_labels`)."""
        K = Y.shape[1]
        spec = self._spec()
        self.n_labels_ = K
        self.prior_ = np.average(Y, axis=0, weights=sample_weight)
        self.trained_labels_ = trained_labels(self.prior_, spec, type(self).__name__)
        self.joint_head_ = self.method == "plugin" and spec.joint_needed(K)
        if self.joint_head_:
            check_joint_labels(K, self.max_joint_labels)  # the size limit first, by name
        return spec

    def _validate_X(self, X: ArrayLike, **kwargs: Any) -> np.ndarray:
        """scikit-learn's ``validate_data`` of the features (float dtypes), with its errors
        naming the 'X' parameter (the original message follows, unchanged)."""
        try:
            as_numeric_array(X, "X")  # masked, sparse, datetime, complex... refused by name
            return validate_data(self, X, dtype=FLOAT_DTYPES, **kwargs)
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"The 'X' parameter is not valid: {exc}") from exc

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Same as :meth:`decision_function`: the ranking scores, shape (n,)."""
        return self.decision_function(X)

    def score(self, X: ArrayLike, Y: ArrayLike, qid: ArrayLike | None = None, *, groups: ArrayLike | None = None) -> float:
        """The objective's AUC criterion on (X, Y) (:func:`ranking_criterion`); higher is better.

        With ``qid`` (query ids), pairs within queries only, each query weighted equally.
        ``groups`` is a deprecated alias of ``qid``. A ranker fitted with query ids and scored
        without them warns (:class:`MissingQueryIdWarning`): the pooled criterion mixes queries.
        In model selection, route ``qid`` with ``set_score_request(qid=True)`` (see
        :mod:`bipartite.learners.scoring`).
        """
        qid, qname = resolve_qid(qid, groups, f"{type(self).__name__}.score")
        if qid is None and getattr(self, "n_queries_", None) is not None:
            warnings.warn(
                f"{type(self).__name__} was fitted with query ids ({self.n_queries_} queries) but "
                "score() got none: the pooled criterion (pairs across queries) is returned. Pass "
                "qid= (in scikit-learn model selection: sklearn.set_config("
                "enable_metadata_routing=True) and est.set_score_request(qid=True)).",
                MissingQueryIdWarning,
                stacklevel=2,
            )
        scores = self.decision_function(X)
        Y = check_label_matrix(Y)
        check_consistent_length(X=scores, Y=Y)
        return self._spec().criterion(Y, scores, qid=check_qid(qid, len(scores), qname),
                                     check_input=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = None
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        tags.target_tags.two_d_labels = True
        return tags


def split_validation(
    n: int, qid: np.ndarray | None, fraction: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Random train/validation split of rows (by whole queries when ``qid`` codes are given)."""
    if fraction <= 0:
        return np.arange(n), np.arange(0)
    if qid is None:
        n_val = int(round(fraction * n))
        if n_val < 2 or n - n_val < 2:
            return np.arange(n), np.arange(0)
        perm = rng.permutation(n)
        return np.sort(perm[n_val:]), np.sort(perm[:n_val])
    G = int(qid.max()) + 1
    n_val = int(round(fraction * G))
    if n_val < 1 or G - n_val < 1:
        return np.arange(n), np.arange(0)
    val_groups = rng.permutation(G)[:n_val]
    is_val = np.isin(qid, val_groups)
    return np.flatnonzero(~is_val), np.flatnonzero(is_val)
