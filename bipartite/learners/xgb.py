"""The XGBoost gbtree ranker (docs/theory.md §10).
"""


from __future__ import annotations

import difflib
import json
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from bipartite._utils.device import n_threads as _n_threads
from bipartite._utils.validation import (
    check_positive,
    check_random_state,
    check_sample_weight,
)
from bipartite.labels import cost_matrix
from bipartite.learners.base import (
    JOINT_MAX_LABELS,
    NO_COMPARABLE_PAIR,
    XGB_METHODS,
    RankerMixin,
    check_comparable_levels,
    check_objective,
    label_codes,
    plugin_ranking_scores,
    split_validation,
)
from bipartite.learners.maxmin import (
    XGB_DRO_STEP,
    MultiplicativeWeights,
    max_min_weights,
    sample_group_pairs,
    sampled_pair_losses,
)
from bipartite.metrics import QueryRows
from bipartite.population import label_vectors


# ---------------------------------------------------------------------------------------------
# XGBoost
# ---------------------------------------------------------------------------------------------
def _stacked_loss_aggregation(Y: np.ndarray, groups: np.ndarray, a: np.ndarray,
                              query_weight: np.ndarray | None = None):
    """Rows, binary labels, qids and group weights of the stacked loss-aggregation problem.

    One query group per (query, label k) with label ``Y_k`` and group weight
    ``ω_q a_k / n_q`` (n_q = query size, ω_q the query weight, default 1); groups without both
    classes, or with zero weight, are dropped (they hold no weighted pair).
    With XGBoost's ``lambdarank_pair_method="mean"`` each row draws the same number of partners
    uniformly among the rows of the other class, so a pair (i, j) of group (q, k) is drawn in
    expectation in proportion to ``1/n⁻ + 1/n⁺ = n_q / (n⁺ n⁻)``; with the group weight this
    gives pair weight ``ω_q a_k / (n⁺_qk n⁻_qk)``: the AUC-normalised loss-aggregation weights
    (docs/theory.md §4), exactly the weights of :func:`bipartite.surrogates.loss_aggregation_pair_weights`,
    times the query weight.

    Returned flat, groups in the order (query, label) with rows in their input order: ``idx``
    (the stacked rows' indices into X), ``labels`` and ``qid`` (per stacked row; qid sorted, as
    XGBoost needs) and ``gw`` (per group). Vectorised over queries and labels (no Python loop).
    """
    rows = QueryRows(groups, check_input=False)
    order, first, size = rows.order, rows.starts, rows.sizes  # each query's first position
    Yf = np.asarray(Y, dtype=np.float64)
    npos = rows.reduce(np.add, Yf)  # positives of each label per query
    wq = np.ones(len(first)) if query_weight is None else \
        np.asarray(query_weight, dtype=np.float64)[rows.query]
    keep = (np.asarray(a)[None, :] > 0) & (wq[:, None] > 0) & (npos > 0) & (npos < size[:, None])
    gq, gk = np.nonzero(keep)  # row-major: query-major, then label, as XGBoost's sorted qid
    lengths = size[gq]
    start = np.repeat(first[gq], lengths)
    pos = start + np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    idx = order[pos]
    labels = Yf[idx, np.repeat(gk, lengths)]
    qid = np.repeat(np.arange(len(gq)), lengths)
    gw = wq[gq] * np.asarray(a, dtype=np.float64)[gk] / lengths
    return idx, labels, qid, gw


