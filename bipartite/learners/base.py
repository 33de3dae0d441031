"""Objectives, criteria and the shared estimator machinery of the learners (docs/theory.md §10).

Query ids are passed as ``qid=`` (XGBoost's name) to ``fit``, ``score`` and
:func:`ranking_criterion`; ``groups=`` is a deprecated alias (FutureWarning) kept for one release.
"""


from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import metadata_routing
from sklearn.utils.validation import validate_data

from bipartite._utils.validation import (
    UndefinedMetricWarning,
    as_numeric_array,
    check_array,
    check_binary,
    check_consistent_length,
    check_group_ids,
    check_nonnegative,
    check_option,
    check_positive,
)
from bipartite.bayes import OBJECTIVES

# MTRUB's multi-task network lives in its own module and is re-exported here (docs/theory.md §11).
from bipartite.labels import AGGREGATES, COST_FAMILIES, aggregate_labels
from bipartite.surrogates import PAIRWISE_KINDS as SURROGATES

__all__ = ["LEARNER_OBJECTIVES", "OBJECTIVES", "SURROGATES", "MissingQueryIdWarning", "RankerMixin",
           "label_aucs", "ranking_criterion"]

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
def check_costs(costs: str | ArrayLike) -> str | np.ndarray:
    if isinstance(costs, str):
        return check_option(costs, "costs", COST_FAMILIES)
    C = check_array(costs, "costs", ndim=2)
    if C.shape[0] != C.shape[1]:
        raise ValueError(f"The 'costs' matrix must be square, got shape {C.shape}.")
    return C


def check_objective(est: RankerMixin, methods: tuple[str, ...]) -> None:
    """Validate the objective/method parameters of ``est`` (called at fit)."""
    check_option(est.objective, "objective", LEARNER_OBJECTIVES)
    check_option(est.method, "method", methods)
    check_option(est.aggregate, "aggregate", AGGREGATES)
    check_costs(est.costs)
    for name in ("a", "w"):
        value = getattr(est, name)
        if value is not None:
            v = check_nonnegative(check_array(value, name, ndim=1), name)
            if not np.any(v > 0):
                raise ValueError(
                    f"The '{name}' parameter must have a positive entry, got {v.tolist()}.")
    if est.objective == "loss_aggregation" and est.w is not None:
        raise ValueError("The 'w' parameter (label weights) is only used with "
                         "objective='label_aggregation'; loss aggregation takes 'a'.")
    if est.objective == "max_min":
        for name in ("a", "w"):
            if getattr(est, name) is not None:
                raise ValueError(
                    f"The '{name}' parameter is not used with objective='max_min': the mixing "
                    "weights are chosen at fit (method='plugin': the fitted a_) or adapted "
                    "during training (method='pairwise': the fitted label weights dro_weights_).")
    if est.objective == "label_aggregation" and est.a is not None:
        raise ValueError("The 'a' parameter (mixing weights) is only used with "
                         "objective='loss_aggregation'; label aggregation takes 'w'.")
    linear = isinstance(est.costs, str) and est.costs == "linear"
    binary_bar = est.aggregate in ("product", "or")
    if est.objective == "label_aggregation" and est.aggregate != "sum" and est.w is not None:
        raise ValueError(
            "The 'w' parameter is only used with aggregate='sum' for label aggregation, "
            f"got aggregate={est.aggregate!r}."
        )
    if est.method == "pointwise":
        if est.objective != "label_aggregation":
            raise ValueError(
                "method='pointwise' (regression on the aggregated label) is only defined for "
                f"objective='label_aggregation', got objective={est.objective!r}."
            )
        if not (linear or binary_bar):
            raise ValueError(
                "method='pointwise' regresses on Ȳ, whose minimiser E[Ȳ|x] is Bayes-optimal only "
                f"for linear costs (docs/theory.md §5); got costs={est.costs!r}. Use method='pairwise'."
            )
    if est.method == "plugin" and est.objective == "label_aggregation":
        if not (linear or binary_bar):
            raise ValueError(
                "method='plugin' needs a closed-form Bayes scorer: label aggregation with "
                f"aggregate='sum' has one for linear costs only (docs/theory.md §3, §5), got "
                f"costs={est.costs!r}. Use method='pairwise'."
            )


def mixing_weights(a: ArrayLike, K: int) -> np.ndarray:
    """The mixing weights ``a`` of loss aggregation as a (K,) array (default all ones)."""
    if a is None:
        return np.ones(K)
    a = check_array(a, "a", ndim=1)
    if a.shape != (K,):
        raise ValueError(f"The 'a' parameter must have shape ({K},), got shape {a.shape}.")
    check_nonnegative(a, "a")  # a negative weight would silently drop (or invert) its label
    if not a.sum() > 0:
        raise ValueError(f"The 'a' parameter must have a positive entry, got {a.tolist()}.")
    return a


