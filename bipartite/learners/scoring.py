"""Scorers for scikit-learn model selection of multi-label rankers (docs/theory.md §2, §4, §5, §10).

Every scorer ranks by the estimator's ``decision_function`` (``response_method=
"decision_function"``) and compares with the binary label matrix ``Y`` (n, K). Ties count ½ in
every AUC. Kinds (:data:`SCORER_KINDS`, built by :func:`make_ranking_scorer`):

* ``"auc"`` — pooled AUC of label ``label`` (None: the mean over the labels); no query ids.
* ``"gauc"`` — group AUC of ``label`` (:func:`bipartite.metrics.group_auc`, query weights
  ``weighting``); query ids **required**.
* ``"min_auc"`` — ``min_k AUC_k``, the worst-served label (with query ids: ``min_k gAUC_k``).
* ``"diff_auc"`` — ``max_k AUC_k − min_k AUC_k`` (with query ids: of the gAUCs); lower is
  better, so the scorer returns it negated, as scikit-learn's ``neg_*`` scorers.
* ``"loss_aggregation"`` / ``"label_aggregation"`` — the learners' criterion
  (:func:`~bipartite.learners.ranking_criterion`: mixing weights ``a``; or ψ, ``w``, costs);
  with query ids, the per-query criterion (what ``est.score(X, Y, qid=...)`` returns).

:func:`ranking_scorers` returns a dict of named scorers (``"auc_<label>"``, ``"gauc_<label>"``,
``"min_auc"``, ``"diff_auc"``, ``"loss_aggregation"``, ``"label_aggregation"``) for
multi-metric ``scoring=`` (then pass ``refit=<name>`` to a search).

**Query ids need metadata routing.** ``cross_val_score(est, X, Y, groups=qid,
cv=GroupKFold())`` gives the ids to the splitter only: the ranker trains and scores as if the
data had no queries, silently. Route them to the ranker and the scorers instead::

    import sklearn
    from sklearn.model_selection import GroupKFold, cross_val_score

    sklearn.set_config(enable_metadata_routing=True)
    est = XGBRanker().set_fit_request(qid=True).set_score_request(qid=True)
    gauc = make_ranking_scorer("gauc", label=0)   # requests qid (routing is on)
    cross_val_score(est, X, Y, cv=GroupKFold(5), scoring=gauc,
                    params={"groups": qid, "qid": qid})

Request defaults: the rankers request nothing (``qid`` and ``sample_weight`` are ``None``:
scikit-learn raises ``UnsetMetadataPassedError`` if they are passed unrequested, so nothing is
dropped silently); the deprecated ``groups`` of ``fit``/``score`` is not routable, so
``params={"groups": ...}`` reaches only the splitter. The scorers that use query ids request
``qid`` when they are made while routing is enabled (``request_qid="auto"``); scikit-learn
refuses ``set_score_request`` while routing is disabled. The ``"gauc"`` scorer raises when it gets
no query ids, naming this recipe.

**``scoring="roc_auc"``** treats the ranker as a classifier: with a multi-label ``Y`` (n, K) it
expects one score column per label, so every fold fails and is scored NaN (with a traceback
warning). Use ``make_ranking_scorer("auc", label=k)`` for one label, ``"min_auc"`` or a
criterion for all of them, or :func:`ranking_scorers`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    UndefinedMetricWarning,
    check_array,
    check_consistent_length,
    check_label_matrix,
    check_option,
    check_qid,
)
from bipartite.objectives import Objective, as_objective

__all__ = ["SCORER_KINDS", "make_ranking_scorer", "ranking_scorers"]

SCORER_KINDS = ("auc", "gauc", "min_auc", "diff_auc", "loss_aggregation", "label_aggregation")
_USES_QID = ("gauc", "min_auc", "diff_auc", "loss_aggregation", "label_aggregation")
_RECIPE = ("sklearn.set_config(enable_metadata_routing=True); make the scorer (or call "
           "scorer.set_score_request(qid=True)); pass params={'groups': qid, 'qid': qid}")


def _labels(y_true: ArrayLike) -> tuple[np.ndarray, list[Any]]:
    """Binary Y as (n, K) float and its column names (DataFrame columns, else 0..K-1)."""
    names = list(getattr(y_true, "columns", [])) or None
    Y = check_label_matrix(y_true, "y_true")
    return Y, names if names is not None else list(range(Y.shape[1]))


def _column(names: list[Any], label: int | str) -> int:
    if isinstance(label, (int, np.integer)) and not isinstance(label, bool):
        if 0 <= label < len(names):
            return int(label)
    elif label in names:
        return names.index(label)
    raise ValueError(f"The 'label' parameter must be a column index in [0, {len(names)}) or a "
                     f"column name of y_true ({names}), got {label!r}.")


def _per_label(Y: np.ndarray, s: np.ndarray, qid: ArrayLike | None, weighting: str) -> np.ndarray:
    """Per-label AUC (pooled) or gAUC (with query ids); NaN, quietly, where undefined."""
    from bipartite.metrics import grouped_stats, multilabel_auc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        if qid is None:
            return multilabel_auc(Y, s)
        check_consistent_length(y_true=Y, y_score=s)
        g = check_qid(qid, len(s), "qid", ref="y_score")
        return grouped_stats(Y, s, g, ap=False, check_input=False).gauc(weighting)


def _undefined(what: str) -> float:
    warnings.warn(f"{what} is undefined on this split (no label with both classes).",
                  UndefinedMetricWarning, stacklevel=3)
    return float("nan")


def _auc_score(y_true: ArrayLike, y_score: ArrayLike, *, label: int | str | None = None) -> float:
    """Pooled AUC of one label, or the mean over the labels where it is defined."""
    Y, names = _labels(y_true)
    s = check_array(y_score, "y_score", ndim=1)
    cols = list(range(Y.shape[1])) if label is None else [_column(names, label)]
    v = _per_label(Y[:, cols], s, None, "pairs")
    return float(np.nanmean(v)) if np.isfinite(v).any() else _undefined("AUC")


def _gauc_score(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *, label: int | str | None = None,
                weighting: str = "pairs") -> float:
    """Group AUC of one label (or the mean over labels); query ids are required."""
    if qid is None:
        raise ValueError("The gAUC scorer got no query ids ('qid' is None). In scikit-learn model "
                         f"selection route them with metadata routing: {_RECIPE}.")
    Y, names = _labels(y_true)
    s = check_array(y_score, "y_score", ndim=1)
    cols = list(range(Y.shape[1])) if label is None else [_column(names, label)]
    v = _per_label(Y[:, cols], s, qid, weighting)
    return float(np.nanmean(v)) if np.isfinite(v).any() else _undefined("gAUC")


def _spread_score(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *, statistic: str = "min",
                  weighting: str = "pairs") -> float:
    """``min_k AUC_k`` or ``max_k AUC_k − min_k AUC_k`` over the labels where AUC is defined."""
    Y, _ = _labels(y_true)
    v = _per_label(Y, check_array(y_score, "y_score", ndim=1), qid, weighting)
    v = v[np.isfinite(v)]
    if not v.size:
        return _undefined("Min AUC" if statistic == "min" else "Diff AUC")
    return float(v.min() if statistic == "min" else v.max() - v.min())


def _criterion_score(y_true: ArrayLike, y_score: ArrayLike, qid: ArrayLike | None = None, *,
                     objective: Objective) -> float:
    """:meth:`Objective.criterion <bipartite.objectives.Objective.criterion>` (per query with
    ``qid``), the criterion of :func:`~bipartite.learners.ranking_criterion`."""
    Y, _ = _labels(y_true)
    return objective.criterion(Y, y_score, qid=qid)


def make_ranking_scorer(
    kind: str,
    *,
    label: int | str | None = None,
    a: ArrayLike | None = None,
    w: ArrayLike | None = None,
    aggregate: str = "sum",
    costs: str | ArrayLike = "linear",
    weighting: str = "pairs",
    request_qid: bool | str = "auto",
) -> Callable[..., float]:
    """A scikit-learn scorer (``scoring=``) for a multi-label ranker (docs/theory.md §2, §4, §5).

    Parameters
    ----------
    kind : one of :data:`SCORER_KINDS` (see the module docstring)
    label : int or column name, optional — the label of ``"auc"``/``"gauc"`` (None: the mean
        over the labels where the AUC is defined)
    a : mixing weights of ``"loss_aggregation"``; w, aggregate, costs : of
        ``"label_aggregation"`` (as :func:`~bipartite.learners.ranking_criterion`)
    weighting : {"pairs", "uniform", "impressions"} — query weights of the gAUCs (``"gauc"``, and
        ``"min_auc"``/``"diff_auc"`` with query ids); the criteria weigh queries uniformly.
    request_qid : "auto", bool — ``set_score_request(qid=True)`` on the scorer: "auto" does it
        for the kinds that use query ids when metadata routing is enabled now.

    Returns
    -------
    scorer : callable ``scorer(estimator, X, Y, **metadata)``; greater is better (``"diff_auc"``
        is negated). NaN with an :class:`~bipartite.UndefinedMetricWarning` on a split where it
        is undefined.

    >>> import numpy as np
    >>> from bipartite.learners import XGBRanker
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); Y = (X + rng.normal(size=(200, 2)) > 0).astype(int)
    >>> est = XGBRanker(n_estimators=10, n_jobs=1, random_state=0).fit(X, Y)
    >>> scorer = make_ranking_scorer("min_auc")
    >>> bool(0.5 < scorer(est, X, Y) <= 1.0)
    True
    """
    from sklearn import get_config
    from sklearn.metrics import make_scorer

    check_option(kind, "kind", SCORER_KINDS)
    check_option(weighting, "weighting", ("pairs", "uniform", "impressions"))
    if label is not None and kind not in ("auc", "gauc"):
        raise ValueError(f"The 'label' parameter is only used by kind='auc' or 'gauc', got "
                         f"kind={kind!r}.")
    greater = True
    if kind == "auc":
        func, kw = _auc_score, {"label": label}
    elif kind == "gauc":
        func, kw = _gauc_score, {"label": label, "weighting": weighting}
    elif kind in ("min_auc", "diff_auc"):
        func = _spread_score
        kw = {"statistic": "min" if kind == "min_auc" else "diff", "weighting": weighting}
        greater = kind == "min_auc"
    else:
        func = _criterion_score
        # one validation of the objective (options its kind does not use are refused by name)
        kw = {"objective": as_objective(kind, a=a, w=w, aggregate=aggregate, costs=costs)}
    scorer = make_scorer(func, response_method="decision_function", greater_is_better=greater,
                         **kw)
    if request_qid == "auto":
        request_qid = kind in _USES_QID and bool(get_config()["enable_metadata_routing"])
    if request_qid:
        if kind not in _USES_QID:
            raise ValueError(f"The 'request_qid' parameter is True but kind={kind!r} does not use "
                             "query ids (use 'gauc' for the per-query AUC).")
        scorer.set_score_request(qid=True)
    return scorer


def ranking_scorers(
    labels: int | Sequence[int | str],
    *,
    qid: bool = False,
    a: ArrayLike | None = None,
    w: ArrayLike | None = None,
    aggregate: str = "sum",
    costs: str | ArrayLike = "linear",
    weighting: str = "pairs",
) -> dict[str, Callable[..., float]]:
    """Named scorers for multi-metric ``scoring=``: ``"auc_<label>"`` per label (and
    ``"gauc_<label>"`` with ``qid=True``), ``"min_auc"``, ``"diff_auc"`` (negated),
    ``"loss_aggregation"``, ``"label_aggregation"``.

    ``labels``: the number of labels K, or their names (used in the keys; the scorers select
    columns by position). ``qid=True`` adds the gAUC scorers and requests query ids on every
    scorer that uses them (metadata routing must be enabled).

    >>> sorted(ranking_scorers(["relevant", "click"]))
    ['auc_click', 'auc_relevant', 'diff_auc', 'label_aggregation', 'loss_aggregation', 'min_auc']
    """
    if isinstance(labels, (int, np.integer)) and not isinstance(labels, bool):
        if labels < 1:
            raise ValueError(f"The 'labels' parameter must be a positive count or a sequence of "
                             f"names, got {labels!r}.")
        names = [str(k) for k in range(int(labels))]
    else:
        names = [str(x) for x in labels]
        if not names or len(set(names)) != len(names):
            raise ValueError(f"The 'labels' parameter must hold distinct names, got {names}.")
    req = bool(qid)
    out = {f"auc_{n}": make_ranking_scorer("auc", label=k, request_qid=False)
           for k, n in enumerate(names)}
    if qid:
        out.update({f"gauc_{n}": make_ranking_scorer("gauc", label=k, weighting=weighting,
                                                     request_qid=True)
                    for k, n in enumerate(names)})
    out["min_auc"] = make_ranking_scorer("min_auc", weighting=weighting, request_qid=req)
    out["diff_auc"] = make_ranking_scorer("diff_auc", weighting=weighting, request_qid=req)
    out["loss_aggregation"] = make_ranking_scorer("loss_aggregation", a=a, request_qid=req)
    out["label_aggregation"] = make_ranking_scorer("label_aggregation", w=w, aggregate=aggregate,
                                                   costs=costs, request_qid=req)
    return out