def _stacked_label_aggregation(ybar: np.ndarray, groups: np.ndarray, costs: str | ArrayLike,
                               query_weight: np.ndarray | None = None):
    """Rows, binary labels, qids and group weights realising multipartite costs with rank:pairwise.

    For each query and each pair of levels ``y_a > y_b`` present in it, one binary group holds the
    rows at those two levels (label 1 for level a) with group weight
    ``ω_q c(y_a, y_b) n_a n_b / (n_a + n_b)`` (ω_q the query weight, default 1; zero-weight
    queries are dropped). Under ``lambdarank_pair_method="mean"`` a pair is
    drawn in proportion to ``(n_a + n_b)/(n_a n_b)`` (see :func:`_stacked_loss_aggregation`), so
    every pair (i, j) with ``ȳ_i > ȳ_j`` gets weight ``c(ȳ_i, ȳ_j)``: the multipartite cost
    weighting of docs/theory.md §3 for any cost family or matrix (levels = the sorted distinct values of
    Ȳ in the whole training set). Plain ``rank:pairwise`` on Ȳ would instead weight a pair by
    ``1/(n - n_{ȳ_i}) + 1/(n - n_{ȳ_j})``, which is neither uniform nor linear costs.
    Returned flat as in :func:`_stacked_loss_aggregation`.
    """
    levels = np.unique(ybar)
    C = cost_matrix(levels, costs)
    lev = np.searchsorted(levels, ybar)
    rows, labels, qid, gw = [], [], [], []
    queries = QueryRows(groups, check_input=False)
    g_id = 0
    for q, members in zip(queries.query, queries.split(), strict=True):
        wq = 1.0 if query_weight is None else float(query_weight[q])
        present = np.unique(lev[members]) if wq > 0 else []
        for ia, la in enumerate(present):
            for lb in present[:ia]:
                if C[la, lb] <= 0:
                    continue
                sel = members[(lev[members] == la) | (lev[members] == lb)]
                na = int(np.sum(lev[sel] == la))
                nb = len(sel) - na
                rows.append(sel)
                labels.append((lev[sel] == la).astype(np.float64))
                qid.append(np.full(len(sel), g_id))
                gw.append(wq * C[la, lb] * na * nb / (na + nb))
                g_id += 1
    if not rows:
        return (np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.int64),
                np.zeros(0))
    return np.concatenate(rows), np.concatenate(labels), np.concatenate(qid), np.asarray(gw)