def needs_joint(objective: str, aggregate: str) -> bool:
    return objective == "label_aggregation" and aggregate in ("product", "or")


#: Size limit of the plug-in joint head (a ``2**K``-way softmax over label vectors, product/or
#: label aggregation): K <= 12 labels (4,096 classes); raise it with ``max_joint_labels=``.
JOINT_MAX_LABELS = 12


def check_joint_labels(K: int, max_joint_labels: int) -> None:
    """Refuse a ``2**K``-way joint head above ``max_joint_labels`` before anything is built."""
    limit = check_positive(max_joint_labels, "max_joint_labels", integer=True)
    if K > limit:
        raise ValueError(
            f"The plug-in joint head for product/or label aggregation has 2**{K} = {2**K} classes "
            f"(K={K} labels in 'Y'), more than the limit max_joint_labels = {limit} "
            f"(2**{limit} classes); use aggregate='sum', method='pairwise', or raise "
            f"'max_joint_labels' deliberately."
        )


def restrict_costs(costs: str | ArrayLike, levels: np.ndarray, present: np.ndarray) -> str | np.ndarray:
    """Costs over a subset ``present`` of the sorted ``levels``: a family name as is, a user
    (L, L) matrix restricted to the rows/columns of the present levels."""
    if isinstance(costs, str):
        return costs
    pos = np.searchsorted(levels, present)
    return np.asarray(costs, dtype=np.float64)[np.ix_(pos, pos)]


class MissingQueryIdWarning(UserWarning):
    """A ranker fitted with query ids is scored without them (the pooled criterion is returned)."""


def resolve_qid(qid: ArrayLike | None, groups: ArrayLike | None, owner: str, *, stacklevel: int = 3
                ) -> tuple[ArrayLike | None, str]:
    """``(query ids, the argument name they came in)`` from ``qid`` and its deprecated alias
    ``groups`` (FutureWarning; both at once is an error)."""
    if groups is None:
        return qid, "qid"
    if qid is not None:
        raise TypeError(f"{owner} got both 'qid' and its deprecated alias 'groups'; pass 'qid' only.")
    warnings.warn(
        f"The 'groups' parameter of {owner} is deprecated (since 0.3.0, removed in 0.4.0): pass "
        "the query ids as 'qid=' (XGBoost's name). In scikit-learn model selection, route them "
        "with metadata routing (see bipartite.learners.scoring).",
        FutureWarning,
        stacklevel=stacklevel,
    )
    return groups, "groups"


def check_qid(qid: ArrayLike | None, n: int, name: str = "qid", ref: str = "X") -> np.ndarray | None:
    """Query ids (any hashable values, 1-D, length ``n``) as codes ``0..G-1`` (int64), or None."""
    if qid is None:
        return None
    q = check_group_ids(qid, name, allow_empty=True)
    check_consistent_length(**{ref: np.empty(n), name: q})
    return np.unique(q, return_inverse=True)[1].reshape(-1).astype(np.int64)