def _rows32(X: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``X[idx]`` in float32, XGBoost's own feature type (lossless for it): the stacks repeat
    the rows up to K times (enron: 53 × 1 123 rows × 1 001 features), half the float64 copy."""
    return X.astype(np.float32, copy=False)[idx]


#: XGBoost parameters that XGBRanker sets itself from 'objective' and 'method'.
_RESERVED = ("objective", "num_class", "lambdarank_pair_method", "lambdarank_score_normalization",
             "lambdarank_num_pair_per_sample")
#: XGBoost names of XGBRanker's own parameters: pass the own name.
_OWN_ALIASES = {"eta": "learning_rate", "nthread": "n_jobs", "seed": "random_state",
                "num_boost_round": "n_estimators"}
_UNUSED_RE = re.compile(r"Parameters: \{ (.*?) \} are not used")


def _config_keys(config: Any) -> set[str]:
    """Every key of XGBoost's JSON configuration (the parameters the configured booster knows)."""
    if isinstance(config, dict):
        return set(config) | set().union(*(_config_keys(v) for v in config.values()))
    if isinstance(config, list):
        return set().union(*(_config_keys(v) for v in config)) if config else set()
    return set()


class XGBRanker(RankerMixin, BaseEstimator):
    """Gradient-boosted trees (XGBoost gbtree) for loss or label aggregation (docs/theory.md §4, §5, §10).

    Notes
    -----
    ``method="pairwise"``
        XGBoost's RankNet objective ``rank:pairwise`` (logistic pairwise loss) with
        ``lambdarank_pair_method="mean"`` (each row draws ``num_pair_per_sample`` partners
        uniformly among rows of another label, per round), ``lambdarank_score_normalization=False``
        (the 3.x default divides each pair's gradient by the score gap, which would change the
        loss) and per-group weights. The rows are *stacked* so that the expected pair weights are
        exactly the objective's:

        - loss aggregation: one query group per (query, label k), label ``Y_k``, group weight
          ``a_k/n_q``: pair weight ``a_k/(n⁺_k n⁻_k)``, i.e. Σ_k a_k × (AUC_k-normalised pairwise
          logistic loss), the §4 objective (see :func:`_stacked_loss_aggregation`). Chosen over a
          custom objective because XGBoost's own sampled-pair kernel is O(n · pairs per row) in C++;
          an exact custom pairwise gradient would be O(n²) per round in Python.
        - label aggregation: one binary group per (query, pair of levels of Ȳ), weighted so that a
          pair (i, j) with ``ȳ_i > ȳ_j`` gets cost ``c(ȳ_i, ȳ_j)`` (any costs; see
          :func:`_stacked_label_aggregation`). Plain ``rank:pairwise`` on Ȳ would weight pairs by
          the sizes of the other levels — neither uniform nor linear costs.

        Without ``qid`` the whole training set is one query. The data are copied K times (loss
        aggregation) or ``L-1``..``L(L-1)/2`` times in total size (label aggregation).
    ``method="plugin"``
        One ``binary:logistic`` booster per label (η̂_k), combined by the Bayes closed form with π̂ =
        training label means; for label aggregation whose ψ needs the joint (not affine in Y:
        product, or; :attr:`bipartite.labels.Aggregation.needs_joint`) one ``multi:softprob`` booster over
        the ``2**K`` label vectors (the joint). ``qid`` does not enter the (pointwise) heads.

    ``objective="max_min"`` (maximise ``min_k AUC_k``, docs/theory.md §13.6)
        ``"plugin"``: the K heads are trained on ``1 − validation_fraction`` of the rows (of the
        queries with ``qid``, seeded), then the mixing weights ``a_`` of
        ``Σ_k a_k η̂_k/(π̂_k(1−π̂_k))`` that maximise the min AUC (gAUC with ``qid``) on the
        held-out rows are chosen (:func:`bipartite.learners.maxmin.max_min_weights`).
        ``"pairwise"``: boosting on the loss-aggregation stack (a = 1) tree by tree, re-weighting
        the stacked groups of label k by ``q_k`` every ``dro_every`` trees, ``q_k ← q_k
        exp(dro_step · L_k)`` normalised, with ``L_k`` the AUC-normalised logistic pairwise loss
        of label k on a fixed seeded sample of pairs (group DRO between rounds). XGBoost's
        ranking objective normalises the group weights to mean 1 once, when it first sees the
        data, so the loop keeps their sum fixed: ``DMatrix.set_weight`` between rounds then
        trains exactly as a fresh DMatrix with the new weights would.

    Sample weights (``fit(..., sample_weight=ω)``), exactly:

    - ``"plugin"``: per-row weights of every head's log-loss (XGBoost's instance weights), and of
      the priors π̂_k = Σ ω_i y_ik / Σ ω_i used by the closed form. Any non-negative weights.
    - ``"pairwise"``: XGBoost's ranking objectives take **one weight per query group**, while a
      per-row weight would need ``ω_i ω_j`` on every pair. So ``sample_weight`` must be constant
      within each query: ``ω_q`` is the query's weight and multiplies that query's whole term
      of the objective (loss aggregation: ``ω_q Σ_k a_k × (AUC_qk-normalised loss)``; label
      aggregation: ``ω_q Σ_{pairs in q} c(ȳ_i, ȳ_j) φ``); zero-weight queries are dropped.
      Without ``qid`` (one query) the weights must be equal. Weights that vary within a query
      raise a ``ValueError`` naming the route and the query (use ``method="plugin"`` for
      per-row weights); they are never approximated.

    Missing values: NaN features are XGBoost's missing values (each split learns a default
    direction); ``inf`` is refused.

    Parameters
    ----------
    objective, a, w, aggregate, costs : as :class:`MLPRanker`.
    n_estimators : int — boosting rounds. learning_rate, max_depth : usual XGBoost parameters.
    num_pair_per_sample : int — ``lambdarank_num_pair_per_sample`` (pairwise only); also the
        pairs per row of the sample on which the max-min pairwise loop measures ``L_k``.
    validation_fraction : float in (0, 1) — max-min plug-in only: the share of rows (queries with
        ``qid``) held out to choose ``a_`` (default 0.25: the rare label's AUC needs held-out
        positives; see docs/theory.md §13.6).
    dro_step : float >= 0 — max-min pairwise only: the step η_q of the label weights per
        re-weighting (default 0.5; 0 keeps loss aggregation with a = 1).
    dro_every : int — max-min pairwise only: trees between re-weightings (default 5).
    n_jobs : int or None — XGBoost threads. None (default) leaves XGBoost's default: all the
        cores OpenMP sees; -1 all cores, -2 all but one, ... The studies pass ``n_jobs=1`` (their
        runner parallelises over tasks), so they are unaffected by the default; on a shared
        machine pass 1 too.
    random_state : None, int or numpy Generator — XGBoost ``seed``.
    verbose : bool — tqdm progress bar over boosting rounds.
    max_joint_labels : int — size limit of the plug-in joint head (a ψ that needs the joint,
        ``2**K`` classes), checked before training; default ``JOINT_MAX_LABELS = 12``.
    **xgb_params : further XGBoost booster parameters (e.g. ``min_child_weight``, ``subsample``,
        ``tree_method``, ``device``); they appear in ``get_params`` and survive ``clone``. At fit,
        a parameter that XGBoost does not use for the route's objective (a misspelling such as
        ``max_dept``) raises a ``ValueError`` naming it, with the closest known name.

    Query ids in model selection: see :class:`MLPRanker` and :mod:`bipartite.learners.scoring`
    (``set_fit_request(qid=True, sample_weight=True)``, ``set_score_request(qid=True)``; request
    defaults: not requested, an error if passed unrequested).

    Attributes
    ----------
    n_labels_ : int — number of labels K
    n_queries_ : int or None — number of query ids seen at fit (None: fitted without ``qid``)
    prior_ : ndarray (K,) — (weighted) training label means
    trained_labels_ : ndarray (K,) of bool — the labels the objective optimises. A label with a
        single class in the training rows (prior 0 or 1: its AUC is undefined there) is left out
        of loss aggregation and max-min, with a ``UserWarning`` naming it, before any training
        (:func:`bipartite.learners.base.trained_labels`); label aggregation keeps every label.
    boosters_ : list of ``xgboost.Booster`` — one per label (plug-in), else a single booster
    a_ : ndarray (K,) — max-min plug-in: the chosen mixing weights
    val_auc_ : ndarray (K,) — max-min plug-in: per-label held-out AUCs (gAUC with ``qid``) of the
        chosen scorer
    val_min_auc_ : float — max-min plug-in: the min of ``val_auc_``
    a_search_ : :class:`~bipartite.learners.maxmin.MaxMinChoice` — max-min plug-in: the search
    dro_weights_ : ndarray (K,) — max-min pairwise: the final label weights q
    dro_weights_mean_ : ndarray (K,) — max-min pairwise: q averaged over the re-weightings
    dro_history_ : ndarray (updates + 1, K) — max-min pairwise: q after every re-weighting

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> Y = (X + 0.5 * rng.normal(size=(300, 2)) > 0).astype(int)
    >>> est = XGBRanker(n_estimators=20, n_jobs=1, random_state=0).fit(X, Y)
    >>> bool(est.score(X, Y) > 0.8)
    True
    """

    def __init__(
        self,
        objective: str = "loss_aggregation",
        method: str = "pairwise",
        a: ArrayLike | None = None,
        w: ArrayLike | None = None,
        aggregate: str | Callable[[np.ndarray], float] = "sum",
        costs: str | ArrayLike = "linear",
        n_estimators: int = 200,
        learning_rate: float = 0.1,
        max_depth: int = 4,
        num_pair_per_sample: int = 8,
        validation_fraction: float = 0.25,
        dro_step: float = XGB_DRO_STEP,
        dro_every: int = 5,
        n_jobs: int | None = None,
        random_state: int | np.random.Generator | None = None,
        verbose: bool = False,
        max_joint_labels: int = JOINT_MAX_LABELS,
        **xgb_params: Any,
    ):
        self.objective = objective
        self.method = method
        self.a = a
        self.w = w
        self.aggregate = aggregate
        self.costs = costs
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.num_pair_per_sample = num_pair_per_sample
        self.validation_fraction = validation_fraction
        self.dro_step = dro_step
        self.dro_every = dro_every
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.max_joint_labels = max_joint_labels
        self.verbose = verbose
        self._xgb_params = dict(xgb_params)

    def get_params(self, deep: bool = True) -> dict:
        params = super().get_params(deep=deep)
        params.update(self._xgb_params)
        return params

    def set_params(self, **params: Any) -> XGBRanker:
        own = set(self._get_param_names())
        for key, value in params.items():
            if key in own:
                setattr(self, key, value)
            else:
                self._xgb_params[key] = value
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # NaN = XGBoost's missing value
        return tags

    def _check_params(self) -> None:
        check_objective(self, XGB_METHODS)
        check_positive(self.n_estimators, "n_estimators", integer=True)
        check_positive(self.learning_rate, "learning_rate")
        check_positive(self.max_depth, "max_depth", integer=True, allow_zero=True)
        check_positive(self.num_pair_per_sample, "num_pair_per_sample", integer=True)
        check_positive(self.dro_step, "dro_step", allow_zero=True)
        check_positive(self.dro_every, "dro_every", integer=True)
        vf = self.validation_fraction
        if isinstance(vf, bool) or not isinstance(vf, int | float) or not 0 < vf < 1:
            raise ValueError(f"The 'validation_fraction' parameter must be in (0, 1), got {vf!r}.")
        if self.n_jobs is not None:
            _n_threads(self.n_jobs)
        clash = sorted(set(_RESERVED) & set(self._xgb_params))
        if clash:
            raise ValueError(
                f"The XGBoost parameters {clash} are set by XGBRanker from 'objective' and "
                "'method'; do not pass them."
            )
        alias = sorted(set(_OWN_ALIASES) & set(self._xgb_params))
        if alias:
            raise ValueError(
                f"The XGBoost parameters {alias} duplicate XGBRanker's own parameters; pass "
                + ", ".join(f"{_OWN_ALIASES[k]}= instead of {k}=" for k in alias) + "."
            )

    def _booster_params(self, seed: int) -> dict:
        params = {
            "booster": "gbtree",
            "tree_method": "hist",
            "eta": float(self.learning_rate),
            "max_depth": int(self.max_depth),
            "seed": seed,
            "verbosity": 0,
        }
        if self.n_jobs is not None:  # None: XGBoost's default thread count
            params["nthread"] = _n_threads(self.n_jobs)
        params.update(self._xgb_params)
        return params

    def _check_xgb_params(self, params: dict, n_features: int) -> None:
        """Ask XGBoost which of the user's ``xgb_params`` it does not use for ``params``'s
        objective: one boosting round on a 2-row matrix with warnings on (about a millisecond);
        raise a ``ValueError`` naming them."""
        import xgboost as xgb

        if not self._xgb_params:
            return
        obj = params["objective"]
        label = np.array([0.0, 1.0])
        qid = np.array([0, 0]) if obj.startswith("rank:") else None
        d = self._dmatrix(np.zeros((2, n_features)), label=label, qid=qid)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            booster = xgb.Booster({**params, "verbosity": 1, "validate_parameters": True}, [d])
            booster.update(d, 0)
        unused = []
        for rec in caught:
            match = _UNUSED_RE.search(str(rec.message))
            if match:
                unused += re.findall(r'"([^"]+)"', match.group(1))
        unknown = sorted(k for k in set(unused) if k in self._xgb_params)
        if not unknown:
            return
        known = _config_keys(json.loads(booster.save_config())) | set(self._get_param_names())
        hints = []
        for k in unknown:
            close = difflib.get_close_matches(k, sorted(known), n=1, cutoff=0.7)
            hints.append(f"{k!r} (did you mean {close[0]!r}?)" if close else repr(k))
        raise ValueError(
            f"XGBRanker got XGBoost parameter(s) that XGBoost does not use with objective "
            f"{obj!r} (method={self.method!r}): {', '.join(hints)}. XGBRanker's own parameters "
            f"are {sorted(self._get_param_names())}; other keyword arguments are XGBoost booster "
            "parameters (https://xgboost.readthedocs.io/en/stable/parameter.html)."
        )

    def _dmatrix(self, X: np.ndarray, **kwargs: Any):
        """``xgboost.DMatrix`` built with the ranker's threads (``n_jobs``; None: XGBoost's
        default). On a busy 2-core machine the default all-core conversion took 95 ms for a
        300 × 6 matrix against 0.6 ms with one thread (OpenMP waits on the busy cores)."""
        import xgboost as xgb

        if self.n_jobs is not None:
            kwargs["nthread"] = _n_threads(self.n_jobs)
        return xgb.DMatrix(X, **kwargs)

    def _train(self, params: dict, dtrain, desc: str):
        import xgboost as xgb
        from tqdm.auto import tqdm

        callbacks = []
        if self.verbose:
            bar = tqdm(total=int(self.n_estimators), desc=desc, leave=False)

            class _Progress(xgb.callback.TrainingCallback):
                def after_iteration(self, model, epoch, evals_log):
                    bar.update(1)
                    return False

            callbacks.append(_Progress())
        booster = xgb.train(
            params, dtrain, num_boost_round=int(self.n_estimators), callbacks=callbacks
        )
        if self.verbose:
            bar.close()
        return booster

    def _query_weights(self, sw: np.ndarray | None, g: np.ndarray, qname: str,
                       raw_qid: ArrayLike | None) -> np.ndarray | None:
        """Per-query weights ω_q from per-row ``sample_weight`` (pairwise route): the weights must
        be constant within each query (XGBoost ranking weights are per group)."""
        if sw is None:
            return None
        lo = np.full(int(g.max()) + 1, np.inf)
        hi = np.full(int(g.max()) + 1, -np.inf)
        np.minimum.at(lo, g, sw)
        np.maximum.at(hi, g, sw)
        bad = np.flatnonzero(hi - lo > 1e-12 * np.maximum(1.0, np.abs(hi)))
        if bad.size:
            rows = np.flatnonzero(g == bad[0])
            if self.n_queries_ is None:
                where = "the training set (one query: no 'qid' given)"
            else:
                value = np.unique(np.asarray(raw_qid))[bad[0]].item()
                where = f"the query {qname}={value!r} (rows {rows[:5].tolist()}...)"
            raise ValueError(
                f"XGBRanker(method='pairwise', objective={self.objective!r}) cannot honour per-row "
                f"'sample_weight': XGBoost's ranking objective takes one weight per query group, "
                f"and the weights vary within {where}: from {lo[bad[0]]:g} to {hi[bad[0]]:g}. "
                "Pass weights constant within each query (query weights) with qid=, or use "
                "method='plugin' (per-row weights of the per-label heads)."
            )
        return lo

    def fit(self, X: ArrayLike, Y: ArrayLike, qid: ArrayLike | None = None, *, sample_weight: ArrayLike | None = None,
            groups: ArrayLike | None = None) -> XGBRanker:
        """Fit on features X (n, d) (NaN = missing), binary labels Y (n, K), optional query ids
        ``qid`` (n,) and ``sample_weight`` (n,) (see the class docstring for how the weights
        enter each method). ``groups`` is a deprecated alias of ``qid`` (FutureWarning)."""

        self._check_params()
        qname, raw_qid = ("groups", groups) if groups is not None else ("qid", qid)
        X, Y, codes = self._validate_fit_input(X, Y, qid, groups, allow_nan=True)
        n, K = Y.shape
        sw = None if sample_weight is None else check_sample_weight(sample_weight, n)
        if sw is not None and not sw.sum() > 0:
            raise ValueError("The 'sample_weight' parameter must have a positive entry, got all "
                             "zeros.")
        rng = check_random_state(self.random_state, "random_state")
        seed = int(rng.integers(2**31 - 1))
        spec = self._fit_labels(Y, sw)  # before any training: single-class labels left out
        ybar = spec.aggregated_labels(Y)  # None: the K labels themselves are ranked
        if ybar is not None:  # before any training: something to rank
            rows = slice(None) if sw is None else sw > 0
            check_comparable_levels(ybar[rows], None if codes is None else codes[rows])
        params = self._booster_params(seed)
        if self.method == "plugin":
            if self.joint_head_:
                p = {**params, "objective": "multi:softprob", "num_class": 2**K}
                self._check_xgb_params(p, X.shape[1])
                codes = label_codes(Y)
                if np.unique(codes).size < 2:
                    raise ValueError(
                        "The 'Y' parameter holds a single label vector: nothing to fit."
                    )
                d = self._dmatrix(X, label=codes, weight=sw)
                self.boosters_ = [self._train(p, d, "XGB joint")]
            else:
                p = {**params, "objective": "binary:logistic"}
                self._check_xgb_params(p, X.shape[1])
                tr = np.arange(n)
                if not spec.fixed_weights:
                    tr, va = split_validation(n, codes, float(self.validation_fraction), rng)
                    if len(va) == 0:
                        raise ValueError(
                            "objective='max_min' with method='plugin' holds out "
                            f"validation_fraction={self.validation_fraction} of the "
                            f"{'queries' if codes is not None else 'rows'} to choose a_, which "
                            "leaves none here: pass more data or a larger 'validation_fraction'.")
                # one DMatrix for the K heads, its label set per head (K conversions of X
                # saved: K = 174 on CAL500)
                d = self._dmatrix(X[tr], label=Y[tr, 0],
                                  weight=None if sw is None else sw[tr])
                self.boosters_ = []
                for k in range(K):
                    d.set_label(Y[tr, k])
                    self.boosters_.append(self._train(p, d, f"XGB label {k + 1}"))
                if not spec.fixed_weights:
                    self._choose_weights(X[va], Y[va], None if codes is None else codes[va],
                                         None if sw is None else sw[va])
            return self
        p = {
            **params,
            "objective": "rank:pairwise",
            "lambdarank_pair_method": "mean",
            "lambdarank_num_pair_per_sample": int(self.num_pair_per_sample),
            "lambdarank_score_normalization": False,
        }
        self._check_xgb_params(p, X.shape[1])
        g = codes if codes is not None else np.zeros(n, dtype=np.int64)
        wq = self._query_weights(sw, g, qname, raw_qid)
        if not spec.fixed_weights:
            self.boosters_ = [self._train_dro(p, X, Y, g, wq, rng)]
            return self
        if ybar is not None:  # the pairs of the levels of Ȳ, weighted by the costs
            parts = _stacked_label_aggregation(ybar, g, self.costs, wq)
        else:  # each label's pairs, weighted by the mixing weights
            a = spec.mixing_weights(K)
            parts = _stacked_loss_aggregation(Y, g, np.ones(K) if a is None else a, wq)
        idx, labels, qid_stacked, gw = parts
        if not len(gw):
            raise ValueError(NO_COMPARABLE_PAIR)
        # float32 labels and weights, uint32 qid: XGBoost's own types (float64 or int64 meta
        # data cost a conversion pass each); X is copied only when the stack reorders it
        same = len(idx) == len(X) and bool(np.all(idx == np.arange(len(X))))
        dtrain = self._dmatrix(
            X if same else _rows32(X, idx), label=labels.astype(np.float32),
            qid=qid_stacked.astype(np.uint32), weight=np.asarray(gw, dtype=np.float32),
        )
        self.boosters_ = [self._train(p, dtrain, "XGB pairwise")]
        return self

    def _choose_weights(self, Xv: np.ndarray, Yv: np.ndarray, gv: np.ndarray | None,
                        swv: np.ndarray | None) -> None:
        """Max-min plug-in: the mixing weights a_ maximising the held-out min AUC."""

        d = self._dmatrix(Xv)
        eta = np.column_stack([b.predict(d).astype(np.float64) for b in self.boosters_])
        r = np.ones(len(Yv)) if swv is None else swv
        self._record_max_min(max_min_weights(eta, self.prior_, r[:, None] * Yv,
                                             r[:, None] * (1.0 - Yv), gv,
                                             keep=self.trained_labels_))

    def _train_dro(self, params: dict, X: np.ndarray, Y: np.ndarray, g: np.ndarray,
                   wq: np.ndarray | None, rng: np.random.Generator):
        """Max-min pairwise: boosting on the loss-aggregation stack with group-DRO label weights
        re-set every ``dro_every`` trees (see the class docstring)."""
        import xgboost as xgb
        from tqdm.auto import tqdm

        K = Y.shape[1]
        rows, labels, base, glabel = [], [], [], []
        for k in range(K):
            idx, lab, qs, gw = _stacked_loss_aggregation(Y, g, np.eye(K)[k], wq)
            cut = np.flatnonzero(np.diff(qs)) + 1
            rows += np.split(idx, cut) if len(idx) else []
            labels += np.split(lab, cut) if len(idx) else []
            base += gw.tolist()
            glabel += [k] * len(gw)
        if not rows:
            raise ValueError(NO_COMPARABLE_PAIR)
        sizes = np.array([len(r) for r in rows])
        base, glabel = np.asarray(base), np.asarray(glabel)
        omega = base * sizes  # each group's query weight ω_q (a_k = 1)
        D = np.bincount(glabel, omega, minlength=K)
        # per-label normaliser: L_k is a mean over the label's queries, whatever their number
        norm = np.where(D > 0, D[D > 0].mean() / np.where(D > 0, D, 1.0), 0.0)
        total = float(np.sum(base * norm[glabel]))

        def weights(q: np.ndarray) -> np.ndarray:
            w = base * norm[glabel] * q[glabel]
            # XGBoost normalises the weights once: keep the sum. float32: XGBoost's own type
            # (a float64 array costs ~10 ms per set_weight in xgboost 3.2, float32 ~0.02 ms)
            return (w * (total / w.sum())).astype(np.float32)

        offsets = np.r_[0, np.cumsum(sizes)[:-1]]
        pi, pj, pg = sample_group_pairs(labels, offsets, int(self.num_pair_per_sample), rng)
        mw = MultiplicativeWeights(K, self.dro_step)
        dtrain = self._dmatrix(_rows32(X, np.concatenate(rows)),
                             label=np.concatenate(labels).astype(np.float32),
                             qid=np.repeat(np.arange(len(rows)), sizes).astype(np.uint32),
                             weight=weights(mw.q))
        booster = xgb.Booster(params, [dtrain])
        history = [mw.q.copy()]
        T, every = int(self.n_estimators), int(self.dro_every)
        for i in tqdm(range(T), disable=not self.verbose, desc="XGB max-min", leave=False):
            booster.update(dtrain, i)
            if (i + 1) % every == 0 and i + 1 < T:
                margin = booster.predict(dtrain, output_margin=True).astype(np.float64)
                mw.update(sampled_pair_losses(margin, pi, pj, pg, glabel, omega, K))
                dtrain.set_weight(weights(mw.q))
                history.append(mw.q.copy())
        self.dro_weights_, self.dro_weights_mean_ = mw.q.copy(), mw.mean
        self.dro_history_ = np.array(history)
        return booster

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Ranking scores, shape (n,): higher ranks first (ties count ½ in every AUC); NaN
        features are missing values."""

        check_is_fitted(self, "boosters_")
        X = self._validate_X(X, reset=False, ensure_all_finite="allow-nan")
        d = self._dmatrix(X)
        if self.method == "pairwise":
            return self.boosters_[0].predict(d, output_margin=True).astype(np.float64)
        if self.joint_head_:
            P = self.boosters_[0].predict(d).astype(np.float64).reshape(len(X), -1)
            P /= P.sum(axis=1, keepdims=True)  # float32 softmax rows: renormalise in float64
            eta = P @ label_vectors(self.n_labels_)
            return plugin_ranking_scores(eta, P, self.prior_, self._plugin_spec())
        eta = np.column_stack([b.predict(d).astype(np.float64) for b in self.boosters_])
        return plugin_ranking_scores(eta, None, self.prior_, self._plugin_spec(),
                                     getattr(self, "trained_labels_", None))