def ranking_criterion(
    Y: ArrayLike,
    scores: ArrayLike,
    *,
    objective: str = "loss_aggregation",
    a: ArrayLike | None = None,
    w: ArrayLike | None = None,
    aggregate: str = "sum",
    costs: str | ArrayLike = "linear",
    qid: ArrayLike | None = None,
    groups: ArrayLike | None = None,
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
    learners use when fitted with ``qid``. ``groups`` is a deprecated alias of ``qid``.

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
    from bipartite.metrics import group_auc, multilabel_auc, multipartite_auc

    check_option(objective, "objective", LEARNER_OBJECTIVES)
    Y = check_binary(Y, "Y", ndim=(1, 2))
    if Y.ndim == 1:
        Y = Y[:, None]
    s = check_array(scores, "scores", ndim=1)
    check_consistent_length(Y=Y, scores=s)
    qid, qname = resolve_qid(qid, groups, "ranking_criterion")
    g = check_qid(qid, len(s), qname, ref="scores")
    if objective == "max_min":
        for name, value in (("a", a), ("w", w)):
            if value is not None:
                raise ValueError(f"The '{name}' parameter is not used with objective='max_min' "
                                 f"(the criterion is min_k AUC_k), got {value!r}.")
        aucs = label_aucs(Y, s, g)
        if not np.isfinite(aucs).any():
            warnings.warn("No label has a comparable pair: the max-min criterion is undefined.",
                          UndefinedMetricWarning, stacklevel=2)
            return float("nan")
        return float(np.nanmin(aucs))
    if objective == "loss_aggregation":
        a = mixing_weights(a, Y.shape[1])
        if g is None:
            defined = (Y.min(axis=0) < Y.max(axis=0)) & (a > 0)
        else:
            n_pos = np.stack([np.bincount(g, Y[:, k]) for k in range(Y.shape[1])], axis=1)
            n_all = np.bincount(g)[:, None]
            defined = np.any((n_pos > 0) & (n_pos < n_all), axis=0) & (a > 0)
        if not defined.any():
            warnings.warn(
                "No label with positive weight has a comparable pair: the criterion is undefined.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
            return float("nan")
        if g is None:
            aucs = multilabel_auc(Y[:, defined], s)
        else:
            aucs = np.array([group_auc(Y[:, k], s, g, weighting="uniform")
                             for k in np.flatnonzero(defined)])
        return float(np.dot(a[defined], aucs) / a[defined].sum())
    ybar = aggregate_labels(Y, aggregate, w)
    if g is None:
        return float(multipartite_auc(ybar, s, costs=costs))
    levels = np.unique(ybar)
    per_group = []
    order = np.argsort(g, kind="stable")
    for members in np.split(order, np.flatnonzero(np.diff(g[order])) + 1):
        present = np.unique(ybar[members])
        if len(present) > 1:
            c = restrict_costs(costs, levels, present)
            per_group.append(multipartite_auc(ybar[members], s[members], costs=c))
    if not per_group:
        warnings.warn(
            "No group holds two levels of the aggregated label: the criterion is undefined.",
            UndefinedMetricWarning,
            stacklevel=2,
        )
        return float("nan")
    return float(np.mean(per_group))


def label_aucs(Y: np.ndarray, scores: np.ndarray, qid: np.ndarray | None = None,
               sample_weight: np.ndarray | None = None) -> np.ndarray:
    """Per-label AUC of one scorer (K,), ties ½; with query codes ``qid`` the uniform per-query
    gAUC of every label (:func:`bipartite.metrics.group_auc`, ``weighting="uniform"``), the
    normalisation of :func:`ranking_criterion`. NaN, quietly, for a label with no comparable pair.
    """
    from bipartite.metrics import group_auc, multilabel_auc

    Y = check_binary(Y, "Y", ndim=2)
    scores = check_array(scores, "scores", ndim=1)
    check_consistent_length(Y=Y, scores=scores)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        if qid is None:
            return multilabel_auc(Y, scores, sample_weight=sample_weight)
        return np.array([group_auc(Y[:, k], scores, qid, sample_weight=sample_weight,
                                   weighting="uniform") for k in range(Y.shape[1])])


def quiet_criterion(Y: np.ndarray, scores: np.ndarray, spec: dict, qid=None) -> float:
    """Criterion for early stopping: NaN (no warning) when undefined on the validation split."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return ranking_criterion(Y, scores, qid=qid, **spec)


def plugin_ranking_scores(
    eta: np.ndarray | None, joint: np.ndarray | None, pi: np.ndarray, spec: dict
) -> np.ndarray:
    """Combine estimated η (n, K) / joint (n, 2**K) by the closed form of the objective."""
    from bipartite.bayes import label_aggregation_scores, loss_aggregation

    if spec["objective"] == "loss_aggregation":
        return np.asarray(loss_aggregation(eta, pi, mixing_weights(spec["a"], len(pi))))
    return np.asarray(
        label_aggregation_scores(
            eta=eta,
            joint=joint,
            aggregate=spec["aggregate"],
            w=spec["w"],
            costs=spec["costs"],
        )
    )


def label_codes(Y: np.ndarray) -> np.ndarray:
    """Index of each row's label vector (label 1 = most significant bit).

    Same order as :func:`bipartite.population.label_vectors`.
    """
    K = Y.shape[1]
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

    def _spec(self) -> dict:
        return {
            "objective": self.objective,
            "a": self.a,
            "w": self.w,
            "aggregate": self.aggregate,
            "costs": self.costs,
        }

    def _plugin_spec(self) -> dict:
        """The closed form of the plug-in route: the objective's, or, for ``"max_min"``, loss
        aggregation with the fitted mixing weights ``a_`` (docs/theory.md §13.6)."""
        if self.objective == "max_min":
            return {**self._spec(), "objective": "loss_aggregation", "a": self.a_}
        return self._spec()

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
        Y = check_binary(Y, "Y", ndim=(1, 2))
        if Y.ndim == 1:
            Y = Y[:, None]
        check_consistent_length(X=X, Y=Y)
        codes = check_qid(qid, X.shape[0], qname)
        self.n_queries_ = None if codes is None else int(codes.max()) + 1
        K = Y.shape[1]
        if self.a is not None:
            mixing_weights(self.a, K)
        return X, Y, codes

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
        return ranking_criterion(Y, scores, qid=check_qid(qid, len(scores), qname), **self._spec())

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
